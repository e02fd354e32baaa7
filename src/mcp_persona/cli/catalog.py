"""``mcp-persona servers``, ``tasks`` and ``show``: what is there to run, and what one task asks and checks."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

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
    from mcp_persona.report.fit import Column, print_table

    # a name is never cut; the lists wrap between their items
    print_table(console, [Column("server"), Column("category"), Column("personalized", alias="pers."),
                          Column("contexts", wraps=True), Column("tools", wraps=True)],
                [[r["name"], r["category"], "yes" if r["personalized"] else "no", ", ".join(r["contexts"]),
                  ", ".join(r["tools"])] for r in rows],
                title=f"{len(rows)} servers, {sum(len(r['tools']) for r in rows)} tools", one_per_line=False)


def _livemcptool_servers(as_json: bool) -> None:
    from mcp_persona.livemcptool import missing_reason, servers

    rows = servers()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    real = [r for r in rows if r["kind"] == "real"]
    from mcp_persona.report.fit import Column, print_table

    def kind(r: dict) -> str:
        why = missing_reason(r["name"]) if r["kind"] == "real" else None
        return f"{r['kind']} (not installed: {why})" if why else r["kind"]

    print_table(console, [Column("server"), Column("kind", wraps=True), Column("category"),
                          Column("tools", wraps=True)],
                [[r["name"], kind(r), r["category"], ", ".join(r["tools"])] for r in rows],
                title=f"livemcptool: {len(rows)} servers ({len(real)} real), "
                      f"{sum(len(r['tools']) for r in rows)} tools", one_per_line=False)


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
    from mcp_persona.report.fit import Column, indented, print_table

    # the spec's own labels (category, tier, chain type...) as columns, those some task sets; its lists are
    # counted in the JSON only. An id is never cut (it is what --tasks takes), nor any label.
    unset = {None, TaskSpec.model_fields["category"].default}
    labels = [k for k, v in (rows[0] if rows else {}).items()
              if k not in ("id", "servers", "gold_calls") and not isinstance(v, int)
              and any(r[k] not in unset for r in rows)]
    columns = [Column("id"), *(Column(k) for k in labels), Column("servers", wraps=True),
               Column("checks", "right"), Column("gold", "right", meaning="gold calls")]
    print_table(console, columns, [[r["id"], *(str(r[k] or "-") for k in labels), ", ".join(r["servers"]),
                                    str(r.get("checkpoints", "-")), str(r["gold_calls"])] for r in rows],
                title=f"{suite}: {len(rows)} tasks", one_per_line=False)
    indented(console, "checks: the checkpoints that score a task; gold: the calls of its reference solution",
             indent=0, hang=2)


def show(
    task_id: Annotated[str, typer.Argument(help="the task's id, e.g. travel_easy_01")],
    suite: Annotated[str | None, typer.Option(
        help="a bundled suite name or a task file/folder (default: the bundled suite that has the id)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    answer: Annotated[str | None, typer.Option(
        help="try the task's checks: play the gold calls (or --calls), give this final answer, print the score "
             "each check gives ('-': read it from standard input)")] = None,
    calls: Annotated[Path | None, typer.Option(
        help="with --answer: play these calls instead of the gold chain (a JSON file: a list of "
             '{"server", "tool", "arguments"}, or a list of such lists, one per round)')] = None,
) -> None:
    """Show one task: its instruction, each request it makes and the checks that cover it, the checks that
    cover no request, and its gold calls. With --answer, score that answer (and --calls) by the task's rules."""
    from mcp_persona.cli.common import fail
    from mcp_persona.tasks import bundled_suites
    from mcp_persona.tasks.requests import coverage

    task = None
    for name in [suite] if suite else bundled_suites():
        task = next((t for t in load_suite(name) if t.id == task_id), None)
        if task is not None:
            break
    if task is None:
        raise fail(f"no task {task_id!r} in {suite or 'any bundled suite'} (list them with 'mcp-persona tasks "
                   "--suite NAME')")
    if calls is not None and answer is None:
        raise fail("--calls needs --answer (the final answer the calls end with)")
    if answer is not None:
        _try(task, sys.stdin.read() if answer == "-" else answer, calls, as_json)
        return
    asked, idle = coverage(task)
    if as_json:
        typer.echo(json.dumps({
            "id": task.id, "suite": task.suite, "instruction": task.instruction,
            "requests": [{"text": r.text, "covered_by": [{"check": c.name, "summary": c.summary, "how": how}
                                                         for c, how in r.covered_by]} for r in asked],
            "unmatched_checks": [{"check": c.name, "summary": c.summary} for c in idle],
            "gold": [{"server": g.server, "tool": g.tool, "arguments": g.arguments} for g in task.gold_calls],
        }, indent=2, ensure_ascii=False))
        return
    labels = ", ".join(f"{k} {v}" for k, v in task.spec.listing().items() if isinstance(v, str))
    console.print(f"[bold]{escape(task.id)}[/bold] ({escape(task.suite)}; {escape(labels)})", highlight=False)
    console.print("\n[bold]Instruction[/bold]", highlight=False)
    console.print(escape(f"  {task.instruction}"), highlight=False, soft_wrap=True)
    console.print("\n[bold]Requests[/bold] (each with the checks that cover it; matched by the words the check "
                  "names, else by shared words: a reading aid, not a verdict)", highlight=False)
    for i, req in enumerate(asked, start=1):
        console.print(escape(f"  {i}. {req.text}"), highlight=False, soft_wrap=True)
        for check, how in req.covered_by:
            console.print(escape(f"       <- {check.name}: {check.summary}  [{how}]"), highlight=False,
                          soft_wrap=True)
        if not req.covered_by:
            console.print("       (no check names or shares a word with this request: read it)", style="yellow",
                          highlight=False)
    if idle:
        console.print("\n[bold]Checks that match no request[/bold]", highlight=False)
        for check in idle:
            console.print(escape(f"  {check.name}: {check.summary}"), highlight=False, soft_wrap=True)
    console.print(f"\n[bold]Gold[/bold] ({len(task.gold_calls)} calls)", highlight=False)
    for g in task.gold_calls:
        console.print(escape(f"  {g.qualified} {json.dumps(g.arguments, ensure_ascii=False)[:160]}"),
                      highlight=False, soft_wrap=True)


