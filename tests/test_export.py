"""mcp-persona export: a run's episodes as JSON lines in the OpenAI message format, and a dataset folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from gold_endpoint import GoldEndpoint, gold_script
from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol, load_tasks

TASKS = ["collab_lark_001", "collab_lark_002"]


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def shape(value: Any) -> Any:
    """The type of a JSON value as a columnar loader (datasets, pandas) infers it; None is any type."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        shapes = [shape(v) for v in value]
        merged = None
        for s in shapes:
            merged = merge(merged, s)
        return [merged]
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return None if value is None else type(value).__name__


def merge(a: Any, b: Any) -> Any:
    """One shape of two, or AssertionError where a loader would find two types for one field."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"keys differ: {sorted(a)} vs {sorted(b)}"
        return {k: merge(a[k], b[k]) for k in a}
    if isinstance(a, list) and isinstance(b, list):
        return [merge(a[0], b[0])]
    assert a == b, f"{a} vs {b}"
    return a


def consistent(rows: list[dict[str, Any]]) -> None:
    merged = None
    for row in rows:
        merged = merge(merged, shape(row))


@pytest.fixture(scope="module")
def model_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, GoldEndpoint]]:
    """A model agent's run against the gold-playing endpoint: what the model was sent is known."""
    endpoint = GoldEndpoint()
    protocol = get_protocol("persona")
    tasks = [t for t in load_tasks("persona") if t.id in TASKS]

    async def script() -> None:
        for task in tasks:
            endpoint.scripts[protocol.user_prompt(task)] = await gold_script(task, protocol, {})

    anyio.run(script)
    run_dir = tmp_path_factory.mktemp("export") / "run"
    result = invoke("run", "--suite", "persona", "--tasks", ",".join(TASKS), "--agent", "model", "--model",
                    "openai:scripted", "--base-url", endpoint.url, "--no-preflight", "--run-dir", str(run_dir))
    assert result.exit_code == 0, result.output
    yield run_dir, endpoint
    endpoint.close()


def test_a_model_run_exports_the_conversation_the_model_had(model_run: tuple[Path, GoldEndpoint]) -> None:
    run_dir, endpoint = model_run
    out = run_dir / "out.jsonl"
    assert invoke("export", str(run_dir), "--out", str(out)).exit_code == 0
    rows = read_lines(out)
    assert [r["task_id"] for r in rows] == TASKS
    consistent(rows)
    for row in rows:
        assert row["acc"] == 1.0 and row["status"] == "ok" and row["agent"] == "model"
        assert row["model"] == "openai:scripted"
        sent = endpoint.last[row["messages"][1]["content"]]  # the last request the model got, then its answer
        *conversation, final = row["messages"]
        assert [m["role"] for m in conversation] == [m["role"] for m in sent]
        for mine, theirs in zip(conversation, sent, strict=True):
            assert mine["content"] == theirs.get("content")
            assert mine["tool_calls"] == theirs.get("tool_calls")
            assert mine["tool_call_id"] == theirs.get("tool_call_id")
        assert final == {"role": "assistant", "content": row["final_answer"], "tool_calls": None,
                         "tool_call_id": None, "name": None}
        assert row["tool_calls"] == sum(m["role"] == "tool" for m in row["messages"])
        settings = json.loads(row["settings"])
        assert settings["suite"] == "persona" and settings["agent"] == "model"
        assert json.loads(row["score"])["values"]["acc"] == 1.0


def test_a_run_without_model_calls_gets_a_turn_per_round(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert invoke("run", "--suite", "persona", "--tasks", "collab_lark_002", "--agent", "reference",
                  "--run-dir", str(run_dir)).exit_code == 0
    assert invoke("export", str(run_dir)).exit_code == 0
    (row,) = read_lines(run_dir / "episodes.jsonl")
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_002")
    messages = row["messages"]
    assert [m["role"] for m in messages[:2]] == ["system", "user"]
    assert messages[1]["content"] == get_protocol("persona").user_prompt(task)
    calls = [c for m in messages if m["tool_calls"] for c in m["tool_calls"]]
    assert [c["function"]["name"] for c in calls] == [f"{call.server}__{call.tool}" for step in task.gold
                                                      for call in step.calls]
    results = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == [c["id"] for c in calls]
    assert messages[-1]["content"] == task.reference_answer
    assert row["rounds"] == len(task.gold)


def test_hf_writes_the_lines_and_a_dataset_card(model_run: tuple[Path, GoldEndpoint], tmp_path: Path) -> None:
    run_dir, _ = model_run
    folder = tmp_path / "dataset"
    assert invoke("export", str(run_dir), "--format", "hf", "--out", str(folder)).exit_code == 0
    assert len(read_lines(folder / "episodes.jsonl")) == 2
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nconfigs:") and "data_files: episodes.jsonl" in card
    assert "2 episodes, 0 errored; mean score (`acc`) 1.000" in card
    assert "1.000 on a 0..1 scale\n(100.0 in the % the reports" in card
    assert "`acc`: the protocol's primary score" in card


def test_export_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    result = invoke("export", str(tmp_path))
    assert result.exit_code == 2 and "not a run folder" in result.output
    assert not (tmp_path / "episodes.jsonl").exists()
