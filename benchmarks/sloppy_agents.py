"""How the scores treat agents that do the task badly: a suite played by scripted sloppy agents.

Every agent replays the task's gold chain (through real MCP, scored by the suite's own protocol) with one kind of
fault:

* ``gold``             — the gold chain, then the reference answer (the ceiling);
* ``writes twice``     — the gold chain with every state-changing call issued once more (MCPAgentBench: every call);
* ``free text 'ok'``   — every free-text argument of a write (bodies, titles, descriptions) replaced by "ok";
* ``no last step``     — the gold chain without its last step;
* ``answer only``      — no tool call, the reference answer at once;
* ``paste reads``      — only the gold chain's read calls, every output pasted as the answer;
* ``paste all``        — the whole gold chain, every output pasted verbatim as the answer;
* ``paste + sentence`` — the same, with a short sentence before and after the pasted outputs;
* ``a call a turn``    — every call in a turn of its own (parallel steps split);
* ``all in one turn``  — every call in the first turn (serial steps merged);
* ``equivalent answer`` — no fault: the gold chain, then the reference answer in an equivalent form (an opening
  sentence, every number with thousands separators and in bold). It must score like ``gold``; where it does not,
  the checks require one wording of the right answer (see :mod:`mcp_persona.equivalents`).

Which agents play which protocol: :data:`PROTOCOL_AGENTS`. It prints, per agent, the protocol's headline scores
as its run summary computes them (persona: Acc, SR-0.8, Exec-Acc, strict; LiveMCP-101: TSR, ARS, ATS; MCPAgentBench:
TFS, TEFS, the paper's TFS; LiveMCPBench: success), Acc and the strict pass where the protocol has them aside, the
answers judged dumps, and the tasks the fault changed anything in. Run: ``python benchmarks/sloppy_agents.py
[--suite S] [--tasks GLOBS]``. A sloppy agent that scores like ``gold`` on some metric where its fault changed the
task is a hole in that metric.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections.abc import Callable
from typing import Any

import anyio

from mcp_persona.equivalents import OPENING, emphasised
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
from mcp_persona.protocols import get_protocol, load_tasks, suite_protocol
from mcp_persona.protocols.base import Protocol
from mcp_persona.protocols.persona import PersonaProtocol
from mcp_persona.runner import RunConfig, run_episode
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import Task

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


def one_turn_each(plan: Plan) -> Plan:
    """Every call in a turn of its own: parallel steps split."""
    return tuple(PlannedCall(p.label, i, p.call) for i, p in enumerate(plan))


def all_in_one_turn(plan: Plan) -> Plan:
    """Every call in the first turn: serial steps issued before the results they wait on."""
    return tuple(PlannedCall(p.label, 0, p.call) for p in plan)


AGENTS: dict[str, Callable[[Plan, set[tuple[int, int]]], tuple[Plan, Around]]] = {
    "gold": lambda plan, w: (plan, None),
    "writes twice": lambda plan, w: (twice(plan, w), None),
    "free text 'ok'": lambda plan, w: (ok_text(plan, w), None),
    "no last step": lambda plan, w: (tuple(p for p in plan if p.label[0] < max(q.label[0] for q in plan)), None),
    "answer only": lambda plan, w: ((), None),
    "paste reads": lambda plan, w: (tuple(p for p in plan if p.label not in w), VERBATIM),
    "paste all": lambda plan, w: (plan, VERBATIM),
    "paste + sentence": lambda plan, w: (plan, PASTE_SENTENCES),
    "a call a turn": lambda plan, w: (one_turn_each(plan), None),
    "all in one turn": lambda plan, w: (all_in_one_turn(plan), None),
    "equivalent answer": lambda plan, w: (plan, None),
}
# Agents that answer with their own form of the reference answer (no fault: they must score like gold).
ANSWERS: dict[str, Callable[[str], str]] = {"equivalent answer": lambda answer: OPENING + emphasised(answer)}
# Which agents play each protocol's suites. Persona's environment (persona, livemcp101) tells reads from writes by
# observing the gold chain; MCPAgentBench scores the calls alone (the answer is not scored, so pasting is no fault
# there; turns are); LiveMCPBench's faults need no observed writes.
PROTOCOL_AGENTS: dict[str, tuple[str, ...]] = {
    "persona": ("gold", "writes twice", "free text 'ok'", "no last step", "answer only", "paste reads", "paste all",
                "paste + sentence", "equivalent answer"),
    "mcpagentbench": ("gold", "writes twice", "free text 'ok'", "no last step", "answer only", "a call a turn",
                      "all in one turn"),
    "livemcpbench": ("gold", "answer only", "paste all", "paste + sentence", "equivalent answer"),
}
PROTOCOL_AGENTS["livemcp101"] = PROTOCOL_AGENTS["persona"]


def agent(calls: Plan, around: Around, answer: str | None = None) -> ReplayAgent:
    return ReplayAgent(calls, paste_outputs=around is not None, around=around or VERBATIM, answer=answer)


def columns(protocol: Protocol) -> list[tuple[str, str]]:
    """The protocol's headline scores, then Acc and the strict pass where the protocol has them aside, the answers
    counted as dumps, and the tasks the fault changed."""
    cols = [(label, key) for label, key, _ in protocol.report_columns]
    keys = {key for _, key in cols}
    cols += [(label, key) for label, key in (("Acc", "acc"), ("Strict", "strict_sr")) if key not in keys]
    return [*cols, ("Dumps", "dumps"), ("Faulted", "faulted")]


async def run(suite: str, tasks: list[Task], protocol_name: str) -> dict[str, dict[str, Any]]:
    """Each agent's run metrics, as the protocol's own summary computes them for a run."""
    protocol = get_protocol(protocol_name)
    names = PROTOCOL_AGENTS.get(protocol_name, PROTOCOL_AGENTS["livemcpbench"])
    records: dict[str, list[EpisodeRecord]] = {name: [] for name in names}
    faulted = dict.fromkeys(names, 0)  # tasks the fault changed anything in (no free text: nothing to blank)
    for task in tasks:
        plan = gold_plan(task)
        # persona's environment tells the writes apart; elsewhere every call is the task's work
        writes = ((await observe_gold(task)).writes if isinstance(protocol, PersonaProtocol)
                  else {p.label for p in plan})
        for name in names:
            calls, around = AGENTS[name](plan, writes)
            answer = ANSWERS[name](task.reference_answer) if name in ANSWERS else None
            reworded = answer is not None and answer != task.reference_answer
            faulted[name] += around is not None or calls != plan or reworded
            records[name].append(await run_episode(task, agent(calls, around, answer), protocol=protocol))
    out: dict[str, dict[str, Any]] = {}
    for name, recs in records.items():
        config = RunConfig(suite=suite, agent=name, model=None, protocol=protocol_name)
        metrics = dict(protocol.summarize(config, tasks, recs)["metrics"])
        scores = [r.score.detail if r.score is not None else {} for r in recs]
        metrics.setdefault("acc", sum(float(s.get("acc") or 0.0) for s in scores) / (len(scores) or 1))
        metrics["dumps"] = sum(bool(s.get("answer_dump")) for s in scores)
        metrics["faulted"] = faulted[name]
        out[name] = metrics
    return out


def cell(value: Any, key: str) -> str:
    if value is None:
        return "-"
    return str(value) if key in ("dumps", "faulted") else f"{100 * value:.1f}"


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--suite", default="persona")
    parser.add_argument("--tasks", default="*", help="comma-separated id globs")
    args = parser.parse_args(argv)
    globs = args.tasks.split(",")
    tasks = [t for t in load_tasks(args.suite) if any(fnmatch.fnmatchcase(t.id, g) for g in globs)]
    if not tasks:
        parser.error(f"no task of suite {args.suite!r} matches --tasks {args.tasks!r}")
    protocol_name = suite_protocol(args.suite).name
    start = time.perf_counter()
    results = anyio.run(run, args.suite, tasks, protocol_name)
    cols = columns(get_protocol(protocol_name))
    print(f"{args.suite} ({protocol_name}): {len(tasks)} tasks, {len(results)} scripted agents, "
          f"{time.perf_counter() - start:.1f} s")
    print(f"{'agent':<18}" + "".join(f"{label:>{max(8, len(label) + 2)}}" for label, _ in cols))
    for name, m in results.items():
        print(f"{name:<18}" + "".join(f"{cell(m.get(key), key):>{max(8, len(label) + 2)}}" for label, key in cols))
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
