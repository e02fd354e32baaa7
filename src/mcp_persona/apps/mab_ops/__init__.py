"""The MCPAgentBench tool library: the ops server (tools declared in data/library/mab_ops.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_ops")
