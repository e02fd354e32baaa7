"""LiveMCP-101's failure taxonomy, decided by rules first and by an optional judge for the rest.

Seven modes in three groups: planning and orchestration (ignoring requirement,
overconfident self-solving, unproductive thinking, wrong tool selection),
parameters (syntactic, semantic) and output handling (output parsing error).

The rules read a failed episode (its trajectory, its task, its rule-based score
dict) and fire in this order; the first that matches names the mode, with the
events that show it as evidence:

1. no tool call at all: an answer → *overconfident self-solving*; the round limit → *unproductive
   thinking*; neither → *ignoring requirement* (ended with nothing);
2. an unrecovered schema violation (a tool's field-validation / "Input should be" / missing or extra field
   error, or arguments that were not valid JSON) → *syntactic parameter error*;
3. calls to tools outside the gold chain's servers (or to tools that do not exist) while a gold tool was
   never even tried → *wrong tool selection*;
4. an unrecovered error about an unknown id / entity not found, from a call whose arguments were
   well-formed → *semantic parameter error*;
5. the round limit reached with one call repeated with identical arguments (3+ times) → *unproductive
   thinking*;
6. an action checkpoint (operate, or other with a named tool) unmet with its tool never called, while every
   search checkpoint was met → *ignoring requirement*;
7. an operate checkpoint unmet although its tool was called successfully → *semantic parameter error*
   (well-formed call, wrong content).

An error is *unrecovered* when no later call of the same tool succeeded. *Output parsing error* (the tool
returned the right data, the answer misread it) needs reading the answer against the outputs: only the
judge assigns it. Episodes no rule decides are left ``undecided``, or given to :class:`FailureJudge`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio
from pydantic import BaseModel

from mcp_persona.judges.base import ModelJudge, ask_judge, system_message
from mcp_persona.judges.parse import JudgeVerdict
from mcp_persona.judges.render import budget_note, clip, render_request, render_tool_calls, section
from mcp_persona.judges.schemas import FAILURE_MODES, FailureMode, FailureVerdict
from mcp_persona.tasks import OperateCheckpoint, OtherCheckpoint, Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

if TYPE_CHECKING:
    from mcp_persona.store import EpisodeRecord

PROMPT_VERSION = "failure-mode/1"
REPEAT_THRESHOLD = 3
EVIDENCE_CHARS = 240

# Schema violations, as the simulated apps, pydantic and the agent loop word them.
SYNTACTIC = re.compile(
    "|".join([
        r"field validation failed", r"field_violations", r"input should be", r"field required",
        r"is a required property", r"missing required", r"additional properties are not allowed",
        r"extra inputs are not permitted", r"unknown parameter", r"the parameter \S+ is required",
        r"invalid arguments", r"input validation error", r"not valid json", r"must be a json object",
        r"invalid json payload", r"string should (?:have|match)", r"list should have", r"参数无效",
    ]),
    re.IGNORECASE,
)
# Well-formed calls naming something that does not exist.
SEMANTIC = re.compile(
    "|".join([
        r"not found", r"no entity at", r"\bno [\w ]{1,30} with (?:the )?(?:id|uid|name)\b", r"does not exist",
        r"doesn't exist", r"is not a known", r"does not name", r"\bunknown (?!tool|parameter|server)\w+",
        r"\binvalid (?:\w+[_ ])?id\b", r"no such", r"未找到", r"不存在", r"\b404\b",
    ]),
    re.IGNORECASE,
)
NO_SUCH_TOOL = re.compile(r"no tool named|unknown tool|unknown server|未知的工具", re.IGNORECASE)

Source = Literal["rules", "judge", "undecided"]


@dataclass
class FailureClassification:
    mode: FailureMode | None
    source: Source
    evidence: list[str] = field(default_factory=list)
    verdict: JudgeVerdict | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "source": self.source, "evidence": self.evidence,
                "verdict": self.verdict.model_dump(mode="json") if self.verdict is not None else None}


def is_failed(score: Mapping[str, Any] | None, *, threshold: float = 1.0) -> bool:
    """A scored episode failed when its Acc is below ``threshold`` (1.0: LiveMCP-101's task success)."""
    return score is not None and score["acc"] < threshold


# -- the rules -------------------------------------------------------------------------------------
def _where(call: ToolCallEvent, i: int) -> str:
    name = f"{call.server}:{call.tool}" if call.server else call.tool
    return f"call #{i + 1} (round {call.round + 1}) {name}"


def _brief(text: str) -> str:
    return clip(" ".join(text.split()), EVIDENCE_CHARS)


def _key(call: ToolCallEvent) -> tuple[str | None, str, str]:
    args = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False) if call.arguments is not None else (
        call.raw_arguments or "")
    return call.server, call.tool, args


