"""``mcp-persona servers`` and ``mcp-persona tasks``: what is there to run."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer
from rich.table import Table

from mcp_persona.apps import app_names, get_app
from mcp_persona.cli.common import console, load_suite
from mcp_persona.tasks import TaskSpec


class Library(StrEnum):
    persona = "persona"
    livemcptool = "livemcptool"


def servers(as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
            library: Annotated[Library, typer.Option(help="which server library to list")] = Library.persona,
            ) -> None:
    """List the servers of a library and their tools."""
    if library is Library.livemcptool:
        _livemcptool_servers(as_json)
        return
    rows = []
    for name in app_names():
        a = get_app(name)
        rows.append({"name": name, "title": a.title, "category": a.category, "personalized": a.personalized,
                     "real_server": a.real_server, "contexts": a.context_ids(), "tools": a.tool_names})
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(rows)} servers, {sum(len(r['tools']) for r in rows)} tools")
    table.add_column("server", no_wrap=True)  # a name is never cut; the other columns wrap
    for col in ("category", "personalized", "contexts", "tools"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["name"], r["category"], "yes" if r["personalized"] else "no", ", ".join(r["contexts"]),
                      "\n".join(r["tools"]))
    console.print(table)


def _livemcptool_servers(as_json: bool) -> None:
    from mcp_persona.livemcptool import missing_reason, servers

    rows = servers()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    real = [r for r in rows if r["kind"] == "real"]
    table = Table(title=f"livemcptool: {len(rows)} servers ({len(real)} real), {sum(len(r['tools']) for r in rows)} "
                        f"tools")
    table.add_column("server", no_wrap=True)
    for col in ("kind", "category", "tools"):
        table.add_column(col, overflow="fold")
    for r in rows:
        kind = r["kind"]
        if kind == "real" and (why := missing_reason(r["name"])):
            kind += f" (not installed: {why})"
        table.add_row(r["name"], kind, r["category"], ", ".join(r["tools"]))
    console.print(table)


def tasks(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """List the tasks of a suite."""
    items = load_suite(suite)
    rows = [{"id": t.id, **t.spec.listing(), "servers": t.server_names, "gold_calls": len(t.gold_calls)}
            for t in items]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{suite}: {len(rows)} tasks")
    table.add_column("id", no_wrap=True)  # an id is never cut (it is what --tasks takes); the rest wrap
    # the spec's own labels (category, tier, chain type...) as columns, those some task sets; its lists are
    # counted in the JSON only
    unset = {None, TaskSpec.model_fields["category"].default}
    labels = [k for k, v in (rows[0] if rows else {}).items()
              if k not in ("id", "servers", "gold_calls") and not isinstance(v, int)
              and any(r[k] not in unset for r in rows)]
    for col in (*labels, "servers"):
        table.add_column(col, overflow="fold")
    for col in ("checks", "gold"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(r["id"], *(str(r[k] or "-") for k in labels), ", ".join(r["servers"]),
                      str(r.get("checkpoints", "-")), str(r["gold_calls"]))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command()(servers)
    app.command()(tasks)
