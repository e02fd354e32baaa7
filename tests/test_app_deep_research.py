"""The deep_research app through the real MCP path: the session tools (stateful), the real server's
single ``deep-research`` tool, and the rejections of each."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from app_harness import CLOCK, AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.context_tree import diff_states

APP = get_app("deep_research")
T0 = CLOCK.timestamp()
QUESTION = "What are the health benefits of urban walking?"
WALK_SOURCES = [
    "https://www.healthyhabits.net/urban-walking-benefits",
    "https://www.hangzhoulife.cn/events/west-lake-greenway-walk",
    "https://www.globaltechbrief.com/2026/02/walking-meetings-study",
    "https://www.westlaketribune.cn/2026/03/beishan-greenway-opens",
    "https://www.healthyhabits.net/reduce-sitting-at-work",
    "https://www.straitsledger.sg/2026/03/heat-advisory",
    "https://www.shanghaiwhatson.com/events/shanghai-half-marathon-2026",
]

H = AppHarness(APP)
ok, ok_json = H.ok, H.ok_json
read_only = partial(H.ok, read_only=True)
env = H.env_fixture()


async def rejected(env: AppEnv, tool: str, args: dict[str, Any], message: str) -> dict[str, Any]:
    return json.loads(await H.rejected(env, tool, args, message))


async def started(env: AppEnv, question: str = QUESTION, **extra: Any) -> str:
    return (await ok_json(env, "start_research", {"question": question, **extra}))["research_id"]


def test_context_starts_without_sessions() -> None:
    data = APP.load_context("default")
    assert APP.context_ids() == ["default"] and APP.personalized is False
    assert data["research"] == {} and len(data["pages"]) == 80


# -- start_research ---------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_start_research_creates_a_session(env: AppEnv) -> None:
    before = env.tree.snapshot()
    out = await ok_json(env, "start_research", {"question": f"  {QUESTION} ", "max_steps": 2})
    rid = out["research_id"]
    assert out == {
        "research_id": rid,
        "question": QUESTION,
        "status": "in_progress",
        "search_terms": ["health", "benefit", "urban", "walk"],
        "candidate_sources": 7,
        "max_steps": 2,
        "sources_per_step": 3,
        "next": "call research_step with this research_id",
    }
    assert rid.startswith("dr_") and len(rid) == 15
    changes = diff_states(APP.hierarchy, before, env.tree.data)
    assert [(c.op, c.path) for c in changes] == [("create", f"research[{rid}]")]
    assert env.tree.data["research"][rid] == {
        "research_id": rid,
        "question": QUESTION,
        "search_terms": ["health", "benefit", "urban", "walk"],
        "status": "in_progress",
        "max_steps": 2,
        "sources_per_step": 3,
        "steps_completed": 0,
        "sources": [],
        "notes": [],
        "created_at": T0 + 1,
        "updated_at": T0 + 1,
    }


@pytest.mark.anyio
async def test_start_research_rejections(env: AppEnv) -> None:
    await rejected(env, "start_research", {"question": 42}, "invalid arguments for start_research")
    body = await rejected(env, "start_research", {"max_steps": 2}, "invalid arguments for start_research")
    assert body["details"] == [{"field": "question", "message": "Field required"}]
    body = await rejected(env, "start_research", {"question": QUESTION, "max_steps": 6}, "invalid arguments")
    assert body["details"][0]["message"] == "Input should be less than or equal to 5"
    body = await rejected(env, "start_research", {"question": "what is it?"}, "has no searchable words")
    assert body["kind"] == "conflict"
    body = await rejected(env, "start_research", {"question": "volcanic glaciers of Patagonia"}, "no sources match")
    assert body["kind"] == "not_found"


# -- research_step ----------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_research_steps_until_completed(env: AppEnv) -> None:
    rid = await started(env)
    step1 = await ok_json(env, "research_step", {"research_id": rid})
    assert step1["step"] == 1 and step1["status"] == "in_progress" and step1["remaining_steps"] == 2
    assert [s["url"] for s in step1["new_sources"]] == WALK_SOURCES[:3]
    assert step1["new_sources"][0] == {
        "source": 1,
        "url": WALK_SOURCES[0],
        "title": "Why walking in the city is good for you: what the research says",
        "finding": "Longevity: cohorts link about 7,000-9,000 steps a day with substantially lower mortality; "
        "benefits level off above that.",
    }
    session = env.tree.data["research"][rid]
    assert session["sources"] == WALK_SOURCES[:3] and session["steps_completed"] == 1
    assert session["updated_at"] == T0 + 2 and session["created_at"] == T0 + 1
    assert [n["step"] for n in session["notes"]] == [1, 1, 1]

    before = env.tree.snapshot()
    step2 = await ok_json(env, "research_step", {"research_id": rid})
    assert [s["source"] for s in step2["new_sources"]] == [4, 5, 6]
    changes = diff_states(APP.hierarchy, before, env.tree.data)
    assert [(c.op, c.path) for c in changes] == [("modify", f"research[{rid}]")]
    assert set(changes[0].fields) == {"sources", "notes", "steps_completed", "updated_at"}

    step3 = await ok_json(env, "research_step", {"research_id": rid})  # the last candidate: the session completes
    assert step3 == {
        "research_id": rid,
        "step": 3,
        "status": "completed",
        "total_sources": 7,
        "remaining_steps": 0,
        "new_sources": [
            {
                "source": 7,
                "url": WALK_SOURCES[6],
                "title": "Shanghai Half Marathon 2026: registration closes 15 March",
                "finding": "The 5 km health run suits beginners and walkers; walking is allowed.",
            }
        ],
    }
    assert env.tree.data["research"][rid]["sources"] == WALK_SOURCES


@pytest.mark.anyio
async def test_research_step_stops_at_max_steps(env: AppEnv) -> None:
    rid = await started(env, "Lumipay PayLater fees", max_steps=1)
    out = await ok_json(env, "research_step", {"research_id": rid})
    assert out["status"] == "completed" and out["total_sources"] == 3
    assert out["new_sources"][1]["finding"] == "Method: PayLater; Fee: 3.9% + S$0.30"


@pytest.mark.anyio
async def test_research_step_rejections(env: AppEnv) -> None:
    rid = await started(env, max_steps=1)
    await rejected(env, "research_step", {"research_id": 7}, "invalid arguments for research_step")
    await rejected(env, "research_step", {}, "invalid arguments for research_step")
    body = await rejected(env, "research_step", {"research_id": "x" * 65}, "invalid arguments")
    assert body["details"][0]["message"] == "String should have at most 64 characters"
    await rejected(
        env, "research_step", {"research_id": "dr_000000000000"}, "research session 'dr_000000000000' not found"
    )
    await ok(env, "research_step", {"research_id": rid})
    body = await rejected(
        env, "research_step", {"research_id": rid}, f"research {rid} is already completed (1/1 steps)"
    )
    assert body["kind"] == "conflict"


# -- get_report -------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_report_markdown_and_json(env: AppEnv) -> None:
    rid = await started(env, max_steps=2)
    await ok(env, "research_step", {"research_id": rid})
    text = await read_only(env, "get_report", {"research_id": rid})
    assert text.startswith(
        f"# Research report: {QUESTION}\n\nResearch ID: {rid} · Status: in_progress · Steps: 1/2 · "
        "Sources: 3\nInterim report: 1 step(s) remaining.\n\n## Key findings\n1. Longevity: cohorts"
    )
    assert (
        "[1] Why walking in the city is good for you: what the research says — "
        "https://www.healthyhabits.net/urban-walking-benefits (www.healthyhabits.net, 2026-01-12)"
    ) in text
    assert text.count("\n[") == 3
    await ok(env, "research_step", {"research_id": rid})
    report = json.loads(await read_only(env, "get_report", {"research_id": rid, "format": "json"}))
    assert report["status"] == "completed" and report["steps_completed"] == 2 and report["sources"] == 6
    assert [c["url"] for c in report["citations"]] == WALK_SOURCES[:6]
    assert [f["source"] for f in report["findings"]] == [1, 2, 3, 4, 5, 6]


@pytest.mark.anyio
async def test_get_report_rejections(env: AppEnv) -> None:
    rid = await started(env)
    await rejected(env, "get_report", {"research_id": ["x"]}, "invalid arguments for get_report")
    await rejected(env, "get_report", {"format": "json"}, "invalid arguments for get_report")
    body = await rejected(env, "get_report", {"research_id": rid, "format": "pdf"}, "invalid arguments")
    assert body["details"][0]["field"] == "format"
    await rejected(env, "get_report", {"research_id": "dr_unknown"}, "research session 'dr_unknown' not found")
    body = await rejected(env, "get_report", {"research_id": rid}, f"research {rid} has no sources yet")
    assert body["kind"] == "conflict"


# -- list_research ----------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_list_research(env: AppEnv) -> None:
    assert await ok_json(env, "list_research", {}) == {"research": [], "total": 0}
    first = await started(env, max_steps=1)
    second = await started(env, "Lumipay PayLater fees")
    await ok(env, "research_step", {"research_id": first})
    listed = json.loads(await read_only(env, "list_research", {}))
    assert [r["research_id"] for r in listed["research"]] == [first, second] and listed["total"] == 2
    assert listed["research"][0] == {
        "research_id": first,
        "question": QUESTION,
        "status": "completed",
        "steps_completed": 1,
        "max_steps": 1,
        "sources": 3,
        "created_at": T0 + 1,
        "updated_at": T0 + 3,
    }
    done = json.loads(await read_only(env, "list_research", {"status": "completed"}))
    assert [r["research_id"] for r in done["research"]] == [first]
    await rejected(env, "list_research", {"status": 1}, "invalid arguments for list_research")
    await rejected(env, "list_research", {"status": "archived"}, "invalid arguments for list_research")
    await rejected(env, "list_research", {"owner": "me"}, "invalid arguments for list_research")


# -- deep-research (the real server's tool) ---------------------------------------------------------------
@pytest.mark.anyio
async def test_deep_research_prompt_with_search_results(env: AppEnv) -> None:
    text = await read_only(
        env,
        "deep-research",
        {"question": "Which AI events are in Hangzhou in March 2026?", "keywords": ["AI forum Hangzhou"]},
    )
    assert text.startswith("# Your role\n")
    assert "# Question\nWhich AI events are in Hangzhou in March 2026?\n" in text
    assert "Search round: 1\nMaximum search rounds: 5\nCurrent time: 3/10/2026, 9:30:00 AM\n" in text
    assert (
        "## Search Results for `AI forum Hangzhou`\n### Reference 1:\nTitle: West Lake AI Forum 2026, Hangzhou — "
        "27-28 March\nContent: West Lake AI Forum, 27-28 March 2026 at the Hangzhou International Expo Center"
    ) in text
    assert text.count("### Reference") == 4
    assert "`rounds` set to 2" in text


@pytest.mark.anyio
async def test_deep_research_topics_reference_and_rounds(env: AppEnv) -> None:
    news = await read_only(env, "deep-research", {"question": "q", "keywords": ["walking"], "topic": "news"})
    assert "Title: Hangzhou opens Beishan greenway linking West Lake trails" in news
    assert "How to sit less at work" not in news  # a how-to, not news
    finance = await read_only(env, "deep-research", {"question": "q", "keywords": ["Singapore"], "topic": "finance"})
    assert "Title: Survey: one in three Singapore shoppers used BNPL last year" in finance
    assert "Title: Singapore weather in March" not in finance
    later = await read_only(env, "deep-research", {"question": "q", "reference": "Earlier notes.", "rounds": 5})
    assert "# Information gathered so far\nEarlier notes.\n" in later and "This is round 5 of 5" in later
    first = await read_only(env, "deep-research", {"question": "q"})
    assert "Nothing has been gathered yet." in first


@pytest.mark.anyio
async def test_deep_research_rejections(env: AppEnv) -> None:
    await rejected(env, "deep-research", {"question": "q", "rounds": "two"}, "invalid arguments for deep-research")
    body = await rejected(env, "deep-research", {"keywords": ["a"]}, "invalid arguments for deep-research")
    assert body["details"] == [{"field": "question", "message": "Field required"}]
    body = await rejected(
        env, "deep-research", {"question": "q", "keywords": ["a", "b", "c", "d", "e", "f"]}, "invalid arguments"
    )
    assert body["details"][0]["message"] == "List should have at most 5 items after validation, not 6"
    await rejected(env, "deep-research", {"question": "q", "rounds": 0}, "invalid arguments")
    await rejected(env, "deep-research", {"question": "q", "topic": "sports"}, "invalid arguments")
    body = await rejected(
        env,
        "deep-research",
        {"question": "q", "rounds": 3},
        "rounds is 3 but neither reference nor keywords were given",
    )
    assert body["kind"] == "conflict"
