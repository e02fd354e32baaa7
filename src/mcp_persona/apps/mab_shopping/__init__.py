"""The MCPAgentBench tool library: the shopping server (tools declared in data/library/mab_shopping.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_shopping")
