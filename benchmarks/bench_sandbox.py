"""What one code-interpreter run costs: ``print(1)`` through the sandbox, end to end.

Run from the repository root (after ``pip install -e .``; no network, no API keys)::

    .venv/bin/python benchmarks/bench_sandbox.py [--runs N] [--parallel P]

It prints the isolation this machine gives runs (decided once per process, outside the timed region), then,
over ``--runs`` sequential runs of ``print(1)``: the median (and min-max) wall time per run, the median CPU
time of the run's processes (``RUSAGE_CHILDREN``) and of the harness itself (``time.process_time``). CPU
times are what other load on a shared machine does not inflate. Last, ``--parallel`` runs at once on one
event loop, to show they overlap (the loop is never blocked by a run).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import anyio

from mcp_persona.apps._live.sandbox import isolation, run_python


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def main(runs: int, parallel: int) -> None:
    print(f"isolation: {isolation()}")
    await run_python("print(1)")  # warm-up
    wall: list[float] = []
    child: list[float] = []
    harness: list[float] = []
    for _ in range(runs):
        c0, h0, t0 = children_cpu(), time.process_time(), time.perf_counter()
        result = await run_python("print(1)")
        wall.append(time.perf_counter() - t0)
        child.append(children_cpu() - c0)
        harness.append(time.process_time() - h0)
        assert result.stdout == "1\n", result
    ms = 1000
    print(f"print(1) x {runs}: wall median {statistics.median(wall) * ms:.1f} ms "
          f"(min {min(wall) * ms:.1f}, max {max(wall) * ms:.1f}); CPU median: run {statistics.median(child) * ms:.1f} "
          f"ms, harness {statistics.median(harness) * ms:.1f} ms")
    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for _ in range(parallel):
            tg.start_soon(run_python, "import time\ntime.sleep(0.5)")
    print(f"{parallel} runs of time.sleep(0.5) at once: {time.perf_counter() - started:.2f} s in all")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--parallel", type=int, default=4)
    args = parser.parse_args()
    anyio.run(main, args.runs, args.parallel)
