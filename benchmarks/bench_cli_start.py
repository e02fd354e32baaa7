"""What starting the command line costs, next to the floors it cannot go below.

Run from the repository root (after ``pip install -e .``)::

    .venv/bin/python benchmarks/bench_cli_start.py [--rounds R]

Every command of ``mcp-persona`` first imports the CLI, which loads every protocol (its flags come from what
the protocols declare) and the MCP SDK. Each variant is a fresh interpreter (``python -X importtime`` would
time one import chain; a user waits for the whole process). Rounds are interleaved, variants rotated per round;
the table gives the median wall time per start, its min-max, and the ratio to the SDK floor.

1. ``python``            an interpreter that imports nothing of ours (``python -c pass``)
2. ``sdk floor``         ``import mcp, mcp.client, mcp.server``: the SDK every server and client needs
3. ``cli import``        ``import mcp_persona.cli``: the app, every protocol, every app's tool module
4. ``mcp-persona --help`` the console command a user types, through typer
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

VARIANTS = {
    "python": [sys.executable, "-c", "pass"],
    "sdk floor": [sys.executable, "-c", "import mcp, mcp.client, mcp.server"],
    "cli import": [sys.executable, "-c", "import mcp_persona.cli"],
    "mcp-persona --help": [sys.executable, "-m", "mcp_persona", "--help"],
}


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    names = list(VARIANTS)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            start = time.perf_counter()
            subprocess.run(VARIANTS[name], check=True, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    medians = {n: statistics.median(t) for n, t in times.items()}
    floor = medians["sdk floor"]
    print(f"{'variant':20} {'median s':>9} {'min-max s':>13} {'x sdk floor':>11}")
    for n in names:
        print(f"{n:20} {medians[n]:9.3f} {min(times[n]):6.3f}-{max(times[n]):5.3f} {medians[n] / floor:11.2f}")
    return medians


if __name__ == "__main__":
    main()
