"""The news app through the real MCP path: every tool's success path and its rejections."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from mcp import Client

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.clock import TaskClock

APP = get_app("news")
H = AppHarness(APP, read_only=True, envelope={"status": "ok"})
ok = H.ok_json
env = H.env_fixture()


async def rejected(env: AppEnv, tool: str, args: dict[str, Any], code: str, message: str) -> None:
    body = json.loads(await H.rejected(env, tool, args))
    assert body["status"] == "error" and body["code"] == code, body
    assert message in body["message"], body


def ids(out: dict[str, Any]) -> list[str]:
    return [a["id"] for a in out["articles"]]


def test_archive() -> None:
    data = APP.load_context("default")
    assert APP.context_ids() == ["default"] and APP.personalized is False
    assert len(data["articles"]) == 50 and len(data["sources"]) == 10
    stamps = sorted(a["published_at"] for a in data["articles"].values())
    assert stamps[0] >= "2026-02-20" and stamps[-1] <= "2026-03-10T01:30:00Z"  # none after the task's "now"


@pytest.mark.anyio
async def test_search_news_declares_from(env: AppEnv) -> None:
    async with Client(APP.server(env)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"get_headlines", "search_news", "get_article"}
    assert list(tools["search_news"].input_schema["properties"]) == [
        "query",
        "from",
        "to",
        "sort_by",
        "page_size",
        "page",
    ]


# -- get_headlines ----------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_headlines_filters(env: AppEnv) -> None:
    out = await ok(env, "get_headlines", {"category": "business", "region": "sg"})
    assert out["totalResults"] == 5
    assert ids(out) == ["n-260310-02", "n-260307-01", "n-260305-01", "n-260304-02", "n-260303-01"]
    first = out["articles"][0]
    assert first == {
        "id": "n-260310-02",
        "source": {"id": "straits-ledger", "name": "The Straits Ledger"},
        "author": "Rachel Goh",
        "title": "Singapore retail sales rise 3.1% in January",
        "description": "Online sales made up 15.2% of total retail sales.",
        "url": "https://www.straitsledger.sg/2026/03/singapore-retail-sales-rise-3-1-in-january",
        "urlToImage": "https://www.straitsledger.sg/images/n-260310-02.jpg",
        "publishedAt": "2026-03-09T23:45:00Z",
        "content": first["content"],
    }
    assert first["content"].endswith("while foo… [+28 chars]") and len(first["content"]) == 200 + len("… [+28 chars]")
    out = await ok(env, "get_headlines", {"date": "2026-03-09"})  # a day in the task's zone (UTC+8)
    assert ids(out) == [
        "n-260309-06",
        "n-260309-07",
        "n-260309-05",
        "n-260309-04",
        "n-260309-03",
        "n-260309-02",
        "n-260309-01",
    ]
    out = await ok(env, "get_headlines", {"page_size": 5, "page": 2})
    assert out["totalResults"] == 50 and ids(out) == [
        "n-260309-06",
        "n-260309-07",
        "n-260309-05",
        "n-260309-04",
        "n-260309-03",
    ]


@pytest.mark.anyio
async def test_get_headlines_follow_the_task_clock() -> None:
    early = APP.env("default", clock=TaskClock(now=datetime(2026, 3, 5, 12, 0), timezone="Asia/Shanghai"))
    out = await ok(early, "get_headlines", {"region": "sg", "page_size": 1})
    assert ids(out) == ["n-260305-01"] and out["totalResults"] == 7
    await rejected(early, "get_article", {"id": "n-260309-02"}, "articleNotFound", "No article with id 'n-260309-02'.")


@pytest.mark.anyio
async def test_get_headlines_rejections(env: AppEnv) -> None:
    await rejected(
        env, "get_headlines", {"page_size": "many"}, "parameterInvalid", "page_size: Input should be a valid integer"
    )
    await rejected(env, "get_headlines", {"category": "politics"}, "parameterInvalid", "category: Input should be")
    await rejected(env, "get_headlines", {"page_size": 101}, "parameterInvalid", "less than or equal to 100")
    await rejected(env, "get_headlines", {"date": "2026-02-30"}, "parameterInvalid", "not a valid date: '2026-02-30'")
    await rejected(
        env,
        "get_headlines",
        {"date": "2026-03-12"},
        "parameterInvalid",
        "The date 2026-03-12 is in the future (today is 2026-03-10).",
    )
    await rejected(
        env, "get_headlines", {"country": "sg"}, "parameterInvalid", "country: Extra inputs are not permitted"
    )


# -- search_news ------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_search_news_sorts_and_dates(env: AppEnv) -> None:
    out = await ok(env, "search_news", {"query": "walking"})  # default sort: publishedAt
    assert ids(out) == [
        "n-260310-04",
        "n-260309-01",
        "n-260303-02",
        "n-260302-01",
        "n-260301-01",
        "n-260227-01",
        "n-260226-01",
        "n-260220-02",
    ]
    out = await ok(env, "search_news", {"query": "walking", "sort_by": "popularity", "page_size": 3})
    assert ids(out) == ["n-260310-04", "n-260309-01", "n-260226-01"] and out["totalResults"] == 8
    out = await ok(env, "search_news", {"query": "Lumipay PayLater", "from": "2026-03-01", "sort_by": "relevancy"})
    assert ids(out) == ["n-260303-01", "n-260302-02", "n-260304-02"]
    out = await ok(env, "search_news", {"query": "air quality", "from": "2026-03-07", "to": "2026-03-08"})
    assert ids(out) == ["n-260308-03", "n-260308-01", "n-260307-02"]
    out = await ok(env, "search_news", {"query": "air quality", "from": "2026-03-08T12:00:00", "to": "2026-03-10"})
    assert ids(out) == ["n-260310-01", "n-260309-02", "n-260308-03"]  # half the words: "air" sensors match too
    out = await ok(env, "search_news", {"query": "curling bonspiel"})
    assert out == {"status": "ok", "totalResults": 0, "articles": []}


@pytest.mark.anyio
async def test_search_news_rejections(env: AppEnv) -> None:
    await rejected(
        env, "search_news", {"query": ["walking"]}, "parameterInvalid", "query: Input should be a valid string"
    )
    await rejected(
        env, "search_news", {"from": "2026-03-01"}, "parametersMissing", "Required parameters are missing: query"
    )
    await rejected(
        env,
        "search_news",
        {"query": "walking", "from_": "2026-03-01"},
        "parameterInvalid",
        "from_: Extra inputs are not permitted",
    )
    await rejected(env, "search_news", {"query": "walking", "sort_by": "date"}, "parameterInvalid", "sort_by")
    await rejected(
        env,
        "search_news",
        {"query": "walking", "from": "2026-01-15"},
        "parameterInvalid",
        "too far in the past. Your plan permits you to request articles as far back as 2026-02-08, but you "
        "have requested 2026-01-15.",
    )
    await rejected(
        env,
        "search_news",
        {"query": "walking", "from": "last week"},
        "parameterInvalid",
        "The from parameter is not a valid date: 'last week'",
    )
    await rejected(
        env,
        "search_news",
        {"query": "walking", "from": "2026-03-05", "to": "2026-03-01"},
        "parameterInvalid",
        "The from parameter (2026-03-05) is after the to parameter (2026-03-01).",
    )
    await rejected(env, "search_news", {"query": "the of"}, "parameterInvalid", "has no searchable words")


# -- get_article ------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_article_full_text(env: AppEnv) -> None:
    out = await ok(env, "get_article", {"id": "n-260303-01"})
    art = out["article"]
    assert art["title"] == "Lumipay launches PayLater for merchants in Singapore and Malaysia"
    assert art["category"] == "business" and art["region"] == "sg"
    assert art["tags"] == ["lumipay", "paylater", "bnpl", "fintech", "singapore"]
    assert len(art["content"]) == 433 and "Late fees are capped at S$10 per missed instalment." in art["content"]
    assert "chars]" not in art["content"]


@pytest.mark.anyio
async def test_get_article_rejections(env: AppEnv) -> None:
    await rejected(env, "get_article", {"id": 260303}, "parameterInvalid", "id: Input should be a valid string")
    await rejected(env, "get_article", {}, "parametersMissing", "Required parameters are missing: id")
    await rejected(env, "get_article", {"id": "article-1"}, "parameterInvalid", "not a valid article id: 'article-1'")
    await rejected(env, "get_article", {"id": "n-260301-09"}, "articleNotFound", "No article with id 'n-260301-09'.")
