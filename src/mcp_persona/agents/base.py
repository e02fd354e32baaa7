"""What every agent is: given a task and its environment, fill in the trajectory."""

from __future__ import annotations

from typing import Protocol

from mcp_persona.environment import Environment
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory


class Agent(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        """Act in ``env``; append events to ``trajectory`` and set its final answer and stop reason."""
        ...
