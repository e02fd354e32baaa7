"""A new protocol is one folder plus one registry line (``tests/toy_protocol``): the whole platform then runs,
summarises, reports and compares its suites from its declarations, with nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol, load_tasks, protocol_names, register_protocol

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
TOY = Path(__file__).parent / "toy_protocol" / "__init__.py"
TASKS = ("collab_lark_010", "collab_lark_011", "content_notion_001")


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    register_protocol("toy", "toy_protocol")  # the one registry line
    folder = tmp_path_factory.mktemp("toy-suite")
    (folder / "suite.json").write_text(json.dumps({"protocol": "toy", "description": "a toy suite"}))
    tasks = [t.model_copy(update={"suite": "toy"}) for t in load_tasks("persona") if t.id in TASKS]
    # a toy task's spec is the shared one: its group alone
    rows = [t.model_dump(mode="json") | {"spec": {"category": t.spec.category}} for t in tasks]
    (folder / "tasks.json").write_text(json.dumps(rows))
    return folder


def test_the_protocol_is_one_short_folder_and_registered_by_one_line(suite: Path) -> None:
    assert sorted(p.name for p in TOY.parent.iterdir() if p.suffix == ".py") == ["__init__.py"]
    assert len(TOY.read_text().splitlines()) <= 100
    assert "toy" in protocol_names() and get_protocol("toy").title == "Toy"
    with pytest.raises(ValueError, match="already registered"):
        register_protocol("persona", "toy_protocol")


def test_a_toy_suite_runs_scores_reports_and_compares_end_to_end(suite: Path, tmp_path: Path) -> None:
    ref, noop = tmp_path / "ref", tmp_path / "noop"
    code, out = invoke("run", "--suite", str(suite), "--agent", "reference", "--run-dir", str(ref))
    assert code == 0, out
    assert "Solved" in out and "Calls" in out and "95% CI" in out  # the console table from the declarations
    summary = json.loads((ref / "summary.json").read_text())
    assert summary["protocol"] == "toy"
    assert summary["metrics"]["solved"] == summary["metrics"]["calls"] == 1.0
    assert summary["metrics"]["n"] == 3 and set(summary["by_category"]) == {"collaboration", "content"}
    assert summary["uncertainty"]["intervals"]["solved"] == [1.0, 1.0]

    code, out = invoke("run", "--suite", str(suite), "--agent", "noop", "--run-dir", str(noop))
    assert code == 0, out
    metrics = json.loads((noop / "summary.json").read_text())["metrics"]
    assert metrics["solved"] == metrics["calls"] == 0.0

    code, out = invoke("report", str(ref), str(noop), "--markdown", str(tmp_path / "r.md"))
    assert code == 0, out
    md = (tmp_path / "r.md").read_text()
    assert "| Run | Episodes | Solved | Calls |" in md and "## Solved by category" in md
    assert "share of tasks with every gold call made" in md  # the intro in the protocol's words

    code, out = invoke("compare", str(ref), str(noop), "--fail-on-regression")
    assert code == 1 and "3 regressions" in out.replace("\n", " ")


def test_a_flag_the_toy_protocol_does_not_take_is_refused(suite: Path, tmp_path: Path) -> None:
    code, out = invoke("run", "--suite", str(suite), "--candidates", "10", "--run-dir", str(tmp_path / "x"))
    assert code == 2 and "--candidates is not used by the toy protocol" in out
    code, out = invoke("run", "--suite", str(suite), "--context-distractors", "2", "--run-dir", str(tmp_path / "y"))
    assert code == 2 and "--context-distractors" in out
