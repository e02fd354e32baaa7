"""The public-data servers (code host, video, movies, lodging, rates, math, maps, time, stocks,
encyclopedia, news, packages, flights, code interpreter) through the real MCP path: answers agree with
the shipped datasets, and bad arguments are rejected with a specific message and no state change."""

from __future__ import annotations

from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv

pytestmark = pytest.mark.anyio
H = {name: AppHarness(get_app(name), read_only=name != "github") for name in (
    "github", "youtube_data", "tmdb", "airbnb", "exchange_rate", "wolfram_alpha", "google_maps", "time",
    "yahoo_finance", "wikipedia", "hacker_news", "npm_registry", "flights", "code_interpreter")}


def data(app: str) -> dict[str, Any]:
    return get_app(app).load_context("default")


async def ok(app: str, tool: str, args: dict[str, Any] | None = None, env: AppEnv | None = None) -> Any:
    return await H[app].ok_json(env or H[app].env(), tool, args)


async def rejected(app: str, tool: str, args: dict[str, Any], *needles: str) -> None:
    await H[app].rejected(H[app].env(), tool, args, *needles)


async def test_github_search_and_writes() -> None:
    found = await ok("github", "search_repositories", {"query": "http client language:python"})
    assert [r["full_name"] for r in found["items"]] == ["psf/requests", "encode/httpx"]
    issues = data("github")["repositories"]["psf/requests"]["issues"]
    open_bugs = sorted((i["number"] for i in issues.values() if i["state"] == "open" and "bug" in i["labels"]),
                       reverse=True)
    hits = await ok("github", "search_issues", {"query": "repo:psf/requests is:issue is:open label:bug"})
    assert [i["number"] for i in hits["items"]] == sorted(open_bugs, key=lambda n: issues[str(n)]["created_at"],
                                                          reverse=True)
    env = H["github"].env()
    before = env.tree.data["repositories"]["psf/requests"]["open_issues_count"]
    new = await ok("github", "create_issue", {"owner": "psf", "repo": "requests", "title": "Proxy auth drops",
                                              "labels": ["bug"]}, env)
    repo = env.tree.data["repositories"]["psf/requests"]
    assert repo["issues"][str(new["number"])]["title"] == "Proxy auth drops"
    assert repo["open_issues_count"] == before + 1
    await ok("github", "add_issue_comment", {"owner": "psf", "repo": "requests", "issue_number": new["number"],
                                             "body": "Seen on 2.32"}, env)
    assert [c["body"] for c in repo["issues"][str(new["number"])]["comment_list"].values()] == ["Seen on 2.32"]
    await rejected("github", "search_issues", {"query": "is:issue is:pr"}, "contradictory")
    await rejected("github", "get_issue", {"owner": "psf", "repo": "nope", "issue_number": 1}, "psf/nope")
    await rejected("github", "create_issue", {"owner": "psf", "repo": "requests", "title": "   "}, "blank")


async def test_video_movies_and_encyclopedia() -> None:
    videos = data("youtube_data")["videos"]
    top = await ok("youtube_data", "getChannelTopVideos", {"channelId": "UCtokyowalks", "maxResults": 1})
    best = max((v for v in videos.values() if v["channelId"] == "UCtokyowalks"), key=lambda v: v["viewCount"])
    assert top["items"][0]["id"] == best["id"]
    await rejected("youtube_data", "compareVideos", {"videoIds": [best["id"], best["id"]]}, "repeated")
    movies = data("tmdb")["movies"]
    popular = await ok("tmdb", "get_popular_movies")
    assert popular["results"][0]["id"] == max(movies.values(), key=lambda m: m["popularity"])["id"]
    dune = next(m for m in movies.values() if m["title"] == "Dune: Part Two")
    details = await ok("tmdb", "get_movie_details", {"movie_id": dune["id"]})
    assert details["director"] == "Denis Villeneuve" and details["runtime"] == 167
    await rejected("tmdb", "discover_movies", {"with_genres": "Western"}, "unknown genre 'Western'")
    facts = await ok("wikipedia", "extract_key_facts", {"title": "mount fuji"})
    assert facts["facts"]["elevation_m"] == 3776
    await rejected("wikipedia", "get_summary", {"title": "Atlantis"}, "Article 'Atlantis' not found")


async def test_lodging_prices_and_availability() -> None:
    listings = data("airbnb")["listings"]
    body = await ok("airbnb", "airbnb_search", {"location": "Seoul", "checkin": "2026-03-20",
                                                "checkout": "2026-03-23", "adults": 2})
    for r in body["searchResults"]:
        lst = listings[r["id"]]
        assert lst["max_guests"] >= 2 and r["price"]["total"] == 3 * lst["price_per_night"] + lst["cleaning_fee"]
        assert not {"2026-03-20", "2026-03-21", "2026-03-22"} & set(lst["unavailable"])
    prices = [r["price"]["rate"] for r in body["searchResults"]]
    assert prices == sorted(prices, key=lambda p: int(p[1:].split()[0]))
    await rejected("airbnb", "airbnb_search", {"location": "Seoul", "minPrice": 200, "maxPrice": 100}, "above maxPrice")
    await rejected("airbnb", "airbnb_search", {"location": "Seoul", "checkin": "2026-03-01",
                                               "checkout": "2026-03-03"}, "in the past")


