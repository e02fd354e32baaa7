"""An agent on pydantic-ai, scored by MCP-Persona (``pip install -e ".[examples]"``)::

    OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3:8b \\
    mcp-persona run --suite persona --agent external --agent-cmd "python examples/agents/pydantic_ai_agent.py"

Any OpenAI-compatible chat completions endpoint: OPENAI_BASE_URL (default OpenAI's), OPENAI_API_KEY, OPENAI_MODEL.
The harness gives the episode's MCP server, its token and the prompts in MCP_PERSONA_* variables, and reads the
answer from MCP_PERSONA_ANSWER_FILE.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic_ai import Agent, UsageLimitExceeded, UsageLimits
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


async def main() -> None:
    provider = OpenAIProvider(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY", "-"))
    model = OpenAIChatModel(os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), provider=provider)
    tools = MCPToolset(os.environ["MCP_PERSONA_MCP_URL"],
                       headers={"Authorization": f"Bearer {os.environ['MCP_PERSONA_MCP_TOKEN']}"})
    agent = Agent(model, toolsets=[tools],
                  instructions=Path(os.environ["MCP_PERSONA_SYSTEM_PROMPT_FILE"]).read_text())
    limits = UsageLimits(request_limit=int(os.environ.get("MCP_PERSONA_MAX_ROUNDS", "20")) + 1)
    try:
        result = await agent.run(Path(os.environ["MCP_PERSONA_INSTRUCTION_FILE"]).read_text(), usage_limits=limits)
        answer = result.output
    except UsageLimitExceeded:
        answer = ""  # out of rounds: no answer, as the harness's own agent
    Path(os.environ["MCP_PERSONA_ANSWER_FILE"]).write_text(answer)


if __name__ == "__main__":
    asyncio.run(main())
