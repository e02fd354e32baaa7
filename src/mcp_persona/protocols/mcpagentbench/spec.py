"""What an MCPAgentBench task adds to the shared task: the shape of its gold chain and its domain (the
paper's Table 1 groups)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mcp_persona.tasks.models import Task, TaskSpec


class MCPAgentBenchSpec(TaskSpec):
    type: Literal["single", "dual_serial", "dual_parallel", "multi"] = Field(
        description="the shape of the gold chain: one call, two in a row, two at once, three or more")
    domain: Literal["daily", "professional"]


MCPAgentBenchTask = Task[MCPAgentBenchSpec]
