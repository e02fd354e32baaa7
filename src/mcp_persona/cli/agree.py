"""``mcp-persona agree``: how well a run's checkpoint scores agree with human labels (paper Table 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from mcp_persona.cli.common import console, fail


def scorer_labels(records: list[Any]) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Per checkpoint of every episode: the run's score (rules or judge), its task category, and the
    checkpoints left unscored. Ids are ``TASK#INDEX`` for the first trial, ``TASK#EPOCH#INDEX`` otherwise."""
    labels: dict[str, str] = {}
    categories: dict[str, str] = {}
    unusable: list[str] = []
    for r in records:
        if r.status != "ok" or r.score is None:
            continue
        for cp in r.score["checkpoints"]:
            item = f"{r.task_id}#{cp['index']}" if r.epoch == 0 else f"{r.task_id}#{r.epoch}#{cp['index']}"
            categories[item] = r.category
            if cp["score"] is None:
                unusable.append(item)
            else:
                labels[item] = f"{cp['score']:g}"
    return labels, categories, unusable


def agree(
    run_dir: Annotated[Path, typer.Argument(help="a run folder (with run.sqlite)")],
    labels: Annotated[Path, typer.Option(help="human labels: CSV or JSONL with id,label[,category]")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Percent agreement and Cohen's kappa (plain and quadratic) between the run's checkpoint scores and
    human labels, overall and per category. Label ids: TASK#CHECKPOINT_INDEX (TASK#EPOCH#INDEX for trials)."""
    from mcp_persona.judges.agreement import LabelFileError, agreement_report, load_labels
    from mcp_persona.store import STORE_FILE, RunStore

    if not (run_dir / STORE_FILE).is_file():
        raise fail(f"{run_dir} is not a run folder (no {STORE_FILE})")
    try:
        human = load_labels(labels)
    except (LabelFileError, OSError) as exc:
        raise fail(str(exc)) from exc
    store = RunStore(run_dir)
    scores, categories, unusable = scorer_labels(store.records())
    store.close()
    try:
        report = agreement_report(human, scores, levels=["0", "0.5", "1"], categories=categories,
                                  judge_unusable=unusable)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    table = Table(title=f"agreement with human labels: {run_dir}")
    for col in ("category", "n", "misaligned", "agreement", "kappa", "kappa (quadratic)"):
        table.add_column(col, justify="left" if col == "category" else "right")

    def row(name: str, s: Any) -> None:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"
        table.add_row(name, str(s.n), f"{s.n_misaligned} ({100 * s.misaligned_ratio:.1f}%)",
                      f"{100 * s.agreement:.1f}%", num(s.kappa), num(s.weighted_kappa))

    for cat, s in report.by_category.items():
        row(cat, s)
    row("overall", report.overall)
    console.print(table)
    if report.only_human or report.judge_unusable:
        console.print(f"labelled but not scored: {len(report.only_human) + len(report.judge_unusable)}")


def register(app: typer.Typer) -> None:
    app.command()(agree)
