"""The run store: what it is a run of (config, task set, version), its lock, private files, texts stored once
and capped, and every way it can fail as one error line."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app, main
from mcp_persona.protocols import load_tasks
from mcp_persona.store import (
    LOCK_FILE,
    MAX_STORED_TEXT,
    STORE_FILE,
    EpisodeRecord,
    RunStore,
    RunStoreError,
    open_run,
    store_error,
    task_set,
)
from mcp_persona.trajectory import ModelCallEvent, ToolCallEvent, Trajectory

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
PERSONA = Path(__file__).parents[1] / "src/mcp_persona/data/tasks/persona"


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def task_folder(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(PERSONA / f"{name}.json", folder / f"{name}.json")
    return folder


def run_args(suite: Path, run_dir: Path, *more: str) -> list[str]:
    return ["run", "--suite", str(suite), "--agent", "reference", "--run-dir", str(run_dir), *more]


# -- identity ------------------------------------------------------------------------------------------------
def test_resume_refuses_a_task_set_of_other_content_and_says_what_differs(tmp_path: Path) -> None:
    suite = task_folder(tmp_path, "lark_001", "lark_002")
    code, out = invoke(*run_args(suite, tmp_path / "run"))
    assert code == 0, out
    edited = json.loads((suite / "lark_002.json").read_text())
    edited["instruction"] += " Please."  # same file name, same id, other content
    (suite / "lark_002.json").write_text(json.dumps(edited))
    code, out = invoke(*run_args(suite, tmp_path / "run", "--resume"))
    assert code == 2
    assert "cannot resume" in out and "another task set (1 changed: lark_002)" in out
    shutil.copy(PERSONA / "lark_002.json", suite / "lark_002.json")
    shutil.copy(PERSONA / "lark_003.json", suite / "lark_003.json")
    code, out = invoke(*run_args(suite, tmp_path / "run", "--resume"))
    assert code == 2 and "1 not in the stored run: lark_003" in out
    (suite / "lark_003.json").unlink()
    code, out = invoke(*run_args(suite, tmp_path / "run", "--resume"))
    assert code == 0, out  # the very same tasks: resumed


def test_the_store_records_the_task_set_hash_and_the_package_version(tmp_path: Path) -> None:
    import hashlib

    import mcp_persona

    tasks = load_tasks("persona")[:2]
    store = open_run(tmp_path, {"suite": "persona"}, resume=False, tasks=tasks)
    store.close()
    db = sqlite3.connect(tmp_path / STORE_FILE)
    meta = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM meta")}
    db.close()
    assert meta["package_version"] == mcp_persona.__version__
    one = json.dumps(tasks[0].model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert meta["task_set"]["tasks"][tasks[0].id] == hashlib.sha256(one.encode()).hexdigest()
    assert meta["task_set"] == task_set(tasks) == task_set(list(reversed(tasks)))  # order is no identity


def test_a_run_of_another_package_version_is_not_resumed(tmp_path: Path) -> None:
    tasks = load_tasks("persona")[:1]
    open_run(tmp_path, {"suite": "persona"}, resume=False, tasks=tasks).close()
    db = sqlite3.connect(tmp_path / STORE_FILE)
    db.execute("UPDATE meta SET value = '\"0.0.9\"' WHERE key = 'package_version'")
    db.commit()
    db.close()
    with pytest.raises(RunStoreError, match=r"made by mcp-persona 0\.0\.9, this is"):
        open_run(tmp_path, {"suite": "persona"}, resume=True, tasks=tasks)


def test_resume_of_a_folder_without_a_run_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "reference", "--limit", "1", "--run-dir", str(tmp_path / "none"),
                       "--resume")
    assert code == 2 and "holds no run to resume" in out
    assert not (tmp_path / "none").exists()
    (tmp_path / "empty").mkdir()
    code, out = invoke("run", "--agent", "reference", "--limit", "1", "--run-dir", str(tmp_path / "empty"),
                       "--resume")
    assert code == 2 and "holds no run to resume" in out
    assert list((tmp_path / "empty").iterdir()) == []


# -- the lock ------------------------------------------------------------------------------------------------
def test_a_second_harness_on_the_same_folder_is_refused_at_once(tmp_path: Path) -> None:
    tasks = load_tasks("persona")[:1]
    first = open_run(tmp_path / "run", {"suite": "persona", "agent": "reference"}, resume=False, tasks=tasks)
    try:
        with pytest.raises(RunStoreError, match=rf"in use by another run \(process {os.getpid()}\)"):
            open_run(tmp_path / "run", {"suite": "persona", "agent": "reference"}, resume=True, tasks=tasks)
        # another process: the CLI refuses before running anything
        result = subprocess.run([sys.executable, "-m", "mcp_persona", "run", "--agent", "reference", "--limit", "1",
                                 "--run-dir", str(tmp_path / "run"), "--resume"],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2
        assert result.stderr.startswith("error: ") and "in use by another run" in result.stderr
        assert first.records() == []
    finally:
        first.close()
    again = open_run(tmp_path / "run", {"suite": "persona", "agent": "reference"}, resume=True, tasks=tasks)
    again.close()  # the lock went with the first harness


def test_run_folder_and_store_are_private(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "reference", "--limit", "1", "--run-dir", str(tmp_path / "run"))
    assert code == 0, out
    assert stat.S_IMODE((tmp_path / "run").stat().st_mode) == 0o700
    for name in (STORE_FILE, LOCK_FILE, STORE_FILE + "-wal", STORE_FILE + "-shm"):
        if (tmp_path / "run" / name).exists():
            assert stat.S_IMODE((tmp_path / "run" / name).stat().st_mode) == 0o600, name


# -- texts stored once, and capped ---------------------------------------------------------------------------
def _record(answer: str, tool_result: str) -> EpisodeRecord:
    traj = Trajectory(task_id="t1", agent="model", final_answer=answer, stop_reason="answered", events=[
        ToolCallEvent(round=0, server="lark", tool="im_v1_chat_list", arguments={"q": "x"}, result=tool_result),
        ModelCallEvent(round=1, latency_s=0.1, content=answer),
    ])
    return EpisodeRecord(task_id="t1", category="c", status="ok", trajectory=traj, score={"acc": 1.0})


def _row_length(run_dir: Path) -> int:
    db = sqlite3.connect(run_dir / STORE_FILE)
    (n,) = db.execute("SELECT length(record) FROM episodes").fetchone()
    db.close()
    return n


def test_an_answer_is_stored_once_and_read_back_whole(tmp_path: Path) -> None:
    answer = "the answer " * 50_000  # 550,000 characters: under the cap
    record = _record(answer, "[]")
    store = RunStore(tmp_path)
    store.write(record)
    assert _row_length(tmp_path) < len(answer) + 5_000  # once, not twice
    (back,) = store.records()
    store.close()
    assert back == record


def test_the_report_reads_the_answer_stored_once(tmp_path: Path) -> None:
    from mcp_persona.report.load import load_run

    store = open_run(tmp_path, {"suite": "persona", "agent": "model"}, resume=False, tasks=[])
    store.write(_record("ou_123 is the id you asked for", "[]"))
    store.close()
    (episode,) = load_run(tmp_path).episodes
    assert episode.trajectory["final_answer"] == "ou_123 is the id you asked for"


def test_long_answers_and_tool_results_are_cut_with_the_cut_recorded(tmp_path: Path) -> None:
    answer = "a" * 5_000_000
    result = "r" * 3_000_000
    record = _record(answer, result)
    store = RunStore(tmp_path)
    store.write(record)
    assert _row_length(tmp_path) < 2 * MAX_STORED_TEXT + 10_000  # 5 MB + 5 MB + 3 MB before
    (back,) = store.records()
    store.close()
    assert back.trajectory.final_answer == back.trajectory.model_calls[0].content
    assert back.trajectory.final_answer == (
        "a" * MAX_STORED_TEXT + "\n[cut for the run store: 1,000,000 of 5,000,000 characters kept]")
    assert back.trajectory.tool_calls[0].result.endswith("1,000,000 of 3,000,000 characters kept]")
    # the record in memory (what scoring and the live status read) keeps the whole text
    assert record.trajectory.final_answer == answer and record.trajectory.tool_calls[0].result == result


# -- failures: one error line, a non-zero exit, never a traceback -------------------------------------------
def _main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["mcp-persona", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    return int(exit_.value.code or 0), capsys.readouterr().err


def _one_error_line(err: str) -> str:
    """The one error line of ``err`` (besides it, only a run's progress lines)."""
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    others = [line for line in err.splitlines() if line.strip() and not line.startswith(("error: ", "episodes "))]
    assert len(errors) == 1 and not others and "Traceback" not in err, err
    return errors[0]


def test_a_corrupt_store_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / STORE_FILE).write_bytes(b"this is no sqlite database, but it is long enough" * 100)
    code, err = _main(monkeypatch, capsys, "run", "--agent", "reference", "--limit", "1", "--run-dir",
                      str(tmp_path / "run"), "--resume")
    assert code == 2
    assert "is not a readable run store (file is not a database); move it away" in _one_error_line(err)


