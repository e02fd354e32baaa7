"""Secure filesystem: a traversal-based replica of ``@modelcontextprotocol/server-filesystem``.

Same fourteen tools, input schemas, response texts and error texts as the real server (version
2026.8.31, traversed into ``data/traces/filesystem.jsonl``). The file tree is a Context-Tree of
allowed directories and nodes keyed by absolute path; see :mod:`mcp_persona.apps.filesystem.tools`
for the behaviour kept, :mod:`mcp_persona.apps.filesystem.nodejs` for the Node.js semantics
reproduced, and :mod:`mcp_persona.apps._reference` for validation and the replica mode.
"""

from mcp_persona.apps.filesystem.tools import APP

__all__ = ["APP"]
