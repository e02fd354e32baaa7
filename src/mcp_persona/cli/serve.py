"""``mcp-persona serve``: one simulated app as a real MCP server, over stdio or streamable HTTP.

State lives for the life of the process: every client of this process sees the same user context evolve,
as with a real account.
"""

from __future__ import annotations

import os
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from mcp_persona.apps import AppServer, app_names, get_app
from mcp_persona.cli.common import err, fail
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.pool_server import BearerAuth


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"

def serve(
    server: Annotated[str, typer.Argument(help="server name, e.g. lark")],
    transport: Annotated[Transport, typer.Option()] = Transport.stdio,
    host: Annotated[str, typer.Option(help="HTTP bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    context: Annotated[str | None, typer.Option(help="user context id (default: the first)")] = None,
    now: Annotated[str | None, typer.Option(help="the clock's 'now', ISO 8601 local time")] = None,
    timezone: Annotated[str | None, typer.Option(help="IANA time zone of the clock")] = None,
    token_env: Annotated[str | None, typer.Option(help="HTTP: require 'Bearer $VAR' from this env variable")] = None,
) -> None:
    """Serve a simulated app as a real MCP server (stdio, or streamable HTTP at /mcp)."""
    if server not in app_names():
        raise fail(f"unknown server {server!r} (known: {', '.join(app_names())})")
    if context is not None and context not in get_app(server).context_ids():
        raise fail(f"{server} has no context {context!r} (has: {', '.join(get_app(server).context_ids())})")
    try:
        clock = TaskClock(now=datetime.fromisoformat(now) if now else DEFAULT_CLOCK.now,
                          timezone=timezone or DEFAULT_CLOCK.timezone)
    except ValueError as exc:
        raise fail(f"bad --now/--timezone: {exc}") from exc
    token = None
    if token_env is not None:
        token = os.environ.get(token_env)
        if not token:
            raise fail(f"--token-env {token_env}: that environment variable is empty")
    mcp_server = build_server(server, context, clock)
    if transport is Transport.stdio:
        if token:
            raise fail("--token-env applies to --transport http only")
        mcp_server.run("stdio")
    else:
        err.print(f"serving {server} on http://{host}:{port}/mcp" + (" (bearer token required)" if token else ""))
        serve_http(mcp_server, host=host, port=port, token=token)


def build_server(name: str, context_id: str | None, clock: TaskClock) -> AppServer:
    app = get_app(name)
    cid = context_id or app.context_ids()[0]
    return app.server(app.env(cid, clock=clock))


def serve_http(server: AppServer, *, host: str, port: int, token: str | None) -> None:
    import uvicorn  # only for --transport http

    asgi: Any = server.streamable_http_app(host=host)
    if token:
        asgi = BearerAuth(asgi, token)
    uvicorn.run(asgi, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    app.command()(serve)
