"""Read the peer's task file (``[{id, content, tools, inputs}]``, ``tools`` / ``inputs`` a list of steps
of parallel calls) into our task format. A task maps when every tool is in the library and every
argument name is one of that tool's parameters; the others are listed with the reason. Imported
arguments are the peer's as they are: run ``mcp-persona validate`` on the result to find those an
agent could not know."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.protocols.mcpagentbench.spec import MCPAgentBenchTask
from mcp_persona.tasks import Task

CLOCK = {"now": "2026-03-10T09:30:00", "timezone": "UTC"}
_TYPES = (("_1_tool", "single"), ("_2_sequential_tools", "dual_serial"), ("_2_seq_tools", "dual_serial"),
          ("_2_parallel_tools", "dual_parallel"), ("_3_tools", "multi"), ("_3_seq_tools", "multi"))


def task_type(peer_id: str) -> str | None:
    """The peer keeps the type only in the id: ``daytask_2_parallel_tools_8``."""
    return next((t for mark, t in _TYPES if mark in peer_id), None)


def task_id(peer_id: str) -> str:
    """Our id of the peer's task ``peer_id``."""
    return "peer_" + re.sub(r"[^A-Za-z0-9_.-]", "_", peer_id)


def convert(item: dict[str, Any], suite: str = "mcpagentbench") -> Task | str:
    """The task, or why it cannot be mapped."""
    peer_id = str(item.get("id", "?"))
    tools, inputs = item.get("tools"), item.get("inputs")
    if not isinstance(tools, list) or not isinstance(inputs, list) or len(tools) != len(inputs):
        return "tools and inputs must be lists of steps of the same length"
    lib = library()
    steps = []
    for step_tools, step_inputs in zip(tools, inputs, strict=True):
        if len(step_tools) != len(step_inputs):
            return "a step has a different number of tools and inputs"
        calls = []
        for name, args in zip(step_tools, step_inputs, strict=True):
            if name not in lib:
                return f"tool {name!r} is not in the library"
            params = set(lib[name].schema.get("properties", {}))
            unknown = sorted(set(args or {}) - params)
            if unknown:
                return f"{name}: arguments {unknown} are not parameters of our {name} ({', '.join(sorted(params))})"
            calls.append({"server": lib[name].server, "tool": name, "arguments": args or {}})
        steps.append({"calls": calls})
    servers = list(dict.fromkeys(c["server"] for s in steps for c in s["calls"]))
    try:
        return MCPAgentBenchTask.model_validate({
            "id": task_id(peer_id), "suite": suite, "instruction": item.get("content"),
            "servers": [{"server": s, "context_id": "default"} for s in servers], "clock": CLOCK, "gold": steps,
            "spec": {"type": task_type(peer_id), "domain": "daily" if peer_id.startswith("day") else "professional",
                     "gold_may_fail": True}})
    except ValidationError as exc:
        return f"not a valid task: {exc.errors(include_url=False)[0]['msg']}"


def import_file(path: Path) -> tuple[list[Task], list[str]]:
    """(tasks mapped, 'id: reason' for each task that was not)."""
    tasks, unmapped = read_tasks(path)
    return tasks, [f"{peer_id}: {why}" for peer_id, why in unmapped]


def read_tasks(path: Path) -> tuple[list[Task], list[tuple[str, str]]]:
    """(tasks mapped, (peer id, reason) for each task that was not)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected a JSON list of tasks")
    tasks, unmapped = [], []
    for item in raw:
        out = convert(item) if isinstance(item, dict) else "not a JSON object"
        if isinstance(out, Task):
            tasks.append(out)
        else:
            unmapped.append((str(item.get("id", "?")) if isinstance(item, dict) else "?", out))
    return tasks, unmapped
