"""Agents: reference (gold replay), noop (the floor), model (function calling) and copilot (route/execute)."""

from mcp_persona.agents.base import Agent
from mcp_persona.agents.copilot import CopilotAgent
from mcp_persona.agents.model import DEFAULT_MAX_ROUNDS, ModelAgent
from mcp_persona.agents.noop import NoopAgent
from mcp_persona.agents.reference import GoldReplayError, ReferenceAgent

__all__ = ["DEFAULT_MAX_ROUNDS", "Agent", "CopilotAgent", "GoldReplayError", "ModelAgent", "NoopAgent",
           "ReferenceAgent"]