def test_a_full_disk_while_storing_episodes_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """SQLite's own 'database or disk is full', raised from the real write path: the store may grow by a few
    pages only."""
    opened = RunStore.__init__

    def small(self: RunStore, run_dir: Path) -> None:
        opened(self, run_dir)
        pages = self._db.execute("PRAGMA page_count").fetchone()[0]
        self._db.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(RunStore, "__init__", small)
    code, err = _main(monkeypatch, capsys, "run", "--agent", "reference", "--limit", "3", "--run-dir",
                      str(tmp_path / "run"))
    assert code == 1
    assert "cannot write the run store" in _one_error_line(err) and "the disk is full" in err


def test_a_full_disk_when_writing_the_summary_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    def full(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    code, err = _main(monkeypatch, capsys, "run", "--agent", "reference", "--limit", "1", "--run-dir",
                      str(tmp_path / "run"))
    assert code == 1
    assert _one_error_line(err) == f"error: {tmp_path / 'run' / 'summary.json'}: No space left on device"


def test_os_errors_of_the_store_say_what_happened(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    assert "the disk is full" in str(store_error(path, OSError(errno.ENOSPC, "No space left on device")))
    assert f"{tmp_path} is not writable" in str(store_error(path, PermissionError(errno.EACCES, "Permission denied")))
    assert f"{tmp_path} is not writable" in str(store_error(path, OSError(errno.EROFS, "Read-only file system")))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a read-only mount")
@pytest.mark.parametrize("holds_run", [False, True], ids=["empty", "with-a-run"])
def test_a_read_only_run_folder_is_one_error_line(tmp_path: Path, holds_run: bool) -> None:
    """The folder mounted read-only (as root, permission bits alone would not stop a write)."""
    run_dir = tmp_path / "run"
    if holds_run:
        assert invoke("run", "--agent", "reference", "--limit", "1", "--run-dir", str(run_dir))[0] == 0
    else:
        run_dir.mkdir()
    cmd = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(run_dir), str(run_dir), sys.executable, "-m",
           "mcp_persona", "run", "--agent", "reference", "--limit", "1", "--run-dir", str(run_dir),
           *(["--resume"] if holds_run else [])]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if "bwrap:" in result.stderr:
        pytest.skip(f"bubblewrap cannot make a mount namespace here: {result.stderr.strip()}")
    assert result.returncode == 2
    assert "is not writable" in _one_error_line(result.stderr)


def test_a_100000_deep_task_file_is_one_error_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, out = invoke("run", "--suite", str(deep), "--agent", "reference", "--run-dir", str(tmp_path / "run"))
    assert code == 2 and f"{deep}: JSON nested too deeply to be a task file" in out
    assert not (tmp_path / "run").exists()
