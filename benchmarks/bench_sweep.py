"""The executors side by side: the same episodes (a model agent against a scripted endpoint with a fixed latency)
run here (local) and on a Ray cluster of 1 and then 2 worker slots on this machine.

    .venv/bin/python benchmarks/bench_sweep.py [--episodes N] [--latency S] [--limit L] [--concurrency C]

Prints episodes/s of each, the Ray executor's overhead per episode against the local one, and the most
requests the endpoint had in flight across the cluster (the limiter's count), which must never pass --limit.
Needs the ray extra; starts and stops its own cluster (``ray start`` on a free port).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_agent_turn import EndpointProcess
from mcp_persona.agents.recipe import AgentRecipe
from mcp_persona.cli.run import sample_tasks
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.runner import RunConfig, run_suite
from mcp_persona.store import RunStore


def run_once(tasks: list, recipe: AgentRecipe, concurrency: int, executor: object | None) -> float:
    store = RunStore(Path(tempfile.mkdtemp(prefix="bench-sweep-")))
    store.begin(RunConfig(suite="persona", agent="model", model=recipe.model).to_dict(), resume=False)
    agent = recipe.build()
    started = time.perf_counter()
    anyio.run(lambda: run_suite(tasks, agent, store, concurrency=concurrency, protocol=get_protocol("persona"),
                                executor=executor))  # type: ignore[arg-type]
    wall = time.perf_counter() - started
    assert len(store.records()) == len(tasks) and all(r.status == "ok" for r in store.records())
    store.close()
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model request at the endpoint")
    parser.add_argument("--limit", type=int, default=4, help="requests in flight to the endpoint, cluster-wide")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    from mcp_persona.ray_executor import RayExecutor

    os.environ.setdefault("OPENAI_API_KEY", "bench")
    endpoint = EndpointProcess()
    endpoint.script("answer", args.latency)
    tasks = sample_tasks(load_tasks("persona"), args.episodes, seed=0)
    recipe = AgentRecipe("model", model="openai:scripted", base_url=f"{endpoint.url}/v1", max_requests=args.limit)
    ray_exe = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    quiet = {"env": env, "capture_output": True, "check": True, "timeout": 180}
    try:
        local = run_once(tasks, recipe, args.concurrency, None)
        print(f"{len(tasks)} episodes, latency {args.latency:g} s, limit {args.limit}, concurrency {args.concurrency}")
        print(f"local        : {len(tasks) / local:6.2f} episodes/s ({local:.2f} s)")
        subprocess.run([ray_exe, "start", "--head", "--port", str(port), "--num-cpus", "1",
                        "--include-dashboard", "false", "--node-ip-address", "127.0.0.1"], **quiet)
        for slots in (1, 2):
            if slots == 2:
                subprocess.run([ray_exe, "start", "--address", address, "--num-cpus", "1",
                                "--node-ip-address", "127.0.0.1"], **quiet)
                time.sleep(2)
            remote = RayExecutor(address, recipe, "persona", {}, "selected")
            wall = run_once(tasks, recipe, args.concurrency, remote.episode)
            peak = max(remote.peaks().values(), default=0)
            print(f"ray, {slots} slot{'s' if slots > 1 else ' '}: {len(tasks) / wall:6.2f} episodes/s ({wall:.2f} s); "
                  f"overhead vs local {1000 * (wall - local) / len(tasks):+.0f} ms/episode; most requests in "
                  f"flight {peak} (limit {args.limit}: {'held' if peak <= args.limit else 'BROKEN'})")
    finally:
        import ray

        if ray.is_initialized():
            ray.shutdown()
        subprocess.run([ray_exe, "stop", "--force"], env=env, capture_output=True, timeout=120)
        endpoint.close()


if __name__ == "__main__":
    main()
