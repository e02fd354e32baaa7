"""Check every data file and every task: the gold chain must solve each task perfectly.

A task passes when its servers, contexts and gold tools exist; each operate
checkpoint is *not* already satisfied by the start state (else any agent passes);
its search GT values are not given away by the instruction; every literal of the gold
chain is discoverable (:mod:`mcp_persona.literals`); its gold chain replays
without a tool error; every search GT value appears in the gold tool outputs (so
the ground truth agrees with the context it came from); and the replay scores
Acc = Exec-Acc = 1 with no collateral damage.

A task that passes is then equivalence-tested under its protocol (:mod:`mcp_persona.equivalents`): the
reference answer and the gold output files in other reasonable forms must keep the full score.

Last, the robustness gate (:func:`mcp_persona.robustness.robustness_gate`): the fair variants of every gold
read must be answered as the real service would, in 97 % of cases and with no unexcused empty success.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from mcp_persona.apps import app_names, get_app
from mcp_persona.context_tree import ContextTree, PathError, TreeError
from mcp_persona.equivalents import TaskEquivalence, equivalence_problems, equivalence_test
from mcp_persona.literals import ListingReference, literal_problems
from mcp_persona.mutants import TaskMutation, mutation_test
from mcp_persona.protocols import DEFAULT_PROTOCOL, Protocol, get_protocol
from mcp_persona.robustness import RobustnessReport, robustness_gate
from mcp_persona.runner import run_episode
from mcp_persona.scoring.checkpoints import check_operate
from mcp_persona.scoring.normalize import appears_in, normalize
from mcp_persona.tasks import OperateCheckpoint, SearchCheckpoint, Task


@dataclass
class Report:
    contexts_checked: int = 0
    tasks_checked: int = 0
    problems: list[str] = field(default_factory=list)
    mutations: list[TaskMutation] = field(default_factory=list)
    equivalences: list[TaskEquivalence] = field(default_factory=list)
    robustness: RobustnessReport | None = None

    def mutation_score(self) -> dict[str, tuple[int, int]]:
        """(killed, counted) mutants per category, and ``all``."""
        out: dict[str, tuple[int, int]] = {}
        for m in self.mutations:
            for key in (m.category, "all"):
                killed, total = out.get(key, (0, 0))
                out[key] = (killed + sum(r.killed for r in m.counted), total + len(m.counted))
        return dict(sorted(out.items()))

    def equivalence_rate(self) -> dict[str, tuple[int, int]]:
        """(kept, tested) equivalent variants per kind, and ``all``: kept means the full score stayed."""
        out: dict[str, tuple[int, int]] = {}
        for t in self.equivalences:
            for r in t.results:
                for key in (r.kind, "all"):
                    kept, total = out.get(key, (0, 0))
                    out[key] = (kept + r.kept, total + 1)
        return dict(sorted(out.items()))

    @property
    def ok(self) -> bool:
        return not self.problems


def check_contexts(report: Report) -> None:
    for name in app_names():
        app = get_app(name)
        for cid in app.context_ids():
            try:
                app.load_context(cid)
            except (ValueError, KeyError) as exc:
                report.problems.append(f"context {name}/{cid}: {exc}")
            report.contexts_checked += 1


def static_problems(task: Task) -> list[str]:
    problems: list[str] = []
    for sc in task.servers:
        if sc.server not in app_names():
            problems.append(f"unknown server {sc.server!r}")
        elif sc.context_id not in get_app(sc.server).context_ids():
            problems.append(f"{sc.server} has no context {sc.context_id!r}")
    if problems:
        return problems
    given = task.instruction + "\n" + "\n".join(task.necessary_context.values())
    for i, cp in enumerate(task.checkpoints):
        if isinstance(cp, SearchCheckpoint):
            leaked = [v for v in cp.gt_value if appears_in(v, given)]
            if leaked:
                problems.append(f"checkpoint {i}: GT {leaked} already stated in the instruction or context")
    for call in task.gold_calls:
        if call.tool not in get_app(call.server).tool_names:
            problems.append(f"gold call {call.qualified}: no such tool")
    for i, cp in enumerate(task.checkpoints):
        if not isinstance(cp, OperateCheckpoint):
            continue
        app = get_app(cp.server)
        if cp.tool not in app.tool_names:
            problems.append(f"checkpoint {i}: {cp.server} has no tool {cp.tool!r}")
        if cp.entity is not None and cp.entity not in app.hierarchy.entities:
            problems.append(f"checkpoint {i}: {cp.server} has no entity type {cp.entity!r}")
            continue
        start = app.load_context(task.context_of(cp.server) or "")
        if cp.target is not None:
            try:
                ContextTree(app.hierarchy, start).get(cp.target)
            except (PathError, TreeError) as exc:
                problems.append(f"checkpoint {i}: target {cp.target!r} not in the start state ({exc})")
                continue
        if check_operate(i, cp, app.hierarchy, start, start).score == 1.0:
            problems.append(f"checkpoint {i}: already satisfied by the start state")
    return problems


async def check_task(task: Task, protocol: Protocol | None = None) -> list[str]:
    """``protocol``: the one whose prompts the agent is told (what makes a literal discoverable); the
    replay itself is scored by the persona rules."""
    problems = static_problems(task)
    if problems:
        return problems
    agent = ListingReference(protocol or get_protocol(DEFAULT_PROTOCOL))
    record = await run_episode(task, agent)
    if record.status == "error":
        return [f"gold replay failed: {record.error}"]
    for e in record.trajectory.tool_calls:
        if e.is_error:
            problems.append(f"gold call {e.server}:{e.tool} returned an error: {e.result[:160]}")
    problems.extend(literal_problems(task, record.trajectory.tool_calls, agent.listing))
    outputs = [e.result for e in record.trajectory.tool_calls]
    for i, cp in enumerate(task.checkpoints):
        if isinstance(cp, SearchCheckpoint):
            # a derived value is worked out from shown numbers (grounding checks those), not shown itself
            missing = [v for v in cp.gt_value if v not in cp.derived and not any(appears_in(v, o) for o in outputs)]
            if missing:
                problems.append(f"checkpoint {i}: GT {missing} not in any gold tool output")
    assert record.score is not None
    for c in record.score["checkpoints"]:
        if c["score"] is not None and c["score"] < 1.0:
            problems.append(f"checkpoint {c['index']} ({c['type']}) scores {c['score']} on replay: {c['reason']}")
    for c in record.score["collateral"]:
        problems.append(f"gold replay causes collateral damage: {c}")
    if record.internal_errors:
        problems.extend(f"simulator crash: {e}" for e in record.internal_errors)
    return problems


def duplicate_tasks(tasks: Sequence[Task]) -> list[str]:
    seen: dict[tuple[str, tuple[str, ...]], str] = {}
    problems = []
    for t in tasks:
        key = (normalize(t.instruction), tuple(c.qualified for c in t.gold_calls))
        if key in seen:
            problems.append(f"task {t.id}: same instruction and tool chain as task {seen[key]}")
        seen.setdefault(key, t.id)
    return problems


def mutation_problems(task: Task, mutation: TaskMutation) -> list[str]:
    """Survivors without an exemption, and exemptions that excuse no survivor (stale or mistyped)."""
    problems = [f"mutant survives ({r.mutant.kind} of gold call {r.mutant.call}: {r.mutant.detail}; "
                f"Acc {r.acc:.2f}, strict {r.strict}) — strengthen a checkpoint or add a mutation exemption "
                f"with key {r.mutant.key!r}" for r in mutation.survivors if not r.exempt]
    surviving = {r.mutant.key for r in mutation.survivors}
    problems += [f"mutation exemption {e.key!r} excuses no surviving mutant" for e in task.mutation_exemptions
                 if e.key not in surviving]
    return problems


async def check_with_mutants(task: Task, report: Report, *, mutants: bool = True,
                             protocol: Protocol | None = None) -> list[str]:
    """The replay check, then (if it passes) mutation testing of the task's checkpoints."""
    problems = await check_task(task, protocol)
    if mutants and not problems:
        mutation = await mutation_test(task)
        report.mutations.append(mutation)
        problems = mutation_problems(task, mutation)
    return problems


