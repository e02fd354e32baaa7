"""The Ray executor against a real local cluster: a head and a second node on loopback, started with ``ray
start`` as a user would. Episodes run on the cluster, the store is written here, results equal the local
executor's, a killed worker loses and duplicates nothing, and an endpoint's limit holds across workers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.store import RunStore
from test_llm_faults import FaultServer, completion

ray = pytest.importorskip("ray", reason="the Ray executor's tests need the ray extra: pip install -e '.[ray]'")
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    exe = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert exe is not None
    port = _free_port()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    temp = tmp_path_factory.mktemp("ray")
    common = ["--num-cpus", "2", "--disable-usage-stats"]
    subprocess.run([exe, "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
                    "--include-dashboard", "false", "--temp-dir", str(temp), *common], check=True, env=env,
                   capture_output=True, timeout=180)
    try:
        subprocess.run([exe, "start", "--address", address, "--node-ip-address", "127.0.0.1", *common],
                       check=True, env=env, capture_output=True, timeout=180)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        subprocess.run([exe, "stop", "--force"], env=env, capture_output=True, timeout=120)


def _scores(run_dir: Path) -> dict[tuple[str, int], Any]:
    store = RunStore(run_dir)
    try:
        out = {}
        for r in store.records():
            score = dict(r.score or {})
            for timing in ("elapsed_s", "latency_s"):
                score.pop(timing, None)
            out[(r.task_id, r.epoch)] = (r.status, json.dumps(score, sort_keys=True, default=str),
                                         [(c.server, c.tool, c.arguments) for c in r.trajectory.tool_calls])
        return out
    finally:
        store.close()


SWEEP = """
name = "ray"
suites = ["persona", "mcpagentbench"]
trials = 2
concurrency = 4
tasks = "collab_lark_00[12],day_single_0[12]"
[[models]]
agent = "reference"
[[models]]
agent = "noop"
[grid]
max_rounds = [5, 20]
"""


def test_a_sweep_on_the_cluster_equals_the_local_one(cluster: str, tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP)
    local, remote = tmp_path / "local", tmp_path / "ray"
    assert CliRunner().invoke(cli, ["sweep", str(sweep), "--out", str(local)]).exit_code == 0
    result = CliRunner().invoke(cli, ["sweep", str(sweep), "--out", str(remote), "--executor", "ray",
                                      "--ray-address", cluster])
    assert result.exit_code == 0, result.output
    cells = sorted(p.parent.relative_to(local) for p in local.rglob("run.sqlite"))
    assert len(cells) == 8
    for cell in cells:
        mine, theirs = _scores(local / cell), _scores(remote / cell)
        assert len(theirs) == 4 and mine == theirs, cell


@pytest.fixture
def slow_endpoint() -> Iterator[FaultServer]:
    fault = FaultServer()
    fault.thread.start()
    fault.default = ("slow", 0.4, completion("done"))
    try:
        yield fault
    finally:
        fault.close()


def _episode_workers() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"_episode" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_killed_worker_loses_and_duplicates_nothing_and_the_limit_holds(
        cluster: str, slow_endpoint: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    run_dir = tmp_path / "run"
    args = ["run", "--suite", "persona", "--agent", "model", "--model", "openai:fake-model", "--base-url",
            slow_endpoint.url, "--tasks", "collab_lark_00*", "--concurrency", "6", "--max-requests", "2",
            "--executor", "ray", "--ray-address", cluster, "--run-dir", str(run_dir)]
    killed: list[int] = []

    def kill_a_worker() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            workers = _episode_workers()
            if workers and len(slow_endpoint.requests) >= 3:
                os.kill(workers[0], signal.SIGKILL)
                killed.append(workers[0])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_a_worker, daemon=True)
    killer.start()
    result = CliRunner().invoke(cli, args)
    killer.join(5)
    assert result.exit_code == 0, result.output
    assert killed, "no worker was running an episode"
    store = RunStore(run_dir)
    try:
        records = store.records()
    finally:
        store.close()
    tasks = sorted({r.task_id for r in records})
    assert len(records) == len(tasks) == 9 and all(r.status == "ok" for r in records)
    # never more than two requests at the endpoint at once, across both nodes' workers (the preflight aside)
    assert slow_endpoint.max_in_flight <= 2
