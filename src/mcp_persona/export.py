"""A run as a dataset: one episode per JSON line, its conversation in the OpenAI chat message format.

Each line holds the same keys with the same types, which is what ``datasets.load_dataset("json", ...)`` and
``pandas.read_json(lines=True)`` need: every message has ``role``, ``content``, ``tool_calls``, ``tool_call_id``
and ``name`` (null where a role has none); the score's details and the run's settings, whose shapes differ
between protocols, are JSON text.

The conversation is what the agent saw and said. A model agent's is rebuilt from its model calls (the tool
calls as the model named them); an agent without model calls (the gold replay, an external agent) gets one
assistant turn per round holding that round's calls, then its final answer. Tool results follow the turn that
asked for them. The prompts are those stored with the episode, or, for a run stored before they were, the
protocol's own wording of the task.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_persona.agents.model import unique_call_ids
from mcp_persona.environment import SEP
from mcp_persona.report.load import Run
from mcp_persona.trajectory import RequestedCall

Message = dict[str, Any]


def message(role: str, content: str | None = None, *, tool_calls: list[dict[str, Any]] | None = None,
            tool_call_id: str | None = None, name: str | None = None) -> Message:
    return {"role": role, "content": content, "tool_calls": tool_calls, "tool_call_id": tool_call_id, "name": name}


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def conversation(trajectory: dict[str, Any], system: str | None, user: str | None, *,
                 bare: bool = False) -> list[Message]:
    """The episode's messages. ``bare``: the pool exposed tools under their own names (not ``server__tool``)."""
    out: list[Message] = []
    if system is not None:
        out.append(message("system", system))
    if user is not None:
        out.append(message("user", user))
    events = trajectory.get("events") or []
    if any(e.get("kind") == "model" for e in events):
        for e in events:
            if e.get("kind") == "model":
                if e.get("error"):
                    continue
                calls = unique_call_ids([RequestedCall.model_validate(c) for c in e.get("tool_calls") or []])
                out.append(message("assistant", e.get("content"),
                                   tool_calls=[_call(c.id, c.name, c.arguments) for c in calls] or None))
            else:
                out.append(_tool_result(e, _exposed(e, bare), str(e.get("call_id") or "")))
        return out
    rounds: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e.get("kind") == "tool":
            rounds.setdefault(int(e.get("round") or 0), []).append(e)
    for rnd in sorted(rounds):
        calls = rounds[rnd]
        ids = [str(e.get("call_id") or f"call_{rnd}_{i}") for i, e in enumerate(calls)]
        out.append(message("assistant", None, tool_calls=[_call(i, _exposed(e, bare), _raw(e))
                                                          for i, e in zip(ids, calls, strict=True)]))
        out.extend(_tool_result(e, _exposed(e, bare), i) for i, e in zip(ids, calls, strict=True))
    if trajectory.get("stop_reason") in ("answered", "replayed"):
        out.append(message("assistant", trajectory.get("final_answer") or ""))
    return out


def _exposed(event: dict[str, Any], bare: bool) -> str:
    server, tool = event.get("server"), str(event.get("tool") or "")
    if event.get("via"):  # the copilot's meta-tools: route and execute
        return str(event["via"])
    return tool if bare or not server else f"{server}{SEP}{tool}"


def _raw(event: dict[str, Any]) -> str:
    raw = event.get("raw_arguments")
    return raw if isinstance(raw, str) else json.dumps(event.get("arguments") or {}, ensure_ascii=False)


def _tool_result(event: dict[str, Any], name: str, call_id: str) -> Message:
    return message("tool", str(event.get("result") or ""), tool_call_id=call_id, name=name)