async def check_equivalents(task: Task, protocol: Protocol, report: Report) -> list[str]:
    """Equivalence testing of one task (results go to ``report``)."""
    result = await equivalence_test(task, protocol)
    report.equivalences.append(result)
    return equivalence_problems(task, result)


async def validate_all(tasks: Sequence[Task], protocol: Protocol | None = None, *, mutants: bool = True,
                       equivalents: bool = True, robustness: bool = True, concurrency: int = 4) -> Report:
    """Every context loads; no two tasks are the same; each task passes its protocol's checks and, if it does,
    equivalence testing; and the tasks' gold reads pass the robustness gate."""
    protocol = protocol or get_protocol(DEFAULT_PROTOCOL)
    report = Report()
    check_contexts(report)
    report.problems.extend(duplicate_tasks(tasks))
    found: list[list[str]] = [[] for _ in tasks]
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(i: int, task: Task) -> None:
        async with limiter:
            problems = await protocol.validate_task(task, report, mutants=mutants)
            if equivalents and not problems:
                problems = await check_equivalents(task, protocol, report)
            found[i] = [f"task {task.id}: {p}" for p in problems]

    # Tasks replay side by side (each in its own environment); problems are reported in task order.
    async with anyio.create_task_group() as tg:
        for i, task in enumerate(tasks):
            tg.start_soon(one, i, task)
    report.tasks_checked += len(tasks)
    for problems in found:
        report.problems.extend(problems)
    if robustness:
        report.robustness = await robustness_gate(tasks, protocol, concurrency=concurrency)
        report.problems.extend(report.robustness.problems())
    return report
