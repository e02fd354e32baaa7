"""The web search tools over the web_search Context-Tree (see ``data/hierarchies/web_search.json``)."""

from __future__ import annotations

import html
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps._corpus import find_page, query_terms, rank_pages
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure


class WebSearchApp(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return failure.message if failure.code == "fetch" else f"Error: {failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return f"Error: Invalid arguments for {tool}: {detail}"


APP = WebSearchApp(
    "web_search",
    title="Web search",
    category="information",
    personalized=False,
    description="Search the web and fetch web pages as markdown.",
    real_server="modelcontextprotocol/servers (brave-search) + mcp-server-fetch",
)


@APP.tool()
def web_search(
    env: AppEnv,
    query: Annotated[str, Field(min_length=1, max_length=400, description="Search query (max 400 chars, 50 words)")],
    count: Annotated[int, Field(ge=1, le=20, description="Number of results (1-20, default 10)")] = 10,
    offset: Annotated[int, Field(ge=0, le=9, description="Pagination offset (max 9, default 0)")] = 0,
) -> str:
    """Search the web for pages, news, how-tos, products and event listings. Returns at most 20 results per call
    (count); offset pages through further results (offset 1 = the second page of count results)."""
    if len(query.split()) > 50:
        raise ToolFailure("query is limited to 50 words", kind="range")
    terms = query_terms(query)
    if not terms:
        raise ToolFailure(f"query {query!r} has no searchable words", kind="conflict")
    hits = rank_pages(env.tree.list("pages"), terms)[offset * count : offset * count + count]
    if not hits:
        return f"No results found for query: {query}"
    return "\n\n".join(f"Title: {p['title']}\nDescription: {p['description']}\nURL: {p['url']}" for p in hits)


def _raw_html(page: dict[str, Any]) -> str:
    body = "\n".join(f"<p>{html.escape(line)}</p>" for line in page["content"].splitlines() if line.strip())
    return (
        f'<!DOCTYPE html>\n<html lang="{page.get("language", "en")}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(page['title'])}</title>\n"
        f'<meta name="description" content="{html.escape(page["description"])}">\n</head>\n'
        f"<body>\n<article>\n{body}\n</article>\n</body>\n</html>"
    )


@APP.tool()
def fetch_page(
    env: AppEnv,
    url: Annotated[str, Field(min_length=1, max_length=2048, description="URL to fetch")],
    max_length: Annotated[
        int, Field(gt=0, lt=1_000_000, description="Most characters to return (default 5000).")
    ] = 5000,
    start_index: Annotated[
        int,
        Field(
            ge=0, description=("Start the output at this character; use the index a truncated answer gives to read on.")
        ),
    ] = 0,
    raw: Annotated[bool, Field(description="Return the page's HTML instead of markdown.")] = False,
) -> str:
    """Fetch a web page and return its main content as markdown. Long pages are cut at max_length characters; call
    again with the start_index named in the answer to read the rest."""
    if not url.strip().lower().startswith(("http://", "https://")):
        raise ToolFailure(f"Invalid URL {url!r}: only http and https URLs can be fetched", kind="range")
    page = find_page(env.tree.data.get("pages", {}), url)
    if page is None:
        raise ToolFailure(f"Failed to fetch {url.strip()} - status code 404", kind="not_found", code="fetch")
    prefix = ""
    original = page["content"]
    if raw:
        original = _raw_html(page)
        prefix = (
            "Content type text/html; charset=utf-8 cannot be simplified to markdown, but here is the raw content:\n"
        )
    if start_index >= len(original):
        content = "<error>No more content available.</error>"
    else:
        content = original[start_index : start_index + max_length]
        remaining = len(original) - (start_index + len(content))
        if len(content) == max_length and remaining > 0:
            nxt = start_index + len(content)
            content += (
                f"\n\n<error>Content truncated. Call the fetch tool with a start_index of {nxt} to get more "
                "content.</error>"
            )
    return f"{prefix}Contents of {url.strip()}:\n{content}"
