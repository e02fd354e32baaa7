"""An agent on the plain ``mcp`` client and ``openai``, no framework, scored by MCP-Persona::

    OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_MODEL=qwen3-8b \\
    mcp-persona run --suite persona --agent external --agent-cmd "python examples/agents/plain_mcp.py"

Any OpenAI-compatible chat completions endpoint: OPENAI_BASE_URL (default OpenAI's), OPENAI_API_KEY, OPENAI_MODEL.
It is written for the ``mcp`` 2.x client this project pins, whose API differs from the 1.x tutorials: the
streamable HTTP transport is ``streamable_http_client``, the bearer header goes on the ``httpx2.AsyncClient``
handed to it (its public ``http_client`` argument), and tools and results read ``input_schema`` and ``is_error``.
One model turn's tool calls are sent at once (``asyncio.gather``): the harness scores them as one parallel round.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client the mcp 2.x SDK is built on
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openai import AsyncOpenAI


async def call(session: ClientSession, name: str, arguments: str) -> str:
    """One tool call's result as text for the model; a refusal or bad arguments as an error it can act on."""
    try:
        args = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"error: the arguments are not JSON ({exc})"
    result = await session.call_tool(name, args)
    text = "\n".join(part.text for part in result.content if part.type == "text")
    return f"error: {text}" if result.is_error else text


async def main() -> None:
    llm = AsyncOpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY", "-"))
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    headers = {"Authorization": f"Bearer {os.environ['MCP_PERSONA_MCP_TOKEN']}"}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": Path(os.environ["MCP_PERSONA_SYSTEM_PROMPT_FILE"]).read_text()},
        {"role": "user", "content": Path(os.environ["MCP_PERSONA_INSTRUCTION_FILE"]).read_text()}]
    answer = ""  # out of rounds: no answer, as the harness's own agent
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http, \
            streamable_http_client(os.environ["MCP_PERSONA_MCP_URL"], http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        tools = [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                   "parameters": t.input_schema}}
                 for t in (await session.list_tools()).tools]
        for _ in range(int(os.environ.get("MCP_PERSONA_MAX_ROUNDS", "20"))):
            reply = (await llm.chat.completions.create(model=model, messages=messages, tools=tools)).choices[0].message
            if not reply.tool_calls:
                answer = reply.content or ""
                break
            messages.append(reply.model_dump(exclude_none=True))
            results = await asyncio.gather(*(call(session, c.function.name, c.function.arguments)
                                             for c in reply.tool_calls))
            messages += [{"role": "tool", "tool_call_id": c.id, "content": text}
                         for c, text in zip(reply.tool_calls, results, strict=True)]
    Path(os.environ["MCP_PERSONA_ANSWER_FILE"]).write_text(answer)


if __name__ == "__main__":
    asyncio.run(main())
