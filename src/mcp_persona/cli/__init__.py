"""The ``mcp-persona`` command.

Each module of this package defines one group of commands and a ``register(app)``
function; every module is registered here, so a new command is a new module.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Benchmark LLM agents on simulated MCP apps.")

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name != "common":
        importlib.import_module(f"{__name__}.{_info.name}").register(app)


def main() -> None:  # pragma: no cover
    app()
