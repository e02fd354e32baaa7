"""The video tools over the fixed channel and video sample (see ``data/hierarchies/youtube_data.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, score
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "youtube_data",
    title="YouTube Data",
    category="information",
    personalized=False,
    description="Search videos, read video and channel statistics, trending charts and channel top videos.",
    real_server="icraft2170/youtube-data-mcp-server",
)

Ids = Field(min_length=1, max_length=20, description="Video IDs")
MaxResults = Field(10, ge=1, le=50, description="Maximum number of results (1-50)")
ChannelIds = Field(min_length=1, max_length=20, description="Channel IDs")
TwoOrMore = Field(min_length=2, max_length=10, description="Two or more video IDs")


def _video(env: AppEnv, vid: dict[str, Any]) -> dict[str, Any]:
    ch = collection(env, "channels")[vid["channelId"]]
    return {"id": vid["id"],
            "snippet": {"title": vid["title"], "channelId": vid["channelId"], "channelTitle": ch["title"],
                        "publishedAt": vid["publishedAt"], "description": vid["description"], "tags": vid["tags"],
                        "category": vid["category"]},
            "contentDetails": {"duration": vid["duration"], "durationSeconds": vid["durationSeconds"]},
            "statistics": {"viewCount": vid["viewCount"], "likeCount": vid["likeCount"],
                           "commentCount": vid["commentCount"]},
            "url": f"https://www.youtube.com/watch?v={vid['id']}"}


def _get(env: AppEnv, ids: list[str], what: str, name: str) -> list[dict[str, Any]]:
    items = collection(env, name)
    if len(set(ids)) != len(ids):
        raise fail(f"{what} IDs are repeated: {', '.join(sorted({i for i in ids if ids.count(i) > 1}))}", "conflict")
    missing = [i for i in ids if i not in items]
    if missing:
        raise ToolFailure(f"{what} not found: {', '.join(missing)}", kind="not_found")
    return [items[i] for i in ids]


@APP.tool()
def searchVideos(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="Search words"),
                 maxResults: int = MaxResults) -> dict[str, Any]:
    """Search videos by title, tags and channel; most relevant then most viewed first."""
    channels = collection(env, "channels")
    ranked = []
    for v in collection(env, "videos").values():
        s = score(query, v["title"], v["tags"], channels[v["channelId"]]["title"])
        if s:
            ranked.append((s, v["viewCount"], v))
    ranked.sort(key=lambda t: (-t[0], -t[1]))
    return {"totalResults": len(ranked), "items": [_video(env, v) for _, _, v in ranked[:maxResults]]}


@APP.tool()
def getVideoDetails(env: AppEnv, videoIds: list[str] = Ids) -> dict[str, Any]:
    """Full details and statistics of one or more videos."""
    return {"items": [_video(env, v) for v in _get(env, videoIds, "Video", "videos")]}


@APP.tool()
def getChannelStatistics(env: AppEnv, channelIds: list[str] = ChannelIds) -> dict[str, Any]:
    """Subscriber, video and view counts of one or more channels."""
    return {"items": [{"id": c["id"], "snippet": {"title": c["title"], "description": c["description"],
                                                  "country": c["country"], "publishedAt": c["publishedAt"]},
                       "statistics": {"subscriberCount": c["subscriberCount"], "videoCount": c["videoCount"],
                                      "viewCount": c["viewCount"]}}
                      for c in _get(env, channelIds, "Channel", "channels")]}


@APP.tool()
def getTrendingVideos(env: AppEnv, regionCode: Literal["US", "GB", "JP"] = Field("US", description="Region"),
                      maxResults: int = MaxResults) -> dict[str, Any]:
    """The trending chart of a region, rank 1 first."""
    charted = [v for v in collection(env, "videos").values() if v["trendingRank"].get(regionCode)]
    charted.sort(key=lambda v: v["trendingRank"][regionCode])
    return {"regionCode": regionCode, "items": [{"rank": v["trendingRank"][regionCode], **_video(env, v)}
                                                 for v in charted[:maxResults]]}


@APP.tool()
def getChannelTopVideos(env: AppEnv, channelId: str = Field(min_length=1, description="Channel ID"),
                        maxResults: int = MaxResults) -> dict[str, Any]:
    """A channel's videos, most viewed first."""
    ch = _get(env, [channelId], "Channel", "channels")[0]
    mine = sorted((v for v in collection(env, "videos").values() if v["channelId"] == ch["id"]),
                  key=lambda v: -v["viewCount"])
    return {"channelId": ch["id"], "channelTitle": ch["title"], "items": [_video(env, v) for v in mine[:maxResults]]}


@APP.tool()
def compareVideos(env: AppEnv, videoIds: list[str] = TwoOrMore) -> dict[str, Any]:
    """Side-by-side statistics of several videos, with like and comment rates per 1,000 views."""
    rows = []
    for v in _get(env, videoIds, "Video", "videos"):
        rows.append({"id": v["id"], "title": v["title"], "viewCount": v["viewCount"], "likeCount": v["likeCount"],
                     "commentCount": v["commentCount"],
                     "likesPer1000Views": round(v["likeCount"] * 1000 / v["viewCount"], 2),
                     "commentsPer1000Views": round(v["commentCount"] * 1000 / v["viewCount"], 2)})
    best = max(rows, key=lambda r: r["viewCount"])
    return {"videos": rows, "mostViewed": best["id"]}
