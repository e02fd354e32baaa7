"""The arXiv app through the real MCP path: every tool's success path and its rejections."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.arxiv.tools import parse_query
from mcp_persona.apps.base import AppEnv

APP = get_app("arxiv")
H = AppHarness(APP, read_only=True)
rejected = H.rejected
env = H.env_fixture()


async def ok(env: AppEnv, tool: str, args: dict[str, Any]) -> Any:
    text = await H.ok(env, tool, args)
    assert text.startswith('{"')  # compact JSON (the real server indents it)
    return json.loads(text)


def ids(out: dict[str, Any]) -> list[str]:
    return [p["id"] for p in out["papers"]]


def test_index() -> None:
    data = APP.load_context("default")
    assert APP.context_ids() == ["default"] and APP.personalized is False
    assert len(data["papers"]) == 40 and len(data["categories"]) == 10
    for pid, p in data["papers"].items():
        assert p["arxiv_id"] == pid and pid[:4] == p["published"][2:4] + p["published"][5:7]
        assert p["published"] <= "2026-03-10"


def test_query_language() -> None:
    q = parse_query('ti:"tool use" au:Lin cat:cs.CL agents ANDNOT survey OR planning')
    assert q.soft == ["agent", "plan"]
    assert q.clauses == [
        ("ti", ["tool", "use"], False),
        ("au", ["lin"], False),
        ("cat", "cs.cl", False),
        ("all", ["survey"], True),
    ]
    assert q.scoring == ["tool", "use", "agent", "plan"]


# -- search_papers ----------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_search_papers_relevance_and_paging(env: AppEnv) -> None:
    out = await ok(env, "search_papers", {"query": "tool use agents", "max_results": 3})
    assert ids(out) == ["2603.00145", "2602.00318", "2601.19920"]
    assert (out["returned"], out["start"], out["total_results"], out["has_more"], out["next_start"]) == (
        3,
        0,
        17,
        True,
        3,
    )
    first = out["papers"][0]
    assert first == {
        "id": "2603.00145",
        "versioned_id": "2603.00145v1",
        "title": "Skill Files for Agents: Do Written Procedures Help Tool Use?",
        "authors": ["Iris Novak", "Deng Hao", "Benjamin Ortiz"],
        "abstract": first["abstract"],
        "categories": ["cs.AI", "cs.CL", "cs.SE"],
        "published": "2026-03-02T13:14:00Z",
        "url": "http://arxiv.org/pdf/2603.00145v1",
        "resource_uri": "arxiv://2603.00145",
    }
    last = await ok(env, "search_papers", {"query": "tool use agents", "max_results": 10, "start": 10})
    assert (last["returned"], last["has_more"], last["next_start"]) == (7, False, None)
    everything = await ok(env, "search_papers", {"query": "tool use agents", "max_results": 500})  # capped at 50
    assert everything["returned"] == 17 and ids(everything)[10:] == ids(last)


@pytest.mark.anyio
async def test_search_papers_fields_phrases_and_filters(env: AppEnv) -> None:
    out = await ok(env, "search_papers", {"query": 'au:"He Jun"', "sort_by": "date"})
    assert ids(out) == ["2602.07745", "2601.15567", "2510.13302", "2508.02291"]
    out = await ok(env, "search_papers", {"query": "He Jun"})  # unprefixed words do not search authors
    assert out["total_results"] == 0 and out["papers"] == []
    assert ids(await ok(env, "search_papers", {"query": '"long context" ANDNOT retrieval'})) == ["2512.11208"]
    assert ids(await ok(env, "search_papers", {"query": "MCP", "categories": ["cs.CR"]})) == [
        "2603.03718",
        "2512.05577",
    ]
    assert ids(await ok(env, "search_papers", {"query": "cat:stat.ML", "sort_by": "date"})) == [
        "2603.05233",
        "2601.12234",
        "2510.07730",
    ]
    out = await ok(env, "search_papers", {"query": "agents", "date_from": "2026-03-01", "max_results": 2})
    assert ids(out) == ["2603.04420", "2603.05233"] and out["total_results"] == 4
    out = await ok(env, "search_papers", {"query": "ti:benchmark", "date_to": "2026-01-31"})
    assert ids(out) == ["2601.00412"]  # the later "Benchmarks ..." titles are past date_to
    stemmed = await ok(env, "search_papers", {"query": "ti:benchmarks", "sort_by": "date"})  # words are stemmed
    assert ids(stemmed) == ["2603.05233", "2602.14401", "2601.00412"]


@pytest.mark.anyio
async def test_search_papers_rejections(env: AppEnv) -> None:
    await rejected(env, "search_papers", {"query": 3}, "Input validation error: query: Input should be a valid string")
    await rejected(env, "search_papers", {"max_results": 3}, "Input validation error: query: Field required")
    await rejected(env, "search_papers", {"query": "agents", "max_results": 0}, "max_results: Input should be greater")
    await rejected(
        env, "search_papers", {"query": "agents", "start": -5}, "start: Input should be greater than or equal to 0"
    )
    await rejected(
        env,
        "search_papers",
        {"query": "agents", "categories": ["bio.XX"]},
        "Error: Invalid category provided. Please check arXiv category names.",
    )
    await rejected(
        env,
        "search_papers",
        {"query": "agents", "date_from": "March 2026"},
        "Error: Invalid date format. Use YYYY-MM-DD format: date_from='March 2026'",
    )
    await rejected(
        env,
        "search_papers",
        {"query": "agents", "date_from": "2026-03-01", "date_to": "2026-02-01"},
        "Error: date_from 2026-03-01 is after date_to 2026-02-01",
    )
    await rejected(env, "search_papers", {"query": "  "}, "Error: No search criteria provided")


# -- get_paper --------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_paper(env: AppEnv) -> None:
    out = await ok(env, "get_paper", {"arxiv_id": "2508.02291"})
    assert out["versioned_id"] == "2508.02291v3" and out["latest_version"] == "v3"
    assert out["authors"] == ["Lin Wei", "Zhang Rui", "He Jun"]
    assert out["comment"] == "v3: added arXiv and GovReport results; 14 pages"
    assert out["published"] == "2025-08-04T09:29:00Z" and out["updated"] == "2026-01-20T09:29:00Z"
    assert out["abs_url"] == "https://arxiv.org/abs/2508.02291v3" and out["resource_uri"] == "arxiv://2508.02291"
    assert "38% of its memory at 16k tokens" in out["abstract"]
    for form in ("arXiv:2508.02291v2", "https://arxiv.org/abs/2508.02291v2", "http://arxiv.org/pdf/2508.02291v2.pdf"):
        assert (await ok(env, "get_paper", {"arxiv_id": form}))["versioned_id"] == "2508.02291v2"


@pytest.mark.anyio
async def test_get_paper_rejections(env: AppEnv) -> None:
    await rejected(env, "get_paper", {"arxiv_id": 2508.02291}, "arxiv_id: Input should be a valid string")
    await rejected(env, "get_paper", {}, "arxiv_id: Field required")
    await rejected(env, "get_paper", {"arxiv_id": "SlidingMemory"}, "Error: Invalid arXiv ID format: 'SlidingMemory'")
    await rejected(env, "get_paper", {"arxiv_id": "2602.99999"}, "Error: Paper 2602.99999 not found on arXiv")
    await rejected(
        env, "get_paper", {"arxiv_id": "2508.02291v4"}, "Error: Paper 2508.02291 has 3 version(s); v4 does not exist"
    )


# -- list_categories --------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_list_categories(env: AppEnv) -> None:
    out = await ok(env, "list_categories", {})
    assert out["total"] == 10 and [c["code"] for c in out["categories"]][:3] == ["cs.AI", "cs.CL", "cs.CR"]
    cl = next(c for c in out["categories"] if c["code"] == "cs.CL")
    assert (cl["name"], cl["papers"], cl["primary_papers"]) == ("Computation and Language", 20, 11)
    assert sum(c["primary_papers"] for c in out["categories"]) == 40
    out = await ok(env, "list_categories", {"archive": "stat"})
    assert out == {
        "total": 1,
        "categories": [
            {
                "code": "stat.ML",
                "name": "Machine Learning (Statistics)",
                "archive": "stat",
                "description": "Statistical approaches to machine learning, methodology and theory.",
                "papers": 3,
                "primary_papers": 1,
            }
        ],
    }


@pytest.mark.anyio
async def test_list_categories_rejections(env: AppEnv) -> None:
    await rejected(env, "list_categories", {"archive": ["cs"]}, "archive: Input should be a valid string")
    await rejected(env, "list_categories", {"archive": "cs!"}, "archive: String should match pattern")
    await rejected(
        env,
        "list_categories",
        {"archive": "physics"},
        "Error: Unknown archive 'physics'. Archives in this index: cs, stat",
    )
    await rejected(
        env, "list_categories", {"group": "cs"}, "group: Extra inputs are not permitted"
    )  # no required field
