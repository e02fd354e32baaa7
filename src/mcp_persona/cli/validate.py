"""``mcp-persona validate``: every data file loads and every gold chain solves its task."""

from __future__ import annotations

import textwrap
import time
from typing import TYPE_CHECKING, Annotated, Any

import anyio
import typer

from mcp_persona.cli.common import console, err, load_suite

if TYPE_CHECKING:
    from mcp_persona.validate import Report


def validate(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    only: Annotated[str | None, typer.Option("--tasks", help="comma-separated id globs, e.g. 'collab_*'")] = None,
    mutants: Annotated[bool, typer.Option(help="mutation-test every task's checkpoints (drop, free text, "
                                               "duplicate, duplicate inside a created container, "
                                               "retarget)")] = True,
    equivalents: Annotated[bool, typer.Option(help="equivalence-test every task: the reference answer and gold "
                                                   "output files in other reasonable forms keep the score")] = True,
    robustness: Annotated[bool, typer.Option(help="replay fair variants of every gold read (case, region, number, "
                                                  "word order, the instruction's words, optional arguments); fail "
                                                  "below 97 % or on an empty success no strict note excuses")] = True,
) -> None:
    """Check the benchmark itself, not a model (task authors run it; a user may skip it). Load every data file and
    replay every task's gold chain; fail on any imperfect task, surviving mutant, equivalent answer that loses
    the score, or reasonable call a simulator answers worse than its real service."""
    from functools import partial

    from mcp_persona.protocols import suite_protocol
    from mcp_persona.validate import validate_all

    items = load_suite(suite, only)
    protocol = suite_protocol(suite)
    for line in intro(suite, len(items), mutants=mutants and protocol.mutation_tested, equivalents=equivalents,
                      robustness=robustness):
        err.print(wrapped(line, err.width), soft_wrap=True, highlight=False)
    shown = PhaseProgress()
    report = anyio.run(partial(validate_all, items, protocol, mutants=mutants, equivalents=equivalents,
                               robustness=robustness, progress=shown))
    for p in report.problems:
        err.print(f"[red]✗[/red] {p}", soft_wrap=True)
    for line, meaning in figures(report):  # each wrapped at words; its meaning indented under it
        console.print(wrapped(line, console.width, indent="    "), soft_wrap=True, highlight=False)
        if meaning:
            console.print(wrapped(meaning, console.width, first="  ", indent="  "), style="dim", soft_wrap=True,
                          highlight=False, markup=False)
    _print_traceability(items)
    console.print(f"{report.contexts_checked} contexts, {report.tasks_checked} tasks checked: "
                  + ("[green]all valid[/green]" if report.ok else f"[red]{len(report.problems)} problems[/red]"),
                  soft_wrap=True, highlight=False)
    if not report.ok:
        raise typer.Exit(1)


def intro(suite: str, n_tasks: int, *, mutants: bool, equivalents: bool, robustness: bool) -> list[str]:
    """What validate is about to do, before its first minute of silence: for whom, each phase, who may skip it."""
    steps = ["every context (a simulated user's data) loads",
             "each task's gold calls, replayed, earn the full score"]
    if mutants:
        steps.append("wrong variants of the gold calls (mutants) lose it")
    if equivalents:
        steps.append("the right answer in other words keeps it")
    if robustness:
        steps.append("the servers answer fair variants of each gold read as the real service would")
    return [f"validate: checking the {n_tasks} tasks of {suite!r}: " + "; ".join(steps) + ".",
            "It checks the benchmark, not a model: task authors run it after a change; to evaluate a model or "
            "an agent you may skip it. Progress follows."]


PHASES = {"contexts": "loaded {done} contexts", "tasks": "checked {done}/{total} tasks (gold replay, mutants, "
          "equivalents)", "robustness": "probed {done}/{total} tasks for robustness"}


