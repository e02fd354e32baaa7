"""``mcp-persona serve``: one simulated app as a real MCP server, over stdio or streamable HTTP.

State lives for the life of the process: every client of this process sees the same user context evolve,
as with a real account.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import resource
import socket
import sys
from datetime import datetime
from enum import StrEnum
from functools import partial
from typing import Annotated, Any

import typer

from mcp_persona.apps import App, AppServer, app_names, get_app
from mcp_persona.cli.common import err, fail
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.pool_server import BearerAuth


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"

DEFAULT_MAX_CONNECTIONS = 1000


def serve(
    server: Annotated[str, typer.Argument(help="server name, e.g. lark, or a simulator folder written by "
                                               "'synthesize'")],
    transport: Annotated[Transport, typer.Option()] = Transport.stdio,
    host: Annotated[str, typer.Option(
        help="HTTP bind address; other than loopback it needs --token-env")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    context: Annotated[str | None, typer.Option(help="user context id (default: the first)")] = None,
    now: Annotated[str | None, typer.Option(help="the clock's 'now', ISO 8601 local time")] = None,
    timezone: Annotated[str | None, typer.Option(help="IANA time zone of the clock")] = None,
    token_env: Annotated[str | None, typer.Option(help="HTTP: require 'Bearer $VAR' from this env variable")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        help="HTTP: a further name clients reach the server by (Host/Origin checks; repeatable)")] = None,
    max_connections: Annotated[int | None, typer.Option(
        min=1, help="HTTP: connections open at once; a new one beyond closes the oldest still sending its "
                    "headers (default 1000, at most half the open-file limit)")] = None,
    header_timeout: Annotated[float, typer.Option(
        min=0.1, help="HTTP: seconds a connection has to send a request's headers")] = 10.0,
    body_timeout: Annotated[float, typer.Option(
        min=0.1, help="HTTP: seconds a request has for its body, beyond what --min-body-rate earns it")] = 10.0,
    min_body_rate: Annotated[int, typer.Option(
        min=1, help="HTTP: bytes per second a request body must keep up: each byte received adds 1/RATE s "
                    "to --body-timeout")] = 16384,
) -> None:
    """Serve a simulated app as a real MCP server (stdio, or streamable HTTP at /mcp)."""
    app = resolve_app(server)
    if not app.context_ids():
        raise fail(f"{server} has no context to start from")
    if context is not None and context not in app.context_ids():
        raise fail(f"{server} has no context {context!r} (has: {', '.join(app.context_ids())})")
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
    if transport is Transport.stdio:
        if token:
            raise fail("--token-env applies to --transport http only")
        build_server(app, context, clock).run("stdio")
        return
    if not is_loopback(host) and not token:
        raise fail(f"--host {host} takes connections from other machines: give --token-env VAR so that only "
                   "holders of the token reach the server")
    try:
        security = transport_security(host, allow_host or [])
    except ValueError as exc:
        raise fail(str(exc)) from exc
    open_files = raise_open_file_limit()  # half for connections, half for the app, logs and accepts in flight
    if max_connections is None:
        max_connections = max(1, min(DEFAULT_MAX_CONNECTIONS, open_files // 2))
    elif max_connections > open_files // 2:
        raise fail(f"--max-connections {max_connections}: the open-file limit ({open_files}, the hard limit) "
                   f"allows at most {open_files // 2}")
    # the listen queue, and the connections accepted at one wake-up of the event loop before any is looked at
    backlog = max(16, min(1024, open_files // 8))
    sock = listen(host, port, backlog)
    mcp_server = build_server(app, context, clock)
    err.print(f"serving {server} on http://{host}:{port}/mcp" + (" (bearer token required)" if token else ""))
    serve_http(mcp_server, sock, backlog, host=host, token=token, security=security,
               limits=ConnectionLimits(max_connections=max_connections, header_timeout=header_timeout,
                                       body_timeout=body_timeout, min_body_rate=min_body_rate))


def resolve_app(server: str) -> App:
    """The app named ``server``, or the synthesized simulator in the folder ``server``."""
    from mcp_persona.traverse.kernel_app import is_simulator_dir

    if is_simulator_dir(server):
        from mcp_persona.traverse.kernel_app import load_simulator
        from mcp_persona.traverse.synthesize import KernelError

        try:
            return load_simulator(server)
        except KernelError as exc:
            raise fail(str(exc)) from exc
    if server not in app_names():
        raise fail(f"unknown server {server!r} (known: {', '.join(app_names())}; or a folder written by "
                   "'synthesize')")
    return get_app(server)


def build_server(app: App, context_id: str | None, clock: TaskClock) -> AppServer:
    cid = context_id or app.context_ids()[0]
    return app.server(app.env(cid, clock=clock))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def transport_security(host: str, allowed: list[str]) -> Any:
    """The DNS-rebinding checks (Host and Origin headers), on whatever the bind address: loopback names, the
    bind address itself and each ``allowed`` name are accepted. A wildcard bind address (0.0.0.0, ::) is no
    name a client uses, so it needs ``allowed``."""
    from mcp.server.transport_security import TransportSecuritySettings

    bind = host.strip("[]")
    wildcard = bind in ("0.0.0.0", "::", "")
    if wildcard and not allowed:
        raise ValueError(f"--host {host or '(empty)'} listens on every address: name the host clients reach it "
                         "by with --allow-host NAME (Host and Origin headers are checked against it)")
    names = list(LOOPBACK_NAMES) + ([] if wildcard else [host]) + allowed
    hosts, origins = [], []
    for name in dict.fromkeys(names):
        bare = name.strip("[]")
        name = f"[{bare}]" if ":" in bare else bare  # an IPv6 address, as a Host header writes it
        hosts += [name, f"{name}:*"]
        origins += [f"{scheme}://{name}{port}" for scheme in ("http", "https") for port in ("", ":*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


def raise_open_file_limit() -> int:
    """The soft open-file limit raised to the hard one (a flood of connections must not run the process out of
    descriptors before the connection cap applies); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass  # a system maximum below the hard limit: keep the soft limit
    return soft


