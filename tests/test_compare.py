"""`mcp-persona compare` on every suite, through the CLI: the suite's primary metric per task, the paired
difference with its interval, the flips, the exit code, refused and flagged pairs; and the intervals every
run's summary.json carries."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})

# (suite, task globs, primary metric key, tasks matched)
SUITES = {
    "persona": ("collab_lark_01[01]", "acc", 2),
    "mcpagentbench": ("day_parallel_0[12]", "tfs", 2),
    "livemcp101": ("finance_easy_01", "tsr", 1),
    "livemcpbench": ("finance_stock_gap_[12]", "success_rate", 2),
}


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    root = tmp_path_factory.mktemp("compare")
    out = {}
    for suite, (globs, _, _) in SUITES.items():
        for agent in ("reference", "noop"):
            folder = root / f"{suite}-{agent}"
            code, text, err = invoke("run", "--suite", suite, "--agent", agent, "--tasks", globs, "--run-dir",
                                     str(folder))
            assert code == 0, text + err
            out[suite, agent] = folder
    code, text, err = invoke("run", "--suite", "mcpagentbench", "--agent", "noop", "--tasks",
                             SUITES["mcpagentbench"][0], "--candidates", "10", "--max-rounds", "7",
                             "--run-dir", str(root / "mcpagentbench-k10"))
    assert code == 0, text + err
    out["mcpagentbench", "k10"] = root / "mcpagentbench-k10"
    return out


@pytest.mark.parametrize("suite", list(SUITES))
def test_reference_to_noop_is_a_regression_on_the_primary_metric(runs: dict[tuple[str, str], Path],
                                                                 suite: str) -> None:
    _, key, n = SUITES[suite]
    ref, noop = str(runs[suite, "reference"]), str(runs[suite, "noop"])
    code, out, err = invoke("compare", ref, noop, "--json")
    assert code == 0 and not err, out + err
    data = json.loads(out)
    assert data["primary"]["key"] == key == get_protocol(data["protocol"]).report_columns[0][1]
    assert data["counts"]["regression"] == n and data["counts"]["improvement"] == 0
    assert data["difference"] == {"metric": key, "n_tasks": n, "delta": -1.0, "ci95": [-1.0, -1.0]}
    assert len(data["flips"]["pass_to_fail"]) == n and data["flips"]["fail_to_pass"] == []
    assert data["metrics"][key] == {"a": 1.0, "b": 0.0, "delta": -1.0}
    assert data["settings_differ"] == []
    code, out, _ = invoke("compare", ref, noop, "--fail-on-regression")
    assert code == 1
    label = data["primary"]["label"]
    assert f"tasks on {label}: {n} regression" in out and f"pass → fail ({n})" in out
    assert f"pass = the full {label} score on a task (100), fail = less" in out
    tasks = f"{n} task" + ("s" if n > 1 else "")
    verdict = data["verdicts"][key]
    if n > 1:  # a verdict needs an interval: two tasks at least
        assert verdict["verdict"] == "worse" and verdict["ci95"] == [-1.0, -1.0]
        assert f"  {label}: B is worse (-100.0 points, 95% CI -100.0 to -100.0, {tasks})" in out
    else:
        assert verdict["verdict"] == "unknown" and f"  {label}: -100.0 points over 1 task, too few to tell" in out
    code, out, _ = invoke("compare", noop, ref, "--fail-on-regression")  # the other way: improvements only
    assert code == 0 and f"fail → pass ({n})" in out
    if n > 1:
        assert f"  {label}: B is better (+100.0 points, 95% CI +100.0 to +100.0, {tasks})" in out
    code, out, _ = invoke("compare", ref, ref, "--fail-on-regression")
    assert code == 0
    if n > 1:
        assert f"  {label}: no difference at 95% (+0.0 points, 95% CI +0.0 to +0.0, {tasks})" in out


@pytest.mark.parametrize("suite", list(SUITES))
def test_every_summary_carries_intervals_of_its_headline_metrics(runs: dict[tuple[str, str], Path],
                                                                  suite: str) -> None:
    for agent, value in (("reference", 1.0), ("noop", 0.0)):
        summary = json.loads((runs[suite, agent] / "summary.json").read_text())
        block = summary["uncertainty"]
        keys = [key for _, key, _ in get_protocol(summary["protocol"]).report_columns]
        assert list(block["intervals"]) == keys
        assert block["intervals"][keys[0]] == [value, value]  # every task scored the same
        assert (block["level"], block["resamples"], block["trials"]) == (0.95, 2000, 1)
        assert "flip_rate" not in block  # one trial: nothing to flip


def test_runs_of_different_suites_or_protocols_are_refused(runs: dict[tuple[str, str], Path]) -> None:
    code, out, err = invoke("compare", str(runs["persona", "reference"]), str(runs["mcpagentbench", "noop"]),
                            "--fail-on-regression")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: runs of different protocols cannot be compared")
    code, _, err = invoke("compare", str(runs["persona", "reference"]), str(runs["livemcp101", "noop"]))
    assert code == 2 and "different protocols" in err  # LiveMCP-101 runs on its own protocol


def test_runs_of_one_protocol_on_different_suites_are_refused(runs: dict[tuple[str, str], Path],
                                                               tmp_path: Path) -> None:
    other = tmp_path / "other-suite"
    shutil.copytree(runs["persona", "noop"], other)
    db = sqlite3.connect(other / "run.sqlite")
    (config,) = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
    db.execute("UPDATE meta SET value = ? WHERE key = 'config'",
               (json.dumps(json.loads(config) | {"suite": "my_tasks.json"}),))
    db.commit()
    db.close()
    code, out, err = invoke("compare", str(runs["persona", "reference"]), str(other))
    assert code == 2 and out == ""
    assert err.startswith("error: runs of different suites cannot be compared") and "'my_tasks.json'" in err


def test_runs_with_different_settings_are_flagged(runs: dict[tuple[str, str], Path]) -> None:
    code, out, err = invoke("compare", str(runs["mcpagentbench", "reference"]), str(runs["mcpagentbench", "k10"]),
                            "--fail-on-regression")
    assert code == 1
    assert err.strip() == ("warning: the runs differ in settings that change the score: max_rounds: 20 vs 7; "
                           "candidates: 20 vs 10")
    assert "tasks on TFS: 2 regressions" in out


def test_the_comparison_fits_80_columns(runs: dict[tuple[str, str], Path]) -> None:
    result = CliRunner(env={"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}).invoke(
        app, ["compare", str(runs["mcpagentbench", "reference"]), str(runs["mcpagentbench", "noop"])])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines if "→" not in line or "pass" in line), result.stdout
    assert "…" not in result.stdout
    for label in ("TFS", "TEFS", "TFS-paper", "TEFS-paper", "TFS-outcome", "TEFS-outcome"):
        assert any(line.startswith(f"  {label}: ") for line in lines), result.stdout  # a verdict per metric
    assert lines[0] == "A = reference (mcpagentbench-reference)"


def test_an_unfinished_run_is_scored_from_its_store(runs: dict[tuple[str, str], Path], tmp_path: Path) -> None:
    unfinished = tmp_path / "unfinished"
    shutil.copytree(runs["mcpagentbench", "noop"], unfinished)
    (unfinished / "summary.json").unlink()
    code, out, _ = invoke("compare", str(runs["mcpagentbench", "reference"]), str(unfinished), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["metrics"]["tfs"] == {"a": 1.0, "b": 0.0, "delta": -1.0}
    assert data["counts"]["regression"] == 2
