"""How the simulated servers take the calls a careful model would make: a suite's gold chains, varied.

For every read call of every gold chain (a call to a simulated server that succeeds and changes nothing),
the fair variants of :func:`mcp_persona.robustness.fair_variants` (other case, a place with its region or
country, singular/plural, a query's words in another order, a documented optional argument given its
default) are sent on the state the call saw (see :mod:`mcp_persona.robustness`). Per suite it prints:

* ``robust`` — the share of variants whose reply still holds every value the rest of the chain needs;
* ``silent`` — variants that succeed with an empty answer (no cue to retry), with the strict servers
  (:data:`STRICT`, whose real service would return nothing as well) counted apart;
* ``error`` / ``lost`` — variants refused with a message, or answered without what the chain needs;
* per variant kind, the share robust; and with ``--arguments`` the tool arguments that no change alters
  (:func:`mcp_persona.robustness.changed_variants`: the reply and the end state stay the gold call's).

Run: ``python benchmarks/robustness.py [--suite S ...] [--tasks GLOBS] [--arguments] [--show N]``.
LiveMCPBench takes about two minutes (its chains start the real office servers).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections import Counter, defaultdict

import anyio

from mcp_persona.protocols import suite_protocol
from mcp_persona.robustness import changed_variants, fair_variants, ignored, probe_task, verdict
from mcp_persona.tasks.loader import load_tasks

SUITES = ("persona", "mcpagentbench", "livemcp101", "livemcpbench")
STRICT = {"gmail", "email163", "telegram"}  # strict like their real service (see each app's docstring)


async def measure(suite: str, globs: list[str], arguments: bool, show: int) -> dict[str, object]:
    protocol = suite_protocol(suite)
    tasks = [t for t in load_tasks(suite) if not globs or any(fnmatch.fnmatch(t.id, g) for g in globs)]
    verdicts: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    strict_silent = 0
    examples: list[str] = []
    calls = 0
    changed: dict[tuple[str, str, str], bool] = defaultdict(bool)
    for task in tasks:
        for probe in await probe_task(task, protocol, fair_variants, reads_only=True):
            calls += 1
            for variant, event in probe.probes:
                v = verdict(probe, event)
                if v == "silent" and probe.server in STRICT:
                    strict_silent += 1
                    v = "silent (strict)"
                verdicts[v] += 1
                by_kind[variant.kind][v == "robust"] += 1
                if v not in ("robust", "silent (strict)") and len(examples) < show:
                    examples.append(f"  {v:7} {task.id} {probe.server}:{probe.tool} {variant.kind} "
                                    f"{variant.argument}={variant.args.get(variant.argument)!r}")
        if arguments:
            for probe in await probe_task(task, protocol, changed_variants, reads_only=False):
                for i, (variant, _) in enumerate(probe.probes):
                    changed[(probe.server, probe.tool, variant.argument)] |= not ignored(probe, i)
    total = sum(verdicts.values())
    return {"suite": suite, "tasks": len(tasks), "read_calls": calls, "variants": total,
            "robust_pct": round(100 * verdicts["robust"] / total, 1) if total else None,
            "silent": verdicts["silent"], "silent_strict": strict_silent, "error": verdicts["error"],
            "lost": verdicts["lost"],
            "by_kind": {k: round(100 * c[True] / (c[True] + c[False]), 1) for k, c in sorted(by_kind.items())},
            "arguments": len(changed), "ignored": sorted("/".join(k) for k, v in changed.items() if not v),
            "examples": examples}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--suite", action="append", choices=SUITES, help="a suite (repeatable; default: all four)")
    ap.add_argument("--tasks", default="", help="comma-separated task id globs")
    ap.add_argument("--arguments", action="store_true", help="also list arguments no change alters")
    ap.add_argument("--show", type=int, default=10, help="non-robust variants to print per suite")
    args = ap.parse_args()
    globs = [g for g in args.tasks.split(",") if g]
    print(f"{'suite':14} {'tasks':>5} {'reads':>5} {'variants':>8} {'robust':>7} {'silent':>6} "
          f"{'strict':>6} {'error':>5} {'lost':>5}  by kind (robust %)")
    for suite in args.suite or SUITES:
        start = time.perf_counter()
        r = anyio.run(measure, suite, globs, args.arguments, args.show)
        kinds = ", ".join(f"{k} {v}" for k, v in r["by_kind"].items())  # type: ignore[union-attr]
        print(f"{suite:14} {r['tasks']:>5} {r['read_calls']:>5} {r['variants']:>8} {r['robust_pct']!s:>6}% "
              f"{r['silent']:>6} {r['silent_strict']:>6} {r['error']:>5} {r['lost']:>5}  {kinds} "
              f"({time.perf_counter() - start:.0f} s)")
        for line in r["examples"]:  # type: ignore[union-attr]
            print(line)
        if args.arguments:
            print(f"  arguments varied: {r['arguments']}; no change alters: {', '.join(r['ignored']) or 'none'}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
