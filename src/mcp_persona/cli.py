"""The ``mcp-persona`` command."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mcp_persona.apps import app_names, get_app
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Benchmark LLM agents on simulated MCP apps.")
console = Console()
err = Console(stderr=True)


class AgentKind(StrEnum):
    reference = "reference"
    noop = "noop"
    model = "model"


class ToolsKind(StrEnum):
    selected = "selected"
    all = "all"


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def _fail(message: str) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


def _load(suite: str) -> list:  # type: ignore[type-arg]
    from mcp_persona.tasks import TaskFileError, load_tasks

    try:
        return load_tasks(suite)
    except TaskFileError as exc:
        raise _fail(str(exc)) from exc


@app.command()
def run(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    agent: Annotated[AgentKind, typer.Option(help="reference replays gold; noop is the floor")] = AgentKind.reference,
    model: Annotated[str | None, typer.Option(help="'local' or 'openai:NAME' (needed by --agent model)")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[str, typer.Option(help="environment variable holding the API key")] = "OPENAI_API_KEY",
    tools: Annotated[ToolsKind, typer.Option(help="the task's servers, or every server")] = ToolsKind.selected,
    max_rounds: Annotated[int, typer.Option(min=1, max=200)] = 20,
    limit: Annotated[int | None, typer.Option(min=1, help="run only the first N tasks")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64)] = 1,
    run_dir: Annotated[Path | None, typer.Option(help="where the run store and summary go")] = None,
    resume: Annotated[bool, typer.Option(help="finish the run in --run-dir")] = False,
) -> None:
    """Run an agent on a suite, score every episode, and write DIR/summary.json."""
    from mcp_persona.agents import ModelAgent, NoopAgent, ReferenceAgent
    from mcp_persona.llm import ModelError, make_client
    from mcp_persona.reports import build_summary, print_summary, write_summary
    from mcp_persona.runner import RunConfig, run_suite
    from mcp_persona.store import RunStore, RunStoreError

    if agent is AgentKind.model and not model:
        raise _fail("--agent model needs --model (e.g. --model local or --model openai:gpt-4o-mini)")
    if agent is not AgentKind.model and model:
        raise _fail(f"--model is only used with --agent model (got --agent {agent.value})")
    if resume and run_dir is None:
        raise _fail("--resume needs the --run-dir of the run to finish")
    tasks = _load(suite)
    if limit is not None:
        tasks = tasks[:limit]
    if agent is AgentKind.model:
        try:
            runner_agent = ModelAgent(make_client(model or "", base_url=base_url, api_key_env=api_key_env),
                                      max_rounds=max_rounds)
        except (ValueError, ModelError) as exc:
            raise _fail(str(exc)) from exc
    else:
        runner_agent = ReferenceAgent() if agent is AgentKind.reference else NoopAgent()
    suite_name = Path(suite).stem if os.sep in suite or suite.endswith(".json") else suite
    config = RunConfig(suite=suite_name, agent=agent.value, model=runner_agent.model, tools=tools.value,
                       max_rounds=max_rounds)
    if run_dir is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")  # names the folder only; never enters scoring
        run_dir = Path("runs") / f"{suite_name}-{agent.value}-{stamp}"
    store = RunStore(run_dir)
    try:
        store.begin(config.to_dict(), resume=resume)
    except RunStoreError as exc:
        raise _fail(str(exc)) from exc
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as progress:
        todo = len([t for t in tasks if (t.id, 0) not in store.finished()])
        bar = progress.add_task("episodes", total=todo)
        anyio.run(lambda: run_suite(tasks, runner_agent, store, tools=tools.value, concurrency=concurrency,
                                    on_done=lambda _r: progress.advance(bar)))
    summary = build_summary(config, tasks, store.records())
    store.close()
    path = write_summary(run_dir, summary)
    print_summary(summary, console)
    console.print(f"run store: {run_dir / 'run.sqlite'}\nsummary: {path}")


@app.command()
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


@app.command()
def tasks(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """List the tasks of a suite."""
    items = _load(suite)
    rows = [{"id": t.id, "category": t.category, "servers": t.server_names, "checkpoints": len(t.checkpoints),
             "gold_calls": len(t.gold_calls)} for t in items]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{suite}: {len(rows)} tasks")
    for col in ("id", "category", "servers", "checkpoints", "gold calls"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["category"], ", ".join(r["servers"]), str(r["checkpoints"]), str(r["gold_calls"]))
    console.print(table)


@app.command()
def serve(
    server: Annotated[str, typer.Argument(help="server name, e.g. lark")],
    transport: Annotated[Transport, typer.Option()] = Transport.stdio,
    host: Annotated[str, typer.Option(help="HTTP bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    context: Annotated[str | None, typer.Option(help="user context id (default: the first)")] = None,
    now: Annotated[str | None, typer.Option(help="the clock's 'now', ISO 8601 local time")] = None,
    timezone: Annotated[str | None, typer.Option(help="IANA time zone of the clock")] = None,
    token_env: Annotated[str | None, typer.Option(help="HTTP: require 'Bearer $VAR' from this env variable")] = None,
) -> None:
    """Serve a simulated app as a real MCP server (stdio, or streamable HTTP at /mcp)."""
    from mcp_persona.serve import build_server, serve_http

    if server not in app_names():
        raise _fail(f"unknown server {server!r} (known: {', '.join(app_names())})")
    if context is not None and context not in get_app(server).context_ids():
        raise _fail(f"{server} has no context {context!r} (has: {', '.join(get_app(server).context_ids())})")
    try:
        clock = TaskClock(now=datetime.fromisoformat(now) if now else DEFAULT_CLOCK.now,
                          timezone=timezone or DEFAULT_CLOCK.timezone)
    except ValueError as exc:
        raise _fail(f"bad --now/--timezone: {exc}") from exc
    token = None
    if token_env is not None:
        token = os.environ.get(token_env)
        if not token:
            raise _fail(f"--token-env {token_env}: that environment variable is empty")
    mcp_server = build_server(server, context, clock)
    if transport is Transport.stdio:
        if token:
            raise _fail("--token-env applies to --transport http only")
        mcp_server.run("stdio")
    else:
        err.print(f"serving {server} on http://{host}:{port}/mcp" + (" (bearer token required)" if token else ""))
        serve_http(mcp_server, host=host, port=port, token=token)


@app.command()
def validate(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
) -> None:
    """Load every data file and replay every task's gold chain; fail on any imperfect task."""
    from mcp_persona.validate import validate_all

    items = _load(suite)
    report = anyio.run(validate_all, items)
    for p in report.problems:
        err.print(f"[red]✗[/red] {p}")
    console.print(f"{report.contexts_checked} contexts, {report.tasks_checked} tasks checked: "
                  + ("[green]all valid[/green]" if report.ok else f"[red]{len(report.problems)} problems[/red]"))
    if not report.ok:
        raise typer.Exit(1)


def main() -> None:  # pragma: no cover
    sys.exit(app())
