"""The weather app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import _geo, get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.clock import TaskClock

APP = get_app("weather")

H = AppHarness(APP, read_only=True)
call, ok = H.call_json, H.ok_json
env = H.env_fixture()


def day(city: str, date: str) -> dict[str, Any]:
    return APP.load_context("default")["cities"][city]["days"][date]


def test_registry_and_dataset() -> None:
    data = APP.load_context("default")
    assert APP.personalized is False and len(APP.tool_names) == 6
    assert len(data["cities"]) == 15
    assert all(len(c["days"]) == 24 and len(c["air_quality"]) == 24 for c in data["cities"].values())


@pytest.mark.anyio
async def test_current_weather_is_the_hour_of_the_task_clock(env: AppEnv) -> None:
    body = await ok(env, "get_current_weather", {"city": "Shanghai"})
    h = _geo.hourly(day("shanghai", "2026-03-10"), 9)
    assert body["location"]["localtime"] == "2026-03-10 09:30"
    assert body["current"]["temp_c"] == h.temp_c and body["current"]["condition"] == "Fog"
    assert body["current"]["visibility_km"] == 0.8
    london = await ok(env, "get_current_weather", {"city": "london"})
    assert london["location"]["localtime"] == "2026-03-10 01:30" and london["current"]["is_day"] == 0
    assert (await ok(env, "get_current_weather", {"city": "上海"}))["location"]["name"] == "Shanghai"


@pytest.mark.anyio
async def test_forecast_and_hourly(env: AppEnv) -> None:
    body = await ok(env, "get_forecast", {"city": "Hangzhou", "days": 3})
    days = body["forecast"]["forecastday"]
    assert [d["date"] for d in days] == ["2026-03-10", "2026-03-11", "2026-03-12"]
    assert days[1]["condition_day"] == "Heavy rain" and days[1]["total_precip_mm"] == 48.6
    assert days[1]["max_temp_c"] == day("hangzhou", "2026-03-11")["temp_max"]
    late = APP.env("default", clock=TaskClock(now=datetime(2026, 3, 22, 12), timezone="Asia/Shanghai"))
    assert len((await ok(late, "get_forecast", {"city": "Taipei", "days": 7}))["forecast"]["forecastday"]) == 3
    hourly = await ok(env, "get_hourly_forecast", {"city": "Shanghai", "hours": 16})
    assert [h["time"] for h in hourly["hourly"]][:2] == ["2026-03-10 09:00", "2026-03-10 10:00"]
    assert hourly["hourly"][-1]["time"] == "2026-03-11 00:00"
    assert hourly["hourly"][5]["temp_c"] == _geo.hourly(day("shanghai", "2026-03-10"), 14).temp_c


@pytest.mark.anyio
async def test_history(env: AppEnv) -> None:
    body = await ok(env, "get_historical_weather", {"city": "Beijing", "date": "2026-03-03"})
    assert body["history"]["min_temp_c"] == day("beijing", "2026-03-03")["temp_min"]


@pytest.mark.anyio
async def test_alerts(env: AppEnv) -> None:
    sh = await ok(env, "get_alerts", {"region": "Shanghai"})
    assert [(a["event"], a["status"]) for a in sh["alerts"]] == [("Heavy Fog Yellow Warning", "active"),
                                                                ("Rainstorm Blue Warning", "upcoming")]
    zj = await ok(env, "get_alerts", {"region": "Zhejiang"})
    assert zj["count"] == 2 and {a["area"] for a in zj["alerts"]} == {"Hangzhou"}
    assert (await ok(env, "get_alerts", {"region": "Chengdu"}))["alerts"] == []
    noon = APP.env("default", clock=TaskClock(now=datetime(2026, 3, 10, 12), timezone="Asia/Shanghai"))
    assert [a["event"] for a in (await ok(noon, "get_alerts", {"region": "Shanghai"}))["alerts"]] == [
        "Rainstorm Blue Warning"]


@pytest.mark.anyio
async def test_air_quality(env: AppEnv) -> None:
    body = await ok(env, "get_air_quality", {"city": "Beijing"})
    rec = APP.load_context("default")["cities"]["beijing"]["air_quality"]["2026-03-10"]
    assert body["air_quality"]["aqi"] == rec["aqi"] == 155 and body["air_quality"]["category"] == "Unhealthy"


ERRORS = [
    ("get_current_weather", {"city": 5}, 1009, "city"),
    ("get_forecast", {"city": "Shanghai", "days": "many"}, 1009, "days"),
    ("get_alerts", {"region": ["Zhejiang"]}, 1009, "region"),
    ("get_hourly_forecast", {"city": "Shanghai", "hours": 1.5}, 1009, "hours"),
    ("get_current_weather", {}, 1003, "city"),
    ("get_historical_weather", {"city": "Shanghai"}, 1003, "date"),
    ("get_air_quality", {}, 1003, "city"),
    ("get_forecast", {"city": "Shanghai", "days": 8}, 1009, "less than or equal to 7"),
    ("get_hourly_forecast", {"city": "Shanghai", "hours": 0}, 1009, "greater than or equal to 1"),
    ("get_historical_weather", {"city": "Shanghai", "date": "March 3"}, 1009, "pattern"),
    ("get_historical_weather", {"city": "Shanghai", "date": "2026-02-30"}, 1009, "not a real date"),
    ("get_current_weather", {"city": "Atlantis"}, 1006, "No matching location"),
    ("get_alerts", {"region": "Mordor"}, 1006, "No matching location"),
    ("get_air_quality", {"city": "Gotham"}, 1006, "No matching location"),
    ("get_historical_weather", {"city": "Shanghai", "date": "2026-03-12"}, 1009, "not in the past"),
    ("get_historical_weather", {"city": "Shanghai", "date": "2026-02-20"}, 1010, "No weather data"),
]


@pytest.mark.parametrize(("tool", "args", "code", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], code: int,
                                            needle: str) -> None:
    before = env.tree.hash()
    err, body = await call(env, tool, args)
    assert err and body["error"]["code"] == code, body
    assert needle in body["error"]["message"], body
    assert env.tree.hash() == before


@pytest.mark.anyio
async def test_clock_outside_the_dataset_is_an_error() -> None:
    env = APP.env("default", clock=TaskClock(now=datetime(2026, 4, 20, 9), timezone="Asia/Shanghai"))
    for tool in ("get_current_weather", "get_forecast", "get_hourly_forecast", "get_air_quality"):
        err, body = await call(env, tool, {"city": "Shanghai"})
        assert err and body["error"]["code"] == 1010
