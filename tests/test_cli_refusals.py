"""What the CLI refuses or handles up front, so that nothing fails later or silently: a gold call no agent can
make, a sweep's unknown suite or grid option no suite takes, a suite given by a relative path (resumed from
elsewhere), and a finished run read from a read-only folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.sweep import SweepError, cells, load_sweep

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
PERSONA = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks" / "persona"


def _task_folder(tmp_path: Path, *, bad_tool: bool = False) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir()
    task = json.loads((PERSONA / "collab_lark_001.json").read_text())
    if bad_tool:
        first = task[0] if isinstance(task, list) else task
        first["gold"][0]["calls"][0]["tool"] = "no_such_tool"
    (folder / "t.json").write_text(json.dumps(task))
    if (PERSONA / "suite.json").exists():
        shutil.copy(PERSONA / "suite.json", folder / "suite.json")
    return folder


def test_a_gold_call_to_a_tool_that_does_not_exist_is_refused_before_any_episode(tmp_path: Path) -> None:
    folder = _task_folder(tmp_path, bad_tool=True)
    result = runner.invoke(app, ["run", "--suite", str(folder), "--agent", "reference", "--run-dir",
                                 str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    assert "gold calls no agent can make" in result.output and "has no tool 'no_such_tool'" in result.output
    assert not (tmp_path / "run").exists()


def test_a_suite_given_by_a_relative_path_resumes_from_another_folder(tmp_path: Path) -> None:
    _task_folder(tmp_path)
    run_dir = tmp_path / "run"
    cli = [sys.executable, "-m", "mcp_persona", "run", "--agent", "reference"]
    first = subprocess.run([*cli, "--suite", "./tasks", "--run-dir", str(run_dir)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = subprocess.run([*cli[:-2], "--resume", "--run-dir", str(run_dir)], cwd=elsewhere, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize(("text", "words"), [
    ('name = "x"\nsuites = ["persona", "no-such-suite"]\n[[models]]\nagent = "reference"\n',
     "unknown suite 'no-such-suite'"),
    ('name = "x"\nsuites = ["persona"]\n[[models]]\nagent = "reference"\n[grid]\npool_size = [10, 20]\n',
     "grid option 'pool_size': no suite of this sweep takes it"),
])
def test_a_sweep_that_cannot_be_run_as_written_is_refused_before_it_starts(tmp_path: Path, text: str,
                                                                           words: str) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    with pytest.raises(SweepError, match=words):
        cells(load_sweep(path), tmp_path / "out")
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out"), "--dry-run"])
    assert result.exit_code == 2 and words in result.output


def test_a_grid_option_some_suite_takes_still_serves_the_others(tmp_path: Path) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text('name = "x"\nsuites = ["persona", "livemcp101"]\n[[models]]\nagent = "reference"\n'
                    '[grid]\npool_size = [10, 15]\n')
    plan = cells(load_sweep(path), tmp_path / "out")
    assert {c.suite for c in plan} == {"persona", "livemcp101"}
    assert all(c.options == () for c in plan if c.suite == "persona")


@pytest.mark.slow
def test_a_finished_run_in_a_read_only_folder_reports() -> None:
    """An archived run (its folder not writable by the reader) still reports: SQLite's WAL reader would make a
    -shm file beside the store, which such a folder refuses."""
    system_python = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not system_python.exists():
        pytest.skip("needs root to read the run as another user (setpriv) and the system's Python of this version")
    folder = Path(tempfile.mkdtemp(prefix="archived-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        run_dir = folder / "run"
        done = runner.invoke(app, ["run", "--suite", "persona", "--agent", "reference", "--limit", "2", "--run-dir",
                                   str(run_dir)])
        assert done.exit_code == 0, done.output
        run_dir.chmod(0o755)  # readable by all, writable by its owner (root) alone
        for path in run_dir.iterdir():
            path.chmod(0o644)
        src = str(Path(__file__).resolve().parents[1] / "src")
        site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
        report = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(system_python),
                                 "-m", "mcp_persona", "report", str(run_dir)], capture_output=True, text=True,
                                timeout=120, cwd="/", env=os.environ | {"PYTHONPATH": f"{src}:{site}", "HOME": "/tmp"})
        assert report.returncode == 0, report.stderr
        assert "Acc" in report.stdout and "unable to open" not in report.stderr + report.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
