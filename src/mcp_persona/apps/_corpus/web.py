"""The local web corpus shared by the web_search and deep_research apps.

Both apps ship the same pages (``pages`` keyed by URL: title, site, kind, published,
tags, description, content) and rank them the same way: BM25 over title (x3), tags
(x2), description (x2) and content (x1), at least half the query terms present;
ties newest first (undated pages last), then by URL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mcp_persona.apps._corpus.search import Index, query_terms

Page = dict[str, Any]
WEIGHTS = {"title": 3, "tags": 2, "description": 2, "content": 1}


def ordered(pages: Iterable[Page]) -> list[Page]:
    """Pages newest first, undated ones last, then by URL."""
    dated = sorted((p for p in pages if p.get("published")), key=lambda p: p["url"])
    dated.sort(key=lambda p: p["published"], reverse=True)
    undated = sorted((p for p in pages if not p.get("published")), key=lambda p: p["url"])
    return dated + undated


def rank_pages(pages: Iterable[Page], terms: Sequence[str], *, min_should_match: float = 0.5) -> list[Page]:
    """The pages matching ``terms``, best first."""
    pool = ordered(pages)
    index = Index(
        (
            (
                p["url"],
                {
                    "title": p["title"],
                    "tags": " ".join(p.get("tags", [])),
                    "description": p["description"],
                    "content": p["content"],
                },
            )
            for p in pool
        ),
        WEIGHTS,
    )
    by_url = {p["url"]: p for p in pool}
    return [by_url[h.key] for h in index.score_terms(terms, min_should_match=min_should_match)]


def search_pages(pages: Iterable[Page], query: str) -> list[Page]:
    return rank_pages(pages, query_terms(query))


def normalize_url(url: str) -> str:
    """The form URLs are compared in: no surrounding blanks, https, no trailing slash after a path
    (``https://host/`` for the root)."""
    url = url.strip()
    if url.startswith("http://"):
        url = "https://" + url[len("http://") :]
    head, sep, rest = url.partition("://")
    host, _, path = rest.partition("/")
    return f"{head}{sep}{host}/{path.rstrip('/')}"


def find_page(pages: dict[str, Page], url: str) -> Page | None:
    wanted = normalize_url(url)
    if wanted in pages:
        return pages[wanted]
    for key, page in pages.items():
        if normalize_url(key) == wanted:
            return page
    return None
