"""The MCPAgentBench tool library: the finance server (tools declared in data/library/mab_finance.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_finance")
