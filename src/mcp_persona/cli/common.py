"""Shared pieces of the command modules: consoles, failure exit, task loading."""

from __future__ import annotations

import fnmatch

import typer
from rich.console import Console

from mcp_persona.tasks import Task

console = Console()
err = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error and return the exit (code 2) for the caller to raise."""
    err.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


def load_suite(suite: str, only: str | None = None) -> list[Task]:
    """The tasks of ``suite``; with ``only``, those whose id matches one of its comma-separated globs."""
    from mcp_persona.tasks import TaskFileError, load_tasks

    try:
        tasks = load_tasks(suite)
    except TaskFileError as exc:
        raise fail(str(exc)) from exc
    if only is not None:
        patterns = [p.strip() for p in only.split(",") if p.strip()]
        tasks = [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]
        if not tasks:
            raise fail(f"--tasks {only!r} matches no task of {suite!r}")
    return tasks
