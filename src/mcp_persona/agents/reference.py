"""The ceiling: replays the task's gold chain through MCP, then gives the reference answer.

Gold arguments may point at earlier results with ``{"$ref": "S.C:dotted.path"}``
(see :mod:`mcp_persona.tasks.models`); they are resolved here, at replay time.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_persona.environment import Environment
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

_REF = re.compile(r"^(\d+)\.(\d+):(.+)$")


class GoldReplayError(RuntimeError):
    """A gold call failed or a $ref could not be resolved: the task itself is broken."""


class ReferenceAgent:
    """Each gold step is one turn (its calls in parallel); ``one_call_per_turn`` instead spends a turn on
    every call, which solves the task but not efficiently (MCPAgentBench's TEFS tells the two apart)."""

    name = "reference"
    model = None

    def __init__(self, *, one_call_per_turn: bool = False) -> None:
        self.one_call_per_turn = one_call_per_turn

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        results: dict[tuple[int, int], ToolCallEvent] = {}
        turn = -1
        for si, step in enumerate(task.gold):
            turn += 1
            for ci, call in enumerate(step.calls):
                if ci and self.one_call_per_turn:
                    turn += 1
                args = env.gold_arguments(resolve_refs(call.arguments, results))
                event = await env.call(call.server, call.tool, args, round=turn, call_id=f"gold_{si}_{ci}")
                trajectory.events.append(event)
                results[(si, ci)] = event
        trajectory.final_answer = task.reference_answer
        trajectory.stop_reason = "replayed"


def resolve_refs(value: Any, results: dict[tuple[int, int], ToolCallEvent]) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            return _lookup(value["$ref"], results)
        return {k: resolve_refs(v, results) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_refs(v, results) for v in value]
    return value


def _lookup(ref: Any, results: dict[tuple[int, int], ToolCallEvent]) -> Any:
    m = _REF.match(ref) if isinstance(ref, str) else None
    if m is None:
        raise GoldReplayError(f"bad $ref {ref!r}: expected 'STEP.CALL:dotted.path'")
    key = (int(m.group(1)), int(m.group(2)))
    event = results.get(key)
    if event is None:
        raise GoldReplayError(f"$ref {ref!r} points at a call that has not run yet")
    if event.is_error:
        raise GoldReplayError(f"$ref {ref!r} points at a call that failed: {event.result[:200]}")
    try:
        cur: Any = json.loads(event.result)
    except json.JSONDecodeError as exc:
        raise GoldReplayError(f"$ref {ref!r}: that result is not JSON") from exc
    for part in m.group(3).split("."):
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise GoldReplayError(f"$ref {ref!r}: no {part!r} in the result")
    return cur
