"""An episode's tool pool as one MCP server over streamable HTTP on loopback, for an agent outside the harness.

The server lists exactly the tools a model agent would be offered (``Environment.pool``, under the same exposed
names) and runs each call in the episode's environment, so the environment's state, not the agent's report,
is what scoring reads. Every call it receives is kept, in the order it ran, as a ``ToolCallEvent``.

Rounds: an outside agent's model turns are invisible here, so a round is read off the calls' timing. A call
that arrives while another is still in flight joins that call's round; a call that arrives when none is in
flight opens the next round. Each response is held ``ROUND_WINDOW_S`` after its call ran, so the parallel
calls of one model turn (which a client sends together) overlap even when each tool answers in a millisecond;
a call of the next turn cannot arrive before every result of this one was returned, so it always opens a new
round. An agent that sends one turn's calls one after another gets a round per call.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
import socket
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as MCPTool

from mcp_persona.environment import Environment
from mcp_persona.trajectory import ToolCallEvent

Scope = dict[str, Any]
ROUND_WINDOW_S = 0.05
MCP_PATH = "/mcp"


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


class PoolServer(MCPServer):
    """The MCP server of one episode's pool; ``events`` holds every call it ran, in order."""

    def __init__(self, env: Environment, *, round_window_s: float = ROUND_WINDOW_S) -> None:
        super().__init__(name="persona", title="MCP-Persona episode tools", log_level="WARNING")
        self.env = env
        self.round_window_s = round_window_s
        self.events: list[ToolCallEvent] = []
        self._lock = anyio.Lock()  # calls run one at a time, in arrival order: the state stays deterministic
        self._in_flight = 0
        self._round = -1

    async def list_tools(self) -> list[MCPTool]:
        return [MCPTool(name=t.exposed, description=t.description, input_schema=t.input_schema)
                for t in self.env.pool]

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult:
        if self._in_flight == 0:
            self._round += 1
        rnd = self._round
        self._in_flight += 1
        try:
            async with self._lock:
                call_id = f"mcp_{len(self.events)}"
                raw = json.dumps(arguments, ensure_ascii=False)
                tool = self.env.resolve(name)
                if tool is None:
                    event = ToolCallEvent(round=rnd, call_id=call_id, tool=name, arguments=arguments,
                                          raw_arguments=raw, is_error=True,
                                          result=f"Error: there is no tool named {name!r}.")
                else:
                    event = await self.env.call(tool.server, tool.name, arguments, round=rnd, call_id=call_id)
                    event.raw_arguments = raw
                self.events.append(event)
            await anyio.sleep(self.round_window_s)
        finally:
            self._in_flight -= 1
        return CallToolResult(content=[TextContent(type="text", text=event.result)], is_error=event.is_error)


def new_token() -> str:
    return secrets.token_urlsafe(32)


@contextlib.asynccontextmanager
async def serve_pool(server: PoolServer, token: str) -> AsyncIterator[str]:
    """Serve ``server`` on a free loopback port for the life of the block; yields its URL. Requests without
    ``Authorization: Bearer <token>`` are refused."""
    import uvicorn

    class Quiet(uvicorn.Server):
        def capture_signals(self) -> contextlib.nullcontext[None]:  # type: ignore[override]
            return contextlib.nullcontext()  # Ctrl-C and SIGTERM stay the run's to handle

    asgi = BearerAuth(server.streamable_http_app(host="127.0.0.1"), token)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    http = Quiet(uvicorn.Config(asgi, log_level="warning", lifespan="on", timeout_graceful_shutdown=1))
    task = asyncio.ensure_future(http.serve(sockets=[sock]))
    try:
        while not http.started:
            if task.done():  # it could not start: say why
                task.result()
                raise RuntimeError("the episode's MCP server stopped before it started")
            await asyncio.sleep(0.005)
        yield f"http://127.0.0.1:{port}{MCP_PATH}"
    finally:
        http.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(task), 5)
        if not task.done():
            http.force_exit = True
            task.cancel()
        sock.close()
