"""The news-aggregator tools over the fixed story snapshot (see ``data/hierarchies/hacker_news.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, matches
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "hacker_news",
    title="Hacker News",
    category="information",
    personalized=False,
    description="Top, new, Ask, Show and job stories; story details with comments; search; user profiles.",
    real_server="erithwik/mcp-hn",
)
Count = Field(10, ge=1, le=100, description="How many stories")


def _stories(env: AppEnv) -> list[dict[str, Any]]:
    now = env.clock.current().strftime("%Y-%m-%dT%H:%M:%SZ")
    return [s for s in collection(env, "stories").values() if s["time"] <= now]


def _brief(s: dict[str, Any]) -> dict[str, Any]:
    return {k: s[k] for k in ("id", "title", "url", "type", "by", "score", "descendants", "time")}


@APP.tool()
def get_stories(env: AppEnv, story_type: Literal["top", "new", "ask", "show", "job"] = Field(
        "top", description="Which list"), num_stories: int = Count) -> list[dict[str, Any]]:
    """A story list: top (by score), new (newest first), or the Ask / Show / job lists."""
    stories = _stories(env)
    if story_type in ("ask", "show", "job"):
        stories = [s for s in stories if s["type"] == story_type]
    key = (lambda s: s["time"]) if story_type == "new" else (lambda s: s["score"])
    return [_brief(s) for s in sorted(stories, key=key, reverse=True)[:num_stories]]


@APP.tool()
def get_story_info(env: AppEnv, story_id: int = Field(ge=1, description="Story id")) -> dict[str, Any]:
    """A story with its top-level comments."""
    s = next((s for s in _stories(env) if s["id"] == str(story_id)), None)
    if s is None:
        raise ToolFailure(f"Story {story_id} not found", kind="not_found")
    return _brief(s) | {"comments": sorted(s["comments"].values(), key=lambda c: c["time"])}


@APP.tool()
def search_stories(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="Words in the title"),
                   num_results: int = Count,
                   search_by_date: bool = Field(False, description="Newest first instead of most points")
                   ) -> list[dict[str, Any]]:
    """Stories whose title contains every query word."""
    hits = [s for s in _stories(env) if matches(query, s["title"])]
    key = (lambda s: s["time"]) if search_by_date else (lambda s: s["score"])
    return [_brief(s) for s in sorted(hits, key=key, reverse=True)[:num_results]]


@APP.tool()
def get_user_info(env: AppEnv, user_name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$",
                                                      description="User name"),
                  num_stories: int = Count) -> dict[str, Any]:
    """A user's profile (karma, created) and submitted stories."""
    u = collection(env, "users").get(user_name)
    if u is None:
        raise ToolFailure(f"User {user_name} not found", kind="not_found")
    mine = [_brief(s) for s in sorted(_stories(env), key=lambda s: s["time"], reverse=True) if s["by"] == user_name]
    return u | {"submitted": mine[:num_stories]}
