"""The MCPAgentBench tool library: the health server (tools declared in data/library/mab_health.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_health")
