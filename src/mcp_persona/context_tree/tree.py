"""The Context-Tree: one app user's state, with CRUD over the declared hierarchy.

The state is a plain JSON-shaped dict owned by one episode, in memory: children of
one type are id-indexed maps under their parent, links to other entities are ids.
Every write goes through this class so that parents and references are checked
and the write can be rolled back: a tool runs inside :meth:`ContextTree.transaction`,
and a rejected call leaves the state exactly as it was.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from mcp_persona.context_tree.hierarchy import Hierarchy
from mcp_persona.context_tree.ids import generate_id
from mcp_persona.context_tree.path import PathError, Segment, entity_path, parse_path

Entity = dict[str, Any]
_MISSING = object()


class TreeError(Exception):
    """Base of the errors a tree operation raises; the message says what to fix."""


class NotFoundError(TreeError):
    pass


class ConflictError(TreeError):
    pass


class ReferenceError_(TreeError):
    pass


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def leaves(data: Any) -> Iterator[Any]:
    """Every scalar inside a JSON value (dict values and list items, depth first), in order."""
    if isinstance(data, dict):
        for v in data.values():
            yield from leaves(v)
    elif isinstance(data, list):
        for v in data:
            yield from leaves(v)
    else:
        yield data


def canonical_hash(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def get_field(entity: Any, dotted: str) -> Any:
    """``entity['a']['b']`` for ``'a.b'``; None when any step is absent."""
    cur = entity
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


class ContextTree:
    def __init__(self, hierarchy: Hierarchy, data: dict[str, Any], *, seed: int = 0) -> None:
        self.hierarchy = hierarchy
        self.data = data
        self.rng = random.Random(seed)
        self._journal: list[Callable[[], None]] | None = None

    # -- reading ---------------------------------------------------------------------------------
    def get(self, path: str) -> Entity:
        """The entity at ``path``, which must end in an id selector."""
        segments = parse_path(path)
        self.hierarchy.resolve(segments)
        if any(s.selector is None or s.is_wildcard for s in segments):
            raise PathError(f"get needs a path to one entity (an id in every [...]), got {path!r}")
        return self._walk_to(segments)

    def _walk_to(self, segments: tuple[Segment, ...]) -> Entity:
        """The entity the id-selected ``segments`` name (the root for none)."""
        node: Entity = self.data
        for depth, seg in enumerate(segments):
            children = node.get(seg.name)
            if not isinstance(children, dict) or seg.selector not in children:
                where = ".".join(str(s) for s in segments[: depth + 1])
                raise NotFoundError(f"no entity at {where}")
            node = children[seg.selector]
        return node

    def try_get(self, path: str) -> Entity | None:
        try:
            return self.get(path)
        except NotFoundError:
            return None

    def list(
        self, path: str, filters: dict[str, Any] | None = None, limit: int | None = None
    ) -> list[Entity]:
        """Entities of the collection at ``path``; ``[*]`` anywhere traverses every parent.

        ``filters`` maps dotted field names to required values (equality). Ids given in
        the path are strict: an unknown parent id is an error, not an empty list.
        """
        segments = parse_path(path)
        self.hierarchy.resolve(segments)
        if limit is not None and limit < 0:
            raise ValueError("limit must be >= 0")
        last = segments[-1]
        if last.selector is not None and not last.is_wildcard:
            found = [e for e in self._parents(segments) if _matches(e, filters)]
            return found if limit is None else found[:limit]
        out: list[Entity] = []
        for parent in self._parents(segments[:-1]):
            children = parent.get(last.name)
            if not isinstance(children, dict):
                continue
            for entity in children.values():
                if limit is not None and len(out) >= limit:
                    return out
                if _matches(entity, filters):
                    out.append(entity)
        return out

    def _parents(self, segments: tuple[Segment, ...]) -> Iterator[Entity]:
        nodes: list[Entity] = [self.data]
        for depth, seg in enumerate(segments):
            nxt: list[Entity] = []
            for node in nodes:
                children = node.get(seg.name)
                if not isinstance(children, dict):
                    children = {}
                if seg.selector is None or seg.is_wildcard:
                    nxt.extend(children.values())
                elif seg.selector in children:
                    nxt.append(children[seg.selector])
            if not nxt and seg.selector is not None and not seg.is_wildcard:
                where = ".".join(str(s) for s in segments[: depth + 1])
                raise NotFoundError(f"no entity at {where}")
            nodes = nxt
        yield from nodes

    def top(self, entity_type: str, entity_id: str) -> Entity | None:
        """A top-level entity by id, or None: a plain lookup, safe for any id text."""
        decl = self.hierarchy.entities[entity_type]
        if decl.parent is not None:
            raise TreeError(f"{entity_type} is not a top-level entity type")
        return (self.data.get(decl.collection) or {}).get(entity_id)

    def find(self, entity_type: str, entity_id: str) -> tuple[str, Entity] | None:
        """Locate an entity of ``entity_type`` by id anywhere in the tree."""
        for etype, path, entity in self.hierarchy.iter_entities(self.data):
            if etype == entity_type and entity.get(self.hierarchy.entities[etype].id_field) == entity_id:
                return path, entity
        return None

    def exists(self, entity_type: str, entity_id: str) -> bool:
        ent = self.hierarchy.entities[entity_type]
        if ent.parent is None:  # top-level: direct lookup
            return entity_id in (self.data.get(ent.collection) or {})
        return self.find(entity_type, entity_id) is not None

    # -- writing ---------------------------------------------------------------------------------
    def new_id(self, entity_type: str) -> str:
        fmt = self.hierarchy.entities[entity_type].id_format
        if fmt is None:
            raise TreeError(f"{entity_type} ids are not generated; the caller must supply one")
        return generate_id(fmt, self.rng)

    def create(self, path: str, entity: Entity, *, entity_id: str | None = None) -> Entity:
        """Add ``entity`` to the collection at ``path`` (every parent named by id).

        The id comes from ``entity_id``, else the entity's id field, else the type's
        generator. The parent must exist, the id must be new, and every reference
        field must name an existing entity.
        """
        parents, collection, etype = self._create_target(path)
        decl = self.hierarchy.entities[etype]
        parent = self._walk_to(parents)
        eid = entity_id or entity.get(decl.id_field) or self.new_id(etype)
        if not isinstance(eid, str) or not eid:
            raise TreeError(f"{decl.id_field} must be a non-empty string")
        children = parent.get(collection)
        if children is not None and not isinstance(children, dict):
            raise TreeError(f"{path} is not a collection")
        if children is not None and eid in children:
            raise ConflictError(f"{etype} {eid!r} already exists at {path}")
        new = dict(entity)
        new[decl.id_field] = eid
        self._check_references(etype, new)
        if children is None:
            children = {}
            self._set(parent, collection, children)
        self._set(children, eid, new)
        return new

    def _create_target(self, path: str) -> tuple[tuple[Segment, ...], str, str]:
        """The parent segments, collection key and entity type a create at ``path`` writes to; raises the
        PathError of a path that is not a collection under id-named parents. Memoized per hierarchy and path
        (both immutable; tools write to the same few collections over and over), bounded like ``parse_path``."""
        memo = self.hierarchy._create_targets
        target = memo.get(path)
        if target is None:
            segments = parse_path(path)
            types = self.hierarchy.resolve(segments)
            last = segments[-1]
            if last.selector is not None:
                raise PathError(f"create needs a path to a collection (no [...] at the end), got {path!r}")
            if any(s.selector is None or s.is_wildcard for s in segments[:-1]):
                raise PathError(f"create needs every parent named by id, got {path!r}")
            if len(memo) >= 8192:
                memo.clear()
            target = memo[path] = (segments[:-1], last.name, types[-1])
        return target

    def update(self, path: str, changes: dict[str, Any]) -> Entity:
        """Set the given fields of the entity at ``path`` (``None`` values remove a field)."""
        entity = self.get(path)
        etype = self.hierarchy.type_of(path)
        decl = self.hierarchy.entities[etype]
        if decl.id_field in changes and changes[decl.id_field] != entity.get(decl.id_field):
            raise ConflictError(f"{decl.id_field} of a {etype} cannot be changed")
        child_collections = set(self.hierarchy.child_types(etype))
        bad = child_collections & set(changes)
        if bad:
            raise ConflictError(f"{sorted(bad)} are child collections; use create/delete on them")
        self._check_references(etype, {k: v for k, v in changes.items() if v is not None})
        for key, value in changes.items():
            if value is None:
                if key in entity:
                    self._pop(entity, key)
            else:
                self._set(entity, key, value)
        return entity

    def delete(self, path: str) -> Entity:
        """Remove the entity at ``path`` with its whole subtree; return it."""
        segments = parse_path(path)
        self.get(path)  # validates and raises NotFoundError
        parent = self.get(".".join(str(s) for s in segments[:-1])) if len(segments) > 1 else self.data
        return self._pop(parent[segments[-1].name], segments[-1].selector)

    def _check_references(self, etype: str, entity: Entity) -> None:
        for field, target in self.hierarchy.entities[etype].references.items():
            value = entity.get(field)
            if value is None:
                continue
            ids = value if isinstance(value, list) else [value]
            for ref in ids:
                if not isinstance(ref, str) or not self.exists(target, ref):
                    raise ReferenceError_(f"{field}: no {target} with id {ref!r}")

    # -- transactions ----------------------------------------------------------------------------
    def _set(self, container: dict[str, Any], key: str, value: Any) -> None:
        if self._journal is not None:
            old = container.get(key, _MISSING)
            self._journal.append(lambda: _restore(container, key, old))
        container[key] = value

    def _pop(self, container: dict[str, Any], key: str) -> Any:
        old = container.pop(key)
        if self._journal is not None:
            self._journal.append(lambda: _restore(container, key, old))
        return old

    def transaction(self) -> _Transaction:
        """All writes inside either all stay or, on any exception, are all undone.

        Nested, only the inner block's writes are undone, and the outer block owns the log. A small
        class rather than a ``@contextmanager`` generator: every tool call runs in one, so its cost counts.
        """
        return _Transaction(self)

    # -- whole-state helpers ---------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self.data)

    def hash(self) -> str:
        return canonical_hash(self.data)

    def path_of(self, entity_type: str, entity: Entity, parent_path: str | None) -> str:
        decl = self.hierarchy.entities[entity_type]
        return entity_path(parent_path, decl.collection, entity[decl.id_field])


class _Transaction:
    __slots__ = ("mark", "outer", "tree")

    def __init__(self, tree: ContextTree) -> None:
        self.tree = tree
        self.outer = False
        self.mark = 0

    def __enter__(self) -> None:
        tree = self.tree
        if tree._journal is None:
            tree._journal = []
            self.outer = True
        else:  # nested: undo only this block's writes on failure
            self.mark = len(tree._journal)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
                 ) -> None:
        tree = self.tree
        journal = tree._journal
        try:
            if exc_type is not None and journal is not None:
                for undo in reversed(journal[self.mark:]):
                    undo()
                del journal[self.mark:]
        finally:
            if self.outer:
                tree._journal = None


def _restore(container: dict[str, Any], key: str, old: Any) -> None:
    if old is _MISSING:
        container.pop(key, None)
    else:
        container[key] = old


def _matches(entity: Entity, filters: dict[str, Any] | None) -> bool:
    if not filters:
        return True
    return all(get_field(entity, k) == v for k, v in filters.items())
