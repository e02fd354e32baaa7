"""Servers that answer the reasonable call: the forms a careful model writes find what the gold form finds,
and no tool accepts an argument only to ignore it."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest
from mcp import Client

from mcp_persona.apps import get_app
from mcp_persona.apps._normalize import matches_all, name_keys, same_name, same_place, terms
from mcp_persona.clock import TaskClock
from mcp_persona.livemcptool import open_episode
from mcp_persona.livemcptool.engine import CatalogueApp
from mcp_persona.mutants import PlannedCall, ReplayAgent
from mcp_persona.protocols import get_protocol, load_tasks, suite_protocol
from mcp_persona.robustness import changed_variants, ignored, looks_empty, probe_task
from mcp_persona.runner import run_episode
from mcp_persona.tasks import GoldCall

pytestmark = pytest.mark.anyio
CLOCK = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Shanghai")
RAIL_CLOCK = TaskClock(now=datetime(2026, 5, 1, 10, 0), timezone="UTC")


async def call(app: str, tool: str, args: dict[str, Any], context: str = "default") -> tuple[bool, Any]:
    a = get_app(app)
    env = a.env(context, clock=CLOCK)
    async with Client(a.server(env)) as client:
        result = await client.call_tool(tool, args)
    text = result.content[0].text if result.content else ""
    try:
        return bool(result.is_error), json.loads(text)
    except json.JSONDecodeError:
        return bool(result.is_error), text


async def same_answer(app: str, tool: str, gold: dict[str, Any], fair: dict[str, Any], context: str = "default") -> Any:
    """Both forms succeed with the same, non-empty answer; returns it."""
    err_a, a = await call(app, tool, gold, context)
    err_b, b = await call(app, tool, fair, context)
    assert not err_a and not err_b, (a, b)
    assert a == b, (gold, fair)
    assert a not in ({}, [], "", {"count": 0, "results": []})
    return a


# -- the normalisation itself ---------------------------------------------------------------------
@pytest.mark.parametrize(("said", "meant"), [
    ("Austin, TX", "Austin"), ("Seattle, WA", "Seattle"), ("Chicago, IL", "Chicago"), ("Tokyo, Japan", "Tokyo"),
    ("Singapore City", "Singapore"), ("Hong Kong SAR", "Hong Kong"), ("HK", "Hong Kong"), ("NYC", "New York"),
    ("Mt. Fuji", "Mount Fuji"), ("Toyota Inc.", "Toyota"), ("Weeknd", "The Weeknd"), ("apartments", "apartment"),
    ("currencies", "currency"), ("national parks", "national park"), ("NDVIs", "NDVI"), ("CHICAGO", "chicago"),
])
def test_reasonable_forms_name_the_same_thing(said: str, meant: str) -> None:
    assert same_name(said, meant) and same_name(meant, said)


@pytest.mark.parametrize(("a", "b"), [
    ("Austin, TX", "Dallas"), ("CU-1001", "CU1001"), ("CU-1001", "CU-1002"), ("national park", "national monument"),
    ("economy", "business"), ("gainers", "losers"), ("2026-03-12", "2026-03-13"),
])
def test_different_things_stay_different(a: str, b: str) -> None:
    assert not same_name(a, b)


def test_a_qualifier_must_be_a_region_or_the_records_own() -> None:
    assert same_place("Xi'an, Shaanxi", "Xi'an", "Shaanxi", "China")
    assert not same_name("Portland, Maine-ish", "Portland")
    assert name_keys("Seattle, WA") >= {"seattle"}


def test_search_terms_ignore_stop_words_order_and_number() -> None:
    assert terms("restaurant in Tokyo") == terms("Tokyo restaurants")[::-1] == ("restaurant", "tokyo")
    assert matches_all("budgets", "London on a Budget") and matches_all("chilis", "Vegan Chili")
    assert not matches_all("budget ramen", "London on a Budget")


# -- the examples, each on the server that failed it --------------------------------------
@pytest.mark.parametrize(("tool", "gold", "fair"), [
    ("search_rental_properties", {"location": "Austin", "property_type": "house", "rating": 4},
     {"location": "Austin, TX", "property_type": "house", "rating": 4}),
    ("search_rental_properties", {"location": "Miami", "property_type": "apartment", "rating": 4},
     {"location": "miami", "property_type": "apartments", "rating": 4}),
    ("booking_tool", {"city": "Chicago", "checkinDate": "2026-03-14", "checkoutDate": "2026-03-16"},
     {"city": "Chicago, IL", "checkinDate": "2026-03-14", "checkoutDate": "2026-03-16"}),
    ("findParks", {"stateCode": "CA", "park_type": "national park", "limit": 5, "activities": "hiking"},
     {"stateCode": "CA", "park_type": "national parks", "limit": 5, "activities": "hiking"}),
])
async def test_travel_library_takes_places_with_their_state_and_plurals(tool: str, gold: dict[str, Any],
                                                                       fair: dict[str, Any]) -> None:
    await same_answer("mab_travel", tool, gold, fair)


async def test_library_takes_seattle_wa_the_weeknd_toyota_and_currencies() -> None:
    await same_answer("mab_food", "search_restaurant", {"location": "Seattle", "cuisineTypes": "Japanese"},
                      {"location": "Seattle, WA", "cuisineTypes": "japanese"})
    await same_answer("mab_media", "itunes_search", {"artist": "The Weeknd"}, {"artist": "Weeknd"})
    found = await same_answer("mab_finance", "search_stock_byname", {"name": "Toyota"}, {"name": "Toyota Inc."})
    assert found["results"][0]["ticker"] == "7203.T"
    await same_answer("mab_ops", "searchApis", {"keyword": "currency"}, {"keyword": "currencies"})


@pytest.mark.parametrize("city", ["Singapore City", "HK", "Hong Kong SAR", "hong kong", "Tokyo, Japan", "上海"])
async def test_weather_finds_a_city_however_it_is_named(city: str) -> None:
    err, body = await call("weather", "get_current_weather", {"city": city})
    assert not err, body
    assert body["location"]["name"] in {"Singapore", "Hong Kong", "Tokyo", "Shanghai"}


async def test_wikipedia_search_is_case_and_order_free_and_mt_redirects() -> None:
    _, a = await call("wikipedia", "search_wikipedia", {"query": "Mount Fuji"})
    _, b = await call("wikipedia", "search_wikipedia", {"query": "fuji MOUNT"})
    assert a["results"][0]["title"] == b["results"][0]["title"] == "Mount Fuji"
    await same_answer("wikipedia", "get_summary", {"title": "Mount Fuji"}, {"title": "Mt. Fuji"})


async def test_youtube_search_finds_budget_for_budgets() -> None:
    _, a = await call("youtube_data", "searchVideos", {"query": "budget"})
    _, b = await call("youtube_data", "searchVideos", {"query": "budgets"})
    assert [v["id"] for v in a["items"]] == [v["id"] for v in b["items"]] and a["items"]


async def test_maps_search_does_not_count_stop_words() -> None:
    _, a = await call("google_maps", "maps_search_places", {"query": "restaurant Tokyo"})
    _, b = await call("google_maps", "maps_search_places", {"query": "restaurant in Tokyo"})
    assert a == b and {p["name"] for p in a["places"]} >= {"Ichiran Shibuya", "Sushi Dai Toyosu"}


async def test_obsidian_tags_ignore_case() -> None:
    await same_answer("obsidian", "obsidian_search_by_tag", {"tag": "partner"}, {"tag": "Partner"},
                      context="chen_yu")


async def test_reddit_search_stems() -> None:
    _, a = await call("reddit", "search_across_subreddits", {"search_query": "annotation tool"}, "chen_yu")
    _, b = await call("reddit", "search_across_subreddits", {"search_query": "the annotation tools"}, "chen_yu")
    posts = [c["data"]["name"] for c in a["data"]["search_results"]["data"]["children"]]
    assert posts == ["t3_8u26ds7"] == [c["data"]["name"] for c in b["data"]["search_results"]["data"]["children"]]


# -- arguments that count -------------------------------------------------------------------------
async def test_semgrep_ruleset_and_format_change_the_scan() -> None:
    base = {"path": "src/auth/login.py", "config_file": ".semgrep.yml"}
    _, owasp = await call("mab_code", "Semgrep_Code_SAST", base | {"ruleset": "p/owasp-top-ten",
                                                                     "output_format": "json"})
    _, secrets = await call("mab_code", "Semgrep_Code_SAST", base | {"ruleset": "p/secrets", "output_format": "json"})
    assert {i["rule"] for i in owasp["issues"]} == {"hardcoded-secret", "sql-injection"}
    assert [i["rule"] for i in secrets["issues"]] == ["hardcoded-secret"]
    _, sarif = await call("mab_code", "Semgrep_Code_SAST", base | {"ruleset": "p/secrets", "output_format": "sarif"})
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 14
    err, body = await call("mab_code", "Semgrep_Code_SAST", base | {"ruleset": "p/nope", "output_format": "json"})
    assert err and "unknown ruleset" in body["error"]


async def test_market_data_source_fields_and_market_are_honoured() -> None:
    _, sip = await call("mab_finance", "get_realtime_market_data", {"symbols": ["AAPL"], "source": "sip"})
    _, iex = await call("mab_finance", "get_realtime_market_data", {"symbols": ["AAPL"], "source": "iex"})
    assert sip["results"][0]["volume"] == 51_200_000 and iex["results"][0]["volume"] == 1_280_000
    _, only = await call("mab_finance", "get_realtime_market_data", {"symbols": ["AAPL"], "source": "sip",
                                                                    "fields": ["price"]})
    assert only["results"] == [{"ticker": "AAPL", "price": 227.48}]
    err, body = await call("mab_finance", "get_realtime_market_data", {"symbols": ["AAPL"], "source": "sip",
                                                                      "market": "JP"})
    assert err and "trades on NASDAQ" in body["error"]


async def test_api_request_url_and_nmap_flags_are_honoured() -> None:
    args = {"apiName": "ExchangeRate", "endpoint": "/latest"}
    err, _ = await call("mab_ops", "make_api_request", args | {"url": "https://api.exchangerate.host"})
    assert not err
    err, body = await call("mab_ops", "make_api_request", args | {"url": "https://example.org"})
    assert err and "not the base URL" in body["error"]
    _, sv = await call("mab_ops", "nmap_scan", {"host": "10.0.4.21", "ports": "1-100", "arguments": "-sV"})
    _, plain = await call("mab_ops", "nmap_scan", {"host": "10.0.4.21", "ports": "1-100", "arguments": "-T4"})
    assert sv["open_ports"] == [{"port": 22, "service": "ssh"}, {"port": 80, "service": "http"}]
    assert plain["timing"] == "aggressive" and plain["open_ports"][0]["service"] == "ssh?"
    err, body = await call("mab_ops", "nmap_scan", {"host": "10.0.4.21", "ports": "22", "arguments": "--script x"})
    assert err and "unsupported nmap flags" in body["error"]


async def test_date_bounds_are_dates() -> None:
    err, body = await call("mab_finance", "search_news", {"query": "NVIDIA", "start_date": "2026-03-01",
                                                          "end_date": "soon", "max_result": 5})
    assert err and "end_date" in body["error"]


async def test_kospi_market_cap_honours_its_period() -> None:
    async with open_episode(servers=["kospi-kosdaq"], clock=RAIL_CLOCK) as ep:
        ok = json.loads((await ep.call("kospi-kosdaq", "get_stock_market_cap",
                                       {"ticker": "000660", "fromdate": "20260401", "todate": "20260430"}))
                        .content[0].text)
        assert ok["period"] == {"from": "2026-04-01", "to": "2026-04-30"} and ok["stock"]["value"] == 419.55
        before = await ep.call("kospi-kosdaq", "get_stock_market_cap",
                               {"ticker": "000660", "fromdate": "20251201", "todate": "20251231"})
        assert before.is_error and "listed from 2026-01-16" in before.content[0].text
        backwards = await ep.call("kospi-kosdaq", "get_stock_market_cap",
                                  {"ticker": "000660", "fromdate": "20260430", "todate": "20260401"})
        assert backwards.is_error and "is after" in backwards.content[0].text


async def test_library_search_honours_price_bounds_and_refuses_what_it_cannot_answer() -> None:
    async with open_episode(servers=["airbnb"], clock=RAIL_CLOCK) as ep:
        async def search(**args: Any) -> tuple[bool, Any]:
            r = await ep.call("airbnb", "airbnb_search", args)
            text = r.content[0].text
            return bool(r.is_error), json.loads(text) if not r.is_error else text

        _, cheap = await search(location="Tokyo", maxPrice=100)
        assert [h["name"] for h in cheap["results"]] == ["Tokyo capsule studio"]  # 41.94 a night
        _, none = await search(location="Tokyo", minPrice=100)
        assert none["results"] == []
        err, text = await search(location="Tokyo", checkin="2026-05-10", checkout="2026-05-12")
        assert err and "checkin" in text
        err, text = await search(location="Tokyo", adults=3)
        assert err and "cannot answer adults" in text


# -- 12306 --------------------------------------------------------------------------------------------
async def rail(tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async with open_episode(servers=["12306-mcp"], clock=RAIL_CLOCK) as ep:
        result = await ep.call("12306-mcp", tool, args)
    text = result.content[0].text
    try:
        return bool(result.is_error), json.loads(text)
    except json.JSONDecodeError:
        return bool(result.is_error), text


async def test_12306_station_codes_for_cities_and_names() -> None:
    _, codes = await rail("get-station-code-of-citys", {"citys": "Beijing|上海"})
    assert codes["Beijing"]["station_code"] == "BJP" and codes["上海"]["station_code"] == "SHH"
    _, in_city = await rail("get-stations-code-in-city", {"city": "北京"})
    assert [s["station_code"] for s in in_city] == ["BJP", "VNP", "BXP"]
    _, named = await rail("get-station-code-by-names", {"stationNames": "北京南|Shanghai Hongqiao"})
    assert named["北京南"]["station_code"] == "VNP" and named["Shanghai Hongqiao"]["station_code"] == "AOH"
    _, station = await rail("get-station-by-telecode", {"stationTelecode": "nkh"})
    assert station["station_name_en"] == "Nanjing South"


async def test_12306_tickets_between_two_cities_on_a_date_with_fares() -> None:
    _, day = await rail("get-tickets", {"date": "2026-05-08", "fromStation": "BJP", "toStation": "SHH"})
    fares = {t["train_no"]: t["prices"][0]["price"] for t in day["trains"]}
    assert fares == {"G1": 506.08, "G7": 118.62, "D301": 843.36, "G13": 990.02, "G101": 769.76}
    _, same = await rail("get-tickets", {"date": "2026-05-08", "fromStation": "VNP", "toStation": "AOH"})
    assert same["trains"] == day["trains"]  # a station stands for its city, as on 12306
    _, part = await rail("get-tickets", {"date": "2026-05-09", "fromStation": "NKH", "toStation": "AOH",
                                         "trainFilterFlags": "G", "sortFlag": "duration", "limitedNum": 1})
    assert [(t["train_no"], t["start_time"], t["prices"][0]["price"]) for t in part["trains"]] == [
        ("G7", "2026-05-09 12:11", 26.55)]  # 118.62 x (1318 - 1023) / 1318 km
    err, body = await rail("get-tickets", {"date": "2026-06-01", "fromStation": "BJP", "toStation": "SHH"})
    assert err and "booking window" in body["error"]


async def test_12306_route_honours_train_stations_and_date() -> None:
    _, full = await rail("get-train-route-stations", {"trainNo": "G1", "fromStationTelecode": "VNP",
                                                      "toStationTelecode": "AOH", "departDate": "2026-05-08"})
    assert full["prices"][0]["price"] == 506.08 and len(full["stops"]) == 4
    _, part = await rail("get-train-route-stations", {"trainNo": "G1", "fromStationTelecode": "JGK",
                                                      "toStationTelecode": "NKH", "departDate": "2026-05-10"})
    assert part["prices"][0]["price"] == 236.91 and part["stops"][0]["time"] == "2026-05-10 08:22"
    err, body = await rail("get-train-route-stations", {"trainNo": "D301", "fromStationTelecode": "VNP",
                                                        "toStationTelecode": "AOH", "departDate": "2026-05-08"})
    assert err and "does not stop at 'VNP'" in body["error"] and "SHH" in body["error"]


async def test_12306_interline_changes_at_the_middle_station() -> None:
    _, j = await rail("get-interline-tickets", {"date": "2026-05-08", "fromStation": "BJP", "toStation": "SHH",
                                                "middleStation": "Nanjing South", "limitedNum": 1})
    (first,) = j["journeys"]
    assert first["middle_city"] == "Nanjing" and first["wait_minutes"] >= 20
    assert first["total_price"] == round(sum(leg["prices"][0]["price"] for leg in first["legs"]), 2)


# -- over the gold chains --------------------------------------------------------------------------
# Arguments whose change does not show on the gold call's data, each with why (as mutation exemptions are).
UNCHANGED_ON_GOLD_DATA = {
    ("mab_data", "vector_search", "limit"): "a cap; the gold queries have one hit",
    ("mab_science", "search_academic_papers", "max_results"): "a cap; the gold query has one hit",
    ("mab_science", "search_pubmed", "maxResults"): "a cap; the gold query has one hit",
    ("mab_shopping", "get_posts", "order"): "the gold window holds one featured post, so no order differs",
    ("medical", "search_pubmed", "max_results"): "a cap; the gold query has one hit",
    ("reddit", "search_across_subreddits", "limit"): "a cap; the gold searches have one hit",
    ("reddit", "search_across_subreddits", "sort"): "the gold searches have one hit to order",
    ("reddit", "search_across_subreddits", "restrict_sr"): "every post of the gold searches is in a subreddit",
    ("rednote", "get_feed_detail", "limit"): "applies with load_all_comments, as on the real server",
    ("rednote", "get_feed_detail", "reply_limit"): "applies with click_more_replies, as on the real server",
    ("rednote", "get_feed_detail", "click_more_replies"): "applies with load_all_comments, as on the real server",
    ("rednote", "get_feed_detail", "load_all_comments"): "the gold notes have at most 10 comment threads",
    ("rednote", "get_feed_detail", "scroll_speed"): "the real server's browser pace; its answer is the same",
    ("baidu_maps", "map_search_places", "radius"): "the gold search's places are all within every radius tried",
    ("discord", "moderate_message", "reason"): "the audit-log reason; the simulator keeps no audit log",
    ("github", "list_pull_requests", "perPage"): "a page size; the gold repository has one open pull request",
}


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["mcpagentbench", "persona", "livemcp101"])
async def test_every_argument_of_every_gold_call_changes_the_reply_or_the_state(suite: str) -> None:
    protocol = suite_protocol(suite)
    changed: dict[tuple[str, str, str], bool] = defaultdict(bool)
    for task in load_tasks(suite):
        for probe in await probe_task(task, protocol, changed_variants, reads_only=False):
            for i, (variant, _) in enumerate(probe.probes):
                changed[(probe.server, probe.tool, variant.argument)] |= not ignored(probe, i)
    assert len(changed) > 100
    unexplained = sorted(k for k, v in changed.items() if not v and k not in UNCHANGED_ON_GOLD_DATA)
    assert unexplained == []


def _plan(*steps: list[tuple[str, str, dict[str, Any]]]) -> tuple[PlannedCall, ...]:
    return tuple(PlannedCall((si, ci), si, GoldCall(server=server, tool=tool, arguments=args))
                 for si, step in enumerate(steps) for ci, (server, tool, args) in enumerate(step))


@pytest.mark.slow
@pytest.mark.parametrize("route", ["stations in each city, then tickets", "the route of each train"])
async def test_12306_fare_tasks_are_solved_by_the_tools_a_model_would_choose(route: str) -> None:
    protocol = get_protocol("livemcpbench")
    for task in load_tasks("livemcpbench"):
        if not task.id.startswith("travel_train_fare_"):
            continue
        a, b = (w.rstrip("?,") for w in task.instruction.split("fare, ")[1].split()[0:3:2])
        calc = ("calculator", "calculate", task.gold[-1].calls[0].arguments)
        if route.startswith("stations"):
            plan = _plan([("12306-mcp", "get-stations-code-in-city", {"city": "Beijing"}),
                          ("12306-mcp", "get-stations-code-in-city", {"city": "Shanghai"})],
                         [("12306-mcp", "get-tickets", {"date": "2026-05-08", "fromStation": "VNP",
                                                        "toStation": "AOH"})], [calc])
        else:  # a train's own stations: D301 runs Beijing - Shanghai, the G trains Beijing South - Hongqiao
            ends = {"D301": ("BJP", "SHH"), "G101": ("VNP", "SHH")}
            plan = _plan([("12306-mcp", "get-train-route-stations",
                           {"trainNo": t, "fromStationTelecode": ends.get(t, ("VNP", "AOH"))[0],
                            "toStationTelecode": ends.get(t, ("VNP", "AOH"))[1], "departDate": "2026-05-08"})
                          for t in (a, b)], [calc])
        record = await run_episode(task, ReplayAgent(plan), protocol=protocol)
        assert record.score is not None and record.score.detail["success"], (task.id, record.score)


def _base_arguments(tool: Any, record: dict[str, Any], entity: str) -> dict[str, Any]:
    """Arguments a model could send: a record's id for a key; for a search, the kind of record (every record's
    summary names it, so a cap has several hits to cut); a word of the record's name otherwise."""
    props = tool.input_schema.get("properties") or {}
    args: dict[str, Any] = {}
    for name in tool.input_schema.get("required") or []:
        prop = props.get(name, {})
        kind = prop.get("type") or next((b.get("type") for b in prop.get("anyOf", []) if b.get("type")), "string")
        if "enum" in prop:
            args[name] = prop["enum"][0]
        elif kind in ("number", "integer"):
            args[name] = prop.get("default", max(1, prop.get("minimum", 1)))
        elif kind == "boolean":
            args[name] = False
        elif kind == "array":
            args[name] = [record["name"]]
        elif kind == "object":
            args[name] = {"name": record["name"]}
        else:
            args[name] = (record.get("symbol") or record["id"] if tool.behaviour in ("lookup", "update", "delete")
                          else entity if tool.behaviour == "search" else record["name"].split()[0])
    return args


