"""``mcp-persona report``: an HTML report, a Markdown summary and figures of one or more runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_persona.cli.common import console, err, fail


def report(
    run_dirs: Annotated[list[Path], typer.Argument(help="run folders (the --run-dir of `mcp-persona run`)",
                                                   metavar="RUN_DIR...", show_default=False)],
    html: Annotated[Path | None, typer.Option(help="write the self-contained HTML report to FILE")] = None,
    markdown: Annotated[Path | None, typer.Option(help="write the Markdown summary to FILE ('-' prints it)")] = None,
    plots: Annotated[Path | None, typer.Option(help="write the figures (PNG and SVG) into DIR")] = None,
    suite: Annotated[str | None, typer.Option(help="where the task texts are, if not the runs' own suite")] = None,
    title: Annotated[str, typer.Option(help="the report's title")] = "MCP-Persona report",
    figures: Annotated[bool, typer.Option(help="embed the figures in the HTML report")] = True,
) -> None:
    """Report on finished runs: leaderboard, scores per category, trajectories (Markdown on stdout by default)."""
    from mcp_persona.report.load import RunLoadError, load_runs
    from mcp_persona.report.markdown import render_markdown

    try:
        runs = load_runs(run_dirs, suite=suite)
    except RunLoadError as exc:
        raise fail(str(exc)) from exc
    for r in runs:
        for note in r.notes:
            err.print(f"[yellow]note:[/yellow] {r.label}: {note}")
    if html is None and markdown is None and plots is None:
        markdown = Path("-")
    if markdown is not None:
        text = render_markdown(runs, title=title)
        if str(markdown) == "-":
            typer.echo(text)
        else:
            _write(markdown, text)
            console.print(f"markdown: {markdown}")
    if plots is not None:
        from mcp_persona.report.plots import write_plots

        written = write_plots(runs, plots, failure_counts=failure_counts(runs))
        console.print(f"figures: {len(written)} files in {plots}")
    if html is not None:
        from mcp_persona.report.html import render_html

        _write(html, render_html(runs, title=title, figures=figures, failure_counts=failure_counts(runs)))
        console.print(f"html: {html}")


def failure_counts(runs: list[Any]) -> dict[str, dict[str, int]] | None:
    """run label -> failure mode -> count, for the heatmap (its first column ``correct``: the episodes that passed
    by their own protocol's verdict, as LiveMCP-101's figure has it); None when no run has a failed episode."""
    counts = {r.label: {"correct": correct(r), **r.failure_modes} for r in runs}
    return counts if any(sum(n for k, n in c.items() if k != "correct") for c in counts.values()) else None


def correct(run: Any) -> int:
    """Episodes of the run that passed by its own protocol's verdict (LiveMCP-101: a result score of 1, its TSR;
    MCPAgentBench: a finished task; persona: SR-0.8). Not "scored and not among the failure modes' failed": that
    count is persona's Acc below 1, and a protocol without failure modes would count every scored episode."""
    protocol = run.protocol
    rows = {(r.get("task_id"), int(r.get("epoch") or 0)): r for r in run.summary.get("episodes") or []}
    # an episode without its summary row has no headline values: not counted as passed
    return sum(1 for e in run.episodes
               if e.status == "ok" and protocol.verdict(rows.get((e.task_id, e.epoch)), e.score).passed)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror or exc}") from exc


def register(app: typer.Typer) -> None:
    app.command()(report)
