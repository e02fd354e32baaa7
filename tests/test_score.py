"""An episode's score is one typed value on every protocol: values, the checks that decided them, why."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest
from pydantic import ValidationError

from mcp_persona.agents import NoopAgent, ReferenceAgent
from mcp_persona.mutants import ReplayAgent, gold_plan
from mcp_persona.protocols import load_suite
from mcp_persona.runner import run_episode
from mcp_persona.score import Check, Score
from mcp_persona.store import STORE_FILE, EpisodeRecord, RunStore
from mcp_persona.trajectory import Trajectory


def _play(suite: str, task_id: str, agent: object) -> EpisodeRecord:
    protocol, tasks = load_suite(suite)
    task = next(t for t in tasks if t.id == task_id)
    return anyio.run(lambda: run_episode(task, agent, protocol=protocol))  # type: ignore[arg-type]


def test_a_score_is_frozen_and_its_checks_are_bounded() -> None:
    score = Score(values={"acc": 0.5}, checks=[Check(name="checkpoint 0", score=0.5, why="retrieved only")])
    with pytest.raises(ValidationError):
        score.values = {}  # type: ignore[misc]
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        Check(name="checkpoint 0", score=1.5)
    with pytest.raises(ValidationError):
        Check(name="", score=1.0)


def test_a_record_stored_before_scores_were_typed_reads_as_its_detail() -> None:
    flat = {"acc": 0.5, "exec_acc": None, "strict": False, "checkpoints": [{"index": 0, "score": 0.5}]}
    score = Score.model_validate(flat)
    assert score.detail == flat
    assert score.values == {"acc": 0.5, "exec_acc": None, "strict": False}
    assert score.checks == [] and score.explanation == []
    assert Score.model_validate(json.loads(score.model_dump_json())) == score  # the typed form round-trips


def test_persona_checks_name_each_checkpoint_and_explain_the_miss() -> None:
    gold = _play("persona", "lark_001", ReferenceAgent())
    noop = _play("persona", "lark_001", NoopAgent())
    assert gold.score is not None and noop.score is not None
    assert [c.score for c in gold.score.checks] == [1.0] * len(gold.score.checks)
    assert gold.score.explanation == []
    first = noop.score.checks[0]
    assert first.name.startswith("checkpoint 0 [") and first.score == 0.0 and first.why
    assert noop.score.values["acc"] == 0.0 and noop.score.values["strict"] is False
    assert any(line.startswith("checkpoint 0 ") for line in noop.score.explanation)


def test_mcpagentbench_checks_say_which_call_was_missed() -> None:
    protocol, tasks = load_suite("mcpagentbench")
    task = next(t for t in tasks if len(t.gold_calls) >= 2)
    skipped = ReplayAgent(gold_plan(task)[:-1])  # every gold call but the last
    record = anyio.run(lambda: run_episode(task, skipped, protocol=protocol))
    assert record.score is not None
    finished = record.score.checks[0]
    assert finished.name == "every gold call made (arguments rule)" and finished.score == 0.0
    assert task.gold_calls[-1].tool in finished.why
    assert record.score.values["finished"] is False
    assert any(task.gold_calls[-1].tool in line for line in record.score.explanation)


def test_livemcpbench_checks_are_its_rule_checks() -> None:
    record = _play("livemcpbench", "finance_stock_gap_1", NoopAgent())
    assert record.score is not None and record.score.checks
    assert all(c.score == 0.0 for c in record.score.checks)
    assert record.score.values["success"] is False
    assert len(record.score.explanation) == len(record.score.checks)


def test_the_store_keeps_the_values_in_a_column_sql_can_read(tmp_path: Path) -> None:
    record = EpisodeRecord(task_id="t1", category="c", status="ok", trajectory=Trajectory(task_id="t1", agent="x"),
                           score=Score(values={"acc": 0.75, "strict": False}, detail={"acc": 0.75}))
    failed = EpisodeRecord(task_id="t2", category="c", status="error", trajectory=Trajectory(task_id="t2", agent="x"),
                           error="endpoint down")
    store = RunStore(tmp_path)
    store.write(record)
    store.write(failed)
    assert {r.task_id: r for r in store.records()}["t1"] == record
    store.close()
    db = sqlite3.connect(tmp_path / STORE_FILE)
    rows = db.execute("SELECT task_id, json_extract(score_values, '$.acc') FROM episodes ORDER BY task_id").fetchall()
    db.close()
    assert rows == [("t1", 0.75), ("t2", None)]
