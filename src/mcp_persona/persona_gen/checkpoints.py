"""Checkpoints of a generated task, read off the enriched chain's execution (appendix B.2.2).

* search: for a read step, the values a later step took from its output (the ids the agent must
  find), else one answer-like text of its output (an event's description, a note's first line);
  ``personalized_search`` on a personalized app, ``generic_search`` otherwise;
* operate: one per state change of a write step (from the diff of the app state around the call):
  ``create`` expects the new entity's fields that came from the arguments, ``modify`` the changed
  fields, ``delete`` the target;
* other: a write that changed nothing the hierarchy tracks.

The reference answer reports every search value, so the gold replay scores 1 on each checkpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from mcp_persona.apps import get_app
from mcp_persona.context_tree import ContextTree
from mcp_persona.context_tree.diff import ROOT
from mcp_persona.context_tree.path import format_path, parse_path
from mcp_persona.persona_gen.enrich import Draft, Step
from mcp_persona.persona_gen.fields import TEXT_OUT
from mcp_persona.scoring.normalize import appears_in, normalize
from mcp_persona.tasks import Checkpoint, OperateCheckpoint, OtherCheckpoint, SearchCheckpoint

_SKIP_LINE = re.compile(r"^(---|#|tags:|\w+:\s*\S*$|\s*$|!\[|\|)")
_VOLATILE = re.compile(r"time|date|mtime|ctime|updated|edited|modified|size|count|ts$")


def build_checkpoints(draft: Draft) -> list[Checkpoint]:
    cps: list[Checkpoint] = []
    seen: set[str] = set()  # a value is found once: the first step that returns it checks it
    for j, step in enumerate(draft.steps):
        if step.mutates:
            cps.extend(operate_checkpoints(step))
        else:
            cp = search_checkpoint(draft, j, seen)
            if cp is not None:
                cps.append(cp)
                seen.update(cp.gt_value)
    if not cps:
        last = draft.steps[-1]
        cps.append(OtherCheckpoint(summary=f"Call {last.tool}", server=last.server, tool=last.tool))
    return cps


# -- search ---------------------------------------------------------------------------------------------------------
def search_checkpoint(draft: Draft, j: int, seen: set[str] | None = None) -> SearchCheckpoint | None:
    step = draft.steps[j]
    seen = seen or set()
    kind = "personalized_search" if get_app(step.server).personalized else "generic_search"
    found = [u for s in draft.steps[j + 1:] for u in s.uses
             if u.source == "found" and u.step == j and u.as_shown not in seen]
    values = list(dict.fromkeys(u.as_shown for u in found))
    if values:
        what = []
        for u in dict((u.as_shown, u) for u in found).values():
            ent = draft.entity_of(u.binding) if u.binding else None
            what.append(f"the {u.link} of '{ent.display}'" if ent else f"the {u.link}")
        return SearchCheckpoint(type=kind, summary=f"Find {', '.join(what)} with {step.tool}", server=step.server,
                                gt_value=values)
    anchors = [(b.entity.id, b.entity.display) for b in draft.bindings.values()
               if b.entity and b.entity.server == step.server]
    answer = answer_value(step.event.result, draft.instruction, anchors, exclude=seen)
    if answer is None:
        return None
    return SearchCheckpoint(type=kind, server=step.server, gt_value=[answer],
                            summary=f"Report what {step.tool} returns for the request (auto-picked; check it is "
                                    "what the instruction asks)")


def answer_value(result: str, instruction: str, anchors: Sequence[tuple[str, str]] = (),
                 exclude: Collection[str] = ()) -> str | None:
    """One answer-like string of a tool result that the instruction does not already state: from the
    item about an entity the request names (``anchors``: id, display), if the result has one."""
    try:
        parsed: Any = json.loads(result)
    except json.JSONDecodeError:
        parsed = result
    for eid, display in anchors:
        item = _item_with(parsed, {eid, display})
        if item is not None:
            texts = [_unwrap(v).strip() for k, v in item.items() if k in TEXT_OUT and isinstance(v, str)]
            hit = next((t for t in texts if _answerable(t, instruction) and t != display and t not in exclude), None)
            if hit:
                return hit
            if eid in {str(v) for v in item.values()} and not appears_in(eid, instruction) and eid not in exclude:
                return eid
    texts = []

    def walk(v: Any, key: str) -> None:
        if isinstance(v, dict):
            for k, sub in v.items():
                walk(sub, k)
        elif isinstance(v, list):
            for sub in v[:5]:
                walk(sub, key)
        elif isinstance(v, str) and (key in TEXT_OUT or key == ""):
            texts.extend(line.strip() for line in _unwrap(v).splitlines())

    walk(parsed, "")
    return next((t for t in texts if _answerable(t, instruction) and t not in exclude), None)


def _unwrap(text: str) -> str:
    """A Lark message body ``{"text": "..."}`` as its text."""
    if text.startswith("{"):
        try:
            inner = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(inner, dict) and isinstance(inner.get("text"), str):
            return inner["text"]
    return text


def _answerable(text: str, instruction: str) -> bool:
    return 3 <= len(text) <= 120 and len(text.split()) >= 2 and not _SKIP_LINE.match(text) \
        and not appears_in(text, instruction)


def _item_with(obj: Any, needles: set[str]) -> dict[str, Any] | None:
    """The innermost object with a scalar equal to one of ``needles``."""
    if isinstance(obj, dict):
        for v in obj.values():
            inner = _item_with(v, needles)
            if inner is not None:
                return inner
        if any(isinstance(v, str | int) and str(v) in needles for v in obj.values()):
            return obj
    elif isinstance(obj, list):
        for v in obj:
            inner = _item_with(v, needles)
            if inner is not None:
                return inner
    return None


# -- operate --------------------------------------------------------------------------------------------------------
def operate_checkpoints(step: Step) -> list[Checkpoint]:
    h = get_app(step.server).hierarchy
    args = _arg_values(step.event.arguments)
    out: list[Checkpoint] = []
    for change in step.changes[:4]:
        if change.entity_type == ROOT:
            continue
        if change.op == "delete":
            out.append(OperateCheckpoint(summary=f"Delete {change.entity_type} {change.path}", server=step.server,
                                         tool=step.tool, operate_type="delete", target=change.path))
        elif change.op == "modify":
            expect = _modified(change.before or {}, change.after or {}, change.fields, args) \
                or _changed(change.before or {}, change.after or {})
            if expect:
                out.append(OperateCheckpoint(summary=f"Update {change.entity_type} {change.path}",
                                             server=step.server, tool=step.tool, operate_type="modify",
                                             target=change.path, expect=expect))
        else:
            best = _best_created(h, step.after, change.path, args)
            if best is None:
                continue
            etype, path, expect = best
            parent = _parent_expect(h, step.after, path)
            fields = ", ".join(f"{k}={v}" for k, v in expect.items())
            out.append(OperateCheckpoint(summary=f"Create a {etype} ({fields})"[:300], server=step.server,
                                         tool=step.tool, operate_type="create", entity=etype, expect=expect,
                                         parent_expect=parent))
    if not out:
        out.append(OtherCheckpoint(summary=f"Call {step.tool} successfully", server=step.server, tool=step.tool))
    return out


def _arg_values(args: Any) -> list[str]:
    if isinstance(args, dict):
        return [x for v in args.values() for x in _arg_values(v)]
    if isinstance(args, list):
        return [x for v in args for x in _arg_values(v)]
    if isinstance(args, str | int | float) and not isinstance(args, bool):
        return [str(args)]
    return []


def _flat(entity: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in entity.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and depth < 2:
            out.update(_flat(v, key + ".", depth + 1))
        elif isinstance(v, str | int | float) and not isinstance(v, bool):
            out[key] = v
    return out


def _matched(entity: dict[str, Any], args: list[str], skip: set[str]) -> dict[str, Any]:
    norm = {normalize(a) for a in args if len(a) >= 2}
    hits = {k: v for k, v in _flat(entity).items() if k not in skip and normalize(v) in norm}
    ranked = sorted(hits, key=lambda k: (" " not in str(hits[k]), len(str(hits[k])) < 4))
    expect = {k: hits[k] for k in ranked[:4]}
    if not expect:  # a text argument inside a longer field (a note line, a JSON message body)
        for text in sorted((a for a in args if len(a) >= 6 and " " in a), key=len, reverse=True):
            for k, v in _flat(entity).items():
                if isinstance(v, str) and appears_in(text, v):
                    return {k: {"$contains": text}}
    return expect


def _best_created(h: Any, after: dict[str, Any], path: str, args: list[str]) -> tuple[str, str, dict[str, Any]] | None:
    """The created entity (or descendant) the arguments shaped most, with the fields they set; else the
    created entity itself with its stable text fields (a forwarded message's text)."""
    best: tuple[int, str, str, dict[str, Any]] | None = None
    for etype, p, ent in h.iter_entities(after):
        if p != path and not p.startswith(path + "."):
            continue
        own = {k: v for k, v in ent.items() if k not in h.child_types(etype)}
        expect = _matched(own, args, {h.entities[etype].id_field})
        if expect and (best is None or len(expect) > best[0]):
            best = (len(expect), etype, p, expect)
        if p == path and best is None:
            stable = {k: v for k, v in _flat(own).items() if k != h.entities[etype].id_field
                      and not _VOLATILE.search(k) and isinstance(v, str) and " " in v}
            if stable:
                best = (0, etype, p, dict(list(stable.items())[:2]))
    return (best[1], best[2], best[3]) if best else None


def _parent_expect(h: Any, after: dict[str, Any], path: str) -> dict[str, Any]:
    segments = parse_path(path)
    if len(segments) < 2:
        return {}
    parent = ContextTree(h, after).try_get(format_path(segments[:-1]))
    for key in ("summary", "name", "title", "subject"):
        if isinstance(parent, dict) and isinstance(parent.get(key), str) and parent[key]:
            return {key: parent[key]}
    return {}


def _modified(before: dict[str, Any], after: dict[str, Any], fields: tuple[str, ...],
              args: list[str]) -> dict[str, Any]:
    flat_b, flat_a = _flat(before), _flat(after)
    norm = {normalize(a) for a in args if len(a) >= 2}
    expect: dict[str, Any] = {}
    for k, v in flat_a.items():
        if k.split(".")[0] not in fields or flat_b.get(k) == v:
            continue
        if normalize(v) in norm:
            expect[k] = v
        elif isinstance(v, str) and not _VOLATILE.search(k):
            added = [a for a in args if len(a) >= 6 and appears_in(a, v) and not appears_in(a, str(flat_b.get(k, "")))]
            if added:
                expect[k] = {"$contains": max(added, key=len).strip()}
    return expect


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The changed fields' new values (steady ones first), when no argument explains the change."""
    flat_b, flat_a = _flat(before), _flat(after)
    keys = sorted((k for k, v in flat_a.items() if flat_b.get(k) != v), key=lambda k: bool(_VOLATILE.search(k)))
    return {k: flat_a[k] for k in keys[:3]}


# -- the answer -------------------------------------------------------------------------------------------------------
def reference_answer(checkpoints: list[Checkpoint]) -> str:
    parts = []
    for cp in checkpoints:
        if isinstance(cp, SearchCheckpoint):
            found = "; ".join(cp.gt_value)
            parts.append(f"{cp.summary.split(' (auto-picked')[0]}: {found}" + ("" if found[-1:] in ".?!" else "."))
        elif isinstance(cp, OperateCheckpoint):
            parts.append(f"Done: {cp.summary}.")
    return " ".join(parts) or "Done."
