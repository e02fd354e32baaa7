"""The MCPAgentBench tool library: the data server (tools declared in data/library/mab_data.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_data")
