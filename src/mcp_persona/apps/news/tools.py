"""The news tools over the news Context-Tree (see ``data/hierarchies/news.json``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_persona.apps._corpus import Index, query_terms
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

PREVIEW = 200
LOOKBACK_DAYS = 30  # the free plan's reach into the past
Category = Literal["business", "entertainment", "general", "health", "science", "sports", "technology"]
Region = Literal["cn", "sg", "tw", "global"]
_ID = re.compile(r"^n-\d{6}-\d{2}$")


class NewsApp(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code or ("unexpectedError" if failure.kind == "internal" else "parameterInvalid")
        return {"status": "error", "code": code, "message": failure.message}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        missing = [v.field for v in violations if v.kind == "missing"]
        if missing:
            return {
                "status": "error",
                "code": "parametersMissing",
                "message": f"Required parameters are missing: {', '.join(missing)}. Please set them and try again.",
            }
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return {"status": "error", "code": "parameterInvalid", "message": f"Invalid parameters: {detail}"}


APP = NewsApp(
    "news",
    title="News",
    category="information",
    personalized=False,
    description="Top headlines and searchable news articles from outlets in China, Singapore, Taiwan and worldwide.",
    real_server="NewsAPI.org (REST API wrapped by news MCP servers)",
)


def keyword_params(**renames: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Let a tool take arguments whose names are Python keywords (``from``): the parameter is
    declared as ``from_`` with ``Field(alias="from")``, and the call's ``from`` is handed back
    to it as ``from_``. ``renames`` maps the wire name to the parameter name."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(env: AppEnv, **kwargs: Any) -> Any:
            return fn(env, **{renames.get(k, k): v for k, v in kwargs.items()})

        return call

    return decorate


# -- helpers ---------------------------------------------------------------------------------------
def _utc(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _published(env: AppEnv) -> list[dict[str, Any]]:
    """Articles that exist at the task's "now", newest first."""
    now = env.clock.current()
    arts = [a for a in env.tree.list("articles") if _utc(a["published_at"]) <= now]
    return sorted(arts, key=lambda a: (a["published_at"], a["id"]), reverse=True)


def _view(env: AppEnv, art: dict[str, Any], *, full: bool = False) -> dict[str, Any]:
    src = env.tree.top("source", art["source_id"]) or {}
    content = art["content"]
    if not full and len(content) > PREVIEW:
        content = f"{content[:PREVIEW]}… [+{len(content) - PREVIEW} chars]"
    view = {
        "id": art["id"],
        "source": {"id": art["source_id"], "name": src.get("name", art["source_id"])},
        "author": art["author"],
        "title": art["title"],
        "description": art["description"],
        "url": art["url"],
        "urlToImage": art["url_to_image"],
        "publishedAt": art["published_at"],
        "content": content,
    }
    if full:
        view |= {"category": art["category"], "region": art["region"], "tags": art["tags"]}
    return view


def _page(items: list[dict[str, Any]], page_size: int, page: int) -> list[dict[str, Any]]:
    return items[(page - 1) * page_size : page * page_size]


def _bound(env: AppEnv, value: str | None, name: str, *, end: bool) -> datetime | None:
    """A from/to bound: a date (a whole day in the task's zone) or an ISO date-time (naive = the task's zone)."""
    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime.combine(day, time.max if end else time.min, tzinfo=env.clock.tz)
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolFailure(
            f"The {name} parameter is not a valid date: {value!r}. Use ISO 8601, e.g. 2026-03-05 or "
            "2026-03-05T08:00:00",
            kind="range",
        ) from exc
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=env.clock.tz)


# -- tools -----------------------------------------------------------------------------------------
@APP.tool()
def get_headlines(
    env: AppEnv,
    category: Annotated[
        Category | None, Field(description="business, entertainment, general, health, science, sports or technology")
    ] = None,
    region: Annotated[Region | None, Field(description="cn (China), sg (Singapore), tw (Taiwan) or global")] = None,
    date: Annotated[
        str | None,
        Field(
            pattern=r"^\d{4}-\d{2}-\d{2}$",
            description=("only headlines of this day (YYYY-MM-DD, in your time zone); default: the latest"),
        ),
    ] = None,
    page_size: Annotated[int, Field(ge=1, le=100, description="results per page (1-100, default 20)")] = 20,
    page: Annotated[int, Field(ge=1, description="page number, from 1")] = 1,
) -> dict[str, Any]:
    """Top headlines, newest first, optionally for one category, region or day. Article content is cut at 200
    characters; use get_article with an article's id for the full text."""
    arts = _published(env)
    if date is not None:
        try:
            day = datetime.strptime(date, "%Y-%m-%d").date()
        except ValueError as exc:
            raise ToolFailure(f"The date parameter is not a valid date: {date!r}", kind="range") from exc
        today = env.clock.today()
        if day > today:
            raise ToolFailure(f"The date {date} is in the future (today is {today.isoformat()}).", kind="conflict")
        arts = [a for a in arts if _utc(a["published_at"]).astimezone(env.clock.tz).date() == day]
    arts = [
        a for a in arts if (category is None or a["category"] == category) and (region is None or a["region"] == region)
    ]
    return {
        "status": "ok",
        "totalResults": len(arts),
        "articles": [_view(env, a) for a in _page(arts, page_size, page)],
    }


