"""Knowledge-graph memory: a traversal-based replica of ``@modelcontextprotocol/server-memory``.

Same nine tools, input schemas, response texts and error texts as the real server (version
2026.8.31, traversed into ``data/traces/memory.jsonl``). The graph is a Context-Tree of
entities and relations; see :mod:`mcp_persona.apps.memory.tools` for the behaviour kept and
:mod:`mcp_persona.apps._reference` for validation (zod's messages) and the replica mode.
"""

from mcp_persona.apps.memory.tools import APP

__all__ = ["APP"]
