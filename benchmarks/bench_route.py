"""Retrieval quality and speed of ``route`` over the LiveMCPTool library, on the livemcpbench suite.

Run from the repository root (no network, no API keys)::

    .venv/bin/python benchmarks/bench_route.py [--top 3] [--suite livemcpbench] [--json]

Two recall@k figures per domain, over every task's gold tools (distinct ``server:tool`` pairs):

* ``steps``: the task's key points (LiveMCPBench's key points are its annotated steps) are the
  queries, as an agent routes once per step; a gold tool counts as found if any of those queries
  ranks it in the top k.
* ``instruction``: the task's instruction alone is the query (one route call for the whole task).

Latency: every query timed with ``time.perf_counter`` after the index is built (the build, after the
catalogue is loaded, is reported apart: it is paid once per process); p50 and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict

from mcp_persona.livemcptool import catalogue
from mcp_persona.protocols import load_tasks
from mcp_persona.retrieval import get_router


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", default="livemcpbench")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()

    catalogue()  # the library's own load (shared with every episode) is not the index's cost
    start = time.perf_counter()
    router = get_router("livemcptool")
    build_s = time.perf_counter() - start
    tasks = load_tasks(args.suite)
    found: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"steps": [0, 0], "instruction": [0, 0]})
    latencies: list[float] = []

    def ranked(query: str) -> set[tuple[str, str]]:
        t = time.perf_counter()
        hits = router.route(query, top=args.top)
        latencies.append(time.perf_counter() - t)
        return {(h.server, h.tool) for h in hits}

    for task in tasks:
        gold = {(c.server, c.tool) for c in task.gold_calls}
        by_steps = set().union(*(ranked(kp) for kp in task.spec.key_points))
        by_instruction = ranked(task.instruction)
        for key, got in (("steps", by_steps), ("instruction", by_instruction)):
            for domain in (task.spec.category, "all"):
                found[domain][key][0] += len(gold & got)
                found[domain][key][1] += len(gold)

    ms = sorted(x * 1000 for x in latencies)
    result = {
        "suite": args.suite, "top": args.top, "n_tasks": len(tasks), "n_queries": len(ms),
        "index_build_s": round(build_s, 3),
        "route_ms": {"p50": round(statistics.median(ms), 3), "p95": round(ms[int(0.95 * (len(ms) - 1))], 3)},
        "recall": {d: {k: round(v[0] / v[1], 3) if v[1] else None for k, v in r.items()} for d, r in found.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{args.suite}: {len(tasks)} tasks, {len(ms)} route queries; index built in {build_s:.2f} s; "
          f"route p50 {result['route_ms']['p50']} ms, p95 {result['route_ms']['p95']} ms")
    print(f"{'domain':<10} {'recall@' + str(args.top) + ' steps':>16} {'instruction':>12}")
    for domain, r in sorted(result["recall"].items(), key=lambda x: (x[0] == "all", x[0])):
        print(f"{domain:<10} {r['steps']:>16} {r['instruction']:>12}")


if __name__ == "__main__":
    main()
