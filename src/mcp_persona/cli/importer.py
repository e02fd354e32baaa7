"""``mcp-persona import PROTOCOL FILE``: a peer benchmark's task file into our task format;
``mcp-persona import PROTOCOL-results FILE... --tasks TASKS``: the peer's published runs as run folders (where the
protocol can replay them: MCPAgentBench)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from mcp_persona.cli.common import console, err, fail

RESULTS = "-results"


def import_tasks(
    protocol: Annotated[str, typer.Argument(help="the protocol whose peer format FILE is in (mcpagentbench), "
                                                 "or PROTOCOL-results (mcpagentbench-results): the peer's "
                                                 "published result files", metavar="PROTOCOL")],
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False,
                                                help="the peer's task file; with PROTOCOL-results, its result "
                                                     "files (*_results.json)",
                                                metavar="FILE", show_default=False)],
    out: Annotated[Path | None, typer.Option(help="a suite folder to write (suite.json + tasks.json); with "
                                                  "PROTOCOL-results, the folder of the runs and their suite "
                                                  "(default runs/published-PROTOCOL)")] = None,
    tasks: Annotated[Path | None, typer.Option(exists=True, dir_okay=False,
                                               help="with PROTOCOL-results: the peer's task file the results "
                                                    "are of (its tasks.json)")] = None,
) -> None:
    """Read a peer benchmark's tasks, or its published runs; list what could not be mapped and why."""
    from mcp_persona.protocols import get_protocol, protocol_names
    from mcp_persona.tasks import write_suite

    if protocol.endswith(RESULTS):
        import_results(protocol.removesuffix(RESULTS), files, tasks, out)
        return
    if protocol not in protocol_names():
        raise fail(f"unknown protocol {protocol!r} (known: {', '.join(protocol_names())}, or PROTOCOL{RESULTS})")
    if tasks is not None:
        raise fail(f"--tasks is for PROTOCOL{RESULTS} only")
    if len(files) != 1:
        raise fail(f"import {protocol} reads one task file, got {len(files)}")
    try:
        mapped, unmapped = get_protocol(protocol).import_file(files[0])
    except (NotImplementedError, ValueError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc
    for line in unmapped:
        err.print(f"[yellow]not mapped[/yellow] {line}")
    console.print(f"{len(mapped)} tasks mapped, {len(unmapped)} not mapped")
    if out is not None:
        write_suite(out, protocol, files[0], mapped)
        console.print(f"written: {out}; check it with mcp-persona validate --suite {out}")


def import_results(name: str, files: list[Path], task_file: Path | None, out: Path | None) -> None:
    """The protocol's replay of a peer's published runs, its progress printed as it goes."""
    from mcp_persona.protocols import get_protocol

    try:
        protocol = get_protocol(name)
    except KeyError as exc:
        raise fail(exc.args[0]) from exc
    try:
        for warning, line in protocol.import_results(files, task_file, out or Path("runs") / f"published-{name}"):
            if warning:
                err.print(f"[yellow]not imported[/yellow] {escape(line)}", soft_wrap=True)
            else:
                console.print(escape(line), soft_wrap=True)
    except (NotImplementedError, ValueError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc


def register(app: typer.Typer) -> None:
    app.command(name="import")(import_tasks)
