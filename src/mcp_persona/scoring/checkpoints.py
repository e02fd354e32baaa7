"""Rule-based checkpoint scoring and execution checks (Acc and Exec-Acc of one episode).

Every checkpoint gets a score in {0, 0.5, 1}:

* search (generic / personalized): 1 if every GT value appears in the final answer (one with ``beside``
  together with what it asks said next to it: "Hannah Koh" with "hasn't responded"; with ``wording: free``, a
  phrase also in other words: "a warning out for heavy rain" for "Heavy Rain Warning")
  or was *used*: passed in the arguments of a successful call after an earlier
  call's output revealed it (an id found, then acted on; not for a ``reported`` checkpoint, whose values the
  user asked to be told); 0.5 if some are
  reported, or all were retrieved (in successful tool outputs) but neither
  reported nor used; else 0.
* operate: checked on the end state against the start state (see
  :func:`check_operate`): 1 if the entity was created / modified / deleted as
  specified, 0.5 if a matching entity was touched with only part of the fields
  right, else 0.
* other: 1 if the named tool was called without error, else 0.

A checkpoint that declares ``rules_cannot_check`` is never passed by the rules: where they would give 1 it is
left undecided (None) for a judge, and an undecided checkpoint never counts toward the strict pass.

Two facts about the answer are recorded for the strict pass (they do not change Acc): GT values the answer
reports that no successful tool call ever showed (``ungrounded``: a guess or a memorised answer), and an
answer that pastes tool output instead of answering (``answer_dump``: far longer than the task needs, or mostly
copied from the episode's tool outputs; ``dump_why`` says which, with the share); both are decided by
:mod:`mcp_persona.scoring.grounding`.

Acc is the mean over a task's checkpoints; Exec-Acc the share of its operate
checkpoints that fully pass (None when it has none). State changes that no
operate checkpoint accounts for are reported as collateral damage, except fields
the app's hierarchy lists as read side effects.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.apps import get_app
from mcp_persona.context_tree import ContextTree, Hierarchy, diff_states, is_ignored, parse_path
from mcp_persona.context_tree.path import format_path
from mcp_persona.scoring.claims import claims_winner, name_pattern, said_beside
from mcp_persona.scoring.grounding import Evidence, answer_dump
from mcp_persona.scoring.match import fields_matched
from mcp_persona.scoring.meaning import says
from mcp_persona.scoring.normalize import appears_as_word, appears_in, normalize
from mcp_persona.tasks import OperateCheckpoint, OtherCheckpoint, SearchCheckpoint, Task, checkpoints_of
from mcp_persona.trajectory import ToolCallEvent, Trajectory


@dataclass
class CheckpointResult:
    index: int
    type: str
    score: float | None  # None: not decidable by rules (left to a judge)
    reason: str
    claimed: list[str] = field(default_factory=list)  # entity paths this checkpoint accounts for

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "type": self.type, "score": self.score, "reason": self.reason}


@dataclass
class TaskScore:
    acc: float
    exec_acc: float | None
    checkpoints: list[CheckpointResult]
    collateral: list[str]
    ungrounded: list[str] = field(default_factory=list)  # GT values reported but never shown by a tool
    answer_dump: bool = False  # the answer pastes tool output: far too long, or mostly copied
    dump_why: str | None = None  # how the dump rule decided (None when the answer is no dump)

    def to_dict(self) -> dict[str, Any]:
        return {
            "acc": self.acc,
            "exec_acc": self.exec_acc,
            "checkpoints": [c.to_dict() for c in self.checkpoints],
            "collateral": self.collateral,
            "ungrounded": self.ungrounded,
            "answer_dump": self.answer_dump,
            "dump_why": self.dump_why,
        }


def score_episode(
    task: Task, trajectory: Trajectory, before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]
) -> TaskScore:
    ok_calls = [e for e in trajectory.tool_calls if not e.is_error]
    # one text per call: each is JSON-decoded on its own (joined texts are no longer valid JSON)
    outputs = [e.result for e in ok_calls]
    results: list[CheckpointResult] = []
    for i, cp in enumerate(checkpoints_of(task)):
        if isinstance(cp, SearchCheckpoint):
            used = {v for v in cp.gt_value if v not in cp.beside  # what is said of it is in the answer alone
                    and not cp.reported  # a value the user asked to be told
                    and any(_used_after_found(f, ok_calls, cp) for f in cp.forms(v))}
            results.append(_search(i, cp, trajectory.final_answer, outputs, used))
        elif isinstance(cp, OperateCheckpoint):
            h = get_app(cp.server).hierarchy
            results.append(check_operate(i, cp, h, before.get(cp.server, {}), after.get(cp.server, {})))
        elif isinstance(cp, OtherCheckpoint):
            results.append(_other(i, cp, trajectory))
        if cp.rules_cannot_check and results[-1].score == 1.0:  # the rules can only fail it, never pass it
            results[-1].score = None
            results[-1].reason += f"; undecided by rules ({cp.rules_cannot_check}): left to a judge"
    scored = [r.score for r in results if r.score is not None]
    acc = sum(scored) / len(scored) if scored else 0.0
    ops = [r for r in results if r.type == "operate"]
    exec_acc = sum(1.0 for r in ops if r.score == 1.0) / len(ops) if ops else None
    evidence = Evidence.of(ok_calls, given=task.instruction, echoes=True)  # see grounding: rewritten values
    ungrounded = [v for cp in checkpoints_of(task) if isinstance(cp, SearchCheckpoint) for v in cp.gt_value
                  if not (cp.claim and v == cp.claim.winner)  # named by the question; its claim is the fact
                  and (stated := [f for f in cp.forms(v) if appears_in(f, trajectory.final_answer)])
                  and all(evidence.why_ungrounded(f, cp.derived.get(f)) for f in stated)]
    dump = answer_dump(trajectory.final_answer, task.reference_answer, evidence)
    return TaskScore(acc, exec_acc, results, collateral(before, after, results), ungrounded, dump is not None, dump)


def _used_after_found(value: str, calls: list[ToolCallEvent], cp: SearchCheckpoint | None = None) -> bool:
    """Whether a successful call passed ``value`` after an earlier call's output showed it; for a checkpoint with
    ``about``, passed beside what it is about (a score beside its story in the digest written), and with
    ``whole_word``, as a word of its own."""
    found = False
    for call in calls:
        if found and call.arguments and _passes(value, call.arguments, cp):
            return True
        found = found or appears_in(value, call.result)
    return False


def stated_about(answer: str, names: list[str], others: list[str]) -> str:
    """The parts of ``answer`` about one of ``names`` where siblings (``others``) are named too. A mention's line
    (or semicolon-part) that names no sibling and states figures of its own is its part (a table row in any
    column order, ``1249 points: A``); otherwise the text after the mention up to the next sibling's is (``A 1249,
    B 1247`` on one line; a heading and the lines under it)."""
    text = "\n".join(normalize(line) for line in answer.splitlines())  # normalized line by line: lines kept

    def spans(words: list[str]) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for w in words if (n := normalize(w))
                for m in re.finditer(rf"(?<![^\W_]){name_pattern(n)}(?![^\W_])", text)]

    sib = spans(others)
    parts = []
    for s, e in spans(names):
        if any(a <= s and e <= b and (a, b) != (s, e) for a, b in sib):
            continue  # inside a sibling's longer name
        lo = max(text.rfind("\n", 0, s), text.rfind(";", 0, s)) + 1
        hi = min([i for i in (text.find("\n", e), text.find(";", e)) if i >= 0], default=len(text))
        own = re.sub(r"^\W*\d+[.)]\s", "", text[lo:s] + " " + text[e:hi])  # a list's number is no figure
        if not any(lo <= a < hi for a, _ in sib) and re.search(r"\d", own):
            parts.append(text[lo:hi])
        else:
            parts.append(text[e:min([a for a, _ in sib if a >= e], default=len(text))])
    return "\n".join(parts)


def _passes(value: str, arguments: dict[str, Any], cp: SearchCheckpoint | None) -> bool:
    text = json.dumps(arguments, ensure_ascii=False)
    if cp is None or (cp.about is None and not cp.whole_word):
        return appears_in(value, text)
    strings = "\n".join(str(v) for v in arguments.values() if isinstance(v, str | int | float))
    said = strings if cp.about is None else stated_about(strings, cp.about.names, cp.about.others)
    return (appears_as_word if cp.whole_word else appears_in)(value, said)


def _search(i: int, cp: SearchCheckpoint, answer: str, outputs: list[str], used: set[str]) -> CheckpointResult:
    """A GT value counts as reported, used or retrieved in any of its accepted forms (``alternatives``); with
    ``about``, reported only beside what it is about; with ``whole_word``, as a word of its own; one with
    ``beside`` only with what it asks said next to it (:func:`said_beside`)."""
    in_answer = reported(cp, answer)
    if cp.claim is not None:  # a comparison: the claim decides, not the names it mentions
        ok, why = claims_winner(answer, cp.claim.winner, cp.claim.rivals, **cp.claim.reading())
        if not ok:
            return CheckpointResult(i, cp.type, 0.0, why)
    if len(in_answer) == len(cp.gt_value):
        return CheckpointResult(i, cp.type, 1.0, "all GT values in the final answer")
    if all(v in in_answer or v in used for v in cp.gt_value):
        return CheckpointResult(i, cp.type, 1.0, "GT values reported, or found and then used in a later call")
    if in_answer:
        return CheckpointResult(i, cp.type, 0.5, f"{len(in_answer)}/{len(cp.gt_value)} GT values in the final answer")
    if all(any(_said(cp, f, o) for f in cp.forms(v) for o in outputs) for v in cp.gt_value):
        return CheckpointResult(i, cp.type, 0.5, "GT values retrieved by tools but not reported")
    return CheckpointResult(i, cp.type, 0.0, "GT values neither reported nor retrieved")


def reported(cp: SearchCheckpoint, answer: str) -> list[str]:
    """The GT values ``answer`` reports, in any accepted form: with ``about``, stated beside what they are about
    (:func:`stated_about`); with ``whole_word``, as words of their own; with ``wording: free``, said in any words
    and not negated; one with ``beside`` with what it asks said next to it (:func:`said_beside`)."""
    said = answer if cp.about is None else stated_about(answer, cp.about.names, cp.about.others)
    return [v for v in cp.gt_value if any(_said(cp, f, said) for f in cp.forms(v)) and (
        v not in cp.beside or said_beside(answer, cp.forms(v), cp.beside[v], _rivals(cp, v)))]


def _said(cp: SearchCheckpoint, form: str, text: str) -> bool:
    """Whether ``text`` holds ``form``: as written (``whole_word``: as a word of its own), or (``wording: free``, a
    form without digits) said in any words and not negated ("no heavy rain warning today" does not report it)."""
    if cp.wording == "free" and not any(c.isdigit() for c in form):
        return says(form, text)
    return (appears_as_word if cp.whole_word else appears_in)(form, text)


def _rivals(cp: SearchCheckpoint, value: str) -> list[str]:
    """The names a ``beside`` value's stretch stops at: the other ``beside`` values said to be something else
    ("A and B (both from the kickoff)" says it of both) and the checkpoint's ``apart`` names."""
    return [f for v, items in cp.beside.items() if v != value and items != cp.beside[value]
            for f in cp.forms(v)] + cp.apart


