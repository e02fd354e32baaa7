"""A whole benchmark protocol in one folder: the smallest complete one, to show what adding one takes.

"Toy" tells the agent the request and nothing else, offers the task's own servers, and scores two things: the
share of gold calls the agent made (by tool, whatever their arguments) and whether the task is solved (every
gold call made and the reference answer given). Everything else (the CLI's run, the summary with intervals, the
console table, the Markdown and HTML reports, ``compare``) comes from these declarations. Registered with one
line: ``register_protocol("toy", "toy_protocol")`` (or an entry point of the ``mcp_persona.protocols`` group).
"""

from __future__ import annotations

from typing import Any

from mcp_persona.environment import Environment, PoolSpec, ToolPool
from mcp_persona.protocols.base import Protocol, ReferenceExecution
from mcp_persona.score import Score
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

SYSTEM = "You are an assistant with tools. Use them to do what the user asks, then answer in one short paragraph."


class ToyProtocol(Protocol):
    name = "toy"
    title = "Toy"
    report_columns = (
        ("Solved", "solved", "share of tasks with every gold call made and the reference answer given"),
        ("Calls", "calls", "share of the gold chain's calls made, by tool"),
    )
    report_groups = "by_category"

    def task_problems(self, task: Task) -> list[str]:
        return [] if task.gold else ["a toy task needs a gold chain"]

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        return PoolSpec(task.server_names)

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        return SYSTEM

    async def score(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> Score:
        made = {(c.server, c.tool) for c in trajectory.tool_calls if not c.is_error}
        gold = [(c.server, c.tool) for c in task.gold_calls]
        calls = sum(g in made for g in gold) / len(gold)
        answered = appears_in(task.reference_answer, trajectory.final_answer or "")
        solved = 1.0 if calls == 1.0 and answered else 0.0
        return self.scored(task, {"acc": solved, "solved": solved, "calls": calls})


PROTOCOL = ToyProtocol()
