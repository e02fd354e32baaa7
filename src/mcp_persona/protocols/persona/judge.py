"""MCP-Persona's checkpoint judge: one call per checkpoint, a score in {0, 0.5, 1} and a reason.

The judge sees the user's request, the checkpoint (its summary, its ground-truth
values or expected fields where the task has them), the agent's tool calls with
the outputs relevant to this checkpoint, the state changes (for operations) and
the final answer, each cut to a stated character budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import anyio
from pydantic import BaseModel

from mcp_persona.judges.base import MAX_ATTEMPTS, ModelJudge, ask_judge, system_message
from mcp_persona.judges.parse import JudgeVerdict
from mcp_persona.judges.render import (
    Budgets,
    budget_note,
    clip,
    compact_json,
    render_context,
    render_list,
    render_request,
    render_tool_calls,
    section,
)
from mcp_persona.judges.schemas import CheckpointVerdict
from mcp_persona.llm.base import ChatClient
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import OperateCheckpoint, OtherCheckpoint, SearchCheckpoint, Task
from mcp_persona.tasks.models import Checkpoint
from mcp_persona.trajectory import ToolCallEvent, Trajectory

PROMPT_VERSION = "checkpoint/1"

SYSTEM = """\
You grade one checkpoint of an AI agent's attempt at a user's request. The agent worked in the user's
(simulated) apps through tools. A checkpoint is one intermediate result the request depends on: a value the
agent had to find, a change it had to make in an app, or another required step.

Give exactly one of three scores:
- 1: achieved. A value to find: every expected value was obtained from a tool and is stated in the final
  answer or correctly used in a later tool call. A change to make: a successful tool call (and the state
  changes, when listed) shows the change was made with the expected content. Another step: it was carried
  out successfully.
- 0.5: partly achieved. Only some of the expected values were found or reported; or the values were
  retrieved by a tool but neither reported nor used; or the change was made but with some content wrong
  or missing.
- 0: not achieved. Never attempted, every attempt failed, or the values given are wrong or were made up
  without a tool.

How to judge:
1. Judge this checkpoint only, not the whole request.
2. The ground truth, when given, is authoritative. A value that differs only in formatting (case, spacing,
   quoting, date or number format) is the same value.
3. Evidence is what the tool outputs, the state changes and the final answer show. A claim in the final
   answer that no tool output supports does not count.
4. A different tool than expected is fine if it achieves the same effect.
5. Scores other than 0, 0.5 and 1 are not allowed: do not use 0.25, 0.7 or similar."""

_KIND = {
    "generic_search": "a value to find with a public information tool",
    "personalized_search": "a value to find in the user's own apps",
    "operate": "a change to make in an app",
    "other": "another required step",
}


def describe_checkpoint(cp: Checkpoint) -> str:
    """The checkpoint as the judge reads it, ground truth included where the task has it."""
    lines = [f"Summary: {cp.summary}", f"Kind: {cp.type} ({_KIND[cp.type]})"]
    if isinstance(cp, SearchCheckpoint):
        if cp.server:
            lines.append(f"App: {cp.server}")
        values = ", ".join(json.dumps(v, ensure_ascii=False) for v in cp.gt_value)
        lines.append(f"Ground truth value(s), all required: {values}")
    elif isinstance(cp, OperateCheckpoint):
        lines.append(f"App: {cp.server}; expected tool: {cp.tool}; operation: {cp.operate_type}")
        if cp.entity:
            lines.append(f"Entity type: {cp.entity}")
        if cp.target:
            lines.append(f"Target entity: {cp.target}")
        if cp.expect:
            lines.append("Ground truth (expected fields): " + compact_json(cp.expect))
        if cp.parent_expect:
            lines.append("Ground truth (expected fields of its parent): " + compact_json(cp.parent_expect))
    elif isinstance(cp, OtherCheckpoint):
        if cp.server or cp.tool:
            lines.append(f"Expected tool: {cp.server or '?'}:{cp.tool or '?'}")
        lines.append("Ground truth: none (judge from the summary)")
    return "\n".join(lines)


def relevance(cp: Checkpoint) -> Callable[[ToolCallEvent], bool] | None:
    """Which calls' outputs matter for ``cp``: its app's or tool's calls, or calls that show a GT value."""
    server = getattr(cp, "server", None)
    tool = getattr(cp, "tool", None)
    values = cp.gt_value if isinstance(cp, SearchCheckpoint) else []
    if server is None and tool is None and not values:
        return None

    def relevant(call: ToolCallEvent) -> bool:
        if server is not None and call.server == server:
            return True
        if tool is not None and call.tool == tool:
            return True
        return any(appears_in(v, call.result) for v in values)

    return relevant


