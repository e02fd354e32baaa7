"""LiveMCP-101's judges: the result and the trajectory, each rated 1–5 and mapped to {0, .25, .5, .75, 1}.

The result judge compares the agent's final answer with the final answer of the
reference execution (the reference agent following the validated plan); the
trajectory judge compares the agent's tool calls with the reference execution's
calls (or, without one, the plan).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from mcp_persona.judges.base import ModelJudge, ask_judge, system_message
from mcp_persona.judges.parse import JudgeVerdict
from mcp_persona.judges.render import (
    budget_note,
    clip,
    render_executed_plan,
    render_gold_plan,
    render_request,
    render_tool_calls,
    section,
)
from mcp_persona.judges.schemas import LikertVerdict, likert_to_score
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

RESULT_VERSION = "likert-result/2"  # /2: the paper's 2% tolerance for values read moments apart (was 1%)
TRAJECTORY_VERSION = "likert-trajectory/1"
TRAJECTORY_EXECUTED_VERSION = "likert-trajectory/1+execution"  # the reference shown as executed, not as planned

# How far a value that changes over time may be from the reference run's and still be right: the two runs read
# it moments apart. The paper's own judge example accepts $118 for a reference $120 (1.7% off), so no less.
VALUE_TOLERANCE = 0.02

RESULT_SYSTEM = f"""\
You rate how well an AI agent's final answer solves a user's request, by comparing it with a reference
answer produced by a reference run that followed a validated plan on the same tools and data.

Rate on this scale, using one of the five integers only:
- 5: the answer gives the same results and information as the reference; the request is fully met.
  Wording, order and formatting may differ.
- 4: mostly right, with a minor omission or a small inaccuracy.
- 3: roughly half right: some requirement is unmet or some results are noticeably wrong.
- 2: only a small part is right; substantially incomplete or with major errors.
- 1: nothing right or relevant: off-topic, invented, or wrong throughout.

How to judge:
1. The reference is what a correct answer contains for this data; a material difference is an error.
2. Rate what the request asks for; extra material that does not contradict the reference neither helps
   nor hurts.
3. A value that differs only in format (units written differently, date format, thousands separators,
   rounding of the last digit) is the same value. A value that changes over time (a price, a rate, a count,
   a forecast) may differ from the reference by a small amount, up to {VALUE_TOLERANCE:.0%} of the reference
   value or the tolerance the request states if larger, and still be right: the two runs may have read it
   moments apart. For example, an answer of $118 where the reference says $120 matches. A larger difference
   is an error.
4. An answer that claims work was done is rated on the claimed results only; it gets no credit for
   effort described."""

TRAJECTORY_SYSTEM = """\
You rate the quality of the tool-call trajectory an AI agent followed for a user's request, with a
reference plan (the validated sequence of tool calls) for context.

Rate on this scale, using one of the five integers only:
- 5: sound, complete and efficient: every needed step is present with correct arguments, no real
  mistakes; the approach matches the plan or is a clearly valid alternative.
- 4: mostly correct and relevant; some non-critical omissions, redundant calls or inefficiencies.
- 3: some correct, relevant steps, but gaps in the logic or completeness, or several poor choices.
- 2: few correct steps; substantially incomplete, or wrong tool use that undermines the task.
- 1: no correct or relevant step; illogical or wrong throughout.

How to judge:
1. The agent does not have to copy the plan: judge whether its steps would accomplish the request.
2. Failed calls that the agent then fixed are a minor inefficiency; failed calls never fixed are missing
   steps.
3. Steps that need an earlier result (an id, a value) must use the value the earlier call returned, not
   an invented one."""


def _likert(verdict: BaseModel) -> int:
    assert isinstance(verdict, LikertVerdict)
    return verdict.likert


def _mapped(verdict: BaseModel) -> float:
    return likert_to_score(_likert(verdict))


class LikertResultJudge(ModelJudge):
    """Query + the reference execution's final answer + the agent's final answer → 1–5."""

    kind = "likert_result"

    def messages(self, task: Task, trajectory: Trajectory, *, reference_answer: str | None = None
                 ) -> list[dict[str, Any]]:
        reference = task.reference_answer if reference_answer is None else reference_answer
        if not reference.strip():
            raise ValueError(f"task {task.id}: no reference answer (run the reference agent, or annotate "
                             "reference_answer)")
        b = self.budgets
        parts = [
            budget_note(b, ["instruction", "reference", "final_answer"]),
            section("User request", render_request(task, b.instruction)),
            section("Reference answer", clip(reference, b.reference)),
            section("Agent's final answer", clip(trajectory.final_answer, b.final_answer) or "(no final answer)"),
        ]
        return [system_message(RESULT_SYSTEM, LikertVerdict), {"role": "user", "content": "\n\n".join(parts)}]

    async def judge(self, task: Task, trajectory: Trajectory, *, reference_answer: str | None = None
                    ) -> JudgeVerdict:
        """``reference_answer``: the reference run's final answer; the task's annotated one by default."""
        return await ask_judge(
            self.client, self.messages(task, trajectory, reference_answer=reference_answer), LikertVerdict,
            judge=self.kind, subject=f"{task.id}#result", prompt_version=RESULT_VERSION,
            label=_likert, score=_mapped, max_attempts=self.max_attempts,
        )


class LikertTrajectoryJudge(ModelJudge):
    """Query + the reference plan (gold steps, or the reference execution's calls) + the agent's trajectory
    → 1–5."""

    kind = "likert_trajectory"

    def messages(self, task: Task, trajectory: Trajectory, *, reference: Trajectory | None = None
                 ) -> list[dict[str, Any]]:
        if not task.gold and reference is None:
            raise ValueError(f"task {task.id}: no reference plan (gold steps) to judge a trajectory against")
        b = self.budgets
        plan = (section("Reference execution (the validated plan as run on the same tools and data: calls in one "
                        "step ran in parallel; each with its arguments and, where they fit, the start of its result)",
                        render_executed_plan(reference, b)) if reference is not None
                else section("Reference plan (calls in one step may run in parallel; <result of ...> marks a value "
                             "taken from an earlier call's output)", render_gold_plan(task, b.reference)))
        parts = [
            budget_note(b, ["instruction", "reference", "tool_calls", "tool_output", "arguments", "final_answer"]),
            section("User request", render_request(task, b.instruction)),
            plan,
            section(f"Agent's tool calls ({len(trajectory.tool_calls)} in total, stopped because: "
                    f"{trajectory.stop_reason or 'unknown'})", render_tool_calls(trajectory, b)),
            section("Agent's final answer", clip(trajectory.final_answer, b.final_answer) or "(no final answer)"),
        ]
        return [system_message(TRAJECTORY_SYSTEM, LikertVerdict), {"role": "user", "content": "\n\n".join(parts)}]

    async def judge(self, task: Task, trajectory: Trajectory, *, reference: Trajectory | None = None
                    ) -> JudgeVerdict:
        """``reference``: the reference execution's trajectory, shown with concrete arguments and results in
        place of the gold plan."""
        return await ask_judge(
            self.client, self.messages(task, trajectory, reference=reference), LikertVerdict, judge=self.kind,
            subject=f"{task.id}#trajectory",
            prompt_version=TRAJECTORY_VERSION if reference is None else TRAJECTORY_EXECUTED_VERSION,
            label=_likert, score=_mapped, max_attempts=self.max_attempts,
        )


__all__ = ["LikertResultJudge", "LikertTrajectoryJudge"]
