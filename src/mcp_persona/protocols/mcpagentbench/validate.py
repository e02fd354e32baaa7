"""Replay validation of an MCPAgentBench task: the gold chain runs without an error, the reference agent
finishes it efficiently, and every gold argument is discoverable (:mod:`mcp_persona.literals`): stated in
the request, shown by an earlier step, or a value the tool's schema lists (its default among them). Every
value counts as a literal here, not only names: the score compares each argument with the gold call's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp_persona.literals import ListingReference, literal_problems
from mcp_persona.tasks import Task

if TYPE_CHECKING:
    from mcp_persona.protocols.mcpagentbench import MCPAgentBenchProtocol


async def check_task(task: Task, protocol: MCPAgentBenchProtocol) -> list[str]:
    from mcp_persona.runner import run_episode

    problems = protocol.task_problems(task)
    if problems:
        return problems
    agent = ListingReference(protocol)
    record = await run_episode(task, agent, protocol=protocol)
    if record.status == "error" or record.score is None:
        return [f"gold replay failed: {record.error}"]
    calls = record.trajectory.tool_calls
    problems += [f"gold call {e.tool} returned an error: {e.result[:160]}" for e in calls if e.is_error]
    problems += literal_problems(task, calls, agent.listing, every_value=True)
    score = record.score.detail
    if not (score["finished"] and score["efficient"]):
        problems.append(f"the gold replay does not score as efficiently finished: {score['missing']} "
                        f"{score['extra']}")
    problems += [f"simulator crash: {e}" for e in record.internal_errors]
    return problems
