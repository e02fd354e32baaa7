"""``python -m mcp_persona`` is the ``mcp-persona`` command."""

from mcp_persona.cli import main

main()
