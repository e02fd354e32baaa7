"""``mcp-persona validate``: every data file loads and every gold chain solves its task."""

from __future__ import annotations

from typing import Annotated

import anyio
import typer

from mcp_persona.cli.common import console, err, load_suite


def validate(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
) -> None:
    """Load every data file and replay every task's gold chain; fail on any imperfect task."""
    from mcp_persona.protocols import get_protocol
    from mcp_persona.tasks import suite_info
    from mcp_persona.validate import validate_all

    items = load_suite(suite)
    report = anyio.run(validate_all, items, get_protocol(suite_info(suite).protocol))
    for p in report.problems:
        err.print(f"[red]✗[/red] {p}")
    console.print(f"{report.contexts_checked} contexts, {report.tasks_checked} tasks checked: "
                  + ("[green]all valid[/green]" if report.ok else f"[red]{len(report.problems)} problems[/red]"))
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(validate)
