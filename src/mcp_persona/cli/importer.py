"""``mcp-persona import PROTOCOL FILE``: a peer benchmark's task file into our task format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from mcp_persona.cli.common import console, err, fail


def import_tasks(
    protocol: Annotated[str, typer.Argument(help="the protocol whose peer format FILE is in (mcpagentbench)")],
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="the peer's task file")],
    out: Annotated[Path | None, typer.Option(help="a suite folder to write (suite.json + tasks.json)")] = None,
) -> None:
    """Read a peer benchmark's tasks; list those that could not be mapped and why."""
    from mcp_persona.protocols import get_protocol, protocol_names

    if protocol not in protocol_names():
        raise fail(f"unknown protocol {protocol!r} (known: {', '.join(protocol_names())})")
    try:
        tasks, unmapped = get_protocol(protocol).import_file(file)
    except (NotImplementedError, ValueError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc
    for line in unmapped:
        err.print(f"[yellow]not mapped[/yellow] {line}")
    console.print(f"{len(tasks)} tasks mapped, {len(unmapped)} not mapped")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "suite.json").write_text(json.dumps({"protocol": protocol, "description": f"imported from {file.name}"},
                                                   indent=2) + "\n", encoding="utf-8")
        rows = [t.model_dump(mode="json", exclude_defaults=True) for t in tasks]
        (out / "tasks.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        console.print(f"written: {out}; check it with mcp-persona validate --suite {out}")


def register(app: typer.Typer) -> None:
    app.command(name="import")(import_tasks)
