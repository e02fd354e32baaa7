"""The MCPAgentBench tool library: the food server (tools declared in data/library/mab_food.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_food")