async def test_rates_math_time() -> None:
    cur = data("exchange_rate")["currencies"]
    rate = cur["JPY"]["rates"]["2026-03-02"]["per_usd"] / cur["EUR"]["rates"]["2026-03-02"]["per_usd"]
    body = await ok("exchange_rate", "convert_currency", {"amount": 250, "from_currency": "eur",
                                                          "to_currency": "JPY", "date": "2026-03-02"})
    assert body["rate"] == pytest.approx(rate, rel=1e-5) and body["result"] == round(250 * body["rate"], 2)
    await rejected("exchange_rate", "get_exchange_rate", {"base": "USD", "target": "EUR", "date": "2026-03-11"},
                   "in the future")
    assert (await ok("wolfram_alpha", "wolfram_query", {"input": "26.2 miles in km"}))["result"] == 42.164813
    assert (await ok("wolfram_alpha", "solve_equation", {"equation": "x^2 + 1 = 0"}))["solutions"] == ["0 + 1i",
                                                                                                      "0 - 1i"]
    await rejected("wolfram_alpha", "convert_units", {"value": 1, "from_unit": "kg", "to_unit": "km"}, "mass")
    await rejected("wolfram_alpha", "calculate", {"expression": "2**99999"}, "exponent too large")
    now = await ok("time", "get_current_time", {"timezone": "America/New_York"})
    assert now["datetime"] == "2026-03-09T21:30:00-04:00" and now["is_dst"] is True
    conv = await ok("time", "convert_time", {"source_timezone": "Asia/Tokyo", "time": "09:00",
                                             "target_timezone": "Europe/London"})
    assert conv["target"]["datetime"] == "2026-03-10T00:00:00+00:00" and conv["time_difference"] == "-9.0h"
    await rejected("time", "convert_time", {"source_timezone": "Asia/Tokyo", "time": "25:00",
                                            "target_timezone": "UTC"}, "HH:MM")


async def test_maps_stocks_news_packages_flights() -> None:
    m = await ok("google_maps", "maps_distance_matrix", {"origins": ["Tokyo Station"],
                                                         "destinations": ["Senso-ji", "Tokyo Skytree"],
                                                         "mode": "walking"})
    walk = [e["distance"]["value"] for e in m["results"][0]["elements"]]
    assert walk[0] < walk[1] and all(e["status"] == "OK" for e in m["results"][0]["elements"])
    await rejected("google_maps", "maps_search_places", {"query": "museum", "radius": 500}, "radius needs location")
    bars = data("yahoo_finance")["tickers"]["NVDA"]["bars"]
    five = await ok("yahoo_finance", "get_historical_stock_prices", {"ticker": "nvda", "period": "5d"})
    # 09:30 in Shanghai is 21:30 on Monday 9 March in New York: Monday's session has closed
    assert [b["Date"] for b in five] == sorted(d for d in bars if d <= "2026-03-09")[-5:]
    await rejected("yahoo_finance", "get_stock_price_on_date", {"ticker": "KO", "date": "2026-03-10"}, "not closed")
    top = await ok("hacker_news", "get_stories", {"num_stories": 3})
    assert [s["score"] for s in top] == sorted((s["score"] for s in top), reverse=True)
    await rejected("hacker_news", "get_story_info", {"story_id": 1}, "Story 1 not found")
    info = await ok("npm_registry", "get_package_info", {"name": "@modelcontextprotocol/sdk"})
    assert info["latest"] == "1.20.1" and "zod" in info["dependencies"]
    await rejected("npm_registry", "get_package_downloads", {"name": "no-such-pkg"}, "not found")
    offers = await ok("flights", "search_flights", {"origin": "hnd", "destination": "SIN",
                                                    "departure_date": "2026-03-30", "adults": 2})
    assert offers["offers"] and all(o["total_price_usd"] == 2 * o["price_per_adult_usd"] for o in offers["offers"])
    await rejected("flights", "search_flights", {"origin": "HND", "destination": "HND",
                                                 "departure_date": "2026-03-30"}, "same airport")


async def test_code_interpreter_runs_and_reports_limits() -> None:
    out = await ok("code_interpreter", "execute_python_code", {"code": "print(sum(x * x for x in range(10)))"})
    assert out["stdout"] == "285\n" and out["exit_code"] == 0
    await rejected("code_interpreter", "execute_python_code", {"code": "x = bytearray(4 * 1024 ** 3)"},
                   "memory limit of 512 MB exceeded")