TRANSPORT = {"ignoreRobotsText"}  # how the real server fetches, never what it answers


def is_cap(argument: str) -> bool:
    """A result cap, which the one record a lookup answers always meets."""
    return CatalogueApp._is_limit(argument)


@pytest.mark.slow
async def test_every_argument_of_every_simulated_library_tool_changes_the_reply_or_is_refused() -> None:
    """The LiveMCPTool engine's tools (425, most in no gold chain): from a call that succeeds on a shipped
    record, each argument changed to another accepted value changes the answer or the state, or is refused."""
    from mcp_persona.livemcptool import catalogue
    from mcp_persona.livemcptool.engine import datasets

    changed: dict[str, bool] = defaultdict(bool)
    based, tools = 0, 0
    for name, entry in sorted(catalogue().items()):
        if entry.kind != "simulated":
            continue
        theme = datasets().get(name) or {}
        records = theme.get("records") or [{"id": "x", "name": "x"}]
        async with open_episode(servers=[name], clock=RAIL_CLOCK) as ep:
            env = ep.sim_envs[name]
            for tool in entry.tools:
                tools += 1
                base = _base_arguments(tool, records[0], theme.get("entity", "record"))
                saved = json.dumps(env.tree.data)
                gold = await ep.call(name, tool.name, base)
                if gold.is_error or looks_empty(gold.content[0].text) or '"matches"' in gold.content[0].text:
                    continue  # no answer to change (or a best guess between records)
                based += 1
                after = env.tree.hash()
                for variant in changed_variants(base, tool.input_schema):
                    if variant.argument in TRANSPORT or (tool.behaviour == "lookup" and is_cap(variant.argument)):
                        continue
                    env.tree.data.clear()
                    env.tree.data.update(json.loads(saved))
                    r = await ep.call(name, tool.name, variant.args)
                    changed[f"{name}:{tool.name}:{variant.argument}"] |= (
                        r.is_error != gold.is_error or r.content[0].text != gold.content[0].text
                        or env.tree.hash() != after)
                env.tree.data.clear()
                env.tree.data.update(json.loads(saved))
    assert tools == 425 and based > 200 and len(changed) > 300
    unchanged = sorted(k for k, v in changed.items() if not v)
    assert unchanged == [], "\n".join(unchanged)