def _unrecovered(calls: Sequence[ToolCallEvent]) -> list[int]:
    out = []
    for i, call in enumerate(calls):
        if call.is_error and not any(
            not later.is_error and later.server == call.server and later.tool == call.tool for later in calls[i + 1:]
        ):
            out.append(i)
    return out


def _is_syntactic(call: ToolCallEvent) -> bool:
    if call.server is None:  # a tool that does not exist: a selection problem, not a parameter one
        return False
    return call.arguments is None or bool(SYNTACTIC.search(call.result))


def _chain(task: Task) -> tuple[set[str], set[tuple[str, str]]]:
    """The gold chain's servers and (server, tool) pairs, with the tools action checkpoints name."""
    tools = {(c.server, c.tool) for c in task.gold_calls}
    for cp in task.spec.checkpoints:
        if isinstance(cp, OperateCheckpoint | OtherCheckpoint) and cp.server and cp.tool:
            tools.add((cp.server, cp.tool))
    servers = {s for s, _ in tools} or {getattr(cp, "server", None) for cp in task.spec.checkpoints} - {None}
    return servers or set(task.server_names), tools  # type: ignore[return-value]


def _attempted(calls: Sequence[ToolCallEvent], server: str | None, tool: str, *, ok: bool = False) -> bool:
    return any(c.tool == tool and (server is None or c.server == server) and (not ok or not c.is_error)
               for c in calls)


def classify_failure(
    task: Task, trajectory: Trajectory, score: Mapping[str, Any], *, repeat_threshold: int = REPEAT_THRESHOLD
) -> FailureClassification:
    """The failure mode of a failed episode by rules alone (``mode`` None, ``undecided``, when none fires)."""
    calls = trajectory.tool_calls
    answer = trajectory.final_answer.strip()

    # 1. no tool call at all
    if not calls:
        if trajectory.stop_reason == "max_rounds":
            return FailureClassification("unproductive_thinking", "rules", [
                f"reached the round limit after {len(trajectory.model_calls)} model calls without one tool call"])
        if answer:
            return FailureClassification("overconfident_self_solving", "rules", [
                "no tool call at all", f"answered from its own knowledge: {_brief(answer)}"])
        return FailureClassification("ignoring_requirement", "rules", [
            "no tool call and no answer: ended without addressing the request"])

    unrecovered = _unrecovered(calls)

    # 2. syntactic parameter errors
    syntactic = [i for i in unrecovered if _is_syntactic(calls[i])]
    if syntactic:
        evidence = []
        for i in syntactic:
            c = calls[i]
            what = "arguments were not valid JSON" if c.arguments is None else _brief(c.result)
            evidence.append(f"{_where(c, i)}: {what} (never called successfully afterwards)")
        return FailureClassification("syntactic_parameter_error", "rules", evidence)

    # 3. wrong tool selection
    servers, gold_tools = _chain(task)
    off = [i for i, c in enumerate(calls) if c.server is None or c.server not in servers]
    untried = sorted(f"{s}:{t}" for s, t in gold_tools if not _attempted(calls, s, t))
    if off and (untried or not gold_tools):
        evidence = []
        for i in off:
            c = calls[i]
            why = "a tool that does not exist" if c.server is None or NO_SUCH_TOOL.search(c.result) else (
                f"outside the task's tool chain (servers {', '.join(sorted(servers))})")
            evidence.append(f"{_where(c, i)}: {why}")
        evidence += [f"gold tool {t} never called" for t in untried]
        return FailureClassification("wrong_tool_selection", "rules", evidence)

    # 4. semantic parameter errors: well-formed calls about things that do not exist
    semantic = [i for i in unrecovered if calls[i].server is not None and calls[i].arguments is not None
                and SEMANTIC.search(calls[i].result) and not NO_SUCH_TOOL.search(calls[i].result)]
    if semantic:
        return FailureClassification("semantic_parameter_error", "rules", [
            f"{_where(calls[i], i)} with well-formed arguments failed: {_brief(calls[i].result)}" for i in semantic])

    # 5. unproductive thinking: the round limit with a call repeated verbatim
    if trajectory.stop_reason == "max_rounds":
        (key, count), = Counter(_key(c) for c in calls).most_common(1)
        if count >= repeat_threshold:
            server, tool, args = key
            return FailureClassification("unproductive_thinking", "rules", [
                f"stopped at the round limit ({trajectory.rounds} rounds)",
                f"{server}:{tool} called {count} times with identical arguments {_brief(args)}"])

    # 6./7. unmet action checkpoints
    results = {c["index"]: c for c in score.get("checkpoints", [])}
    search_met = all(r["score"] == 1.0 for r in results.values() if r["type"].endswith("_search"))
    ignored, wrong_content = [], []
    for i, cp in enumerate(task.spec.checkpoints):
        result = results.get(i)
        if result is None or result["score"] is None or result["score"] >= 1.0:
            continue
        if isinstance(cp, OperateCheckpoint | OtherCheckpoint) and cp.tool:
            if not _attempted(calls, cp.server, cp.tool):
                if result["score"] == 0.0:
                    ignored.append(f"checkpoint {i + 1} ({cp.summary}) unmet: {cp.tool} never called")
            elif isinstance(cp, OperateCheckpoint) and _attempted(calls, cp.server, cp.tool, ok=True):
                wrong_content.append(f"checkpoint {i + 1} ({cp.summary}) scored {result['score']}: {cp.tool} "
                                     f"succeeded but the end state does not match ({result['reason']})")
    if ignored and search_met:
        return FailureClassification("ignoring_requirement", "rules",
                                     [*ignored, "every search checkpoint was met"])
    if wrong_content:
        return FailureClassification("semantic_parameter_error", "rules", wrong_content)
    return FailureClassification(None, "undecided", ["no rule matched"])


