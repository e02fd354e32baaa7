"""Wikipedia: encyclopedia lookups in the style of the Wikipedia MCP servers (e.g. Rudra-ravi/wikipedia-mcp).

Tools: ``search_wikipedia {query, limit?}``, ``get_article {title}``, ``get_summary {title}``,
``get_sections {title}``, ``get_links {title}`` and ``extract_key_facts {title}`` (the infobox).
Titles match case-insensitively, with spaces or underscores. Eighteen articles form the fixed dataset.
"""

from mcp_persona.apps.wikipedia.tools import APP

__all__ = ["APP"]
