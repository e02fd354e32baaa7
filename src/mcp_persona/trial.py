"""Score one task on an answer, and calls, that a person writes: how a reviewer or a task's author tries a
task's checks ("does a right answer in other words pass? does a swapped one fail?") without a model.

The calls (the gold chain unless given) are played through the task's real MCP servers, the answer is given as
the final answer, and the task's own protocol scores the episode with its rules (no judge: a trial is about the
deterministic checks).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from mcp_persona.mutants import PlannedCall, ReplayAgent, gold_plan
from mcp_persona.runner import run_episode
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks.models import GoldCall, Task


class TrialError(ValueError):
    """A trial's calls file cannot be read; the message says what to fix."""


def read_calls(path: Path) -> tuple[PlannedCall, ...]:
    """Calls from a JSON file: a list of ``{"server", "tool", "arguments"}`` objects (one round each) or a list
    of such lists (a round of calls made together)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TrialError(f"cannot read calls from {path}: {exc}") from exc
    if not isinstance(data, list):
        raise TrialError(f"{path}: expected a JSON list of calls (or of rounds of calls), got {type(data).__name__}")
    planned: list[PlannedCall] = []
    for r, item in enumerate(data):
        for c, call in enumerate(item if isinstance(item, list) else [item]):
            try:
                planned.append(PlannedCall((r, c), r, GoldCall.model_validate(call)))
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "the call"
                raise TrialError(f"{path}: call {r}.{c}: {where}: {problem['msg']} (a call is "
                                 '{"server": ..., "tool": ..., "arguments": {...}})') from exc
    return tuple(planned)


def try_task(task: Task[Any], *, answer: str | None = None,
             calls: tuple[PlannedCall, ...] | None = None) -> EpisodeRecord:
    """The episode of ``calls`` (default: the gold chain) then ``answer`` (default: the reference answer),
    scored by the task's protocol."""
    agent = ReplayAgent(gold_plan(task) if calls is None else calls, answer=answer)
    return anyio.run(lambda: run_episode(task, agent))
