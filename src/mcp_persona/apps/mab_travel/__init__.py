"""The MCPAgentBench tool library: the travel server (tools declared in data/library/mab_travel.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_travel")
