"""How the simulated servers take the calls a careful model would make: a suite's gold chains, varied.

For every read call of every gold chain (a call to a simulated server that succeeds and changes nothing),
the fair variants of :func:`mcp_persona.robustness.fair_variants` (other case, a place with its region or
country, singular/plural, a query's words in another order, the instruction's own words for the value, a
documented optional argument given its default) are sent on the state the call saw, and judged as the
robustness gate of ``mcp-persona validate`` judges them (:func:`mcp_persona.robustness.robustness_gate`).
Per suite it prints:

* ``score`` — the gate's score: the share answered as the real service would (robust, refused with a
  message naming the accepted form, or strict where an app's strict note says the real service is too);
* ``robust`` — the share whose reply still holds every value the rest of the chain needs;
* ``strict`` / ``silent`` / ``lost`` / ``error`` — counts: excused by a strict note; empty successes (no cue
  to retry) and answers without what the chain needs that no note excuses; errors that do not name the
  accepted form;
* per variant kind, the gate's score; and with ``--arguments`` the tool arguments that no change alters
  (:func:`mcp_persona.robustness.changed_variants`: the reply and the end state stay the gold call's).

Run: ``python benchmarks/robustness.py [--suite S ...] [--tasks GLOBS] [--arguments] [--show N]``.
LiveMCPBench takes about a minute (its chains start the real office servers).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections import defaultdict
from collections.abc import Sequence

import anyio

from mcp_persona.protocols import load_tasks, suite_protocol
from mcp_persona.robustness import GATE_PCT, changed_variants, ignored, probe_task, robustness_gate
from mcp_persona.tasks import Task

SUITES = ("persona", "mcpagentbench", "livemcp101", "livemcpbench")


async def ignored_arguments(suite: str, tasks: Sequence[Task]) -> tuple[int, list[str]]:
    """How many (server, tool, argument) were varied, and those no change alters."""
    protocol = suite_protocol(suite)
    changed: dict[tuple[str, str, str], bool] = defaultdict(bool)
    for task in tasks:
        for probe in await probe_task(task, protocol, changed_variants, reads_only=False):
            for i, (variant, _) in enumerate(probe.probes):
                changed[(probe.server, probe.tool, variant.argument)] |= not ignored(probe, i)
    return len(changed), sorted("/".join(k) for k, v in changed.items() if not v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--suite", action="append", choices=SUITES, help="a suite (repeatable; default: all four)")
    ap.add_argument("--tasks", default="", help="comma-separated task id globs")
    ap.add_argument("--arguments", action="store_true", help="also list arguments no change alters")
    ap.add_argument("--show", type=int, default=10, help="unexcused failures to print per suite")
    args = ap.parse_args()
    globs = [g for g in args.tasks.split(",") if g]
    print(f"{'suite':14} {'tasks':>5} {'reads':>5} {'variants':>8} {'score':>7} {'robust':>7} {'strict':>6} "
          f"{'silent':>6} {'lost':>5} {'error':>5}  by kind (score %)")
    failed = False
    for suite in args.suite or SUITES:
        start = time.perf_counter()
        tasks = [t for t in load_tasks(suite) if not globs or any(fnmatch.fnmatch(t.id, g) for g in globs)]
        r = anyio.run(robustness_gate, tasks, suite_protocol(suite))
        t = r.totals
        kinds = ", ".join(f"{k} {r.pct(c) or 0:.1f}" for k, c in sorted(r.by_kind.items()))
        print(f"{suite:14} {r.tasks:>5} {r.read_calls:>5} {sum(t.values()):>8} {r.score() or 0:>6.1f}% "
              f"{r.pct(t, 'robust') or 0:>6.1f}% {t['strict']:>6} {t['silent']:>6} {t['lost']:>5} {t['error']:>5}  "
              f"{kinds} ({time.perf_counter() - start:.0f} s)")
        for line in r.problems()[: args.show]:
            print("  " + line)
        failed |= bool(r.problems())
        if args.arguments:
            varied, unchanged = anyio.run(ignored_arguments, suite, tasks)
            print(f"  arguments varied: {varied}; no change alters: {', '.join(unchanged) or 'none'}")
        sys.stdout.flush()
    if failed:
        print(f"(the gate fails a suite below {GATE_PCT:g}% or on an empty success no strict note excuses)")


if __name__ == "__main__":
    main()
