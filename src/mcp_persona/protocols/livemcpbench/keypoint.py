"""LiveMCPBench's judge: success or failure against the task's key points.

The judge sees the task, its key points (annotated, or extracted by
:class:`KeyPointExtractor`), the agent's final answer, its tool-call history and
the descriptions of the tools it used. It marks each key point met or not, then
gives ``success`` or ``failure``; a ``success`` with an unmet key point is
rejected as malformed. The verdict is read from the ``status`` field of the JSON
object only: a reply that merely contains the word "success" is never a success.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from mcp_persona.judges.base import ModelJudge, ask_judge, system_message
from mcp_persona.judges.parse import JudgeVerdict
from mcp_persona.judges.render import (
    budget_note,
    clip,
    render_list,
    render_request,
    render_tool_calls,
    section,
)
from mcp_persona.judges.schemas import KeyPointList, KeyPointVerdict
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

JUDGE_VERSION = "keypoint/1"
EXTRACT_VERSION = "keypoint-extract/1"

JUDGE_SYSTEM = """\
You decide whether an AI agent accomplished a user's task with tools. You get the task, its key points
(the things a complete solution must achieve), the agent's tool-call history with outputs, the
descriptions of the tools it used, and its final answer to the user.

Check every key point in order and mark it met (true) or not met (false):
- Information the answer reports must come from a tool output shown in the history. Information the agent
  supplied from its own knowledge, or invented, does not meet a key point.
- An action the task asks for (creating, sending, saving, changing something) is met only if a tool call
  performing it succeeded; saying it was done is not enough.
- A tool output that was cut for length is not evidence either way.
Then give the status: "success" only if every key point is met; otherwise "failure"."""

EXTRACT_SYSTEM = """\
You list the key points of a task: the requirements its description states explicitly and that a complete
solution has to satisfy (values to find, actions to take, conditions and constraints, what the answer must
contain).

Rules:
- Take only what the description states. Do not add steps, tools or conditions it does not mention.
- One requirement per key point, each a short, self-contained sentence.
- Keep the order in which the description states them."""


def tool_descriptions_for(trajectory: Trajectory) -> dict[str, str]:
    """``server:tool`` → description, for the tools the trajectory called, from the bundled apps."""
    from mcp_persona.apps import get_app

    out: dict[str, str] = {}
    for call in trajectory.tool_calls:
        if call.server is None:
            continue
        name = f"{call.server}:{call.tool}"
        if name in out:
            continue
        try:
            tools = {t.name: t.description or "" for t in get_app(call.server).sdk_tools}
        except KeyError:
            continue
        if call.tool in tools:
            out[name] = tools[call.tool]
    return out


def _status(verdict: BaseModel) -> str:
    assert isinstance(verdict, KeyPointVerdict)
    return verdict.status


def _success(verdict: BaseModel) -> float:
    return 1.0 if _status(verdict) == "success" else 0.0


def _points(verdict: BaseModel) -> list[str]:
    assert isinstance(verdict, KeyPointList)
    return verdict.key_points


class KeyPointJudge(ModelJudge):
    """Task + key points + final answer + tool-call history + tool descriptions → success / failure."""

    kind = "keypoint"

    def messages(
        self,
        task: Task,
        trajectory: Trajectory,
        *,
        key_points: Sequence[str] | None = None,
        tool_descriptions: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        points = list(task.spec.key_points if key_points is None else key_points)
        if not points:
            raise ValueError(f"task {task.id} has no key points: annotate them or extract them with "
                             "KeyPointExtractor first")
        descriptions = tool_descriptions_for(trajectory) if tool_descriptions is None else tool_descriptions
        b = self.budgets
        described = "\n".join(f"- {name}: {desc}" for name, desc in sorted(descriptions.items()))
        parts = [
            budget_note(b, ["instruction", "key_points", "tool_calls", "tool_output", "arguments",
                            "tool_descriptions", "final_answer"]),
            section("User task", render_request(task, b.instruction)),
            section(f"Key points ({len(points)}; mark each, in this order)", render_list(points, b.key_points)),
            section(f"Tool-call history ({len(trajectory.tool_calls)} calls)", render_tool_calls(trajectory, b)),
            section("Descriptions of the tools used", clip(described, b.tool_descriptions) or "(no tool used)"),
            section("Agent's final answer", clip(trajectory.final_answer, b.final_answer) or "(no final answer)"),
        ]
        return [system_message(JUDGE_SYSTEM, KeyPointVerdict), {"role": "user", "content": "\n\n".join(parts)}]

    async def judge(
        self,
        task: Task,
        trajectory: Trajectory,
        *,
        key_points: Sequence[str] | None = None,
        tool_descriptions: Mapping[str, str] | None = None,
    ) -> JudgeVerdict:
        """``key_points``: the task's annotated ones by default; ``tool_descriptions`` (``server:tool`` →
        text): looked up in the bundled apps for the tools the trajectory called, by default."""
        msgs = self.messages(task, trajectory, key_points=key_points, tool_descriptions=tool_descriptions)
        n = len(task.spec.key_points if key_points is None else key_points)
        return await ask_judge(
            self.client, msgs, KeyPointVerdict, judge=self.kind, subject=f"{task.id}#keypoints",
            prompt_version=JUDGE_VERSION, context={"n_key_points": n}, label=_status, score=_success,
            max_attempts=self.max_attempts,
        )


class KeyPointExtractor(ModelJudge):
    """Key points from a task description, for tasks without annotated ones. ``label`` is the list."""

    kind = "keypoint_extract"

    def messages(self, task: Task) -> list[dict[str, Any]]:
        b = self.budgets
        parts = [budget_note(b, ["instruction"]), section("Task description", clip(task.instruction, b.instruction))]
        return [system_message(EXTRACT_SYSTEM, KeyPointList), {"role": "user", "content": "\n\n".join(parts)}]

    async def extract(self, task: Task) -> JudgeVerdict:
        return await ask_judge(
            self.client, self.messages(task), KeyPointList, judge=self.kind, subject=f"{task.id}#keypoints",
            prompt_version=EXTRACT_VERSION, label=_points, max_attempts=self.max_attempts,
        )

    judge = extract


__all__ = ["KeyPointExtractor", "KeyPointJudge", "tool_descriptions_for"]
