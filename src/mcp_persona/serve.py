"""Serve one simulated app as a real MCP server, over stdio or streamable HTTP.

State lives for the life of the process: every client of this process sees the
same user context evolve, as with a real account.
"""

from __future__ import annotations

import hmac
from typing import Any

from mcp_persona.apps import AppServer, get_app
from mcp_persona.clock import TaskClock

Scope = dict[str, Any]


def build_server(name: str, context_id: str | None, clock: TaskClock) -> AppServer:
    app = get_app(name)
    cid = context_id or app.context_ids()[0]
    return app.server(app.env(cid, clock=clock))


class BearerAuth:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer <token>``; lifespan passes through."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b'{"error":"missing or invalid bearer token"}'})
                return
        await self.app(scope, receive, send)


def serve_http(server: AppServer, *, host: str, port: int, token: str | None) -> None:
    import uvicorn

    asgi: Any = server.streamable_http_app(host=host)
    if token:
        asgi = BearerAuth(asgi, token)
    uvicorn.run(asgi, host=host, port=port, log_level="warning")