# -- the judge for the undecided -------------------------------------------------------------------
SYSTEM = """\
You diagnose why an AI agent failed a task it attempted with tools. Choose the one failure mode that best
explains the failure (the earliest root cause, if there are several):

- ignoring_requirement: the agent missed an explicitly stated requirement and did not pick any tool for
  it; it stopped early or gave a generic answer that does not address it.
- overconfident_self_solving: the agent saw the requirement but answered from its own knowledge or
  reasoning instead of calling the tool that was needed.
- unproductive_thinking: the agent knew a tool was needed, kept planning or repeating itself, and never
  made the call that would progress; it ran out of rounds or gave up.
- wrong_tool_selection: the agent called an inappropriate tool (or a tool that does not exist) for a
  requirement, leading to wrong intermediate results or a wrong answer.
- syntactic_parameter_error: the arguments were malformed (wrong types, missing or misnamed fields,
  invalid JSON), so the tool could not process the call.
- semantic_parameter_error: the arguments were well-formed but wrong for the task: a wrong id or entity,
  a mis-scoped query, a wrong value or constraint.
- output_parsing_error: a tool returned the right information but the agent misread or mishandled it,
  so a later step or the final answer is wrong.

Base the diagnosis on the events shown; quote the call numbers or answer text that show it."""


class FailureJudge(ModelJudge):
    """Task + trajectory + rule-based checkpoint scores → one of the seven failure modes."""

    kind = "failure_mode"

    def messages(self, task: Task, trajectory: Trajectory, score: Mapping[str, Any]) -> list[dict[str, Any]]:
        b = self.budgets
        lines = [f"checkpoint {c['index'] + 1} [{c['type']}] {task.spec.checkpoints[c['index']].summary}: "
                 f"score {c['score']} ({c['reason']})" for c in score.get("checkpoints", [])
                 if c["index"] < len(task.spec.checkpoints)]
        parts = [
            budget_note(b, ["instruction", "scores", "tool_calls", "tool_output", "arguments", "final_answer"]),
            section("User request", render_request(task, b.instruction)),
            section(f"Checkpoint scores (Acc {score.get('acc', 0):.2f})", clip("\n".join(lines), b.scores)),
            section(f"Agent's tool calls ({len(trajectory.tool_calls)}; stopped because: "
                    f"{trajectory.stop_reason or 'unknown'})", render_tool_calls(trajectory, b)),
            section("Agent's final answer", clip(trajectory.final_answer, b.final_answer) or "(no final answer)"),
        ]
        return [system_message(SYSTEM, FailureVerdict), {"role": "user", "content": "\n\n".join(parts)}]

    async def judge(self, task: Task, trajectory: Trajectory, score: Mapping[str, Any]) -> JudgeVerdict:
        return await ask_judge(
            self.client, self.messages(task, trajectory, score), FailureVerdict, judge=self.kind,
            subject=f"{task.id}#failure", prompt_version=PROMPT_VERSION, label=_mode,
            max_attempts=self.max_attempts,
        )


