"""What one code-interpreter run costs: ``print(1)`` through the sandbox, end to end, with its breakdown, and
side by side with another version of the sandbox.

Run from the repository root (after ``pip install -e .`` and ``apt-get install bubblewrap``; no network)::

    .venv/bin/python benchmarks/bench_sandbox.py [--runs N] [--parallel P] [--before SRC ...]

Rounds interleave the variants (the order rotated each round), so other load on a shared machine hits them
alike. Each is reported as the median (min-max) wall time and the median CPU time of its processes
(``RUSAGE_CHILDREN``: what load does not inflate; behind bwrap it counts bwrap alone, since what runs in the
sandbox's pid namespace is reaped there, not by us) and of the harness:

1. ``python``         the run's interpreter alone, ``-I -c pass``, no sandbox: the floor;
2. ``bwrap true``     the walls alone: a run's bwrap command line (:func:`sandbox.bwrap_args`) around
                      ``/usr/bin/true``;
3. ``bwrap python``   both: the interpreter started inside a run's walls;
4. ``run_python``     a whole run of ``print(1)``: the above plus the harness's side (its folder, orders, the
                      child's set-up, limits and hook, the file list, killing and waiting for the pid
                      namespace) and the harness's own CPU time.

``--before SRC`` (repeatable) adds a whole run through another version's ``run_python``: the ``src`` folder of
an older checkout (``git worktree add /tmp/old <commit>``), timed in a worker process of its own, interleaved
with the others: the cost before and after a change, side by side. Last, ``--parallel`` runs of
``time.sleep(0.5)`` at once on one event loop, to show they overlap.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio

from mcp_persona.apps._live import sandbox
from mcp_persona.apps._live.sandbox import Limits, isolation, run_python

# A worker times runs through the run_python found on its path, one per line it reads; the same code times this
# version (in this process) and another one (in a worker).
WORKER = """
import resource, sys, time
import anyio
from mcp_persona.apps._live.sandbox import run_python

def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

def one():
    c0, h0, t0 = cpu(), time.process_time(), time.perf_counter()
    result = anyio.run(run_python, "print(1)")
    assert result.stdout == "1\\n", result
    return time.perf_counter() - t0, cpu() - c0, time.process_time() - h0

one()  # warm-up: the once-per-process set-up
print("ready", flush=True)
for _ in sys.stdin:
    print(*one(), flush=True)
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Worker:
    """A run_python of another source tree, timed in its own process."""

    def __init__(self, src: str) -> None:
        env = os.environ | {"PYTHONPATH": str(Path(src).resolve())}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready", f"{src}: no worker"

    def time_one(self) -> tuple[float, float, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        wall, child, harness = map(float, self.proc.stdout.readline().split())
        return wall, child, harness

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


def spawned(argv: list[str]) -> Callable[[], tuple[float, float, float]]:
    def go() -> tuple[float, float, float]:
        c0, t0 = children_cpu(), time.perf_counter()
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0, children_cpu() - c0, 0.0
    return go


def in_process() -> tuple[float, float, float]:
    c0, h0, t0 = children_cpu(), time.process_time(), time.perf_counter()
    result = anyio.run(run_python, "print(1)")
    assert result.stdout == "1\n", result
    return time.perf_counter() - t0, children_cpu() - c0, time.process_time() - h0


def main(runs: int, parallel: int, before: list[str]) -> dict[str, float]:
    """Print the table; return each variant's median wall time in ms."""
    iso = isolation()
    print(f"isolation: {iso}")
    python = [sys.executable, "-I", "-c", "pass"]
    with tempfile.NamedTemporaryFile("w", suffix=".py") as program:
        program.write("pass\n")
        program.flush()
        walls = sandbox.bwrap_args(iso, Limits(), Path(program.name))
        variants: dict[str, Callable[[], tuple[float, float, float]]] = {
            "python": spawned(python), "bwrap true": spawned([*walls, "/usr/bin/true"]),
            "bwrap python": spawned([*walls, *python]), "run_python": in_process,
        }
        workers = {f"before: {src}": Worker(src) for src in before}
        variants |= {name: worker.time_one for name, worker in workers.items()}
        try:
            for go in variants.values():
                go()  # warm-up
            times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
            names = list(variants)
            for r in range(runs):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    times[name].append(variants[name]())
        finally:
            for worker in workers.values():
                worker.close()
    ms = 1000
    medians = {name: statistics.median(w for w, _, _ in rows) * ms for name, rows in times.items()}
    print(f"{'variant':<28} {'wall median':>11} {'(min-max)':>15} {'CPU: its processes':>19} {'harness':>9}")
    for name, rows in times.items():
        wall = [w for w, _, _ in rows]
        child = statistics.median(c for _, c, _ in rows) * ms
        harness = statistics.median(h for _, _, h in rows) * ms
        spread = f"({min(wall) * ms:.0f}-{max(wall) * ms:.0f})"
        print(f"{name:<28} {statistics.median(wall) * ms:>8.1f} ms {spread:>15} {child:>16.1f} ms {harness:>6.1f} ms")

    async def at_once() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(parallel):
                tg.start_soon(run_python, "import time\ntime.sleep(0.5)")

    started = time.perf_counter()
    anyio.run(at_once)
    print(f"{parallel} runs of time.sleep(0.5) at once: {time.perf_counter() - started:.2f} s in all")
    return medians


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--before", action="append", default=[], metavar="SRC",
                        help="the src folder of another version, timed side by side")
    args = parser.parse_args()
    main(args.runs, args.parallel, args.before)
