"""``mcp-persona compare``: what changed task by task between two runs, regressions first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from mcp_persona.cli.common import console, fail


def compare(
    run_a: Annotated[Path, typer.Argument(help="the baseline run folder", metavar="RUN_A", show_default=False)],
    run_b: Annotated[Path, typer.Argument(help="the run compared with it", metavar="RUN_B", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print the comparison as JSON")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="list unchanged tasks and tasks of one run only too")] = False,
    fail_on_regression: Annotated[bool, typer.Option(help="exit 1 when a task regressed")] = False,
) -> None:
    """Per-task differences (Acc, Exec-Acc, status) from RUN_A to RUN_B: regressions, then improvements."""
    from mcp_persona.report.compare import ORDER, compare_runs
    from mcp_persona.report.load import RunLoadError, label_runs, load_run
    from mcp_persona.report.markdown import DASH, pct

    try:
        a, b = load_run(run_a), load_run(run_b)
    except RunLoadError as exc:
        raise fail(str(exc)) from exc
    label_runs([a, b])
    cmp = compare_runs(a, b)
    if as_json:
        typer.echo(json.dumps(cmp.to_dict(), indent=2, ensure_ascii=False))
    else:
        head = Table(title=f"A = {a.label} ({a.path})  →  B = {b.label} ({b.path})")
        for col in ("metric", "A", "B", "Δ"):
            head.add_column(col, justify="left" if col == "metric" else "right")
        scores = {k for _, k, _ in a.columns} if a.protocol.name == b.protocol.name else set()
        for key, v in cmp.metric_deltas().items():
            if v["a"] is None and v["b"] is None:  # a score the runs' protocol does not have
                continue
            if key in ("acc", "sr_0_8", "exec_acc", "tool_error_rate") or key in scores:
                d = v["delta"]
                head.add_row(key, pct(v["a"]), pct(v["b"]), DASH if d is None else f"{100 * d:+.1f}")
        console.print(head)
        listed = ("regression", "improvement") if not show_all else tuple(ORDER)
        rows = [t for t in cmp.tasks if t.change in listed]
        if rows:
            table = Table()
            table.add_column("change", no_wrap=True)
            table.add_column("task", no_wrap=True)
            for col in ("Acc A → B", "Exec-Acc A → B", "status A → B"):
                table.add_column(col, justify="left" if col.startswith("status") else "right")
            style = {"regression": "red", "improvement": "green", "only_a": "yellow", "only_b": "yellow"}
            for t in rows:
                table.add_row(t.change, t.task_id,
                              f"{pct(t.a.acc if t.a else None)} → {pct(t.b.acc if t.b else None)}",
                              f"{pct(t.a.exec_acc if t.a else None)} → {pct(t.b.exec_acc if t.b else None)}",
                              f"{t.a.status if t.a else DASH} → {t.b.status if t.b else DASH}",
                              style=style.get(t.change))
            console.print(table)
        counts = [_n(len(cmp.regressions), "regression"), _n(len(cmp.improvements), "improvement"),
                  f"{len(cmp.of('unchanged'))} unchanged"]
        only = [f"{len(cmp.of(c))} only in {c[-1].upper()}" for c in ("only_a", "only_b") if cmp.of(c)]
        hint = " (--all lists them)" if only and not show_all else ""
        console.print(", ".join(counts + only) + hint)
    if fail_on_regression and cmp.regressions:
        raise typer.Exit(1)


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def register(app: typer.Typer) -> None:
    app.command()(compare)
