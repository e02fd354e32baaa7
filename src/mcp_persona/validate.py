"""Check every data file and every task: the gold chain must solve each task perfectly.

Every context loads and no two tasks are the same. A task passes when it passes its protocol's own checks
(:meth:`Protocol.validate_task`: MCP-Persona's in :mod:`mcp_persona.protocols.persona.validate` — servers,
contexts and tools exist, no operate checkpoint is satisfied at the start, no GT value is given away, every
literal of the gold chain is discoverable, the gold chain replays to a full score with no collateral damage)
and, where the protocol's scoring is mutation-tested, no mutant of its gold chain survives
(:mod:`mcp_persona.mutants`).

A task that passes is then equivalence-tested under its protocol (:mod:`mcp_persona.equivalents`): the
reference answer and the gold output files in other reasonable forms must keep the full score.

Last, the robustness gate (:func:`mcp_persona.robustness.robustness_gate`): the fair variants of every gold
read must be answered as the real service would, in 97 % of cases and with no unexcused empty success.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio

from mcp_persona.apps import app_names, get_app
from mcp_persona.equivalents import TaskEquivalence, equivalence_problems, equivalence_test
from mcp_persona.mutants import TaskMutation, mutation_exemptions, mutation_test
from mcp_persona.protocols import DEFAULT_PROTOCOL, Protocol, get_protocol
from mcp_persona.robustness import RobustnessReport, robustness_gate
from mcp_persona.scoring.normalize import normalize
from mcp_persona.tasks import Task

# Told where validation is: (phase, done, total), phase one of "contexts", "tasks", "robustness".
ProgressHook = Callable[[str, int, int], None]


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

    def equivalence_rate(self, *, breaking: bool = False) -> dict[str, tuple[int, int]]:
        """(right, tested) variants per kind, and ``all``: the fact-preserving ones (right: the full score stayed),
        or with ``breaking`` the fact-breaking ones (right: the score was lost)."""
        out: dict[str, tuple[int, int]] = {}
        for t in self.equivalences:
            for r in t.results:
                if r.breaking != breaking:
                    continue
                for key in (r.kind, "all"):
                    right, total = out.get(key, (0, 0))
                    out[key] = (right + r.right, total + 1)
        return dict(sorted(out.items()))

    @property
    def ok(self) -> bool:
        return not self.problems


def check_contexts(report: Report, progress: ProgressHook | None = None) -> None:
    for name in app_names():
        app = get_app(name)
        for cid in app.context_ids():
            try:
                app.load_context(cid)
            except (ValueError, KeyError) as exc:
                report.problems.append(f"context {name}/{cid}: {exc}")
            report.contexts_checked += 1
    if progress is not None:
        progress("contexts", report.contexts_checked, report.contexts_checked)


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
    problems += [f"mutation exemption {e.key!r} excuses no surviving mutant" for e in mutation_exemptions(task)
                 if e.key not in surviving]
    return problems


async def check_with_mutants(task: Task, protocol: Protocol, report: Report, *, mutants: bool = True) -> list[str]:
    """The protocol's checks of the task, then (if they pass and the protocol's scoring is mutation-tested)
    mutation testing of the task's checkpoints."""
    problems = await protocol.validate_task(task)
    if mutants and protocol.mutation_tested and not problems:
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
                       equivalents: bool = True, robustness: bool = True, concurrency: int = 4,
                       progress: ProgressHook | None = None) -> Report:
    """Every context loads; no two tasks are the same; each task passes its protocol's checks and, if it does,
    equivalence testing; and the tasks' gold reads pass the robustness gate. ``progress`` is told each phase's
    count as it grows (the contexts once, then each task checked, then each task probed)."""
    protocol = protocol or get_protocol(DEFAULT_PROTOCOL)
    report = Report()
    check_contexts(report, progress)
    report.problems.extend(duplicate_tasks(tasks))
    found: list[list[str]] = [[] for _ in tasks]
    limiter = anyio.CapacityLimiter(concurrency)
    done = 0

    async def one(i: int, task: Task) -> None:
        nonlocal done
        async with limiter:
            problems = await check_with_mutants(task, protocol, report, mutants=mutants)
            if equivalents and not problems:
                problems = await check_equivalents(task, protocol, report)
            found[i] = [f"task {task.id}: {p}" for p in problems]
            done += 1
            if progress is not None:
                progress("tasks", done, len(tasks))

    # Tasks replay side by side (each in its own environment); problems are reported in task order.
    async with anyio.create_task_group() as tg:
        for i, task in enumerate(tasks):
            tg.start_soon(one, i, task)
    report.tasks_checked += len(tasks)
    for problems in found:
        report.problems.extend(problems)
    if robustness:
        probed = None if progress is None else (lambda k: progress("robustness", k, len(tasks)))
        report.robustness = await robustness_gate(tasks, protocol, concurrency=concurrency, progress=probed)
        report.problems.extend(report.robustness.problems())
    return report
