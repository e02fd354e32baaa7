"""Shared pieces of the command modules: consoles, failure exit, task loading."""

from __future__ import annotations

import fnmatch

import typer
from rich.console import Console
from rich.markup import escape

from mcp_persona.tasks import Task

# Exit codes of the commands (documented in the README): 2 a usage error (a flag, a file), 3 a run that
# finished with errored episodes, 4 a run stopped by its model endpoint (the preflight, the circuit breaker).
EXIT_USAGE = 2
EXIT_EPISODE_ERRORS = 3
EXIT_ENDPOINT = 4

console = Console()
err = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error and return the exit (code 2) for the caller to raise."""
    error_line(message)
    return typer.Exit(EXIT_USAGE)


def error_line(message: str) -> None:
    """``error: message`` on stderr, on one line however wide the terminal (brackets shown as they are)."""
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)


def load_suite(suite: str, only: str | None = None) -> list[Task]:
    """The tasks of ``suite``; with ``only``, those whose id matches one of its comma-separated globs."""
    from mcp_persona.protocols import load_suite as load
    from mcp_persona.tasks import TaskFileError

    try:
        _, tasks = load(suite)
    except TaskFileError as exc:
        raise fail(str(exc)) from exc
    if not tasks:
        raise fail(f"{suite!r} holds no task: a task file needs one task object or a non-empty list of them")
    if only is not None:
        patterns = [p.strip() for p in only.split(",") if p.strip()]
        tasks = [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]
        if not tasks:
            raise fail(f"--tasks {only!r} matches no task of {suite!r}")
    return tasks
