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
               limits=ConnectionLimits(max_connections=max_connections, header_timeout=header_timeout))


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
    def __init__(self, *, max_connections: int, header_timeout: float) -> None:
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        # connections waiting for a request's headers (new, or idle between requests), oldest first
        self.waiting: dict[Any, None] = {}


def guarded_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol with the two bounds it lacks: it times out only idle keep-alive connections
    (a connection that never finishes its first request's headers is kept forever) and its
    ``limit_concurrency`` answers 503 to complete requests only (and counts the slow connections as load).
    Here a connection gets ``header_timeout`` seconds for each request's headers (and for the rest of a request
    answered before it was all sent, as a refused one is), and a connection beyond
    ``max_connections`` closes the oldest one still waiting for its headers (or itself, when every open
    connection is serving a request): a flood of slow connections cannot lock out a client that sends its
    request at once."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, limits: ConnectionLimits, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limits = limits
            self.header_timer: asyncio.TimerHandle | None = None

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
            else:
                self.stop_waiting()  # a request's headers are in, and the app is serving it

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self.limits.waiting[self] = None  # idle until the next request (the keep-alive timeout applies)

        def connection_lost(self, exc: Exception | None) -> None:
            self.stop_waiting()
            super().connection_lost(exc)

        def await_headers(self) -> None:
            self.limits.waiting[self] = None
            if self.header_timer is None:
                self.header_timer = self.loop.call_later(self.limits.header_timeout, self.drop)

        def stop_waiting(self) -> None:
            self.limits.waiting.pop(self, None)
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def drop(self) -> None:
            self.stop_waiting()
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


def serve_http(server: AppServer, sock: socket.socket, backlog: int, *, host: str, token: str | None, security: Any,
               limits: ConnectionLimits) -> None:
    import uvicorn  # only for --transport http

    asgi: Any = server.streamable_http_app(host=host, transport_security=security)
    if token:
        asgi = BearerAuth(asgi, token)
    config = uvicorn.Config(asgi, log_level="warning", backlog=backlog,
                            http=partial(guarded_protocol(), limits=limits))  # type: ignore[arg-type]
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except Exception as exc:  # one line, written without importing anything (EMFILE may be the cause)
        sys.stderr.write(f"error: the server stopped: {type(exc).__name__}: {exc}\n")
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    app.command()(serve)
