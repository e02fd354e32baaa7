"""The simulated apps, by name.

Every subpackage of ``mcp_persona.apps`` is one app and exports ``APP``; a new app
is a new subpackage (one whose name starts with ``_`` is shared code, not an app).
Modules are imported on first use, so a run loads only what it needs.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from mcp_persona.apps.base import App, AppEnv, AppServer, ToolFailure


@cache
def app_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and not m.name.startswith("_"))


@cache
def get_app(name: str) -> App:
    if name not in app_names():
        raise KeyError(f"unknown server {name!r} (known: {', '.join(app_names())})")
    app = importlib.import_module(f"{__name__}.{name}").APP
    if not isinstance(app, App) or app.name != name:
        raise TypeError(f"{__name__}.{name}.APP must be the App named {name!r}")
    return app


__all__ = ["App", "AppEnv", "AppServer", "ToolFailure", "app_names", "get_app"]
