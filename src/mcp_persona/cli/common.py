"""Shared pieces of the command modules: consoles, failure exit, task loading."""

from __future__ import annotations

import fnmatch
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand

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


PROTOCOL_PANEL = "One suite's own options"


class PanelCommand(TyperCommand):
    """A command whose help lists its options in panels (each option's ``rich_help_panel``), in the order of
    ``panel_order`` (then as they first appear), the protocols' own options and those of no panel (``--help``)
    last; plain text, as the rest of the help (the app's ``rich_markup_mode=None``)."""

    panel_order: tuple[str, ...] = ()

    def format_options(self, ctx: Any, formatter: Any) -> None:  # typer's own click's Context, HelpFormatter
        panels: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                panel = getattr(param, "rich_help_panel", None) or "Other options"
                panels.setdefault(panel, []).append(record)
        last = [p for p in (PROTOCOL_PANEL, "Other options") if p in panels]
        first = [p for p in self.panel_order if p in panels]
        for panel in first + [p for p in panels if p not in first and p not in last] + last:
            with formatter.section(panel):
                formatter.write_dl(panels[panel])


def with_protocol_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with a ``--flag`` for every run option some protocol declares (:func:`protocols.all_options`),
    so a protocol's options reach the CLI from its declaration alone. The command receives the ones given as
    ``protocol_options`` (name -> value); the suite's protocol then checks them (and refuses those it does not
    take)."""
    from mcp_persona.protocols import all_options, get_protocol, protocol_names

    options = all_options()
    # the command's own annotations resolved (its module may defer them): typer reads the wrapper's
    hints = typing.get_type_hints(command, include_extras=True)
    params = [p.replace(annotation=hints[p.name]) for p in inspect.signature(command).parameters.values()
              if p.name != "protocol_options"]
    annotations = {k: v for k, v in hints.items() if k != "protocol_options"}
    for opt in options:
        owners = [n for n in protocol_names() if any(o.name == opt.name for o in get_protocol(n).options)]
        allowed = (f" ({', '.join(map(str, opt.choices))})" if opt.choices else
                   f" ({opt.bounds[0]}..{opt.bounds[1]})" if opt.bounds else "")
        hint = Annotated[type(opt.default) | None, typer.Option(  # type: ignore[misc]
            help=f"{', '.join(owners)}: {opt.help}{allowed}; default {opt.default}",
            rich_help_panel=PROTOCOL_PANEL)]
        params.append(inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=hint))
        annotations[opt.name] = hint

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {o.name: kwargs.pop(o.name) for o in options if o.name in kwargs}
        return command(*args, **kwargs, protocol_options={k: v for k, v in given.items() if v is not None})

    wrapper.__signature__ = inspect.signature(command).replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = annotations
    return wrapper
