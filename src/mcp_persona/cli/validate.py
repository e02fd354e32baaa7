"""``mcp-persona validate``: every data file loads and every gold chain solves its task."""

from __future__ import annotations

from typing import Annotated

import anyio
import typer

from mcp_persona.cli.common import console, err, load_suite


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
    """Load every data file and replay every task's gold chain; fail on any imperfect task, surviving mutant,
    equivalent answer that loses the score, or reasonable call a simulator answers worse than its real service."""
    from functools import partial

    from mcp_persona.protocols import suite_protocol
    from mcp_persona.validate import validate_all

    items = load_suite(suite, only)
    report = anyio.run(partial(validate_all, items, suite_protocol(suite), mutants=mutants,
                               equivalents=equivalents, robustness=robustness))
    for p in report.problems:
        err.print(f"[red]✗[/red] {p}", soft_wrap=True)
    score = report.mutation_score()
    if score:
        parts = [f"{cat} {k}/{n}" for cat, (k, n) in score.items() if cat != "all"]
        k, n = score["all"]
        console.print(f"mutants killed: {k}/{n} ({100 * k / n if n else 100:.1f}%) · " + " · ".join(parts))
        exempt = sum(1 for m in report.mutations for r in m.survivors if r.exempt)
        if exempt:
            console.print(f"{n - k} mutants survive: {exempt} exempted in writing by their task "
                          "(mutation_exemptions say why that change is not wrong)"
                          + (f", {n - k - exempt} not (each a problem above)" if n - k > exempt else ""))
    kept = report.equivalence_rate()
    if kept:
        parts = [f"{kind} {k}/{n}" for kind, (k, n) in kept.items() if kind != "all"]
        k, n = kept["all"]
        console.print(f"equivalents keeping the full score: {k}/{n} ({100 * k / n if n else 100:.1f}%) · "
                      + " · ".join(parts))
    lost = report.equivalence_rate(breaking=True)
    if lost:
        parts = [f"{kind} {k}/{n}" for kind, (k, n) in lost.items() if kind != "all"]
        k, n = lost["all"]
        console.print(f"fact-breaking rewrites losing the score: {k}/{n} ({100 * k / n if n else 100:.1f}%) · "
                      + " · ".join(parts))
    if report.robustness is not None:
        for line in report.robustness.summary():
            console.print(line, soft_wrap=True, highlight=False)
    console.print(f"{report.contexts_checked} contexts, {report.tasks_checked} tasks checked: "
                  + ("[green]all valid[/green]" if report.ok else f"[red]{len(report.problems)} problems[/red]"))
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(validate)
