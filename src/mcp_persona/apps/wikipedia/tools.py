"""The encyclopedia tools over the fixed articles (see ``data/hierarchies/wikipedia.json``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, lookup, score
from mcp_persona.apps.base import AppEnv

APP = JsonApp(
    "wikipedia",
    title="Wikipedia",
    category="information",
    personalized=False,
    description="Search encyclopedia articles; read summaries, sections, links and key facts.",
    real_server="Rudra-ravi/wikipedia-mcp",
)
Title = Field(min_length=1, max_length=200, description="Article title, e.g. 'Mount Fuji'")


def _article(env: AppEnv, title: str) -> dict[str, Any]:
    return lookup(collection(env, "articles"), title.strip().replace(" ", "_"), "Article", by=("title",))


@APP.tool()
def search_wikipedia(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="Search words"),
                     limit: int = Field(10, ge=1, le=50, description="Maximum results")) -> dict[str, Any]:
    """Articles whose title or summary match the query, best first."""
    ranked = sorted(((score(query, a["title"]) * 2 + score(query, a["summary"]), a)
                     for a in collection(env, "articles").values()), key=lambda t: (-t[0], t[1]["title"]))
    hits = [a for s, a in ranked if s][:limit]
    return {"query": query, "results": [{"title": a["title"], "pageid": a["pageid"], "snippet": a["summary"][:120]}
                                        for a in hits]}


@APP.tool()
def get_article(env: AppEnv, title: str = Title) -> dict[str, Any]:
    """The full article: summary, sections, infobox and links."""
    a = _article(env, title)
    return {k: a[k] for k in ("title", "pageid", "url", "summary", "sections", "infobox", "links", "last_edited")}


@APP.tool()
def get_summary(env: AppEnv, title: str = Title) -> dict[str, Any]:
    """The lead summary of an article."""
    a = _article(env, title)
    return {"title": a["title"], "summary": a["summary"], "url": a["url"]}


@APP.tool()
def get_sections(env: AppEnv, title: str = Title) -> dict[str, Any]:
    """The section titles and texts of an article."""
    a = _article(env, title)
    return {"title": a["title"], "sections": a["sections"]}


@APP.tool()
def get_links(env: AppEnv, title: str = Title) -> dict[str, Any]:
    """The articles an article links to."""
    a = _article(env, title)
    return {"title": a["title"], "links": a["links"]}


@APP.tool()
def extract_key_facts(env: AppEnv, title: str = Title) -> dict[str, Any]:
    """The infobox facts of an article (numbers, dates, names)."""
    a = _article(env, title)
    return {"title": a["title"], "facts": a["infobox"]}
