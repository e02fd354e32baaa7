"""How the scores treat agents that do the task badly: a suite played by scripted sloppy agents.

Every agent replays the task's gold chain (through real MCP, scored by the real scorers) with one kind of fault.
On the persona suite (and any suite of its protocol):

* ``gold``             — the gold chain, then the reference answer (the ceiling);
* ``writes twice``     — the gold chain with every state-changing call issued once more;
* ``free text 'ok'``   — every free-text argument of a write (bodies, titles, descriptions) replaced by "ok";
* ``no last step``     — the gold chain without its last step;
* ``answer only``      — no tool call, the reference answer at once;
* ``paste reads``      — only the gold chain's read calls, every output pasted as the answer;
* ``paste all``        — the whole gold chain, every output pasted verbatim as the answer;
* ``paste + sentence`` — the same, with a short sentence before and after the pasted outputs.

Prints Acc, SR-0.8, Exec-Acc and the strict pass per agent. On a LiveMCPBench suite (``--suite livemcpbench``)
the agents are ``gold``, ``answer only``, ``paste all`` and ``paste + sentence`` (the others need state-changing
calls observed on persona's environment), and it prints Acc, the rule success and how many answers were dumps.
Run: ``python benchmarks/sloppy_agents.py`` (``--tasks 'collab_*'`` for a subset). A sloppy agent that scores
like ``gold`` on some metric is a hole in that metric.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections.abc import Callable
from typing import Any

import anyio

from mcp_persona.mutants import (
    NEUTRAL_TEXT,
    PASTE_SENTENCES,
    PlannedCall,
    ReplayAgent,
    gold_plan,
    is_free_text,
    observe_gold,
    replace_argument,
    string_leaves,
)
from mcp_persona.protocols import get_protocol
from mcp_persona.protocols.persona import episode_score
from mcp_persona.runner import run_episode
from mcp_persona.scoring import suite_metrics
from mcp_persona.tasks import Task, load_tasks, suite_info

Plan = tuple[PlannedCall, ...]
Around = tuple[str, str] | None  # None: the reference answer; else the outputs pasted, wrapped in these
VERBATIM: tuple[str, str] = ("", "")


def twice(plan: Plan, writes: set[tuple[int, int]]) -> Plan:
    return tuple(x for p in plan for x in ((p, p) if p.label in writes else (p,)))


def ok_text(plan: Plan, writes: set[tuple[int, int]]) -> Plan:
    out = []
    for p in plan:
        args = p.call.arguments
        if p.label in writes:
            for path, value in list(string_leaves(args)):
                if is_free_text(value, ""):
                    args = replace_argument(args, path, NEUTRAL_TEXT)
        out.append(PlannedCall(p.label, p.round, p.call.model_copy(update={"arguments": args})))
    return tuple(out)


AGENTS: dict[str, Callable[[Plan, set[tuple[int, int]]], tuple[Plan, Around]]] = {
    "gold": lambda plan, w: (plan, None),
    "writes twice": lambda plan, w: (twice(plan, w), None),
    "free text 'ok'": lambda plan, w: (ok_text(plan, w), None),
    "no last step": lambda plan, w: (tuple(p for p in plan if p.label[0] < max(q.label[0] for q in plan)), None),
    "answer only": lambda plan, w: ((), None),
    "paste reads": lambda plan, w: (tuple(p for p in plan if p.label not in w), VERBATIM),
    "paste all": lambda plan, w: (plan, VERBATIM),
    "paste + sentence": lambda plan, w: (plan, PASTE_SENTENCES),
}
# the agents that need no observed writes, for a protocol without persona's environment
LIBRARY_AGENTS = ("gold", "answer only", "paste all", "paste + sentence")


def agent(calls: Plan, around: Around) -> ReplayAgent:
    return ReplayAgent(calls, paste_outputs=around is not None, around=around or VERBATIM)


async def run(tasks: list[Task]) -> dict[str, dict[str, Any]]:
    results: dict[str, list[Any]] = {name: [] for name in AGENTS}
    for task in tasks:
        obs = await observe_gold(task)
        plan = gold_plan(task)
        for name, make in AGENTS.items():
            record = await run_episode(task, agent(*make(plan, obs.writes)))
            results[name].append(episode_score(record, task))
    return {name: suite_metrics(scores) for name, scores in results.items()}


async def run_library(tasks: list[Task], protocol: str) -> dict[str, dict[str, Any]]:
    """LiveMCPBench's scores of each agent: mean Acc, the rule success rate, and the answers that were dumps."""
    proto = get_protocol(protocol)
    scores: dict[str, list[dict[str, Any]]] = {name: [] for name in LIBRARY_AGENTS}
    for task in tasks:
        plan = gold_plan(task)
        for name in LIBRARY_AGENTS:
            record = await run_episode(task, agent(*AGENTS[name](plan, set())), protocol=proto)
            scores[name].append(record.score or {"acc": 0.0, "rule_success": False, "answer_dump": False})
    n = len(tasks) or 1
    return {name: {"acc": sum(s["acc"] for s in ss) / n, "success": sum(bool(s["rule_success"]) for s in ss) / n,
                   "passed": sum(bool(s["rule_success"]) for s in ss), "dumps": sum(bool(s["answer_dump"]) for s in ss)}
            for name, ss in scores.items()}


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", default="persona")
    parser.add_argument("--tasks", default="*", help="comma-separated id globs")
    args = parser.parse_args(argv)
    globs = args.tasks.split(",")
    tasks = [t for t in load_tasks(args.suite) if any(fnmatch.fnmatchcase(t.id, g) for g in globs)]
    protocol = suite_info(args.suite).protocol
    start = time.perf_counter()
    if protocol == "livemcpbench":
        library = anyio.run(run_library, tasks, protocol)
        print(f"{len(tasks)} tasks, {len(LIBRARY_AGENTS)} scripted agents, {time.perf_counter() - start:.1f} s")
        print(f"{'agent':<18}{'Acc':>8}{'Success':>9}{'Passed':>8}{'Dumps':>7}")
        for name, m in library.items():
            print(f"{name:<18}{100 * m['acc']:>8.1f}{100 * m['success']:>9.1f}{m['passed']:>8}{m['dumps']:>7}")
        return library
    metrics = anyio.run(run, tasks)
    print(f"{len(tasks)} tasks, {len(AGENTS)} scripted agents, {time.perf_counter() - start:.1f} s")
    print(f"{'agent':<18}{'Acc':>8}{'SR-0.8':>8}{'Exec':>8}{'Strict':>8}")
    for name, m in metrics.items():
        exec_acc = "-" if m["exec_acc"] is None else f"{100 * m['exec_acc']:.1f}"
        print(f"{name:<18}{100 * m['acc']:>8.1f}{100 * m['sr_0_8']:>8.1f}{exec_acc:>8}{100 * m['strict_sr']:>8.1f}")
    return metrics


if __name__ == "__main__":
    main(sys.argv[1:])
