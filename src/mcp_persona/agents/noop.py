"""The floor: answers at once, calls no tool."""

from __future__ import annotations

from mcp_persona.environment import Environment
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

NOOP_ANSWER = "I can't help with that."


class NoopAgent:
    name = "noop"
    model = None

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        trajectory.final_answer = NOOP_ANSWER
        trajectory.stop_reason = "answered"
