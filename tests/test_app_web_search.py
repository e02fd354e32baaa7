"""The web_search app through the real MCP path: search and fetch, success paths and rejections."""

from __future__ import annotations

import re
from datetime import date

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps._corpus import (
    best_sentence,
    normalize_url,
    parse_day,
    plain_sentences,
    query_terms,
    stem,
    tokenize,
)
from mcp_persona.apps.base import AppEnv

APP = get_app("web_search")
H = AppHarness(APP, read_only=True)
ok, rejected = H.ok, H.rejected
LAUNCH = "https://www.orbitlab.cn/news/spring-launch-2026"
env = H.env_fixture()


def urls(text: str) -> list[str]:
    return re.findall(r"^URL: (\S+)$", text, flags=re.M)


def test_corpus() -> None:
    assert APP.context_ids() == ["default"] and APP.personalized is False
    pages = APP.load_context("default")["pages"]
    assert len(pages) == 80
    kinds = {p["kind"] for p in pages.values()}
    assert kinds == {"news", "howto", "product", "event", "company", "reference"}
    text = " ".join(p["content"] for p in pages.values())
    for name in ("Orbit Lab", "Eastlake University", "Lumipay", "Shanghai", "Hangzhou", "Singapore", "Taipei"):
        assert name in text
    # deep_research ships the very same pages
    assert get_app("deep_research").load_context("default")["pages"] == pages


# -- web_search -------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_web_search_brave_format(env: AppEnv) -> None:
    text = await ok(env, "web_search", {"query": "fintech events Singapore March", "count": 2})
    assert text == (
        "Title: Singapore Fintech Builders Meetup — 12 March 2026\n"
        "Description: Evening meetup on 12 March 2026, 18:30 at Lumipay's office (12 Marina Boulevard): talks on "
        "PayLater risk and real-time payments. Free, RSVP required.\n"
        "URL: https://www.sgevents.sg/fintech-builders-meetup-march\n\n"
        "Title: Asia Payments Forum 2026 — 24-25 March, Marina Bay Sands\n"
        "Description: Asia Payments Forum, 24-25 March 2026 at Marina Bay Sands Expo: 2,500 attendees, passes from "
        "S$690; startup pass S$290.\n"
        "URL: https://www.sgevents.sg/asia-payments-forum-2026"
    )


@pytest.mark.anyio
async def test_web_search_ranking_count_and_page_offset(env: AppEnv) -> None:
    first = urls(await ok(env, "web_search", {"query": "urban walking health", "count": 3}))
    assert first == [
        "https://www.healthyhabits.net/urban-walking-benefits",
        "https://www.hangzhoulife.cn/events/west-lake-greenway-walk",
        "https://www.globaltechbrief.com/2026/02/walking-meetings-study",
    ]
    second = urls(await ok(env, "web_search", {"query": "urban walking health", "count": 3, "offset": 1}))
    assert second[0] == "https://www.westlaketribune.cn/2026/03/beishan-greenway-opens"
    assert not set(first) & set(second)
    assert urls(await ok(env, "web_search", {"query": "Orbit Lab spring launch"}))[0] == LAUNCH
    assert urls(await ok(env, "web_search", {"query": "Eastlake HPC maintenance GPU"})) == [
        "https://www.eastlake.edu.cn/computing/hpc",
        "https://www.westlaketribune.cn/2026/03/eastlake-ai-lab-funding",
    ]
    assert len(urls(await ok(env, "web_search", {"query": "events Taipei March"}))) == 10  # default count
    text = await ok(env, "web_search", {"query": "volcano eruption Iceland"})
    assert text == "No results found for query: volcano eruption Iceland"


@pytest.mark.anyio
async def test_web_search_rejections(env: AppEnv) -> None:
    await rejected(
        env,
        "web_search",
        {"query": ["walking"]},
        "Error: Invalid arguments for web_search: query: Input should be a valid string",
    )
    await rejected(env, "web_search", {"count": 5}, "query: Field required")
    await rejected(
        env, "web_search", {"query": "walking", "count": 21}, "count: Input should be less than or equal to 20"
    )
    await rejected(
        env, "web_search", {"query": "walking", "offset": 10}, "offset: Input should be less than or equal to 9"
    )
    await rejected(env, "web_search", {"query": "word " * 51}, "Error: query is limited to 50 words")
    await rejected(env, "web_search", {"query": "the and of"}, "Error: query 'the and of' has no searchable words")


