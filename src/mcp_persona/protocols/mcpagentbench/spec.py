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
    gold_may_fail: bool = Field(
        default=False, description="the gold calls may be refused by this platform's servers (an imported task "
                                   "set whose arguments the library does not cover): a refused call may then "
                                   "stand for a gold call, as it did before a refusal counted as not done")


MCPAgentBenchTask = Task[MCPAgentBenchSpec]
