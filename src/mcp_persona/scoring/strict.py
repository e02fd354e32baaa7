"""The strict pass: every checkpoint 1, no collateral damage, an end state equivalent to the gold replay's, and
an answer whose found values come from tool outputs (not guessed) and that does not paste them (a dump: far
too long, or mostly copied from the outputs, see :mod:`mcp_persona.scoring.grounding`).

Acc / SR-0.8 / Exec-Acc are the paper's metrics and stay as they are. The strict pass sits beside them
(tau2-bench and AppWorld judge an episode the same way): an agent that writes twice, writes to the wrong
place or changes what it was not asked to change fails it even when every checkpoint is satisfied.

End states are compared as *changes from the start state*, entity by entity, so that what is legitimately
free does not count: generated ids (a created entity is identified by its type and where it was created, not
its id), timestamps (the task clock is fixed, and created entities are not compared by id), and the wording
of free text (text fields are compared by the checkpoints' content checks, not here). What does count:

* every create: its entity type, its parent and what it holds (the types of its descendants, counted) — one
  more or one fewer message in a chat is a difference, in a chat that existed or in one the episode created;
* every delete: the entity deleted;
* every modify: the entity and the set of fields changed, and the value of each numeric or boolean field
  (a flag set, a count, a time) — the text of a field is left to the checkpoints.

Changes the app declares as read side effects (``ignore_changes`` of its hierarchy) are dropped first, so a
read that marks a message as seen is not a difference. An idempotent repeated update ends in the same state
and is not a difference either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_persona.apps import get_app
from mcp_persona.context_tree import ContextTree, Hierarchy, diff_states, parse_path, unignored_fields
from mcp_persona.context_tree.diff import Change
from mcp_persona.context_tree.path import format_path

States = Mapping[str, Mapping[str, Any]]
Signature = tuple[Any, ...]
Contents = tuple[tuple[str, Any], ...]  # (child type, its contents) of each descendant of a created entity


@dataclass(frozen=True)
class EndStateComparison:
    equivalent: bool
    missing: list[str]  # changes the gold replay made that the agent did not
    extra: list[str]  # changes the agent made that the gold replay did not
    gold: list[str]  # every change of the gold replay (the reference execution's end state)

    def to_dict(self) -> dict[str, Any]:
        return {"equivalent": self.equivalent, "missing": self.missing, "extra": self.extra, "gold": self.gold}


def change_signatures(before: States, after: States) -> Counter[Signature]:
    """The multiset of state changes between ``before`` and ``after``, free of ids, timestamps and text."""
    out: Counter[Signature] = Counter()
    for server in sorted(set(before) | set(after)):
        h = get_app(server).hierarchy
        b, a = before.get(server, {}), after.get(server, {})
        if b == a:  # nothing changed on this server: no entity walk needed
            continue
        changes = diff_states(h, dict(b), dict(a))
        new_ids = _new_ids(h, a, changes)
        for change in changes:
            sig = _signature(server, h, change, b, a, new_ids)
            if sig is not None:
                out[sig] += 1
    return out


def compare_end_states(gold: Counter[Signature], agent: Counter[Signature]) -> EndStateComparison:
    missing = sorted(_describe(s) for s in (gold - agent).elements())
    extra = sorted(_describe(s) for s in (agent - gold).elements())
    described = sorted(_describe(s) for s in gold.elements())
    return EndStateComparison(not missing and not extra, missing, extra, described)


def strict_pass(score: Mapping[str, Any], *, undecided_passes: bool = False) -> bool:
    """Every checkpoint scores exactly 1 (an undecided one does not), no collateral, an equivalent end state, and
    an answer that is grounded in tool outputs and not a dump of them.

    ``undecided_passes`` asks what the rules alone can tell (mutation testing of the rule checks)."""
    end = score.get("end_state") or {}
    return (
        bool(score["checkpoints"])
        and all(c["score"] == 1.0 or (undecided_passes and c["score"] is None) for c in score["checkpoints"])
        and not score["collateral"]
        and not score.get("ungrounded")
        and not score.get("answer_dump")
        and bool(end.get("equivalent"))
    )


def _signature(server: str, h: Hierarchy, change: Change, before: Mapping[str, Any], after: Mapping[str, Any],
               new_ids: set[str]) -> Signature | None:
    fields = unignored_fields(change, h.ignore_changes)
    if change.op == "modify" and not fields:
        return None  # a read side effect the app declares
    if change.op == "create":
        segments = parse_path(change.path)
        parent = format_path(segments[:-1]) if len(segments) > 1 else ""
        where = parent if not parent or _exists(h, before, parent) else f"<new {h.type_of(parent)}>"
        created = ContextTree(h, dict(after)).get(change.path)
        return (server, "create", change.entity_type, where, _contents(h, change.entity_type, created))
    if change.op == "delete":
        return (server, "delete", change.entity_type, change.path)
    assert change.after is not None
    values = tuple(sorted((f, _scalar(change.after.get(f), new_ids)) for f in fields))
    return (server, "modify", change.entity_type, change.path, values)


def _contents(h: Hierarchy, etype: str, entity: Mapping[str, Any]) -> Contents:
    """What a created entity holds, free of ids and text: each child's type and contents, sorted. A chat
    created with two messages is not one created with one, though both are one create."""
    out: list[tuple[str, Contents]] = []
    for collection, ctype in h.child_types(etype).items():
        children = entity.get(collection)
        if isinstance(children, dict):
            out.extend((ctype, _contents(h, ctype, child)) for child in children.values() if isinstance(child, dict))
    return tuple(sorted(out))


def holds_contents(sig: Signature) -> bool:
    """A create signature of an entity created with something inside it (a chat with its first message)."""
    return sig[1] == "create" and bool(sig[4])


def _describe_contents(contents: Contents) -> str:
    counts = Counter(contents)
    parts = []
    for (ctype, inner), n in sorted(counts.items()):
        part = f"{n} x {ctype}"
        parts.append(part + (f" ({_describe_contents(inner)})" if inner else ""))
    return ", ".join(parts)


def _scalar(value: Any, new_ids: set[str]) -> Any:
    """Numbers and booleans compare by value; text, generated ids and structures only by being changed."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return "<new id>" if str(value) in new_ids else value
    return "<changed>"


def _new_ids(h: Hierarchy, after: Mapping[str, Any], changes: list[Change]) -> set[str]:
    """Ids of every entity the changes created, descendants of a created entity included."""
    tree = ContextTree(h, dict(after))
    out: set[str] = set()
    for change in changes:
        if change.op == "create":
            out.add(str(parse_path(change.path)[-1].selector))
            out.update(str(parse_path(p)[-1].selector) for _, p, _ in h.iter_below(tree.get(change.path),
                                                                                     change.entity_type, change.path))
    return out


def _exists(h: Hierarchy, state: Mapping[str, Any], path: str) -> bool:
    return ContextTree(h, dict(state)).try_get(path) is not None


def _describe(sig: Signature) -> str:
    server, op, etype, where = sig[:4]
    if op == "create":
        holding = f" holding {_describe_contents(sig[4])}" if sig[4] else ""
        return f"{server}: create {etype}" + (f" in {where}" if where else "") + holding
    if op == "delete":
        return f"{server}: delete {etype} {where}"
    fields = ", ".join(f if v == "<changed>" else f"{f}={v!r}" for f, v in sig[4])
    return f"{server}: modify {etype} {where or '(root)'} ({fields})"


__all__ = ["EndStateComparison", "change_signatures", "compare_end_states", "holds_contents", "strict_pass"]
