"""The MCPAgentBench tool library: the science server (tools declared in data/library/mab_science.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_science")
