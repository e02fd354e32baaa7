"""The Baidu Maps app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import _geo, get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.clock import TaskClock

APP = get_app("baidu_maps")
OFFICE = (121.479875, 31.214619)  # Orbit Lab in BD-09 (lng, lat)
OFFICE_LATLNG = "31.214619,121.479875"

H = AppHarness(APP, read_only=True, envelope={"status": 0})
call, ok = H.call_json, H.ok_json
env = H.env_fixture()


def test_registry_and_context() -> None:
    assert APP.personalized is False and APP.category == "information"
    assert APP.context_ids() == ["default"] and len(APP.tool_names) == 9


@pytest.mark.anyio
async def test_geocode_and_reverse(env: AppEnv) -> None:
    body = await ok(env, "map_geocode", {"address": "Orbit Lab(8号桥办公室)"})
    assert body["result"]["location"] == {"lng": OFFICE[0], "lat": OFFICE[1]}
    assert (await ok(env, "map_geocode", {"address": "台北101"}))["result"]["level"] == "旅游景点"
    assert (await ok(env, "map_geocode", {"address": "杭州市"}))["result"]["level"] == "城市"
    rev = await ok(env, "map_reverse_geocode", {"latitude": OFFICE[1], "longitude": OFFICE[0]})
    comp = rev["result"]["addressComponent"]
    assert (comp["city"], comp["district"], comp["street"]) == ("上海市", "黄浦区", "建国中路")
    assert rev["result"]["pois"][0]["name"] == "Orbit Lab(8号桥办公室)" and rev["result"]["cityCode"] == 289


@pytest.mark.anyio
async def test_search_places_and_details(env: AppEnv) -> None:
    around = await ok(env, "map_search_places", {"query": "公园,医院", "location": OFFICE_LATLNG, "radius": 1000})
    assert [r["name"] for r in around["results"]] == ["打浦桥街道社区卫生服务中心", "上海交通大学医学院附属瑞金医院",
                                                    "太平桥公园", "复兴公园"]
    assert [r["detail_info"]["distance"] for r in around["results"]] == sorted(
        r["detail_info"]["distance"] for r in around["results"])
    parks = await ok(env, "map_search_places", {"query": "公园", "tag": "旅游景点", "region": "杭州"})
    assert around["total"] == 4 and parks["total"] == 3
    uid = (await ok(env, "map_search_places", {"query": "鼎泰丰", "region": "台北市"}))["results"][0]["uid"]
    detail = await ok(env, "map_place_details", {"uid": uid})
    assert detail["result"]["name"] == "鼎泰丰(台北101店)" and detail["result"]["detail_info"]["price"] == "180.0"


@pytest.mark.anyio
async def test_directions_and_matrix(env: AppEnv) -> None:
    walk = await ok(env, "map_directions", {"origin": OFFICE_LATLNG, "destination": "复兴公园", "model": "walking"})
    route = walk["result"]["routes"][0]
    park = walk["result"]["destination"]
    d = _geo.haversine_m(OFFICE[0], OFFICE[1], park["lng"], park["lat"])
    assert route["distance"] == round(d * 1.25) and route["duration"] == round(route["distance"] / 1.2)
    transit = await ok(env, "map_directions", {"origin": "Orbit Lab(8号桥办公室)", "destination": "徐家汇公园",
                                               "model": "transit"})
    kinds = [s[0]["type"] for s in transit["result"]["routes"][0]["steps"]]
    assert 3 in kinds and kinds[0] == 5
    drive = await ok(env, "map_directions", {"origin": OFFICE_LATLNG, "destination": "西湖风景名胜区"})
    assert drive["result"]["routes"][0]["distance"] > 150_000
    matrix = await ok(env, "map_directions_matrix", {"origins": f"{OFFICE_LATLNG}|31.222670,121.475661",
                                                     "destinations": "31.217548,121.474099", "model": "walking"})
    assert len(matrix["result"]) == 2 and matrix["message"] == "成功"
    assert matrix["result"][0]["distance"]["text"].endswith("米")


@pytest.mark.anyio
async def test_weather_ip_and_traffic(env: AppEnv) -> None:
    w = await ok(env, "map_weather", {"district_id": "310101"})
    assert w["result"]["location"]["name"] == "黄浦区" and w["result"]["now"]["text"] == "雾"
    assert [f["date"] for f in w["result"]["forecasts"]][:2] == ["2026-03-10", "2026-03-11"]
    assert len(w["result"]["forecasts"]) == 5 and w["result"]["now"]["uptime"] == "20260310090000"
    by_point = await ok(env, "map_weather", {"location": "120.16,30.27"})
    assert by_point["result"]["location"]["city"] == "杭州市"
    ip = await ok(env, "map_ip_location", {})
    assert ip["content"]["address_detail"]["city"] == "上海市" and ip["address"].startswith("CN|上海市")
    hz = await ok(env, "map_ip_location", {"ip": "101.71.8.8"})
    assert hz["content"]["address_detail"]["city"] == "杭州市"
    road = await ok(env, "map_road_traffic", {"model": "road", "road_name": "延安高架路", "city": "上海市"})
    assert road["evaluation"] == {"status": 3, "status_desc": "拥堵"}  # 09:30 is the morning peak
    evening = APP.env("default", clock=TaskClock(now=datetime(2026, 3, 10, 18, 0), timezone="Asia/Shanghai"))
    road = await ok(evening, "map_road_traffic", {"model": "road", "road_name": "延安高架路", "city": "上海市"})
    assert road["evaluation"]["status"] == 4 and road["road_traffic"][0]["congestion_sections"][0]["speed"] == 9.8


ERRORS = [
    # type mismatch
    ("map_reverse_geocode", {"latitude": "north", "longitude": 121.4}, 2, "latitude"),
    ("map_search_places", {"query": "公园", "radius": "far"}, 2, "radius"),
    ("map_place_details", {"uid": 12}, 2, "uid"),
    ("map_ip_location", {"ip": 12345}, 2, "ip"),
    # missing
    ("map_geocode", {}, 2, "address"),
    ("map_directions", {"origin": OFFICE_LATLNG}, 2, "destination"),
    ("map_directions_matrix", {"origins": OFFICE_LATLNG}, 2, "destinations"),
    ("map_road_traffic", {"road_name": "建国中路"}, 2, "model"),
    ("map_weather", {}, 2, "give location or district_id"),
    ("map_road_traffic", {"model": "road", "city": "上海"}, 2, "road_name and city are required"),
    # out of range
    ("map_reverse_geocode", {"latitude": 91, "longitude": 121.4}, 2, "less than or equal to 90"),
    ("map_search_places", {"query": "公园", "location": OFFICE_LATLNG, "radius": 0}, 2, "greater than or equal"),
    ("map_directions", {"origin": OFFICE_LATLNG, "destination": "复兴公园", "model": "flying"}, 2, "model"),
    ("map_weather", {"district_id": "31010"}, 2, "6-digit"),
    ("map_road_traffic", {"model": "road", "road_name": "建国中路", "city": "上海", "radius": 5000}, 2, "radius"),
    ("map_geocode", {"address": "上海", "is_china": "maybe"}, 2, "is_china"),
    # semantic conflict / unknown
    ("map_place_details", {"uid": "0" * 24}, 2, "does not name a place"),
    ("map_geocode", {"address": "霍格沃茨魔法学校"}, 1, "无相关结果"),
    ("map_search_places", {"query": "公园", "region": "Atlantis"}, 2, "not a known city"),
    ("map_directions", {"origin": "121.479875,31.214619", "destination": "复兴公园"}, 2, "latitude first"),
    ("map_directions", {"origin": OFFICE_LATLNG, "destination": "台北101"}, 1, "Taiwan Strait"),
    ("map_directions_matrix", {"origins": OFFICE_LATLNG, "destinations": "25.04,121.57"}, 1, "Taiwan Strait"),
    ("map_ip_location", {"ip": "192.168.1.10"}, 2, "private address"),
    ("map_ip_location", {"ip": "8.8.8.8"}, 1, "定位失败"),
    ("map_weather", {"district_id": "999999"}, 2, "not a known district"),
    ("map_road_traffic", {"model": "road", "road_name": "建国中路南向北", "city": "上海"}, 2, "not one of"),
    ("map_road_traffic", {"model": "around", "center": OFFICE_LATLNG, "radius": 500}, 2, "use model=road"),
]


@pytest.mark.parametrize(("tool", "args", "status", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], status: int,
                                            needle: str) -> None:
    before = env.tree.hash()
    err, body = await call(env, tool, args)
    assert err and body["status"] == status, body
    assert body["message"].startswith("Parameter Invalid: " if status == 2 else "Internal Service Error: ")
    assert needle in body["message"], body["message"]
    assert env.tree.hash() == before
