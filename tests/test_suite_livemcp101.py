"""The livemcp101 suite: its shape (the paper's tiers, domains and plan lengths), its server universe, and a
replay of one task per tier through the validator (the full suite is ``mcp-persona validate --suite
livemcp101``)."""

from __future__ import annotations

import json
from collections import Counter
from statistics import mean

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.apps import app_names, get_app
from mcp_persona.cli import app
from mcp_persona.tasks import OperateCheckpoint, SearchCheckpoint, load_tasks
from mcp_persona.validate import check_task

TASKS = load_tasks("livemcp101")
DOMAINS = {"travel_lifestyle", "leisure_entertainment", "finance_markets", "web_search_news", "knowledge_research",
           "software_development", "office", "mathematics"}


def test_tiers_domains_and_plan_lengths() -> None:
    tiers = Counter(t.difficulty for t in TASKS)
    assert len(TASKS) >= 101 and tiers["easy"] >= 30 and tiers["medium"] >= 30 and tiers["hard"] >= 41
    assert {t.category for t in TASKS} == DOMAINS
    assert all(t.suite == "livemcp101" for t in TASKS)
    calls = {t.id: len(t.gold_calls) for t in TASKS}
    assert mean(calls.values()) >= 5
    assert sum(n >= 12 for n in calls.values()) >= 5
    by_tier = {d: mean(calls[t.id] for t in TASKS if t.difficulty == d) for d in ("easy", "medium", "hard")}
    assert by_tier["easy"] < by_tier["medium"] < by_tier["hard"]
    # most tasks combine servers, and the hard ones all look up, compute and write
    assert sum(len(t.servers) > 1 for t in TASKS) >= 60
    for t in TASKS:
        if t.difficulty == "hard":
            assert any(isinstance(c, OperateCheckpoint) for c in t.checkpoints), t.id
            assert any(isinstance(c, SearchCheckpoint) for c in t.checkpoints), t.id


def test_written_files_and_sheets_are_checked_for_facts() -> None:
    for t in TASKS:
        for c in t.checkpoints:
            if isinstance(c, OperateCheckpoint) and c.server == "filesystem":
                assert set(c.expect["content"]) == {"$contains"} and c.expect["path"].startswith("/home/user/"), t.id
            if isinstance(c, OperateCheckpoint) and c.server == "excel":
                assert any(k.startswith("cells") for k in c.expect), t.id


def test_the_protocol_universe_has_41_servers_and_260_tools() -> None:
    assert len(app_names()) >= 41
    assert sum(len(get_app(a).tool_names) for a in app_names()) >= 260


def test_tasks_json_lists_difficulty() -> None:
    result = CliRunner().invoke(app, ["tasks", "--suite", "livemcp101", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert Counter(r["difficulty"] for r in rows) == Counter(t.difficulty for t in TASKS)


@pytest.mark.parametrize("task_id", ["finance_easy_01", "office_medium_01", "travel_hard_01"])
def test_one_task_per_tier_replays_cleanly(task_id: str) -> None:
    task = next(t for t in TASKS if t.id == task_id)
    assert anyio.run(check_task, task) == []


# -- the protocol ------------------------------------------------------------------------------------------
def test_pool_holds_the_task_servers_and_a_seeded_draw() -> None:
    from mcp_persona.protocols import get_protocol
    from mcp_persona.protocols.livemcp101 import draw_pool

    proto = get_protocol("livemcp101")
    task = next(t for t in TASKS if t.id == "travel_hard_01")
    spec = proto.pool(task, {}, "selected")
    assert len(spec.servers) == 15 and spec.servers[:len(task.servers)] == task.server_names
    assert len(set(spec.servers)) == 15 and not any(get_app(s).library for s in spec.servers)
    assert spec.description["servers"] == spec.servers == proto.pool(task, {}, "selected").servers
    assert draw_pool(task, 10) == proto.pool(task, {"pool_size": 10}, "selected").servers
    other = next(t for t in TASKS if t.id == "travel_hard_02")
    assert proto.pool(other, {}, "selected").servers[len(other.servers):] != spec.servers[len(task.servers):]
    with pytest.raises(ValueError, match="--pool-size"):
        proto.settings({"pool_size": 0})
    assert proto.max_rounds == 30


def test_result_score_is_the_five_point_scale() -> None:
    from mcp_persona.protocols.livemcp101 import result_score

    assert [result_score(a) for a in (0.0, 0.2, 0.25, 0.6, 0.74, 0.75, 0.99, 1.0)] == [
        0.0, 0.0, 0.25, 0.5, 0.5, 0.75, 0.75, 1.0]


@pytest.mark.parametrize("agent, tsr", [("reference", 1.0), ("noop", 0.0)])
def test_run_summary_reports_tsr_ars_by_difficulty(tmp_path, agent: str, tsr: float) -> None:
    result = CliRunner().invoke(app, ["run", "--suite", "livemcp101", "--agent", agent, "--tasks",
                                      "finance_easy_01,office_medium_01,news_hard_01", "--pool-size", "8",
                                      "--run-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["suite"] == "livemcp101" and s["n_tasks"] == 3 and s["max_rounds"] == 30
    assert s["metrics"]["tsr"] == tsr and s["metrics"]["ars"] == tsr and s["metrics"]["ats"] is None
    assert {d: m["n"] for d, m in s["by_difficulty"].items()} == {"easy": 1, "medium": 1, "hard": 1}
    assert all(len(e["pool"]) == 8 for e in s["episodes"])
    assert s["failure_modes"]["failed"] == (0 if agent == "reference" else 3)
