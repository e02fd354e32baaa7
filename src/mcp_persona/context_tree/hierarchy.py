"""The declared shape of one app's Context-Tree.

A hierarchy names the app's entity types, where each lives (its collection key
under its parent; ``parent: null`` means under the user root), the field that
holds its id, how new ids are made, and which fields reference other entities.
It is data (``data/hierarchies/<app>.json``), validated on load.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mcp_persona.context_tree.ids import IdFormat
from mcp_persona.context_tree.path import WILDCARD, PathError, Segment, parse_path


class EntityType(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    collection: str = Field(description="key of the id-indexed map under the parent")
    parent: str | None = Field(default=None, description="parent entity type; null = the user root")
    id_field: str
    id_format: IdFormat | None = Field(default=None, description="null: the caller must supply the id")
    references: dict[str, str] = Field(
        default_factory=dict, description="field -> referenced entity type (value: id or list of ids)"
    )
    description: str = ""


class Hierarchy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    app: str
    description: str = ""
    entities: dict[str, EntityType]
    # Paths (with wildcards) of fields whose change is a read side effect, such as an
    # "is_read" flag: never counted as collateral damage.
    ignore_changes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Hierarchy:
        seen: set[tuple[str | None, str]] = set()
        for name, ent in self.entities.items():
            if ent.parent is not None and ent.parent not in self.entities:
                raise ValueError(f"entity {name!r}: unknown parent {ent.parent!r}")
            key = (ent.parent, ent.collection)
            if key in seen:
                raise ValueError(f"entity {name!r}: collection {ent.collection!r} declared twice")
            seen.add(key)
            for field, target in ent.references.items():
                if target not in self.entities:
                    raise ValueError(f"entity {name!r}: field {field!r} references unknown type {target!r}")
        for name in self.entities:  # no cycles
            chain, cur = {name}, self.entities[name].parent
            while cur is not None:
                if cur in chain:
                    raise ValueError(f"entity {name!r}: parent cycle through {cur!r}")
                chain.add(cur)
                cur = self.entities[cur].parent
        return self

    # -- lookups ---------------------------------------------------------------------------------
    def child_types(self, parent: str | None) -> dict[str, str]:
        """collection key -> entity type, for the children of ``parent`` (None = root)."""
        return self._children[parent]

    @cached_property
    def _children(self) -> dict[str | None, dict[str, str]]:
        table: dict[str | None, dict[str, str]] = {None: {}} | {name: {} for name in self.entities}
        for name, ent in self.entities.items():
            table[ent.parent][ent.collection] = name
        return table

    @cached_property
    def _create_targets(self) -> dict[str, tuple[tuple[Segment, ...], str, str]]:
        """Memo of ``ContextTree._create_target`` (a pure function of this frozen hierarchy and the path)."""
        return {}

    def resolve(self, segments: tuple[Segment, ...]) -> list[str]:
        """Entity type of each segment; raise PathError if the path leaves the hierarchy."""
        types: list[str] = []
        parent: str | None = None
        for seg in segments:
            child = self.child_types(parent).get(seg.name)
            if child is None:
                where = "the root" if parent is None else f"{parent!r}"
                allowed = sorted(self.child_types(parent)) or ["nothing"]
                raise PathError(f"{where} has no collection {seg.name!r} (has: {', '.join(allowed)})")
            types.append(child)
            parent = child
        return types

    def type_of(self, path: str) -> str:
        return self.resolve(parse_path(path))[-1]

    def ancestry(self, entity_type: str) -> list[str]:
        """Entity types from the root down to ``entity_type``."""
        chain: list[str] = []
        cur: str | None = entity_type
        while cur is not None:
            chain.append(cur)
            cur = self.entities[cur].parent
        return chain[::-1]

    def wildcard_path(self, entity_type: str) -> str:
        """E.g. ``calendars[*].events[*]`` for ``event``."""
        return ".".join(str(Segment(self.entities[t].collection, WILDCARD)) for t in self.ancestry(entity_type))

    def iter_entities(self, data: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Every entity in ``data``: (entity type, path, entity)."""
        yield from _walk(self, data, None, "")

    def iter_below(self, entity: dict[str, Any], entity_type: str, path: str
                   ) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Every descendant of the entity at ``path``: (entity type, path, entity)."""
        yield from _walk(self, entity, entity_type, path)

    def iter_type(self, data: dict[str, Any], entity_type: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every entity of one type in ``data``: (path, entity), in the order of :meth:`iter_entities`; only
        the branches of its ancestors are walked."""
        yield from _walk_type(self, data, self.ancestry(entity_type), 0, "")


def _walk_type(
    h: Hierarchy, node: dict[str, Any], chain: list[str], depth: int, prefix: str
) -> Iterator[tuple[str, dict[str, Any]]]:
    etype = chain[depth]
    collection = h.entities[etype].collection
    children = node.get(collection)
    if not isinstance(children, dict):
        return
    for eid, entity in children.items():
        path = f"{prefix}.{Segment(collection, eid)}" if prefix else str(Segment(collection, eid))
        if depth == len(chain) - 1:
            yield path, entity
        elif isinstance(entity, dict):
            yield from _walk_type(h, entity, chain, depth + 1, path)


def _walk(
    h: Hierarchy, node: dict[str, Any], parent_type: str | None, prefix: str
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for collection, etype in h.child_types(parent_type).items():
        children = node.get(collection)
        if not isinstance(children, dict):
            continue
        for eid, entity in children.items():
            path = f"{prefix}.{Segment(collection, eid)}" if prefix else str(Segment(collection, eid))
            yield etype, path, entity
            if isinstance(entity, dict):
                yield from _walk(h, entity, etype, path)


def load_hierarchy(path: Path) -> Hierarchy:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from exc
    return Hierarchy.model_validate(raw)
