"""Shared pieces of the command modules: consoles, failure exit, task loading."""

from __future__ import annotations

import typer
from rich.console import Console

from mcp_persona.tasks import Task

console = Console()
err = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error and return the exit (code 2) for the caller to raise."""
    err.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


def load_suite(suite: str) -> list[Task]:
    from mcp_persona.tasks import TaskFileError, load_tasks

    try:
        return load_tasks(suite)
    except TaskFileError as exc:
        raise fail(str(exc)) from exc