class CheckpointJudge(ModelJudge):
    """MCP-Persona checkpoint judge. ``judge`` one checkpoint, or ``judge_task`` several concurrently."""

    kind = "checkpoint"

    def __init__(
        self,
        client: ChatClient,
        *,
        budgets: Budgets | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        concurrency: int = 4,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        super().__init__(client, budgets=budgets, max_attempts=max_attempts)
        self.concurrency = concurrency

    def messages(
        self, task: Task, trajectory: Trajectory, index: int, *, state_changes: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """The conversation for checkpoint ``index``. ``state_changes`` (the episode's readable diff) is shown
        for operate checkpoints when given; None means unknown and the section is left out (an empty list
        says that nothing changed)."""
        if not 0 <= index < len(task.spec.checkpoints):
            raise IndexError(f"task {task.id} has no checkpoint {index} ({len(task.spec.checkpoints)} checkpoints)")
        cp = task.spec.checkpoints[index]
        b = self.budgets
        shown = ["instruction", "context", "checkpoint", "tool_calls", "tool_output", "other_output", "arguments",
                 "final_answer"]
        operate = isinstance(cp, OperateCheckpoint) and state_changes is not None
        if operate:
            shown.append("state_changes")
        parts = [
            budget_note(b, shown),
            section("User request", render_request(task, b.instruction)),
            section("Facts the user gave the agent", render_context(task, b.context)),
            section(f"Checkpoint {index + 1} of {len(task.spec.checkpoints)}",
                    clip(describe_checkpoint(cp), b.checkpoint)),
            section(f"Tool calls of the agent ({len(trajectory.tool_calls)} in total; outputs relevant to this "
                    "checkpoint shown in more detail)", render_tool_calls(trajectory, b, relevance(cp))),
        ]
        if operate and state_changes is not None:
            changes = render_list(state_changes, b.state_changes) if state_changes else "(nothing changed)"
            parts.append(section("State changes in the apps at the end of the episode", changes))
        parts.append(section("Final answer of the agent",
                             clip(trajectory.final_answer, b.final_answer) or "(no final answer)"))
        return [system_message(SYSTEM, CheckpointVerdict), {"role": "user", "content": "\n\n".join(parts)}]

    async def judge(
        self, task: Task, trajectory: Trajectory, index: int, *, state_changes: Sequence[str] | None = None
    ) -> JudgeVerdict:
        return await ask_judge(
            self.client, self.messages(task, trajectory, index, state_changes=state_changes), CheckpointVerdict,
            judge=self.kind, subject=f"{task.id}#checkpoint{index}", prompt_version=PROMPT_VERSION,
            label=_score, score=_score, max_attempts=self.max_attempts,
        )

    async def judge_task(
        self,
        task: Task,
        trajectory: Trajectory,
        *,
        state_changes: Sequence[str] | None = None,
        indexes: Sequence[int] | None = None,
    ) -> dict[int, JudgeVerdict]:
        """Verdicts for ``indexes`` (every checkpoint by default), keyed by checkpoint index."""
        todo = list(range(len(task.spec.checkpoints))) if indexes is None else list(indexes)
        out: dict[int, JudgeVerdict] = {}
        limiter = anyio.CapacityLimiter(self.concurrency)

        async def one(i: int) -> None:
            async with limiter:
                out[i] = await self.judge(task, trajectory, i, state_changes=state_changes)

        async with anyio.create_task_group() as tg:
            for i in todo:
                tg.start_soon(one, i)
        return {i: out[i] for i in todo}


def _score(verdict: BaseModel) -> float:
    assert isinstance(verdict, CheckpointVerdict)
    return verdict.score


Policy = Literal["complement", "replace"]


def undecided_checkpoints(rule_score: Mapping[str, Any]) -> list[int]:
    """Checkpoints the rules could not decide (score None): what a complementing judge is asked about."""
    return [c["index"] for c in rule_score["checkpoints"] if c["score"] is None]


def combine_scores(
    rule_score: Mapping[str, Any], verdicts: Mapping[int, JudgeVerdict], *, policy: Policy = "complement"
) -> dict[str, Any]:
    """The episode's score dict with judge verdicts merged in, Acc recomputed.

    * ``complement``: the judge decides only checkpoints the rules left undecided (score None).
    * ``replace``: the judge decides every checkpoint it has an ``ok`` verdict for (the MCP-Persona protocol).

    A checkpoint whose verdict is unparseable or errored keeps its rule score (``source`` says so); one with
    neither a rule score nor a usable verdict scores 0 (``unjudged``): an unreadable verdict is never a pass.
    Every checkpoint keeps its ``rule_score`` and ``judge_score`` side by side; Exec-Acc (end-state checks)
    is unchanged. ``judge_unparseable`` / ``judge_errors`` count the verdicts that could not be used.
    """
    out = dict(rule_score)
    checkpoints = []
    unparseable = errors = 0
    for cp in rule_score["checkpoints"]:
        cp = dict(cp)
        i, rule = cp["index"], cp["score"]
        verdict = verdicts.get(i)
        cp["rule_score"] = rule
        cp["judge_score"] = verdict.score if verdict is not None and verdict.ok else None
        wanted = verdict is not None and (policy == "replace" or rule is None)
        if wanted and verdict is not None and verdict.ok:
            cp["score"], cp["source"] = verdict.score, "judge"
            cp["judge_reason"] = (verdict.parsed or {}).get("reason", "")
        elif wanted and verdict is not None:
            unparseable += verdict.status == "unparseable"
            errors += verdict.status == "error"
            if rule is None:
                cp["score"], cp["source"] = 0.0, f"unjudged (judge {verdict.status})"
            else:
                cp["source"] = f"rules (judge {verdict.status})"
        else:
            cp["source"] = "rules" if rule is not None else "undecided"
        checkpoints.append(cp)
    scored = [c["score"] for c in checkpoints if c["score"] is not None]
    out["checkpoints"] = checkpoints
    out["rule_acc"] = rule_score["acc"]
    out["acc"] = sum(scored) / len(scored) if scored else 0.0
    out["judge_policy"] = policy
    out["judge_unparseable"] = unparseable
    out["judge_errors"] = errors
    return out


__all__ = ["PROMPT_VERSION", "CheckpointJudge", "combine_scores", "describe_checkpoint", "undecided_checkpoints"]
