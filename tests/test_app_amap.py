"""The Amap app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import _geo, get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.clock import TaskClock

APP = get_app("amap")
OFFICE = "121.473350,31.208680"  # Orbit Lab, Bridge 8, Jianguo Road
FUXING_PARK = "121.469150,31.216650"

H = AppHarness(APP, read_only=True, envelope={"status": "1", "info": "OK", "infocode": "10000"})
call, ok = H.call_json, H.ok_json
env = H.env_fixture()


def test_registry_and_context() -> None:
    assert APP.personalized is False and APP.category == "information"
    assert APP.context_ids() == ["default"]
    assert len(APP.tool_names) == 10
    data = APP.load_context("default")
    assert len(data["pois"]) >= 40 and {"310000", "330100", "710100"} <= set(data["cities"])


@pytest.mark.anyio
async def test_geo(env: AppEnv) -> None:
    body = await ok(env, "maps_geo", {"address": "台北101"})
    assert body["count"] == "1"
    assert body["return"][0] | {} == {"country": "中国", "province": "台湾省", "city": "台北市", "citycode": "1886",
                                      "district": "信义区", "street": "信义路五段", "number": "7号",
                                      "adcode": "710107", "location": "121.564500,25.034000", "level": "兴趣点"}
    body = await ok(env, "maps_geo", {"address": "上海市黄浦区建国中路10号8号桥三期5楼"})
    assert [r["location"] for r in body["return"]] == [OFFICE]
    body = await ok(env, "maps_geo", {"address": "杭州"})
    assert body["return"][0]["level"] == "市" and body["return"][0]["adcode"] == "330100"
    body = await ok(env, "maps_geo", {"address": "复兴公园", "city": "杭州"})
    assert body == {"status": "1", "info": "OK", "infocode": "10000", "count": "0", "return": []}


@pytest.mark.anyio
async def test_regeocode(env: AppEnv) -> None:
    body = await ok(env, "maps_regeocode", {"location": OFFICE})
    assert (body["province"], body["city"], body["district"]) == ("上海市", "上海市", "黄浦区")
    assert body["formatted_address"] == "上海市黄浦区建国中路10号8号桥三期5楼"
    body = await ok(env, "maps_regeocode", {"location": "150.0,0.0"})  # open ocean: empty fields, as Amap
    assert body["province"] == [] and body["city"] == []


@pytest.mark.anyio
async def test_text_search_and_detail(env: AppEnv) -> None:
    body = await ok(env, "maps_text_search", {"keywords": "Orbit Lab"})
    assert body["count"] == "1"
    pid = body["pois"][0]["id"]
    assert set(body["pois"][0]) == {"id", "name", "address", "typecode"}  # no location: detail is needed
    detail = await ok(env, "maps_search_detail", {"id": pid})
    assert detail["location"] == OFFICE and detail["name"] == "Orbit Lab(8号桥办公室)" and detail["tel"]
    parks = await ok(env, "maps_text_search", {"keywords": "公园", "city": "杭州", "types": "110101"})
    assert {p["name"] for p in parks["pois"]} == {"太子湾公园", "柳浪闻莺公园", "西溪国家湿地公园"}
    none = await ok(env, "maps_text_search", {"keywords": "台北101", "city": "上海"})
    assert none["pois"] == [] and none["suggestion"]["ciytes"] == [{"name": "台北市", "num": "3"}]
    restaurant = await ok(env, "maps_search_detail", {"id": (await ok(env, "maps_text_search", {
        "keywords": "鼎泰丰", "city": "台北"}))["pois"][0]["id"]})
    assert restaurant["rating"] == "4.7" and restaurant["cost"] == "180.00"


@pytest.mark.anyio
async def test_around_search(env: AppEnv) -> None:
    body = await ok(env, "maps_around_search", {"location": OFFICE, "radius": "1000", "keywords": "公园|医院"})
    assert [(p["name"], p["distance"]) for p in body["pois"]] == [
        ("打浦桥街道社区卫生服务中心", "437"), ("上海交通大学医学院附属瑞金医院", "630"), ("太平桥公园", "954"),
        ("复兴公园", "972")]
    wider = await ok(env, "maps_around_search", {"location": OFFICE, "radius": 1200, "keywords": "医院"})
    assert "上海交通大学医学院附属第九人民医院" in [p["name"] for p in wider["pois"]]
    taipei = await ok(env, "maps_around_search", {"location": "121.564500,25.034000", "radius": "500",
                                                  "keywords": "restaurant|snack"})
    assert [p["name"] for p in taipei["pois"]] == ["鼎泰丰(台北101店)", "阿宗面线(信义店)", "欣叶台菜(信义新天地A9店)"]


@pytest.mark.anyio
async def test_walking_and_driving_follow_the_documented_formulas(env: AppEnv) -> None:
    d = _geo.haversine_m(121.473350, 31.208680, 121.469150, 31.216650)
    walk = await ok(env, "maps_direction_walking", {"origin": OFFICE, "destination": FUXING_PARK})
    path = walk["route"]["paths"][0]
    assert path["distance"] == str(round(d * 1.25)) == "1215" and path["duration"] == str(round(1215 / 1.2))
    assert sum(int(s["distance"]) for s in path["steps"]) == 1215
    drive = await ok(env, "maps_direction_driving", {"origin": OFFICE, "destination": "120.148500,30.242000"})
    dist = int(drive["route"]["paths"][0]["distance"])
    assert dist == round(_geo.haversine_m(121.47335, 31.20868, 120.1485, 30.242) * 1.4)
    assert drive["route"]["paths"][0]["duration"] == str(round(10_000 * 3.6 / 25 + (dist - 10_000) * 3.6 / 80))


@pytest.mark.anyio
async def test_transit(env: AppEnv) -> None:
    body = await ok(env, "maps_direction_transit_integrated", {
        "origin": OFFICE, "destination": "121.437200,31.195100", "city": "上海", "cityd": "上海"})
    transit = body["route"]["transits"][0]
    seg = transit["segments"][0]
    assert seg["bus"]["buslines"][0]["name"] == "地铁9号线"
    assert seg["bus"]["buslines"][0]["departure_stop"]["name"] == "马当路(地铁站)"
    assert transit["cost"] == "3.0" and transit["walking_distance"] == "379"
    cross = await ok(env, "maps_direction_transit_integrated", {
        "origin": OFFICE, "destination": "120.094100,30.288000", "city": "上海市", "cityd": "杭州"})
    rails = [s["railway"] for s in cross["route"]["transits"][0]["segments"] if s["railway"]]
    assert rails[0]["name"] == "上海虹桥站-杭州东站" and rails[0]["trip"].startswith("G")


@pytest.mark.anyio
async def test_distance(env: AppEnv) -> None:
    body = await ok(env, "maps_distance", {"origins": f"{OFFICE}|{FUXING_PARK}", "destination": "121.467600,31.211500",
                                           "type": "0"})
    assert [r["origin_id"] for r in body["results"]] == ["1", "2"]
    assert body["results"][0]["distance"] == str(round(_geo.haversine_m(121.47335, 31.20868, 121.4676, 31.2115)))
    assert body["results"][0]["duration"] == "0"
    walk = await ok(env, "maps_distance", {"origins": OFFICE, "destination": "121.467600,31.211500", "type": 3})
    assert walk["results"][0]["distance"] == "788"


@pytest.mark.anyio
async def test_weather_uses_the_task_clock(env: AppEnv) -> None:
    body = await ok(env, "maps_weather", {"city": "330100"})
    assert body["city"] == "杭州市" and [c["date"] for c in body["forecasts"]] == [
        "2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"]
    assert body["forecasts"][1]["dayweather"] == "大雨" and body["forecasts"][0]["week"] == "2"
    later = APP.env("default", clock=TaskClock(now=datetime(2026, 3, 23, 8), timezone="Asia/Shanghai"))
    assert [c["date"] for c in (await ok(later, "maps_weather", {"city": "上海"}))["forecasts"]] == [
        "2026-03-23", "2026-03-24"]


ERRORS = [
    # type mismatch
    ("maps_geo", {"address": 42}, "20000", "address"),
    ("maps_around_search", {"location": OFFICE, "radius": "ten"}, "20000", "whole number"),
    ("maps_distance", {"origins": ["a"], "destination": OFFICE}, "20000", "origins"),
    ("maps_search_detail", {"id": 7}, "20000", "id"),
    # missing field
    ("maps_regeocode", {}, "20001", "location"),
    ("maps_direction_walking", {"origin": OFFICE}, "20001", "destination"),
    ("maps_direction_transit_integrated", {"origin": OFFICE, "destination": FUXING_PARK, "city": "上海"}, "20001",
     "cityd"),
    ("maps_weather", {}, "20001", "city"),
    ("maps_text_search", {"city": "上海"}, "20001", "keywords"),
    ("maps_direction_driving", {"destination": OFFICE}, "20001", "origin"),
    # out of range
    ("maps_around_search", {"location": OFFICE, "radius": "60000"}, "20000", "between 0 and 50000"),
    ("maps_distance", {"origins": OFFICE, "destination": FUXING_PARK, "type": "2"}, "20000", "type must be"),
    ("maps_direction_driving", {"origin": "200,31", "destination": OFFICE}, "20000", "|longitude| <= 180"),
    ("maps_geo", {"address": ""}, "20000", "at least 1"),
    ("maps_direction_walking", {"origin": OFFICE, "destination": "120.148500,30.242000"}, "20803", "100 km"),
    # semantic conflict: unknown ids / names, contradictory values, swapped coordinates
    ("maps_search_detail", {"id": "B0NOSUCHID"}, "20000", "no POI with id"),
    ("maps_weather", {"city": "Atlantis"}, "20000", "not a known city"),
    ("maps_geo", {"address": "外滩", "city": "Gotham"}, "20000", "not a known city"),
    ("maps_text_search", {"keywords": "公园", "city": "Narnia"}, "20000", "not a known city"),
    ("maps_regeocode", {"location": "31.208680,121.473350"}, "20000", "is 'latitude,longitude'"),
    ("maps_direction_driving", {"origin": OFFICE, "destination": "121.564500,25.034000"}, "20802", "Taiwan Strait"),
    ("maps_direction_transit_integrated", {"origin": OFFICE, "destination": FUXING_PARK, "city": "杭州",
                                           "cityd": "上海"}, "20000", "is not in 杭州市"),
    ("maps_around_search", {"location": "31.2,121.4"}, "20000", "latitude,longitude"),
    ("maps_distance", {"origins": OFFICE, "destination": "121.564500,25.034000"}, "20802", "Taiwan Strait"),
]


@pytest.mark.parametrize(("tool", "args", "code", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], code: str,
                                            needle: str) -> None:
    before = env.tree.hash()
    err, body = await call(env, tool, args)
    assert err
    assert body["status"] == "0" and body["infocode"] == code, body
    assert body["error"].endswith(f"failed: {body['info']}")
    assert needle in body["detail"], body["detail"]
    assert env.tree.hash() == before