def episode_rows(run: Run) -> Iterable[dict[str, Any]]:
    """The run's episodes as export rows (see the module)."""
    from mcp_persona.protocols import DEFAULT_PROTOCOL, get_protocol, load_tasks
    from mcp_persona.tasks import TaskFileError

    config = run.config
    protocol = get_protocol(str(config.get("protocol") or DEFAULT_PROTOCOL))
    source = (config.get("flags") or {}).get("suite") or config.get("suite")
    try:
        tasks = {t.id: t for t in load_tasks(str(source))} if source else {}
    except TaskFileError:
        tasks = {}
    settings = json.dumps(config, sort_keys=True, ensure_ascii=False)
    measured = run.measured
    for ep in run.episodes:
        record = ep.record
        trajectory = record.get("trajectory") or {}
        task = tasks.get(ep.task_id)
        system, user = trajectory.get("system_prompt"), trajectory.get("user_prompt")
        bare = False
        if task is not None:
            if user is None:  # an agent told nothing (the gold replay) or a run stored before prompts were
                user = protocol.user_prompt(task)
                try:
                    system = protocol.system_prompt(task, None, None)  # type: ignore[arg-type]
                except (AttributeError, TypeError):
                    system = None
            try:
                bare = protocol.pool(task, protocol.settings(config.get("protocol_options") or {}),
                                     config.get("tools") or "selected", ep.epoch).bare_names
            except (KeyError, ValueError):
                bare = False
        events = trajectory.get("events") or []
        usage = [e.get("usage") or {} for e in events if e.get("kind") == "model"]
        costs = [e.get("cost_usd") for e in events if e.get("kind") == "model"]
        yield {
            "run": run.name,
            "task_id": ep.task_id,
            "epoch": ep.epoch,
            "category": ep.category,
            "suite": str(config.get("suite") or ""),
            "protocol": protocol.name,
            "agent": str(config.get("agent") or ""),
            "model": config.get("model"),
            "status": ep.status,
            "error": record.get("error"),
            "stop_reason": trajectory.get("stop_reason"),
            "acc": float(ep.acc),
            "score": json.dumps(record.get("score"), sort_keys=True, ensure_ascii=False),
            "messages": conversation(trajectory, system, user, bare=bare),
            "final_answer": str(trajectory.get("final_answer") or ""),
            "tool_calls": sum(1 for e in events if e.get("kind") == "tool"),
            "rounds": len({e.get("round") for e in events}),
            # null, never 0, where nobody measured them (an external agent's model calls are its own)
            "input_tokens": sum(int(u.get("input_tokens") or 0) for u in usage) if measured else None,
            "output_tokens": sum(int(u.get("output_tokens") or 0) for u in usage) if measured else None,
            "cost_usd": None if not costs or any(c is None for c in costs) else float(sum(costs)),
            "elapsed_s": float(trajectory.get("elapsed_s") or 0.0),
            "settings": settings,
        }


def write_jsonl(rows: Iterable[dict[str, Any]], out: Any) -> int:
    n = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        n += 1
    return n


CARD = """---
configs:
- config_name: default
  data_files: episodes.jsonl
tags:
- mcp
- agents
- tool-use
---

# {title}

Episodes of one MCP-Persona run: suite `{suite}` ({protocol} protocol), agent `{agent}`,
model `{model}`. {n} episodes, {errors} errored; mean score (`acc`) {acc:.3f} on a 0..1 scale
({acc_pct:.1f} in the % the reports and the run summary print).

Each line of `episodes.jsonl` is one episode: `messages` is the conversation in the OpenAI chat format (system,
user, assistant turns with `tool_calls`, `tool` results, the final answer), then the task (`task_id`, `epoch`,
`category`), the outcome (`status`, `error`, `stop_reason`, `acc`: the protocol's primary score of the
episode on a 0..1 scale, where reports print 0..100 %; `score` as JSON text with the protocol's details, its
shares also 0..1), the cost (`tool_calls`, `rounds`, `input_tokens`, `output_tokens`, `cost_usd` in US
dollars, `elapsed_s` in seconds; tokens are null where nobody measured them, as an external agent's model
calls are its own; `cost_usd` is null where no model call was priced: none made, an external agent's, or a
model without a price) and the run's settings (`settings`, JSON
text: the run configuration and command-line flags).

```python
from datasets import load_dataset
episodes = load_dataset("json", data_files="episodes.jsonl", split="train")
```
"""


def write_hf(run: Run, folder: Path) -> int:
    """``folder``/episodes.jsonl and a dataset card (README.md) describing it."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = list(episode_rows(run))
    with (folder / "episodes.jsonl").open("w", encoding="utf-8") as out:
        write_jsonl(rows, out)
    config = run.config
    acc = sum(r["acc"] for r in rows) / len(rows) if rows else 0.0
    card = CARD.format(title=f"MCP-Persona run {run.name}", suite=config.get("suite"), protocol=config.get("protocol"),
                       agent=config.get("agent"), model=config.get("model") or "none", n=len(rows),
                       errors=sum(r["status"] == "error" for r in rows), acc=acc, acc_pct=100 * acc)
    (folder / "README.md").write_text(card, encoding="utf-8")
    return len(rows)