def _try(task: Any, answer: str, calls_file: Path | None, as_json: bool) -> None:
    """Print what the task's rules make of ``answer`` after the gold calls (or ``calls_file``'s)."""
    from mcp_persona.cli.common import fail
    from mcp_persona.trial import TrialError, read_calls, try_task

    try:
        calls = read_calls(calls_file) if calls_file is not None else None
    except TrialError as exc:
        raise fail(str(exc)) from exc
    record = try_task(task, answer=answer, calls=calls)
    score = record.score
    if as_json:
        typer.echo(json.dumps({
            "id": task.id, "status": record.status, "error": record.error,
            "values": score.values if score else {},
            "checks": [c.model_dump() for c in score.checks] if score else [],
            "explanation": score.explanation if score else []}, indent=2, ensure_ascii=False))
        return
    console.print(f"[bold]{escape(task.id)}[/bold]: {'gold calls' if calls is None else f'{len(calls)} calls'}, "
                  "then the answer given", highlight=False)
    if record.error or score is None:
        console.print(escape(f"  the episode failed: {record.error or 'no score'}"), style="red", highlight=False)
        return
    for check in score.checks:
        mark = "-" if check.score is None else f"{check.score:g}"
        console.print(escape(f"  {mark:>4}  {check.name}" + (f": {check.why}" if check.why else "")),
                      highlight=False, soft_wrap=True)
    values = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in score.values.items())
    console.print(escape(f"  values: {values}"), highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(servers)
    app.command()(tasks)
    app.command()(show)
