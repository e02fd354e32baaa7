"""The MCPAgentBench tool library: the media server (tools declared in data/library/mab_media.json)."""

from mcp_persona.apps._library.engine import library_app

APP = library_app("mab_media")
