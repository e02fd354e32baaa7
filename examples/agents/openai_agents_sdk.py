"""An agent on the OpenAI Agents SDK, scored by MCP-Persona (``pip install -e ".[examples]"``)::

    OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_MODEL=qwen3-8b \\
    mcp-persona run --suite persona --agent external --agent-cmd "python examples/agents/openai_agents_sdk.py"

Any OpenAI-compatible chat completions endpoint: OPENAI_BASE_URL (default OpenAI's), OPENAI_API_KEY, OPENAI_MODEL.
The harness gives the episode's MCP server, its token and the prompts in MCP_PERSONA_* variables, and reads the
answer from MCP_PERSONA_ANSWER_FILE.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agents import Agent, MaxTurnsExceeded, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI


async def main() -> None:
    set_tracing_disabled(True)  # traces would go to OpenAI's platform
    client = AsyncOpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY", "-"))
    model = OpenAIChatCompletionsModel(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), openai_client=client)
    params = {"url": os.environ["MCP_PERSONA_MCP_URL"], "timeout": 60,
              "headers": {"Authorization": f"Bearer {os.environ['MCP_PERSONA_MCP_TOKEN']}"}}
    async with MCPServerStreamableHttp(params, cache_tools_list=True, client_session_timeout_seconds=60) as mcp:
        agent = Agent(name="assistant", model=model, mcp_servers=[mcp],
                      instructions=Path(os.environ["MCP_PERSONA_SYSTEM_PROMPT_FILE"]).read_text())
        try:
            result = await Runner.run(agent, Path(os.environ["MCP_PERSONA_INSTRUCTION_FILE"]).read_text(),
                                      max_turns=int(os.environ.get("MCP_PERSONA_MAX_ROUNDS", "20")) + 1)
            answer = str(result.final_output or "")
        except MaxTurnsExceeded:
            answer = ""  # out of rounds: no answer, as the harness's own agent
    Path(os.environ["MCP_PERSONA_ANSWER_FILE"]).write_text(answer)


if __name__ == "__main__":
    asyncio.run(main())
