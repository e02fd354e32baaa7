"""The simulated apps, by name."""

from __future__ import annotations

import importlib
from functools import cache

from mcp_persona.apps.base import App, AppEnv, AppServer, ToolFailure

# name -> module holding APP; imported on first use so a run loads only what it needs.
_MODULES = {
    "lark": "mcp_persona.apps.lark",
    "obsidian": "mcp_persona.apps.obsidian",
}


def app_names() -> list[str]:
    return list(_MODULES)


@cache
def get_app(name: str) -> App:
    if name not in _MODULES:
        raise KeyError(f"unknown server {name!r} (known: {', '.join(_MODULES)})")
    app = importlib.import_module(_MODULES[name]).APP
    assert isinstance(app, App)
    return app


__all__ = ["App", "AppEnv", "AppServer", "ToolFailure", "app_names", "get_app"]
