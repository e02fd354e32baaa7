"""``mcp-persona contexts``: regenerate (or check) the generated user contexts."""

from __future__ import annotations

from typing import Annotated

import typer

from mcp_persona.cli.common import console, err, fail


def contexts(
    app_name: Annotated[str | None, typer.Option("--app", help="one app (default: every app with a generator)")] = None,
    check: Annotated[bool, typer.Option(help="only check that the committed contexts regenerate identically")] = False,
) -> None:
    """Generate the user contexts of the apps that have a context generator (seeded, reproducible)."""
    from mcp_persona.contextgen import check_app, generated_apps
    from mcp_persona.contextgen.pipeline import write_app

    apps = generated_apps()
    if app_name is not None:
        if app_name not in apps:
            raise fail(f"{app_name!r} has no context generator (apps with one: {', '.join(apps) or 'none'})")
        apps = [app_name]
    problems: list[str] = []
    for name in apps:
        if check:
            problems.extend(check_app(name))
        else:
            for path in write_app(name):
                console.print(f"wrote {path}")
    for p in problems:
        err.print(f"[red]✗[/red] {p}")
    if check:
        console.print(f"{len(apps)} apps checked: " + ("[green]all reproducible[/green]" if not problems
                                                        else f"[red]{len(problems)} problems[/red]"))
        if problems:
            raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(contexts)
