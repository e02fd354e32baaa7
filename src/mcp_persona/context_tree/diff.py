"""A readable, entity-level diff between two states of one Context-Tree."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_persona.context_tree.hierarchy import Hierarchy

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
    if before == after:  # a read-only episode: one C-level comparison instead of walking every entity twice
        return []
    changes: list[Change] = []
    root_b, root_a = _own_fields(h, None, before), _own_fields(h, None, after)
    if root_b != root_a:
        keys = tuple(sorted(k for k in root_b.keys() | root_a.keys() if root_b.get(k) != root_a.get(k)))
        changes.append(Change("modify", ROOT, "", root_b, root_a, keys))
    b = {path: (etype, ent) for etype, path, ent in h.iter_entities(before)}
    a = {path: (etype, ent) for etype, path, ent in h.iter_entities(after)}
    for path, (etype, ent) in b.items():
        if path not in a:
            if not _under_any(path, b.keys() - a.keys()):
                changes.append(Change("delete", etype, path, before=_own_fields(h, etype, ent)))
            continue
        own_b, own_a = _own_fields(h, etype, ent), _own_fields(h, etype, a[path][1])
        if own_b != own_a:
            keys = tuple(sorted(k for k in own_b.keys() | own_a.keys() if own_b.get(k) != own_a.get(k)))
            changes.append(Change("modify", etype, path, own_b, own_a, keys))
    for path, (etype, ent) in a.items():
        if path not in b and not _under_any(path, a.keys() - b.keys()):
            changes.append(Change("create", etype, path, after=_own_fields(h, etype, ent)))
    return changes


def _under_any(path: str, others: Any) -> bool:
    """Whether ``path`` lies strictly inside one of ``others``."""
    return any(path.startswith(o + ".") for o in others if o != path)


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
