"""Each simulated app is a real MCP server: over stdio and streamable HTTP, with the SDK client."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from mcp_persona.apps import app_names, get_app

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("server", app_names())
def test_stdio_server_lists_and_calls_tools(server: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_persona", "serve", server])

    async def session() -> None:
        async with Client(params) as client:
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == set(get_app(server).tool_names)
            bad = await client.call_tool(get_app(server).tool_names[0], {"no_such_argument": 1})
            assert bad.is_error
            if server == "lark":
                ok = await client.call_tool("contact_v3_user_batchGetId", {"data": {"mobiles": ["+8613800138000"]}})
                assert not ok.is_error
                body = json.loads(ok.content[0].text)
                assert body["code"] == 0 and body["data"]["user_list"][0]["user_id"].startswith("ou_")

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_server_requires_the_bearer_token_and_keeps_state() -> None:
    port = _free_port()
    env = dict(os.environ, PERSONA_TOKEN="s3cret")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_persona", "serve", "lark", "--transport", "http", "--port", str(port),
         "--token-env", "PERSONA_TOKEN"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError("server did not start") from None
                time.sleep(0.2)
        denied = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=5)
        assert denied.status_code == 401

        async def session() -> None:
            headers = {"Authorization": "Bearer s3cret"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                    chats = json.loads((await client.call_tool("im_v1_chat_list", {})).content[0].text)
                    chat_id = chats["data"]["items"][0]["chat_id"]
                    sent = await client.call_tool("im_v1_message_create", {
                        "params": {"receive_id_type": "chat_id"},
                        "data": {"receive_id": chat_id, "msg_type": "text", "content": '{"text":"over http"}'}})
                    assert not sent.is_error
            async with (  # a second client sees the write
                httpx2.AsyncClient(headers=headers, timeout=30) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                    listed = await client.call_tool("im_v1_message_list", {
                        "params": {"container_id_type": "chat", "container_id": chat_id, "page_size": 50}})
                    assert "over http" in listed.content[0].text

        anyio.run(session)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _start_http(*args: str, env: dict[str, str] | None = None, preexec_fn: object = None) -> tuple[
        subprocess.Popen[bytes], int]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_persona", "serve", "lark", "--transport", "http", "--port", str(port), *args],
        env=dict(os.environ, PERSONA_TOKEN="s3cret", **(env or {})), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, preexec_fn=preexec_fn)  # type: ignore[arg-type]
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise AssertionError(f"server did not start: {proc.communicate()[1].decode()}") from None
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.terminate()
    try:
        return proc.communicate(timeout=10)[1].decode()
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


async def _authenticated_call(url: str, headers: dict[str, str] | None = None) -> dict:
    async with (
        httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret", **(headers or {})}, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return json.loads((await client.call_tool("im_v1_chat_list", {})).content[0].text)


def _slow_connections(port: int, n: int) -> list[socket.socket]:
    """``n`` unauthenticated connections that send the start of a request's headers and never finish them."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1000), hard))
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        with contextlib.suppress(OSError):  # closed already by the server's connection cap: the point of it
            s.send(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: appli".encode())
        held.append(s)
    return held


def _closed_by_server(held: list[socket.socket]) -> int:
    """How many of ``held`` the server has closed (each reads as end of file, or a reset)."""
    import select

    time.sleep(1)
    poller = select.poll()
    for s in held:
        poller.register(s, select.POLLIN)
    readable = {fd for fd, _ in poller.poll(0)}
    closed = 0
    for s in held:
        if s.fileno() in readable:
            try:
                closed += s.recv(1) == b""
            except OSError:
                closed += 1
    return closed


@pytest.mark.parametrize("open_files", [None, 512], ids=["default-limit", "hard-limit-512"])
def test_slow_connections_leave_the_server_answering_an_authenticated_client(open_files: int | None) -> None:
    """1,500 connections that never finish their headers (more than the cap, and, with a hard open-file limit of
    512, more than the process may open) neither kill the server nor lock out a client that sends its request."""
    import resource

    def limit() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    proc, port = _start_http("--token-env", "PERSONA_TOKEN", preexec_fn=limit)
    held: list[socket.socket] = []
    try:
        held = _slow_connections(port, 1500)
        chats = anyio.run(_authenticated_call, f"http://127.0.0.1:{port}/mcp")
        assert chats["code"] == 0 and chats["data"]["items"]
        assert proc.poll() is None
        # the cap closed the oldest slow connections: the server holds no more than it may
        cap = 1000 if open_files is None else open_files // 2
        assert 1500 - cap <= _closed_by_server(held) < 1500
    finally:
        for s in held:
            s.close()
        stderr = _stop(proc)
    assert "Traceback" not in stderr and "Too many open files" not in stderr


def test_a_connection_that_never_finishes_its_headers_is_closed_after_the_header_timeout() -> None:
    proc, port = _start_http("--header-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            start = time.monotonic()
            assert s.recv(1) == b""  # closed by the server
            assert 0.8 < time.monotonic() - start < 5
    finally:
        _stop(proc)


def test_a_refused_request_whose_body_trickles_on_is_closed_after_the_header_timeout() -> None:
    """A 401 answers a request before its body is sent: the rest of the body is on the header clock, or a
    connection could hold its place forever sending a byte now and then."""
    proc, port = _start_http("--token-env", "PERSONA_TOKEN", "--header-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 100000\r\n\r\n{".encode())
            assert s.recv(100).startswith(b"HTTP/1.1 401")
            s.settimeout(0.3)
            start = time.monotonic()
            while time.monotonic() - start < 10:
                with contextlib.suppress(OSError):
                    s.sendall(b" ")
                try:
                    if s.recv(100) == b"":
                        break
                except TimeoutError:
                    pass
                except OSError:
                    break
            assert time.monotonic() - start < 4
    finally:
        _stop(proc)


def _slow_bodies(port: int, n: int) -> list[socket.socket]:
    """``n`` connections that send a whole request's headers, announce a 100 kB body and send one byte of it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1000), hard))
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{").encode()
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        with contextlib.suppress(OSError):
            s.send(head)
        held.append(s)
    return held


@pytest.mark.slow
def test_slow_bodies_neither_lock_out_a_client_nor_hold_up_shutdown() -> None:
    """1,200 connections with their headers in and a body that never comes (the app is already waiting for it)
    take their places in the connection cap as slow headers do: every one of 25 requests sent after them is
    answered, and SIGTERM stops the server within a second or so."""
    proc, port = _start_http()  # no token: such a request reaches the app, which waits for its body
    held: list[socket.socket] = []
    try:
        held = _slow_bodies(port, 1200)
        answered = [anyio.run(_authenticated_call, f"http://127.0.0.1:{port}/mcp") for _ in range(25)]
        assert all(a["code"] == 0 and a["data"]["items"] for a in answered)
        assert _closed_by_server(held) >= 1200 - 1000  # the oldest slow bodies gave their places up
        start = time.monotonic()
        proc.terminate()
        proc.wait(10)
        assert time.monotonic() - start < 3, "the server took too long to stop on SIGTERM"
    finally:
        for s in held:
            s.close()
        stderr = _stop(proc) if proc.poll() is None else proc.communicate()[1].decode()
    assert "Traceback" not in stderr


def test_a_body_that_trickles_is_closed_after_the_body_timeout_and_a_steady_one_is_served() -> None:
    proc, port = _start_http("--body-timeout", "1", "--min-body-rate", "1000")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 100000\r\n\r\n{".encode())
            s.settimeout(0.3)
            start = time.monotonic()
            closed = False
            while time.monotonic() - start < 10 and not closed:
                with contextlib.suppress(OSError):
                    s.sendall(b" ")  # a byte every 0.3 s earns 1 ms each: far too slow
                try:
                    closed = s.recv(100) == b""
                except TimeoutError:
                    pass
                except OSError:
                    closed = True
            assert closed and time.monotonic() - start < 4
        # a body as large that keeps up the rate (2,000 bytes every 0.5 s, twice the minimum) is answered
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "x" * 5000}).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\n"
                      f"Content-Length: {len(body)}\r\n\r\n".encode())
            for at in range(0, len(body), 2000):
                s.sendall(body[at:at + 2000])
                time.sleep(0.5)
            assert s.recv(100).startswith(b"HTTP/1.1 ")  # answered (the MCP app's verdict), not dropped
    finally:
        _stop(proc)


def test_non_loopback_host_needs_a_token_and_keeps_the_host_checks() -> None:
    refused = subprocess.run([sys.executable, "-m", "mcp_persona", "serve", "lark", "--transport", "http",
                              "--host", "0.0.0.0", "--allow-host", "127.0.0.1"], capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.startswith("error: --host 0.0.0.0") and "--token-env" in (
        refused.stderr)
    proc, port = _start_http("--host", "0.0.0.0", "--allow-host", "persona.example", "--token-env", "PERSONA_TOKEN")
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        assert anyio.run(_authenticated_call, url)["code"] == 0  # loopback names stay allowed
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        auth = {"Authorization": "Bearer s3cret", "Accept": "application/json, text/event-stream"}
        rebound = httpx2.post(url, json=ping, headers={**auth, "Host": "attacker.example"}, timeout=10)
        assert rebound.status_code == 421  # a DNS-rebound name is refused
        foreign = httpx2.post(url, json=ping, headers={**auth, "Origin": "http://attacker.example"}, timeout=10)
        assert foreign.status_code == 403
        named = httpx2.post(url, json=ping, headers={**auth, "Host": f"persona.example:{port}",
                                                      "Origin": f"http://persona.example:{port}"}, timeout=10)
        assert named.status_code not in (403, 421)  # the --allow-host name passes the checks
    finally:
        _stop(proc)


def test_a_busy_port_is_one_error_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "mcp_persona", "serve", "lark", "--transport", "http",
                                 "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: Address already in use")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
