"""Each simulated app is a real MCP server: over stdio and streamable HTTP, with the SDK client."""

from __future__ import annotations

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
