"""``mcp-persona compare``: what changed task by task between two runs of one suite, on its primary metric."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from mcp_persona.cli.common import console, err, fail
from mcp_persona.report.fit import indented


def compare(
    run_a: Annotated[Path, typer.Argument(help="the baseline run folder", metavar="RUN_A", show_default=False)],
    run_b: Annotated[Path, typer.Argument(help="the run compared with it", metavar="RUN_B", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print the comparison as JSON")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="list unchanged tasks and tasks of one run only too")] = False,
    fail_on_regression: Annotated[bool, typer.Option(
        help="exit 1 when a task's primary score dropped (or its episode newly errored)")] = False,
) -> None:
    """Per-task differences from RUN_A to RUN_B on the suite's primary metric (Acc, TSR, TFS, success): the
    paired difference with its 95% interval, the tasks that flipped, regressions, then improvements."""
    from mcp_persona.report.compare import ORDER, CompareError, compare_runs
    from mcp_persona.report.load import RunLoadError, label_runs, load_run
    from mcp_persona.report.markdown import DASH, pct

    try:
        a, b = load_run(run_a), load_run(run_b)
        label_runs([a, b])
        cmp = compare_runs(a, b)
    except (RunLoadError, CompareError) as exc:
        raise fail(str(exc)) from exc
    if cmp.settings:
        err.print(f"[yellow]warning:[/yellow] the runs differ in settings that change the score: "
                  f"{escape('; '.join(cmp.settings))}", soft_wrap=True)
    label = cmp.primary[0]
    flips = cmp.flips()
    if as_json:
        typer.echo(json.dumps(cmp.to_dict(), indent=2, ensure_ascii=False))
    else:
        for side, run in (("A", a), ("B", b)):
            named = escape(run.label) if run.label == run.path.name else f"{escape(run.label)} ({escape(run.name)})"
            console.print(f"{side} = {named}", soft_wrap=True, highlight=False)
        head = Table()
        for col in ("metric", "A", "B", "B - A"):
            head.add_column(col, justify="left" if col == "metric" else "right", no_wrap=True)
        deltas = cmp.metric_deltas()
        for col_label, col_key, _ in a.columns:
            v = deltas[col_key]
            d = v["delta"]
            head.add_row(col_label, pct(v["a"]), pct(v["b"]), DASH if d is None else f"{100 * d:+.1f}")
        console.print(head)
        console.print(f"scores in % (0-100); {a.config.get('suite')}'s primary score is {label}", highlight=False)
        console.print(f"pass = the full {label} score on a task (100), fail = less", highlight=False)
        for way, words in (("pass_to_fail", "pass → fail"), ("fail_to_pass", "fail → pass")):
            ids = flips[way]
            indented(console, f"{words} ({len(ids)}): " + (", ".join(ids) if ids else DASH), indent=0, hang=2)
        listed = ("regression", "improvement") if not show_all else tuple(ORDER)
        rows = [t for t in cmp.tasks if t.change in listed]
        if rows:
            table = Table()
            table.add_column("change", no_wrap=True)
            table.add_column("task", no_wrap=True)
            table.add_column(f"{label} A → B", justify="right")
            table.add_column("status A → B")
            style = {"regression": "red", "improvement": "green", "only_a": "yellow", "only_b": "yellow"}
            for t in rows:
                table.add_row(t.change, t.task_id,
                              f"{pct(t.a.score if t.a else None)} → {pct(t.b.score if t.b else None)}",
                              f"{t.a.status if t.a else DASH} → {t.b.status if t.b else DASH}",
                              style=style.get(t.change))
            console.print(table)
        counts = [_n(len(cmp.regressions), "regression"), _n(len(cmp.improvements), "improvement"),
                  f"{len(cmp.of('unchanged'))} unchanged"]
        only = [f"{len(cmp.of(c))} only in {c[-1].upper()}" for c in ("only_a", "only_b") if cmp.of(c)]
        hint = " (--all lists them)" if only and not show_all else ""
        indented(console, f"tasks on {label}: " + ", ".join(counts + only) + hint, indent=0, hang=2)
        indented(console, "verdict, B against A (paired over the tasks both runs scored; 95% bootstrap "
                          "interval in points):", indent=0, hang=2)
        for v in cmp.differences().values():
            indented(console, verdict_line(v), hang=4)
    if fail_on_regression and cmp.regressions:
        raise typer.Exit(1)


def verdict_line(v: dict) -> str:
    """One headline metric's verdict in words: better / worse / no difference at 95 %, with the interval."""
    if v["delta"] is None:
        return f"{v['label']}: no task scored on it in both runs"
    if v["ci95"] is None:
        return f"{v['label']}: {100 * v['delta']:+.1f} points over {_n(v['n_tasks'], 'task')}, too few to tell"
    lo, hi = (100 * x for x in v["ci95"])
    words = {"better": "B is better", "worse": "B is worse", "no difference": "no difference at 95%"}[v["verdict"]]
    return (f"{v['label']}: {words} ({100 * v['delta']:+.1f} points, 95% CI {lo:+.1f} to {hi:+.1f}, "
            f"{_n(v['n_tasks'], 'task')})")


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def register(app: typer.Typer) -> None:
    app.command()(compare)