class PhaseProgress:
    """validate's progress on stderr: a line every tenth of a phase and at its end, with the time so far."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, phase: str, done: int, total: int) -> None:
        step = max(1, total // 10)
        if done == total or done % step == 0:
            what = PHASES.get(phase, phase + " {done}/{total}").format(done=done, total=total)
            err.print(f"  {what} · {time.monotonic() - self.start:.0f} s", soft_wrap=True, highlight=False)


def figures(report: Report) -> list[tuple[str, str]]:
    """validate's figures, each with what it means in plain words (empty when it was already said)."""
    from mcp_persona.robustness import GATE_PCT

    out: list[tuple[str, str]] = []
    score = report.mutation_score()
    if score:
        parts = [f"{cat} {k}/{n}" for cat, (k, n) in score.items() if cat != "all"]
        k, n = score["all"]
        out.append((f"mutants killed: {k}/{n} ({pct(k, n)}) · " + " · ".join(parts),
                    "a mutant is the gold calls changed in one way that leaves the task undone (a write dropped, "
                    "its text replaced by 'ok', a create sent twice, a write aimed at another entity); killed: "
                    "the task's checks took its full score away. Per task category."))
        exempt = sum(1 for m in report.mutations for r in m.survivors if r.exempt)
        if exempt:
            out.append((f"{n - k} mutants survive: {exempt} exempted in writing by their task "
                        "(mutation_exemptions say why that change is not wrong)"
                        + (f", {n - k - exempt} not (each a problem above)" if n - k > exempt else ""), ""))
    kept = report.equivalence_rate()
    if kept:
        parts = [f"{kind} {k}/{n}" for kind, (k, n) in kept.items() if kind != "all"]
        k, n = kept["all"]
        out.append((f"equivalents keeping the full score: {k}/{n} ({pct(k, n)}) · " + " · ".join(parts),
                    "the reference answer (or output file) rewritten in another fair form, by kind (an opening "
                    "sentence, bold numbers, rounding, reordered sentences, written-out dates, the task's facts "
                    "alone); each must keep the full score, or the checks are too literal."))
    lost = report.equivalence_rate(breaking=True)
    if lost:
        parts = [f"{kind} {k}/{n}" for kind, (k, n) in lost.items() if kind != "all"]
        k, n = lost["all"]
        out.append((f"fact-breaking rewrites losing the score: {k}/{n} ({pct(k, n)}) · " + " · ".join(parts),
                    "the reference answer with one value off (value_off) or a comparison turned round "
                    "(swapped_claim); each must lose the score, or the checks do not read the facts."))
    if report.robustness is not None:
        lines = report.robustness.summary()
        meanings = ["each read call of the gold chains sent again with fair variants of its arguments (case, "
                    "singular/plural, word order, the instruction's own words); answered as the real service "
                    "would: the reply still holds what the task needs, or an error names the accepted form. "
                    f"The gate is {GATE_PCT:g} %.", "the same share per server, lowest first."]
        out += list(zip(lines, meanings + [""] * len(lines), strict=False))
    return out


def _print_traceability(items: list[Any]) -> None:
    """How the checks trace to the instruction's requests, and the requests no check covers (a reading aid: the
    requests are found by their words, so this lists, it does not fail)."""
    from mcp_persona.tasks.requests import traceability

    trace = traceability(items)
    if not trace.checks:
        return
    line = (f"checks tracing to the instruction: {trace.traced}/{trace.checks} name their words (asks) · "
            f"requests no check covers: {len(trace.open)}/{trace.requests}")
    meaning = ("a request is a question or an imperative of the instruction ('tell me', 'save', 'reply'); a check "
               "covers it when the words it names lie in it, else when they share words. An uncovered request may "
               "be asked and never checked: read it ('mcp-persona show TASK').")
    console.print(wrapped(line, console.width, indent="    "), soft_wrap=True, highlight=False)
    console.print(wrapped(meaning, console.width, first="  ", indent="  "), style="dim", soft_wrap=True,
                  highlight=False, markup=False)
    for task_id, request in trace.open[:30]:
        console.print(wrapped(f"{task_id}: {request}", console.width, first="  ", indent="    "), soft_wrap=True,
                      highlight=False, markup=False)
    if len(trace.open) > 30:
        console.print(f"  ... and {len(trace.open) - 30} more", highlight=False)


def wrapped(text: str, width: int, *, first: str = "", indent: str = "") -> str:
    """``text`` broken between words to ``width`` columns (never inside a word or a name)."""
    return textwrap.fill(text, width=max(40, width), initial_indent=first, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)


def pct(k: int, n: int) -> str:
    return f"{100 * k / n if n else 100:.1f}%"


def register(app: typer.Typer) -> None:
    app.command()(validate)
