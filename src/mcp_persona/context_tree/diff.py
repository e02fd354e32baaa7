"""A readable, entity-level diff between two states of one Context-Tree."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_persona.context_tree.hierarchy import Hierarchy
from mcp_persona.context_tree.path import Segment

ChangeOp = Literal["create", "delete", "modify"]
ROOT = "root"


@dataclass(frozen=True)
class Change:
    op: ChangeOp
    entity_type: str  # ROOT for fields of the user root itself
    path: str
    before: dict[str, Any] | None = None  # own fields only (child collections left out)
    after: dict[str, Any] | None = None
    fields: tuple[str, ...] = field(default=())  # changed field names, for "modify"

    def describe(self) -> str:
        if self.op == "modify":
            parts = [f"{f}: {_short(self.before, f)} -> {_short(self.after, f)}" for f in self.fields]
            return f"modify {self.entity_type} {self.path} ({'; '.join(parts)})"
        return f"{self.op} {self.entity_type} {self.path}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "entity_type": self.entity_type,
            "path": self.path,
            "fields": list(self.fields),
            "before": self.before,
            "after": self.after,
        }


def _short(obj: dict[str, Any] | None, key: str) -> str:
    value = None if obj is None else obj.get(key)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _own_fields(h: Hierarchy, etype: str | None, entity: dict[str, Any]) -> dict[str, Any]:
    children = h.child_types(etype)
    return {k: v for k, v in entity.items() if k not in children}


def diff_states(h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Entities created, deleted and modified between ``before`` and ``after``.

    A deleted entity's descendants are not listed separately: the delete covers them.
    Likewise for a created entity.
    """
    if before == after:  # a read-only episode: one C-level comparison instead of walking every entity
        return []
    changes: list[Change] = []
    root_b, root_a = _own_fields(h, None, before), _own_fields(h, None, after)
    if root_b != root_a:
        keys = tuple(sorted(k for k in root_b.keys() | root_a.keys() if root_b.get(k) != root_a.get(k)))
        changes.append(Change("modify", ROOT, "", root_b, root_a, keys))
    created: list[Change] = []
    _diff_children(h, None, "", before, after, changes, created)
    return changes + created


def _diff_children(h: Hierarchy, etype: str | None, prefix: str, before: dict[str, Any], after: dict[str, Any],
                   changes: list[Change], created: list[Change]) -> None:
    """Deletes and modifies under one entity (pre-order of ``before``) into ``changes``, creates into ``created``.
    An unchanged collection or entity is passed over after one C-level comparison, so the Python work follows
    the changes, not the size of the state."""
    for collection, ctype in h.child_types(etype).items():
        b_children, a_children = before.get(collection), after.get(collection)
        b_children = b_children if isinstance(b_children, dict) else {}
        a_children = a_children if isinstance(a_children, dict) else {}
        if b_children == a_children:
            continue
        for eid, old in b_children.items():
            path = f"{prefix}.{Segment(collection, eid)}" if prefix else str(Segment(collection, eid))
            new = a_children.get(eid, _GONE)
            if new is _GONE:  # its descendants go with it: one delete
                changes.append(Change("delete", ctype, path, before=_own_fields(h, ctype, old)))
                continue
            if old == new:
                continue
            own_b, own_a = _own_fields(h, ctype, old), _own_fields(h, ctype, new)
            if own_b != own_a:
                keys = tuple(sorted(k for k in own_b.keys() | own_a.keys() if own_b.get(k) != own_a.get(k)))
                changes.append(Change("modify", ctype, path, own_b, own_a, keys))
            if isinstance(old, dict) and isinstance(new, dict):
                _diff_children(h, ctype, path, old, new, changes, created)
        for eid, new in a_children.items():
            if eid not in b_children:  # its descendants come with it: one create
                path = f"{prefix}.{Segment(collection, eid)}" if prefix else str(Segment(collection, eid))
                created.append(Change("create", ctype, path, after=_own_fields(h, ctype, new)))


_GONE = object()


def is_ignored(change: Change, patterns: list[str]) -> bool:
    """A modify whose every changed field matches an ignore pattern (``path.field``, wildcards)."""
    return change.op == "modify" and bool(patterns) and not unignored_fields(change, patterns)


def unignored_fields(change: Change, patterns: list[str]) -> tuple[str, ...]:
    """The changed fields of a modify that no ignore pattern covers (a read side effect is ignored)."""
    if change.op != "modify" or not patterns:
        return change.fields
    regexes = [_pattern(p) for p in patterns]
    return tuple(f for f in change.fields
                 if not any(rx.fullmatch(f"{change.path}.{f}" if change.path else f) for rx in regexes))


def _pattern(pattern: str) -> re.Pattern[str]:
    """``[*]`` matches any one selector (quoted ones too); everything else is literal."""
    return re.compile(re.escape(pattern).replace(re.escape("[*]"), r'\[(?:"(?:[^"\\]|\\.)*"|[^\]]*)\]'))
