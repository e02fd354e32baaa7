"""The MCPAgentBench tool library: the home server (tools declared in data/library/mab_home.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_home")
