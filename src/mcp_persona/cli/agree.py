"""``mcp-persona agree``: how well a run's scores agree with human labels, item by item as its protocol's
paper validates its judge: MCP-Persona's checkpoints (Table 7), LiveMCP-101's result and trajectory scores
(Likert 1-5, quadratic kappa), LiveMCPBench's task success."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_persona.cli.common import console, fail


def agree(
    run_dir: Annotated[Path, typer.Argument(help="a run folder (with run.sqlite)")],
    labels: Annotated[Path, typer.Option(help="human labels: CSV or JSONL with id,label[,category]")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Percent agreement and Cohen's kappa (plain and quadratic) between the run's scores and human labels,
    overall and per category. Label ids: persona TASK#CHECKPOINT_INDEX; livemcp101 TASK#result and
    TASK#trajectory (Likert 1-5); livemcpbench TASK (success / failure); later trials add #EPOCH after TASK."""
    from mcp_persona.judges.agreement import LabelFileError, agreement_report, load_labels
    from mcp_persona.protocols import DEFAULT_PROTOCOL, get_protocol
    from mcp_persona.store import STORE_FILE, RunStore, read_config

    if not (run_dir / STORE_FILE).is_file():
        raise fail(f"{run_dir} is not a run folder (no {STORE_FILE})")
    try:
        human = load_labels(labels)
    except (LabelFileError, OSError) as exc:
        raise fail(str(exc)) from exc
    try:
        protocol = get_protocol(str((read_config(run_dir) or {}).get("protocol") or DEFAULT_PROTOCOL))
    except KeyError as exc:
        raise fail(f"{run_dir}: {exc}") from exc
    store = RunStore(run_dir)
    try:
        items = protocol.agreement_items(store.records())
    except ValueError as exc:
        raise fail(str(exc)) from exc
    finally:
        store.close()
    try:
        report = agreement_report(human, items.scores, levels=list(items.levels), categories=items.categories,
                                  judge_unusable=items.unusable)
    except ValueError as exc:
        raise fail(f"{exc}; this run's items are {items.what}, named {items.id_form}") from exc
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    from mcp_persona.report.fit import Column, indented, print_table

    def row(name: str, s: Any) -> list[str]:
        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"
        return [name, str(s.n), f"{s.n_misaligned} ({100 * s.misaligned_ratio:.1f}%)", f"{100 * s.agreement:.1f}%",
                num(s.kappa), num(s.weighted_kappa)]

    columns = [Column("category"), Column("n", "right"),
               Column("misaligned", "right", alias="off"), Column("agreement", "right", alias="agree"),
               Column("kappa", "right"), Column("kappa (quadratic)", "right", alias="kappa-q")]
    print_table(console, columns, [*(row(c, s) for c, s in report.by_category.items()),
                                   row("overall", report.overall)],
                title=f"agreement of {items.what} with human labels: {run_dir}")
    indented(console, "misaligned: items whose score differs from the human label; agreement: share of items "
                      "scored as labelled; kappa: Cohen's kappa (1 full agreement, 0 chance), quadratic: weighted by "
                      "how far apart the scores are", indent=0, hang=2)
    if report.only_human or report.judge_unusable:
        console.print(f"labelled but not scored: {len(report.only_human) + len(report.judge_unusable)}")


def register(app: typer.Typer) -> None:
    app.command()(agree)
