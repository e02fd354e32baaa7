"""Replay validation of an MCPAgentBench task: the gold chain runs without an error, the reference agent
finishes it efficiently, and every gold argument is knowable: stated in the request, produced by an
earlier step, one of the values the tool's schema lists, or the tool's own default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_persona.agents import ReferenceAgent
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.tasks import Task

if TYPE_CHECKING:
    from mcp_persona.protocols.mcpagentbench import MCPAgentBenchProtocol


def squash(text: str) -> str:
    return "".join(text.casefold().split())


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            return []  # taken from an earlier result by construction
        return [*value.keys(), *(x for v in value.values() for x in _leaves(v))]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def unknowable_arguments(task: Task, outputs: list[tuple[int, str]]) -> list[str]:
    """Gold argument values an agent could not know; ``outputs`` are (step, result text) of the replay."""
    lib = library()
    request = squash(task.instruction)
    problems = []
    for si, step in enumerate(task.gold):
        earlier = [squash(text) for sj, text in outputs if sj < si]
        for call in step.calls:
            tool = lib[call.tool]
            for key, value in call.arguments.items():
                allowed = tool.enums.get(key, [])
                if key in tool.defaults and tool.defaults[key] == value:
                    continue
                for leaf in _leaves(value):
                    if isinstance(leaf, bool) or leaf in allowed:
                        continue
                    needle = squash(str(leaf))
                    if needle and (needle in request or any(needle in out for out in earlier)):
                        continue
                    problems.append(f"gold step {si} {call.tool}: argument {key}={leaf!r} is neither in the request, "
                                    "nor in an earlier result, nor a value the tool's schema lists")
    return problems


async def check_task(task: Task, protocol: MCPAgentBenchProtocol) -> list[str]:
    from mcp_persona.runner import run_episode

    problems = protocol.task_problems(task)
    if problems:
        return problems
    record = await run_episode(task, ReferenceAgent(), protocol=protocol)
    if record.status == "error" or record.score is None:
        return [f"gold replay failed: {record.error}"]
    calls = record.trajectory.tool_calls
    problems += [f"gold call {e.tool} returned an error: {e.result[:160]}" for e in calls if e.is_error]
    problems += unknowable_arguments(task, [(e.round, e.result) for e in calls])
    if not (record.score["finished"] and record.score["efficient"]):
        problems.append(f"the gold replay does not score as efficiently finished: {record.score['missing']} "
                        f"{record.score['extra']}")
    problems += [f"simulator crash: {e}" for e in record.internal_errors]
    return problems
