"""News: headlines and article search over a fixed archive, in the style of NewsAPI.org.

No single reference MCP server exists for this one; the interface follows the NewsAPI
REST API that most news MCP servers wrap: answers are ``{"status": "ok",
"totalResults": N, "articles": [...]}`` with NewsAPI article objects (``source``
{id, name}, ``author``, ``title``, ``description``, ``url``, ``urlToImage``,
``publishedAt`` in UTC, ``content`` cut at 200 characters with ``… [+N chars]``,
so the full text needs ``get_article``); failures are ``{"status": "error", "code":
..., "message": ...}`` with NewsAPI codes (``parameterInvalid``,
``parametersMissing``); ``search_news`` takes ``from`` / ``to`` (a Python keyword, so
the tool declares it through a field alias), ``sort_by`` relevancy | popularity |
publishedAt (default publishedAt, as NewsAPI), ``page_size`` (1-100, default 20) and
``page``; and, as on NewsAPI's free plan, ``from`` may reach back at most 30 days
before today ("too far in the past").

Invented: the tool names (``get_headlines``, ``search_news``, ``get_article``), the
``region`` filter (cn, sg, tw, global) instead of NewsAPI's country codes, the
``date`` filter of headlines (one day in the task's time zone; a future day is an
error), article ids (``n-YYMMDD-NN``, carried in each article object) and the
``articleNotFound`` code. Time comes from the task clock: articles published after
"now" do not exist yet, and date-only bounds are days in the task's time zone.
Search ranks with the shared BM25 of :mod:`mcp_persona.apps._corpus` (title x3,
description x2, tags x2, content x1; at least half the query words).
The archive (``data/contexts/news/default.json``) holds 50 articles from 10 invented
outlets, 2026-02-20 to 2026-03-10.
"""

from mcp_persona.apps.news.tools import APP

__all__ = ["APP"]
