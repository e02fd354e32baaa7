"""Stored runs re-score to the same numbers: scored episodes recorded once, compared on every change.

``tests/data/rescore/<suite>.json`` holds, for a sample of each bundled suite, what every scripted agent of
``benchmarks/sloppy_agents.py`` (the gold play and each way of doing the task badly) scored: each episode's
score and the run's summary metrics. A refactor of scoring, protocols or reports must leave every one of those
numbers as it was; a deliberate change of a metric rewrites the file (``MCP_PERSONA_RESCORE_WRITE=1``) in the
same commit, so the diff shows what moved.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from mcp_persona.mutants import gold_plan, observe_gold
from mcp_persona.protocols import get_protocol, load_tasks, suite_protocol
from mcp_persona.protocols.persona import PersonaProtocol
from mcp_persona.runner import RunConfig, run_episode
from sloppy_agents import AGENTS, ANSWERS, PROTOCOL_AGENTS, agent

DATA = Path(__file__).parent / "data" / "rescore"
SUITES = ("persona", "livemcp101", "mcpagentbench", "livemcpbench")
SAMPLE = 6  # tasks per suite, spread evenly over the suite
# summary figures that measure the machine, not the scoring (seconds end in "_s")
_VOLATILE = ("elapsed", "time", "latency", "seconds", "cost")


def _volatile(key: str) -> bool:
    return key.endswith("_s") or any(m in key for m in _VOLATILE)


# a dump's reason counts characters of tool outputs, and the office servers' outputs name the episode's folder
# (its length is the checkout's and the scratch folder's): the verdict is compared, the counts are not
_PATH_COUNTS = re.compile(r"\(\d+ of \d+ characters\)")


def _stable(value: Any) -> Any:
    """``value`` as JSON would store it, without the figures that vary from one machine or run to the next."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if not _volatile(k)}
    if isinstance(value, list | tuple):
        return [_stable(v) for v in value]
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, str):
        return _PATH_COUNTS.sub("(N of M characters)", value)
    return value


async def _score_suite(suite: str) -> dict[str, Any]:
    tasks = load_tasks(suite)
    step = max(1, len(tasks) // SAMPLE)
    sample = tasks[::step][:SAMPLE]
    name = suite_protocol(suite).name
    protocol = get_protocol(name)
    out: dict[str, Any] = {"tasks": [t.id for t in sample], "agents": {}}
    for agent_name in PROTOCOL_AGENTS.get(name, PROTOCOL_AGENTS["livemcpbench"]):
        records = []
        for task in sample:
            plan = gold_plan(task)
            writes = ((await observe_gold(task)).writes if isinstance(protocol, PersonaProtocol)
                      else {p.label for p in plan})
            calls, around = AGENTS[agent_name](plan, writes)
            answer = ANSWERS[agent_name](task.reference_answer) if agent_name in ANSWERS else None
            records.append(await run_episode(task, agent(calls, around, answer), protocol=protocol))
        config = RunConfig(suite=suite, agent=agent_name, model=None, protocol=name)
        summary = protocol.summarize(config, sample, records)
        out["agents"][agent_name] = {
            "scores": {r.task_id: json.loads(json.dumps(r.score.detail if r.score else None, default=str))
                       for r in records},
            "metrics": summary["metrics"],
        }
    return _stable(out)


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
def test_stored_runs_rescore_identically(suite: str) -> None:
    got = anyio.run(_score_suite, suite)
    path = DATA / f"{suite}.json"
    if os.environ.get("MCP_PERSONA_RESCORE_WRITE") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    stored = json.loads(path.read_text())
    assert got["tasks"] == stored["tasks"], "the sample drew other tasks: the suite changed, rewrite the file"
    for agent_name, want in stored["agents"].items():
        have = got["agents"][agent_name]
        for task_id, score in want["scores"].items():
            assert have["scores"][task_id] == _stable(score), f"{agent_name} on {task_id}: the episode's score changed"
        assert have["metrics"] == _stable(want["metrics"]), f"{agent_name}: the run's metrics changed"
    assert set(got["agents"]) == set(stored["agents"])
