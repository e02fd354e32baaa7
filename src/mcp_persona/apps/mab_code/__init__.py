"""The MCPAgentBench tool library: the code server (tools declared in data/library/mab_code.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_code")
