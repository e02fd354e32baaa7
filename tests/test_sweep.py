"""Sweeps: a grid of runs from one file; validated, resumable cell by cell, budgeted, reported together."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.store import RunStore
from mcp_persona.sweep import SweepError, cell_state, cells, load_sweep
from test_llm_faults import FaultServer, completion

GRID = """
name = "demo"
suites = ["livemcp101", "mcpagentbench"]
trials = 2
concurrency = 2
tasks = "*_easy_0[12],day_single_0[12]"

[[models]]
agent = "reference"

[[models]]
agent = "noop"

[grid]
max_rounds = [5, 30]
"""


def write(tmp_path: Path, text: str, name: str = "sweep.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "words"), [
    ('name = "x"\nsuites = ["persona"]\n[[models]]\nagent = "model"\n', "needs a model"),
    ('name = "x"\nsuites = ["persona"]\n[[models]]\nagent = "reference"\n[grid]\nwarp = [1, 2]\n',
     "grid option 'warp' is not one a sweep varies"),
    ('name = "x"\nsuites = ["persona"]\n[[models]]\nagent = "reference"\n[grid]\nmax_rounds = [5, 5]\n',
     "distinct values"),
    ('name = "x"\nsuites = ["persona"]\n[[models]]\nagent = "noop"\n[[models]]\nagent = "noop"\n', "share a label"),
    ('name = "x"\nsuites = ["persona"]\nmodels = []\n', "models"),
    ('name = "x"\nsuites = ["persona"]\nspeed = 3\n[[models]]\nagent = "noop"\n', "speed: Extra inputs"),
    ('name = "x\nsuites', "not valid TOML"),
])
def test_a_bad_sweep_file_says_what_to_fix(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(SweepError, match=words):
        load_sweep(write(tmp_path, text))
    result = CliRunner().invoke(cli, ["sweep", str(write(tmp_path, text))])
    assert result.exit_code == 2 and "error:" in result.output


def test_a_grid_option_applies_only_where_the_protocol_takes_it(tmp_path: Path) -> None:
    spec = load_sweep(write(tmp_path, """
name = "x"
suites = ["persona", "livemcp101", "livemcpbench"]
[[models]]
agent = "reference"
[[models]]
agent = "copilot"
model = "openai:gpt-4o-mini"
[grid]
pool_size = [6, 15]
max_rounds = [10, 20]
"""))
    plan = cells(spec, tmp_path / "out")
    persona = [c for c in plan if c.suite == "persona"]
    assert [dict(c.options) for c in persona] == [{"max_rounds": 10}, {"max_rounds": 20}]  # no pool_size there
    assert len([c for c in plan if c.suite == "livemcp101"]) == 4
    assert {c.model.name for c in plan if c.suite != "livemcpbench"} == {"reference"}  # the copilot needs a library
    assert len({c.folder for c in plan}) == len(plan)
    assert plan[0].folder == tmp_path / "out" / "persona" / "reference" / "max_rounds=10"


def _episodes(folder: Path) -> list[tuple[str, int]]:
    store = RunStore(folder)
    try:
        return [(r.task_id, r.epoch) for r in store.records()]
    finally:
        store.close()


@pytest.mark.slow
def test_a_killed_sweep_resumes_and_reports_each_cell_once(tmp_path: Path) -> None:
    path = write(tmp_path, GRID)
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "200"}
    plan = cells(load_sweep(path), out)  # before the sweep starts: it may take longer than the sweep's first cells
    assert len(plan) == 8  # 2 models x 2 suites x 2 values; 2 trials each
    proc = subprocess.Popen([sys.executable, "-m", "mcp_persona", "sweep", str(path), "--out", str(out)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and sum(cell_state(c) == "done" for c in plan) < 1:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    finished = [c.folder for c in plan if cell_state(c) == "done"]
    assert 1 <= len(finished) < 8
    before = {f: (f / "summary.json").stat().st_mtime_ns for f in finished}
    result = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(out)])
    assert result.exit_code == 2 and "--resume" in result.output  # a started sweep is never silently redone
    result = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(out), "--resume"])
    assert result.exit_code == 0, result.output
    assert all((f / "summary.json").stat().st_mtime_ns == t for f, t in before.items())  # never redone
    for cell in plan:
        summary = json.loads((cell.folder / "summary.json").read_text())
        episodes = _episodes(cell.folder)
        assert len(episodes) == len(set(episodes)) == summary["n_episodes"] == summary["n_tasks"] * 2
        assert summary["max_rounds"] == dict(cell.options)["max_rounds"]
        primary = "tsr" if cell.suite == "livemcp101" else "tfs"
        assert summary["metrics"][primary] == (1.0 if cell.model.name == "reference" else 0.0)
    html = (out / "sweep.html").read_text()
    assert "livemcp101: TSR vs max_rounds" in html and "mcpagentbench: TFS vs max_rounds" in html
    from mcp_persona.report.load import load_runs
    from mcp_persona.sweep_report import ablation_series

    series = ablation_series(plan, load_runs([c.folder for c in plan]))
    points = [p for entry in series for line in entry["lines"].values() for p in line]
    assert len(series) == 2 and len(points) == 8
    assert all(ci is not None and ci[0] <= score <= ci[1] for _, score, ci in points)  # each point's interval
    result = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(out), "--dry-run"])
    assert result.output.count(" done ") == 8


def test_the_budget_stops_a_sweep_before_a_cell_would_pass_it(server: FaultServer, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.default = ("json", completion("done", prompt=100_000, output=1_000))  # $0.0156 a call at list prices
    path = write(tmp_path, f"""
name = "budget"
suites = ["persona"]
tasks = "lark_00[12]"
[[models]]
model = "openai:gpt-4o-mini"
base_url = "{server.url}"
[grid]
max_rounds = [3, 4, 5]
""")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(out), "--max-cost", "0.05"])
    assert "past --max-cost $0.05" in result.output, result.output
    plan = cells(load_sweep(path), out)
    assert [cell_state(c) for c in plan] == ["done", "new", "new"]  # two episodes ($0.031) then a stop
    result = CliRunner().invoke(cli, ["sweep", str(path), "--out", str(out), "--max-cost", "1", "--resume"])
    assert result.exit_code == 0, result.output
    assert [cell_state(c) for c in plan] == ["done", "done", "done"]


def test_one_at_a_time_varies_each_option_alone(tmp_path: Path) -> None:
    spec = load_sweep(write(tmp_path, """
name = "x"
suites = ["livemcp101"]
vary = "one-at-a-time"
[[models]]
agent = "reference"
[grid]
max_rounds = [15, 20, 30, 50]
pool_size = [6, 10, 12, 15]
"""))
    plan = cells(spec, tmp_path / "out")
    assert [c.options for c in plan] == [(("max_rounds", v),) for v in (15, 20, 30, 50)] + [
        (("pool_size", v),) for v in (6, 10, 12, 15)]