def _other(i: int, cp: OtherCheckpoint, trajectory: Trajectory) -> CheckpointResult:
    if cp.tool is None:
        return CheckpointResult(i, cp.type, None, "no tool named: left to a judge")
    made = [e for e in trajectory.tool_calls
            if e.tool in (cp.tool, *cp.also) and (cp.server is None or e.server == cp.server) and not e.is_error]
    if not made:
        return CheckpointResult(i, cp.type, 0.0, f"{cp.tool} never called successfully")
    missed = [want for want in cp.expect_calls
              if not any(fields_matched(want, e.arguments or {}) == len(want) for e in made)]
    if missed:
        return CheckpointResult(i, cp.type, 0.0, f"{cp.tool} never called on {json.dumps(missed[0])}")
    return CheckpointResult(i, cp.type, 1.0, f"{cp.tool} called successfully"
                            + (" on every target" if cp.expect_calls else ""))


def check_operate(
    i: int, cp: OperateCheckpoint, h: Hierarchy, before: dict[str, Any], after: dict[str, Any]
) -> CheckpointResult:
    prefix = f"{cp.server}:"
    if cp.operate_type == "delete":
        assert cp.target is not None
        gone = _entity(h, after, cp.target) is None
        existed = _entity(h, before, cp.target) is not None
        ok = gone and existed
        reason = "deleted" if ok else ("never existed" if not existed else "still present")
        return CheckpointResult(i, "operate", 1.0 if ok else 0.0, reason, [prefix + cp.target] if ok else [])
    if cp.operate_type == "modify":
        assert cp.target is not None
        old, new = _entity(h, before, cp.target), _entity(h, after, cp.target)
        if new is None:
            return CheckpointResult(i, "operate", 0.0, f"{cp.target} not found at the end")
        hit = fields_matched(cp.expect, new)
        if hit == len(cp.expect):
            return CheckpointResult(i, "operate", 1.0, "modified as expected", [prefix + cp.target])
        changed = old != new
        score = 0.5 if changed and hit > 0 else 0.0
        return CheckpointResult(i, "operate", score, f"{hit}/{len(cp.expect)} expected fields",
                                [prefix + cp.target] if changed else [])
    # create: the best new entity of the type
    if cp.entity not in h.entities:
        return CheckpointResult(i, "operate", 0.0, f"{cp.server} has no entity type {cp.entity!r}")
    old_paths = {p for p, _ in h.iter_type(before, cp.entity)}
    best: tuple[int, str] | None = None
    total = len(cp.expect) + len(cp.parent_expect)
    for path, ent in h.iter_type(after, cp.entity):
        if path in old_paths:
            continue
        hit = fields_matched(cp.expect, ent)
        if cp.parent_expect:
            segments = parse_path(path)  # not rsplit("."): ids may hold dots (a.md, emails)
            parent = _entity(h, after, format_path(segments[:-1])) if len(segments) > 1 else None
            hit += fields_matched(cp.parent_expect, parent) if parent is not None else 0
        if best is None or hit > best[0]:
            best = (hit, path)
    if best is None:
        return CheckpointResult(i, "operate", 0.0, f"no new {cp.entity} created")
    hit, path = best
    if hit == total:
        return CheckpointResult(i, "operate", 1.0, f"created {path}", [prefix + path])
    return CheckpointResult(i, "operate", 0.5 if hit > 0 else 0.0, f"best new {cp.entity} matches {hit}/{total}",
                            [prefix + path])


def _entity(h: Hierarchy, state: dict[str, Any], path: str) -> dict[str, Any] | None:
    return ContextTree(h, state).try_get(path)


def collateral(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], results: list[CheckpointResult]
) -> list[str]:
    claimed = [p for r in results for p in r.claimed]
    out: list[str] = []
    for server in sorted(set(before) | set(after)):
        h = get_app(server).hierarchy
        for change in diff_states(h, before.get(server, {}), after.get(server, {})):
            if is_ignored(change, h.ignore_changes):
                continue
            full = f"{server}:{change.path}"
            if any(c == full or c.startswith(full + ".") or full.startswith(c + ".") for c in claimed):
                continue
            out.append(f"{server}: {change.describe()}")
    return out


__all__ = ["CheckpointResult", "TaskScore", "check_operate", "reported", "score_episode", "stated_about"]