def _mode(verdict: BaseModel) -> str:
    assert isinstance(verdict, FailureVerdict)
    return verdict.mode


async def diagnose(
    task: Task, trajectory: Trajectory, score: Mapping[str, Any], *, judge: FailureJudge | None = None,
    repeat_threshold: int = REPEAT_THRESHOLD,
) -> FailureClassification:
    """Rules first; the judge (if any) only for what the rules leave undecided."""
    result = classify_failure(task, trajectory, score, repeat_threshold=repeat_threshold)
    if result.mode is not None or judge is None:
        return result
    verdict = await judge.judge(task, trajectory, score)
    if verdict.ok and verdict.parsed is not None:
        return FailureClassification(verdict.label, "judge", [verdict.parsed["evidence"]], verdict)
    return FailureClassification(None, "undecided", [*result.evidence, f"judge verdict {verdict.status}"], verdict)


# -- over a run ------------------------------------------------------------------------------------
@dataclass
class RunFailures:
    """Failure modes of a run's failed episodes (keyed ``task_id#epoch``), with passed/errored counts."""

    episodes: dict[str, FailureClassification] = field(default_factory=dict)
    passed: int = 0
    errored: int = 0

    def counts(self) -> dict[str, int]:
        return count_failure_modes(self.episodes.values()) | {"passed": self.passed, "errored": self.errored}

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts(), "episodes": {k: v.to_dict() for k, v in self.episodes.items()}}


def count_failure_modes(classifications: Iterable[FailureClassification]) -> dict[str, int]:
    """Episodes per mode (every mode listed, zeros included), ``undecided``, and how the modes were decided."""
    counts = dict.fromkeys(FAILURE_MODES, 0) | {"undecided": 0, "by_rules": 0, "by_judge": 0,
                                                "judge_unparseable": 0, "failed": 0}
    for c in classifications:
        counts["failed"] += 1
        counts[c.mode or "undecided"] += 1
        counts["by_rules"] += c.source == "rules"
        counts["by_judge"] += c.source == "judge"
        counts["judge_unparseable"] += c.verdict is not None and c.verdict.status == "unparseable"
    return counts


async def classify_run(
    records: Sequence[EpisodeRecord],
    tasks: Mapping[str, Task],
    *,
    judge: FailureJudge | None = None,
    threshold: float = 1.0,
    concurrency: int = 4,
) -> RunFailures:
    """Classify every failed (``ok`` but Acc < ``threshold``) episode of a run; errored ones are counted apart."""
    out = RunFailures()
    todo = []
    for r in records:
        if r.status != "ok" or r.score is None:
            out.errored += 1
        elif not is_failed(r.score.detail, threshold=threshold):
            out.passed += 1
        elif r.task_id in tasks:
            todo.append(r)
    limiter = anyio.CapacityLimiter(concurrency)
    found: dict[str, FailureClassification] = {}

    async def one(r: EpisodeRecord) -> None:
        async with limiter:
            assert r.score is not None
            found[f"{r.task_id}#{r.epoch}"] = await diagnose(tasks[r.task_id], r.trajectory, r.score.detail,
                                                             judge=judge)

    async with anyio.create_task_group() as tg:
        for r in todo:
            tg.start_soon(one, r)
    out.episodes = {f"{r.task_id}#{r.epoch}": found[f"{r.task_id}#{r.epoch}"] for r in todo}
    return out


__all__ = [
    "FAILURE_MODES",
    "FailureClassification",
    "FailureJudge",
    "FailureMode",
    "RunFailures",
    "classify_failure",
    "classify_run",
    "count_failure_modes",
    "diagnose",
    "is_failed",
]