def listen(host: str, port: int, backlog: int) -> socket.socket:
    """The listening socket, bound here so that a busy port or a bad address is one clear error."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                                      flags=socket.AI_PASSIVE)[0]
        return socket.create_server(address, family=family, backlog=backlog)
    except OSError as exc:  # socket.gaierror is one
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


class ConnectionLimits:
    def __init__(self, *, max_connections: int, header_timeout: float, body_timeout: float = 10.0,
                 min_body_rate: int = 16384) -> None:
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.min_body_rate = min_body_rate
        # connections waiting on their client: for a request's headers (new, or idle between requests) or for
        # the rest of its body; oldest first
        self.waiting: dict[Any, None] = {}


def guarded_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol with the bounds it lacks: it times out only idle keep-alive connections (a
    connection that never finishes its first request's headers, or its body, is kept forever) and its
    ``limit_concurrency`` answers 503 to complete requests only (and counts the slow connections as load).

    Here a connection gets ``header_timeout`` seconds for each request's headers (and for the rest of a request
    answered before it was all sent, as a refused one is), and ``body_timeout`` seconds for its body plus
    1/``min_body_rate`` of a second per byte received (a large body sent at a fair rate goes through; a byte
    every few seconds does not). A connection beyond ``max_connections`` closes the oldest one still waiting on
    its client, for headers or body (or itself, when every open connection is being served): a flood of slow
    connections cannot lock out a client that sends its request at once."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, limits: ConnectionLimits, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limits = limits
            self.timer: asyncio.TimerHandle | None = None
            self.body_deadline: float | None = None  # while a request's body is coming in

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.await_headers()
            if len(self.connections) > self.limits.max_connections:
                oldest = next((c for c in self.limits.waiting if c is not self), None)
                (oldest or self).drop()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                return
            answered = self.cycle is None or self.cycle.response_complete
            if self.conn.their_state is h11.IDLE or (answered and self.conn.their_state is not h11.DONE):
                # (part of) the next request, or the rest of one already answered (a body sent after a 401):
                # on the clock, as headers are
                self.await_headers()
            elif self.conn.their_state is h11.SEND_BODY:
                self.await_body(len(data))  # headers in, body still coming: on the body's clock
            else:
                self.stop_waiting()  # the whole request is in, and the app is serving it

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self.limits.waiting[self] = None  # idle until the next request (the keep-alive timeout applies)

        def connection_lost(self, exc: Exception | None) -> None:
            self.stop_waiting()
            super().connection_lost(exc)

        def shutdown(self) -> None:
            """On SIGTERM: a connection still waiting on its client (headers, or a body) is closed at once, as an
            idle one is; uvicorn would otherwise wait for the request it may never finish sending."""
            if self in self.limits.waiting:
                self.drop()
            else:
                super().shutdown()

        def await_headers(self) -> None:
            if self.body_deadline is not None and self.timer is not None:  # off the body's clock, onto this one
                self.timer.cancel()
                self.timer = None
            self.body_deadline = None
            self.limits.waiting[self] = None
            if self.timer is None:
                self.timer = self.loop.call_later(self.limits.header_timeout, self.drop)

        def await_body(self, received: int) -> None:
            """The body's deadline: ``body_timeout`` from the headers, pushed back by what each chunk brings."""
            now = self.loop.time()
            if self.body_deadline is None:
                self.body_deadline = now + self.limits.body_timeout
            self.body_deadline += received / self.limits.min_body_rate
            self.limits.waiting[self] = None
            if self.timer is not None:
                self.timer.cancel()
            self.timer = self.loop.call_at(self.body_deadline, self.drop)

        def stop_waiting(self) -> None:
            self.body_deadline = None
            self.limits.waiting.pop(self, None)
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def drop(self) -> None:
            if self.body_deadline is not None and self.flow.read_paused:
                # the server stopped reading (the app has not taken the body so far): not the client's delay
                self.timer = self.loop.call_later(self.limits.body_timeout, self.drop)
                return
            self.stop_waiting()
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


