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