# -- fetch_page -------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_fetch_page_markdown_and_truncation(env: AppEnv) -> None:
    content = APP.load_context("default")["pages"][LAUNCH]["content"]
    text = await ok(env, "fetch_page", {"url": LAUNCH})
    assert text == f"Contents of {LAUNCH}:\n{content}"
    text = await ok(env, "fetch_page", {"url": LAUNCH, "max_length": 300})
    assert text == (
        f"Contents of {LAUNCH}:\n{content[:300]}\n\n<error>Content truncated. Call the fetch tool with a "
        "start_index of 300 to get more content.</error>"
    )
    text = await ok(env, "fetch_page", {"url": LAUNCH, "start_index": 300})
    assert text == f"Contents of {LAUNCH}:\n{content[300:]}"
    text = await ok(env, "fetch_page", {"url": LAUNCH, "start_index": len(content)})
    assert text == f"Contents of {LAUNCH}:\n<error>No more content available.</error>"


@pytest.mark.anyio
async def test_fetch_page_url_forms_and_raw(env: AppEnv) -> None:
    text = await ok(env, "fetch_page", {"url": "http://www.orbitlab.cn/news/spring-launch-2026/"})
    assert "launch on **25 March 2026**" in text
    text = await ok(env, "fetch_page", {"url": "https://www.orbitlab.cn", "raw": True})
    assert text.startswith(
        "Content type text/html; charset=utf-8 cannot be simplified to markdown, but here is the "
        "raw content:\nContents of https://www.orbitlab.cn:\n<!DOCTYPE html>"
    )
    assert "<title>Orbit Lab | Connected home products designed in Shanghai</title>" in text


@pytest.mark.anyio
async def test_fetch_page_rejections(env: AppEnv) -> None:
    await rejected(env, "fetch_page", {"url": 12}, "url: Input should be a valid string")
    await rejected(env, "fetch_page", {"max_length": 100}, "url: Field required")
    await rejected(env, "fetch_page", {"url": LAUNCH, "max_length": 0}, "max_length: Input should be greater than 0")
    await rejected(
        env, "fetch_page", {"url": LAUNCH, "start_index": -1}, "start_index: Input should be greater than or equal to 0"
    )
    await rejected(env, "fetch_page", {"url": "ftp://www.orbitlab.cn/"}, "Error: Invalid URL 'ftp://www.orbitlab.cn/'")
    text = await rejected(
        env,
        "fetch_page",
        {"url": "https://www.orbitlab.cn/news/autumn-launch"},
        "Failed to fetch https://www.orbitlab.cn/news/autumn-launch - status code 404",
    )
    assert not text.startswith("Error")


# -- the shared corpus helpers (mcp_persona.apps._corpus) -------------------------------------------------
def test_tokenizer_stemmer_and_dates() -> None:
    assert tokenize("Urban walking, walks and walked: running in 西湖 (Next.js)") == [
        "urban",
        "walk",
        "walk",
        "walk",
        "run",
        "西",
        "湖",
        "next",
        "js",
    ]
    assert [stem(w) for w in ("studies", "classes", "status", "planning", "used")] == [
        "study",
        "class",
        "status",
        "plan",
        "used",
    ]
    assert query_terms("The walks of the walkers walk") == ["walk", "walker"]
    assert parse_day("2024") == date(2024, 1, 1) and parse_day("2024/02", end=True) == date(2024, 2, 29)
    with pytest.raises(ValueError):
        parse_day("2024-13-01")


def test_sentences_and_urls() -> None:
    text = "# Prices\n\n| Method | Fee |\n| --- | --- |\n| **PayNow** | 1.0% |\n\n- Dr. Tan said so. It works."
    assert plain_sentences(text) == ["Prices", "Method: PayNow; Fee: 1.0%", "Dr. Tan said so.", "It works."]
    assert best_sentence(text, query_terms("paynow fee")) == "Method: PayNow; Fee: 1.0%"
    assert normalize_url(" http://www.orbitlab.cn ") == "https://www.orbitlab.cn/"
    assert normalize_url("https://www.orbitlab.cn/about/") == "https://www.orbitlab.cn/about"
