"""``mcp-persona servers`` and ``mcp-persona tasks``: what is there to run."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from mcp_persona.apps import app_names, get_app
from mcp_persona.cli.common import console, load_suite


def servers(as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False) -> None:
    """List the simulated servers and their tools."""
    rows = []
    for name in app_names():
        a = get_app(name)
        rows.append({"name": name, "title": a.title, "category": a.category, "personalized": a.personalized,
                     "real_server": a.real_server, "contexts": a.context_ids(), "tools": a.tool_names})
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(rows)} servers, {sum(len(r['tools']) for r in rows)} tools")
    for col in ("server", "category", "personalized", "contexts", "tools"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], r["category"], "yes" if r["personalized"] else "no", ", ".join(r["contexts"]),
                      "\n".join(r["tools"]))
    console.print(table)


def tasks(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """List the tasks of a suite."""
    items = load_suite(suite)
    rows = [{"id": t.id, "category": t.category, "difficulty": t.difficulty, "servers": t.server_names,
             "checkpoints": len(t.checkpoints), "gold_calls": len(t.gold_calls), "type": t.type, "domain": t.domain}
            for t in items]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{suite}: {len(rows)} tasks")
    for col in ("id", "category", "difficulty", "servers", "checkpoints", "gold calls"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["category"], r["difficulty"] or "-", ", ".join(r["servers"]), str(r["checkpoints"]),
                      str(r["gold_calls"]))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command()(servers)
    app.command()(tasks)
