"""LiveMCPTool on this platform: LiveMCPBench's 70 servers and 527 tools, offline.

The servers that work offline run for real (installed pinned by ``scripts/install-real-servers.sh``,
one stdio process each per episode, in the episode's sandbox); the network-bound rest are
simulated by one catalogue-driven engine over shipped data, under the task clock.

The API an environment uses::

    from mcp_persona import livemcptool
    livemcptool.servers()                          # [{name, kind, category, tools}]
    async with livemcptool.open_episode(sandbox_dir, clock, servers=[...]) as ep:
        await ep.list_tools(); await ep.call(server, tool, arguments)
"""

from __future__ import annotations

from typing import Any

from mcp_persona.livemcptool.catalogue import ServerEntry, ToolEntry, catalogue, server_names
from mcp_persona.livemcptool.episode import Episode, EpisodeError, open_episode
from mcp_persona.livemcptool.real import REAL_SERVERS, missing_reason


def servers() -> list[dict[str, Any]]:
    """Every server: ``{name, kind, category, tools}`` (``kind`` is ``real`` or ``simulated``)."""
    return [{"name": s.name, "kind": s.kind, "category": s.category, "tools": s.tool_names}
            for s in catalogue().values()]


__all__ = ["REAL_SERVERS", "Episode", "EpisodeError", "ServerEntry", "ToolEntry", "catalogue", "missing_reason",
           "open_episode", "server_names", "servers"]
