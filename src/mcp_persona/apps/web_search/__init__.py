"""Web search: a search engine and a page fetcher over a fixed local web.

The search tool mirrors the Brave Search MCP server (modelcontextprotocol/servers,
``brave_web_search``): arguments ``query`` (at most 400 characters), ``count``
(1-20, default 10) and ``offset`` (0-9, default 0, a *page* offset: results
``offset*count`` onwards), and results as plain text blocks ``Title: ...`` /
``Description: ...`` / ``URL: ...`` separated by blank lines; failures read
``Error: ...``. The fetch tool mirrors the reference fetch server (mcp-server-fetch):
``url``, ``max_length`` (default 5000), ``start_index`` (default 0), ``raw``; the answer
is ``Contents of <url>:`` and the page as markdown, cut at ``max_length`` characters
with ``<error>Content truncated. Call the fetch tool with a start_index of N to get
more content.</error>`` (the agent must carry the index), and ``<error>No more content
available.</error>`` past the end; an unknown page is ``Failed to fetch <url> - status
code 404``; ``raw`` returns the HTML with the "cannot be simplified to markdown"
preamble.

Invented: the tool names ``web_search`` and ``fetch_page`` (the task design's), the
"No results found" text (Brave's server returns an empty text), and the rejection of
a query with no searchable words. URLs are matched ignoring http/https and a trailing
slash. The corpus (``data/contexts/web_search/default.json``, 80 pages written for the
project, shared with deep_research) and its ranking are in
:mod:`mcp_persona.apps._corpus.web`.
"""

from mcp_persona.apps.web_search.tools import APP

__all__ = ["APP"]