MAX_BODY_BYTES = 16 * 1024 * 1024  # a JSON-RPC message; the largest a tool's arguments reasonably take


class WholeBody:
    """Hands the app a request only once its whole body is in. The SDK's session manager reads a new session's
    first request while it holds the lock every new session takes, so one body that never comes would keep
    every other new client waiting; read here, a slow body waits alone (and is dropped by the body timeout or
    the connection cap). A body over :data:`MAX_BODY_BYTES` is answered 413."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                await send({"type": "http.response.start", "status": 413,
                            "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": b"request body too large\n"})
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body, given = b"".join(chunks), False

        async def replay() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        await self.app(scope, replay, send)


def serve_http(server: AppServer, sock: socket.socket, backlog: int, *, host: str, token: str | None, security: Any,
               limits: ConnectionLimits) -> None:
    import uvicorn  # only for --transport http

    asgi: Any = WholeBody(server.streamable_http_app(host=host, transport_security=security))
    if token:
        asgi = BearerAuth(asgi, token)
    # SIGTERM (uvicorn's handler) closes idle connections at once and gives requests in flight a second
    config = uvicorn.Config(asgi, log_level="warning", backlog=backlog, timeout_graceful_shutdown=1,
                            http=partial(guarded_protocol(), limits=limits))  # type: ignore[arg-type]
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Exception as exc:  # one line, written without importing anything (EMFILE may be the cause)
        sys.stderr.write(f"error: the server stopped: {type(exc).__name__}: {exc}\n")
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    app.command()(serve)