@APP.tool()
@keyword_params(**{"from": "from_"})
def search_news(
    env: AppEnv,
    query: Annotated[str, Field(min_length=1, max_length=500, description="Keywords or a phrase to search for")],
    from_: Annotated[
        str | None,
        Field(
            alias="from",
            max_length=40,
            description=(
                "Oldest article allowed: an ISO 8601 date or date-time (e.g. 2026-03-01 or "
                "2026-03-01T08:00:00). At most 30 "
                "days back."
            ),
        ),
    ] = None,
    to: Annotated[
        str | None, Field(max_length=40, description="Newest article allowed (ISO 8601 date or date-time)")
    ] = None,
    sort_by: Annotated[
        Literal["relevancy", "popularity", "publishedAt"],
        Field(description=("relevancy, popularity or publishedAt (default, newest first)")),
    ] = "publishedAt",
    page_size: Annotated[int, Field(ge=1, le=100, description="results per page (1-100, default 20)")] = 20,
    page: Annotated[int, Field(ge=1, description="page number, from 1")] = 1,
) -> dict[str, Any]:
    """Search every article for keywords, optionally between two dates. Article content is cut at 200 characters;
    use get_article with an article's id for the full text."""
    lo = _bound(env, from_, "from", end=False)
    hi = _bound(env, to, "to", end=True)
    if lo and hi and lo > hi:
        raise ToolFailure(f"The from parameter ({from_}) is after the to parameter ({to}).", kind="conflict")
    earliest = env.clock.today() - timedelta(days=LOOKBACK_DAYS)
    if lo and lo.astimezone(env.clock.tz).date() < earliest:
        raise ToolFailure(
            f"You are trying to request results too far in the past. Your plan permits you to request articles as far "
            f"back as {earliest.isoformat()}, but you have requested {lo.astimezone(env.clock.tz).date().isoformat()}.",
            kind="range",
        )
    terms = query_terms(query)
    if not terms:
        raise ToolFailure(f"The query {query!r} has no searchable words.", kind="conflict")
    arts = [
        a
        for a in _published(env)
        if (lo is None or _utc(a["published_at"]) >= lo) and (hi is None or _utc(a["published_at"]) <= hi)
    ]
    index = Index(
        (
            (
                a["id"],
                {
                    "title": a["title"],
                    "description": a["description"],
                    "tags": " ".join(a["tags"]),
                    "content": a["content"],
                },
            )
            for a in arts
        ),
        {"title": 3, "description": 2, "tags": 2, "content": 1},
    )
    hits = index.score_terms(terms)
    by_id = {a["id"]: a for a in arts}
    found = [by_id[h.key] for h in hits]
    if sort_by == "publishedAt":
        found.sort(key=lambda a: (a["published_at"], a["id"]), reverse=True)
    elif sort_by == "popularity":
        found.sort(key=lambda a: (-a["views"], a["id"]))
    return {
        "status": "ok",
        "totalResults": len(found),
        "articles": [_view(env, a) for a in _page(found, page_size, page)],
    }


@APP.tool()
def get_article(
    env: AppEnv,
    id: Annotated[str, Field(min_length=1, max_length=40, description="article id from a result, e.g. n-260305-01")],
) -> dict[str, Any]:
    """Get one article with its full text, category, region and tags."""
    if not _ID.match(id.strip()):
        raise ToolFailure(
            f"The id parameter is not a valid article id: {id!r} (expected e.g. n-260305-01).", kind="range"
        )
    art = env.tree.top("article", id.strip())
    if art is None or _utc(art["published_at"]) > env.clock.current():
        raise ToolFailure(f"No article with id {id.strip()!r}.", kind="not_found", code="articleNotFound")
    return {"status": "ok", "article": _view(env, art, full=True)}
