"""The MCPAgentBench tool library: the sim server (tools declared in data/library/mab_sim.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_sim")
