"""The Amap tools over the fixed Amap dataset (see ``data/hierarchies/amap.json``).

Routes, distances and durations come from :mod:`mcp_persona.apps._geo.routes` (haversine distance,
fixed detour factors and speeds per mode); nothing reads the wall clock, the network or a random source.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from pydantic import Field

from mcp_persona.apps import _geo
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json

OK_CODE, OK_INFO = "10000", "OK"
INVALID_PARAMS = "20000"
MISSING_REQUIRED_PARAMS = "20001"
UNKNOWN_ERROR = "20003"
OUT_OF_SERVICE = "20800"
ROUTE_FAIL = "20802"
OVER_DIRECTION_RANGE = "20803"
INFO = {
    INVALID_PARAMS: "INVALID_PARAMS",
    MISSING_REQUIRED_PARAMS: "MISSING_REQUIRED_PARAMS",
    UNKNOWN_ERROR: "UNKNOWN_ERROR",
    OUT_OF_SERVICE: "OUT_OF_SERVICE",
    ROUTE_FAIL: "ROUTE_FAIL",
    OVER_DIRECTION_RANGE: "OVER_DIRECTION_RANGE",
}
# The failure prefix of each tool, as the official server words it ("<prefix> failed: <info>").
PREFIX = {
    "maps_geo": "Geocoding",
    "maps_regeocode": "RGeocoding",
    "maps_text_search": "Text Search",
    "maps_around_search": "Around Search",
    "maps_search_detail": "Get poi detail",
    "maps_direction_walking": "Direction Walking",
    "maps_direction_driving": "Direction Driving",
    "maps_direction_transit_integrated": "Direction Transit Integrated",
    "maps_distance": "Direction Distance",
    "maps_weather": "Get weather",
}
WALK_MAX_M = 100_000  # the walking API plans routes of up to 100 km
MAX_RADIUS_M = 50_000
WEEKDAY = "1234567"
WIND_ZH = {"N": "北", "NE": "东北", "E": "东", "SE": "东南", "S": "南", "SW": "西南", "W": "西", "NW": "西北"}


class AmapApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return compact_json({"status": "1", "info": OK_INFO, "infocode": OK_CODE, **result})

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = str(failure.code) if failure.code is not None else (
            UNKNOWN_ERROR if failure.kind == "internal" else INVALID_PARAMS)
        info = INFO.get(code, "UNKNOWN_ERROR")
        return compact_json({"status": "0", "info": info, "infocode": code,
                             "error": f"{PREFIX.get(tool, tool)} failed: {info}", "detail": failure.message})

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        missing = any(v.kind == "missing" for v in violations)
        code = MISSING_REQUIRED_PARAMS if missing else INVALID_PARAMS
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return self.error_payload(tool, ToolFailure(detail, kind="missing" if missing else "type", code=code))


APP = AmapApp(
    "amap",
    title="Amap (Gaode Maps)",
    category="information",
    personalized=False,
    description="Amap (Gaode) location services: geocoding, POI search, route planning, distances and weather.",
    real_server="sugarforever/amap-mcp-server (official Amap MCP tool names)",
)


def _fail(message: str, code: str = INVALID_PARAMS, kind: Any = "range") -> ToolFailure:
    return ToolFailure(message, kind=kind, code=code)


# -- dataset lookups -------------------------------------------------------------------------------
def _cities(env: AppEnv) -> dict[str, dict[str, Any]]:
    return env.tree.data.get("cities") or {}


def _pois(env: AppEnv) -> list[dict[str, Any]]:
    return list((env.tree.data.get("pois") or {}).values())


def _norm(text: str) -> str:
    return "".join(text.lower().split())


def find_city(env: AppEnv, text: str) -> dict[str, Any] | None:
    """A city by name, alias, adcode or citycode (case- and space-insensitive); a district names its city."""
    probe = _norm(text)
    for city in _cities(env).values():
        names = [city["name"], city["adcode"], city["citycode"], *city.get("aliases", [])]
        if probe in (_norm(n) for n in names):
            return city
    for city in _cities(env).values():
        for d in city.get("districts", {}).values():
            if probe in (_norm(d["name"]), d["adcode"]):
                return city
    return None


def _city_arg(env: AppEnv, text: str, field: str = "city") -> dict[str, Any]:
    city = find_city(env, text)
    if city is None:
        raise _fail(f"{field} {text!r} is not a known city name, adcode or citycode", kind="not_found")
    return city


def _xy(poi: dict[str, Any]) -> tuple[float, float]:
    return _geo.parse_lnglat(poi["location"])


def _point(text: str, field: str) -> tuple[float, float]:
    try:
        return _geo.parse_lnglat(text)
    except ValueError:
        pass
    try:
        lat, _ = _geo.parse_lnglat(text, lat_first=True)
    except ValueError:
        lat = None
    if lat is not None:  # valid only the other way round: latitude and longitude were swapped
        raise _fail(f"{field} must be 'longitude,latitude'; {text!r} is 'latitude,longitude'", kind="conflict")
    raise _fail(f"{field} must be 'longitude,latitude' with |longitude| <= 180 and |latitude| <= 90, got {text!r}")


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return _geo.haversine_m(a[0], a[1], b[0], b[1])


def _in_taiwan(p: tuple[float, float]) -> bool:
    return 119.3 <= p[0] <= 122.2 and 21.8 <= p[1] <= 25.4


def _check_same_land(a: tuple[float, float], b: tuple[float, float]) -> None:
    if _in_taiwan(a) != _in_taiwan(b):
        raise _fail("no land route between the origin and the destination (across the Taiwan Strait)",
                    code=ROUTE_FAIL, kind="conflict")


def _city_of_point(env: AppEnv, p: tuple[float, float]) -> dict[str, Any] | None:
    """The city whose center is nearest to ``p``, if within 60 km."""
    best = min(_cities(env).values(), key=lambda c: _dist(p, _geo.parse_lnglat(c["center"])), default=None)
    if best is None or _dist(p, _geo.parse_lnglat(best["center"])) > 60_000:
        return None
    return best


def _street_near(env: AppEnv, p: tuple[float, float]) -> str:
    near = min(_pois(env), key=lambda q: (_dist(p, _xy(q)), q["id"]), default=None)
    return near["street"] if near is not None and _dist(p, _xy(near)) <= 500 else ""


def _match_rank(poi: dict[str, Any], keyword: str) -> int | None:
    """How well one keyword matches a POI (lower is better), or None."""
    kw = _norm(keyword)
    if not kw:
        return None
    aliases = [_norm(a) for a in (poi.get("alias") or "").split(";") if a]
    name = _norm(poi["name"])
    if kw == name or kw in aliases:
        return 0
    if kw in name:
        return 1
    if any(kw in a for a in aliases):
        return 2
    if kw in poi["type"] or kw in _norm(poi["address"]):
        return 3
    if kw in poi.get("tags", "").lower():
        return 4
    return None


def _keywords(text: str) -> list[str]:
    return [k for k in (p.strip() for p in text.replace("｜", "|").split("|")) if k]


def _best_rank(poi: dict[str, Any], keywords: list[str]) -> int | None:
    ranks = [r for r in (_match_rank(poi, k) for k in keywords) if r is not None]
    return min(ranks) if ranks else None


def _types_match(poi: dict[str, Any], types: str | None) -> bool:
    if not types:
        return True
    return any(t in poi["type"] or poi["typecode"].startswith(t) for t in _keywords(types))


def _brief(poi: dict[str, Any]) -> dict[str, Any]:
    return {"id": poi["id"], "name": poi["name"], "address": poi["address"], "typecode": poi["typecode"]}


def _geo_tier(poi: dict[str, Any], q: str) -> tuple[int, str] | None:
    """How an address query matches a POI: 0 its name or alias, 1 its street address, 2 part of its name."""
    names = [_norm(poi["name"]), *(_norm(a) for a in (poi.get("alias") or "").split(";") if a)]
    addr = _norm(poi["address"])
    if q in names:
        return 0, "兴趣点"
    if addr and any(ch.isdigit() for ch in q) and len(q) >= 4 and (q == addr or q.startswith(addr)
                                                                   or addr.startswith(q)):
        return 1, "门址"
    if len(q) >= 2 and any(q in n for n in names):
        return 2, "兴趣点"
    return None


# -- tools: geocoding ------------------------------------------------------------------------------
@APP.tool()
def maps_geo(
    env: AppEnv,
    address: str = Field(
        min_length=1, max_length=200, description="待解析的结构化地址信息, e.g. '上海市黄浦区建国中路10号' or a POI"
    ),
    city: str | None = Field(None, description="指定查询的城市: city name, adcode or citycode"),
) -> dict[str, Any]:
    """将详细的结构化地址转换为经纬度坐标。支持对地标性名胜景区、建筑物名称解析为经纬度坐标"""
    only = _city_arg(env, city) if city else None
    whole = _norm(address)
    q = whole
    for c in _cities(env).values():  # drop a leading province / city / district
        for prefix in (c["province"], c["name"], *c.get("aliases", [])):
            p = _norm(prefix)
            if p and q.startswith(p) and len(q) > len(p):
                q = q[len(p):]
        for d in c.get("districts", {}).values():
            p = _norm(d["name"])
            if q.startswith(p) and len(q) > len(p):
                q = q[len(p):]
    tiers: dict[int, list[dict[str, Any]]] = {}
    for poi in _pois(env):
        if only is not None and poi["city_adcode"] != only["adcode"]:
            continue
        best = min((t for t in (_geo_tier(poi, whole), _geo_tier(poi, q)) if t is not None), default=None)
        if best is not None:
            tiers.setdefault(best[0], []).append({**poi, "_level": best[1]})
    results: list[dict[str, Any]] = []
    for c in _cities(env).values():  # a city or district name alone geocodes to its center
        if only is not None and c["adcode"] != only["adcode"]:
            continue
        for d in c.get("districts", {}).values():
            if whole in (_norm(d["name"]), _norm(c["name"] + d["name"]), _norm(c["province"] + c["name"] + d["name"])):
                results.append({"country": "中国", "province": c["province"], "city": c["name"],
                                "citycode": c["citycode"], "district": d["name"], "street": [], "number": [],
                                "adcode": d["adcode"], "location": d["center"], "level": "区县"})
        if whole in (_norm(n) for n in [c["name"], *c.get("aliases", [])]):
            results.append({"country": "中国", "province": c["province"], "city": c["name"],
                            "citycode": c["citycode"], "district": [], "street": [], "number": [],
                            "adcode": c["adcode"], "location": c["center"], "level": "市"})
    if not results and tiers:
        best = sorted(tiers[min(tiers)], key=lambda p: p["id"])[:5]
        for poi in best:
            city_ = _cities(env)[poi["city_adcode"]]
            results.append({"country": "中国", "province": poi["province"], "city": poi["city"],
                            "citycode": city_["citycode"], "district": poi["district"], "street": poi["street"],
                            "number": poi["number"], "adcode": poi["adcode"], "location": poi["location"],
                            "level": poi["_level"]})
    return {"count": str(len(results)), "return": results}


@APP.tool()
def maps_regeocode(
    env: AppEnv,
    location: str = Field(min_length=1, description="经纬度, 'longitude,latitude', e.g. '121.473350,31.208680'"),
) -> dict[str, Any]:
    """将一个高德经纬度坐标转换为行政区划地址信息"""
    p = _point(location, "location")
    near = min(_pois(env), key=lambda q: (_dist(p, _xy(q)), q["id"]), default=None)
    if near is not None and _dist(p, _xy(near)) <= 3000:
        d = round(_dist(p, _xy(near)))
        formatted = f"{near['province'] if near['province'] != near['city'] else ''}{near['city']}{near['district']}" \
                    f"{near['address']}{near['name'] if d > 50 else ''}"
        return {"province": near["province"], "city": near["city"], "district": near["district"],
                "adcode": near["adcode"], "formatted_address": formatted,
                "nearest_poi": {"id": near["id"], "name": near["name"], "distance": str(d)}}
    for c in _cities(env).values():
        for dist_ in c.get("districts", {}).values():
            if _dist(p, _geo.parse_lnglat(dist_["center"])) <= 8000:
                return {"province": c["province"], "city": c["name"], "district": dist_["name"],
                        "adcode": dist_["adcode"], "formatted_address": f"{c['province']}{c['name']}{dist_['name']}"}
    city = _city_of_point(env, p)
    if city is not None:
        return {"province": city["province"], "city": city["name"], "district": [], "adcode": city["adcode"],
                "formatted_address": f"{city['province']}{city['name']}"}
    return {"province": [], "city": [], "district": [], "adcode": [], "formatted_address": []}


# -- tools: search ----------------------------------------------------------------------------------
@APP.tool()
def maps_text_search(
    env: AppEnv,
    keywords: str = Field(min_length=1, description="搜索关键词; several keywords separated by '|' match any"),
    city: str | None = Field(None, description="查询城市 (name, adcode or citycode); restricts the results to it"),
    types: str | None = Field(None, description="POI类型, e.g. '公园' or a typecode such as '0901'; '|' separates"),
) -> dict[str, Any]:
    """关键词搜，根据用户传入关键词，搜索出相关的POI"""
    only = _city_arg(env, city) if city else None
    kws = _keywords(keywords)
    if not kws:
        raise _fail("keywords must contain at least one keyword", code=MISSING_REQUIRED_PARAMS, kind="missing")
    hits, elsewhere = [], {}
    for poi in _pois(env):
        rank = _best_rank(poi, kws)
        if rank is None or not _types_match(poi, types):
            continue
        if only is not None and poi["city_adcode"] != only["adcode"]:
            elsewhere[poi["city_adcode"]] = elsewhere.get(poi["city_adcode"], 0) + 1
            continue
        hits.append((rank, poi["city_adcode"], poi["id"], poi))
    hits.sort(key=lambda h: h[:3])
    cities = [] if hits else [{"name": _cities(env)[a]["name"], "num": str(n)} for a, n in sorted(elsewhere.items())]
    pois = [_brief(h[3]) for h in hits[:20]]
    return {"count": str(len(hits)), "suggestion": {"keywords": [], "ciytes": cities}, "pois": pois}


@APP.tool()
def maps_around_search(
    env: AppEnv,
    location: str = Field(min_length=1, description="中心点经度纬度, 'longitude,latitude'"),
    radius: str | int = Field("1000", description="搜索半径 in metres, 0..50000 (default 1000)"),
    keywords: str = Field("", description="搜索关键词 ('|' separates several); empty: every POI"),
) -> dict[str, Any]:
    """周边搜，根据用户传入关键词以及坐标location，搜索出radius半径范围的POI (nearest first, with distance in metres)"""
    center = _point(location, "location")
    try:
        r = int(str(radius).strip())
    except ValueError as exc:
        raise _fail(f"radius must be a whole number of metres, got {radius!r}", kind="type") from exc
    if not 0 <= r <= MAX_RADIUS_M:
        raise _fail(f"radius must be between 0 and {MAX_RADIUS_M} metres, got {r}")
    kws = _keywords(keywords)
    found = []
    for poi in _pois(env):
        d = _dist(center, _xy(poi))
        if d > r or (kws and _best_rank(poi, kws) is None):
            continue
        found.append((round(d), poi["id"], poi))
    found.sort(key=lambda f: f[:2])
    pois = [{**_brief(p), "distance": str(d)} for d, _, p in found[:20]]
    return {"count": str(len(found)), "pois": pois}


@APP.tool()
def maps_search_detail(
    env: AppEnv,
    id: str = Field(min_length=1, description="关键词搜或者周边搜获取到的POI ID, e.g. 'B0FFGJ2K6R'"),
) -> dict[str, Any]:
    """查询关键词搜或者周边搜获取到的POI ID的详细信息"""
    poi = env.tree.top("poi", id)
    if poi is None:
        raise _fail(f"no POI with id {id!r}", kind="not_found")
    out = {"id": poi["id"], "name": poi["name"], "location": poi["location"], "address": poi["address"],
           "business_area": poi["business_area"], "city": poi["city"], "district": poi["district"],
           "type": poi["type"], "alias": poi["alias"], "tel": poi["tel"], "open_time": poi["open_time"]}
    if poi.get("rating") is not None:
        out["rating"] = poi["rating"]
    if poi.get("cost") is not None:
        out["cost"] = poi["cost"]
    if poi.get("lines"):
        out["lines"] = poi["lines"]
    return out


# -- tools: routes ----------------------------------------------------------------------------------
def _steps(env: AppEnv, a: tuple[float, float], b: tuple[float, float], dist: int, dur: int, verb: str
           ) -> list[dict[str, Any]]:
    if dist == 0:
        return []
    heading = _geo.compass_zh(_geo.bearing_deg(a[0], a[1], b[0], b[1]))
    road_a, road_b = _street_near(env, a), _street_near(env, b)
    d1, t1 = round(dist * 0.6), round(dur * 0.6)
    first = {"instruction": (f"沿{road_a}" if road_a else "") + f"向{heading}{verb}{d1}米", "road": road_a,
             "distance": str(d1), "orientation": heading, "duration": str(t1)}
    second = {"instruction": f"{'沿' + road_b if road_b else ''}{verb}{dist - d1}米到达目的地", "road": road_b,
              "distance": str(dist - d1), "orientation": heading, "duration": str(dur - t1)}
    return [first, second]


def _route(env: AppEnv, origin: str, destination: str, mode: str) -> dict[str, Any]:
    a, b = _point(origin, "origin"), _point(destination, "destination")
    _check_same_land(a, b)
    d = _dist(a, b)
    if mode == "walk":
        dist, dur = _geo.walking(d)
        if dist > WALK_MAX_M:
            raise _fail(f"walking routes are planned up to 100 km; this one is {dist} m", code=OVER_DIRECTION_RANGE,
                        kind="conflict")
        verb = "步行"
    else:
        dist, dur = _geo.driving(d)
        verb = "行驶"
    path = {"distance": str(dist), "duration": str(dur), "steps": _steps(env, a, b, dist, dur, verb)}
    return {"route": {"origin": origin, "destination": destination, "paths": [path]}}


@APP.tool()
def maps_direction_walking(
    env: AppEnv,
    origin: str = Field(min_length=1, description="出发点经度，纬度，坐标格式为：经度，纬度"),
    destination: str = Field(min_length=1, description="目的地经度，纬度，坐标格式为：经度，纬度"),
) -> dict[str, Any]:
    """步行路径规划 API 可以根据输入起点终点经纬度坐标规划100km 以内的步行通勤方案，并且返回通勤方案的数据"""
    return _route(env, origin, destination, "walk")


@APP.tool()
def maps_direction_driving(
    env: AppEnv,
    origin: str = Field(min_length=1, description="出发点经度，纬度，坐标格式为：经度，纬度"),
    destination: str = Field(min_length=1, description="目的地经度，纬度，坐标格式为：经度，纬度"),
) -> dict[str, Any]:
    """驾车路径规划 API 可以根据用户起终点经纬度坐标规划以小客车、轿车通勤出行的方案，并且返回通勤方案的数据。"""
    return _route(env, origin, destination, "drive")


def _stations(env: AppEnv, city: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for poi in sorted(_pois(env), key=lambda p: p["id"]):
        if poi["city_adcode"] == city["adcode"] and poi.get("lines"):
            lng, lat = _xy(poi)
            out.append({"name": poi["name"], "lng": lng, "lat": lat, "lines": poi["lines"], "tags": poi["tags"],
                        "railway": poi["railway"]})
    return out


def _metro_fare(distance: int) -> float:
    """3 yuan for the first 6 km, then 1 yuan per started 10 km."""
    extra = max(0, distance - 6000)
    return 3.0 + -(-extra // 10_000)


def _segments(legs: list[_geo.Leg]) -> tuple[list[dict[str, Any]], float]:
    segments: list[dict[str, Any]] = []
    walking: dict[str, Any] = {}
    cost = 0.0
    for leg in legs:
        if leg.mode == "walk":
            if leg.distance == 0:
                continue
            walking = {"origin": _geo.format_lnglat(*leg.start_xy), "destination": _geo.format_lnglat(*leg.end_xy),
                       "distance": str(leg.distance), "duration": str(leg.duration),
                       "steps": [{"instruction": f"步行{leg.distance}米到达{leg.end}", "road": "",
                                  "distance": str(leg.distance), "action": [], "assistant_action": f"到达{leg.end}"}]}
            continue
        seg: dict[str, Any] = {"walking": walking, "bus": {"buslines": []}, "entrance": {}, "exit": {}, "railway": {}}
        if leg.mode == "metro":
            seg["bus"]["buslines"] = [{"name": f"{leg.line}", "departure_stop": {"name": leg.start},
                                       "arrival_stop": {"name": leg.end}, "distance": str(leg.distance),
                                       "duration": str(leg.duration), "via_stops": []}]
            seg["entrance"], seg["exit"] = {"name": leg.start}, {"name": leg.end}
            cost += _metro_fare(leg.distance)
        else:
            seg["railway"] = {"name": f"{leg.start}-{leg.end}", "trip": leg.line, "distance": str(leg.distance),
                              "time": str(leg.duration)}
            cost += round(leg.distance / 1000 * 0.46, 1)
        segments.append(seg)
        walking = {}
    if walking:
        segments.append({"walking": walking, "bus": {"buslines": []}, "entrance": {}, "exit": {}, "railway": {}})
    return segments, cost


@APP.tool()
def maps_direction_transit_integrated(
    env: AppEnv,
    origin: str = Field(min_length=1, description="出发点经度，纬度，坐标格式为：经度，纬度"),
    destination: str = Field(min_length=1, description="目的地经度，纬度，坐标格式为：经度，纬度"),
    city: str = Field(min_length=1, description="公共交通规划起点城市"),
    cityd: str = Field(min_length=1, description="公共交通规划终点城市"),
) -> dict[str, Any]:
    """公交路径规划 API 可以根据用户起终点经纬度坐标规划综合各类公共（火车、公交、地铁）交通方式的通勤方案，
    并且返回通勤方案的数据，跨城场景下必须传起点城市与终点城市"""
    a, b = _point(origin, "origin"), _point(destination, "destination")
    c1, c2 = _city_arg(env, city), _city_arg(env, cityd, "cityd")
    for p, c, field in ((a, c1, "origin"), (b, c2, "destination")):
        where = _city_of_point(env, p)
        if where is None or where["adcode"] != c["adcode"]:
            raise _fail(f"{field} {_geo.format_lnglat(*p)} is not in {c['name']}", kind="conflict")
    _check_same_land(a, b)
    if c1["adcode"] == c2["adcode"]:
        legs = _geo.transit_legs(a, b, _stations(env, c1))
    else:
        def rail_station(c: dict[str, Any], p: tuple[float, float]) -> dict[str, Any]:
            rails = [s for s in _stations(env, c) if s["railway"]]
            fast = [s for s in rails if "high-speed" in s["tags"]] or rails
            found = _geo.nearest(fast, *p)
            if found is None:
                raise _fail(f"{c['name']} has no railway station in the dataset", code=ROUTE_FAIL, kind="conflict")
            return found
        s1, s2 = rail_station(c1, a), rail_station(c2, b)
        trip = "G" + str(7300 + int(hashlib.sha1(f"{s1['name']}>{s2['name']}".encode()).hexdigest(), 16) % 200)
        legs = [*_geo.transit_legs(a, (s1["lng"], s1["lat"]), _stations(env, c1), "起点", s1["name"]),
                _geo.rail_leg(s1, s2, trip),
                *_geo.transit_legs((s2["lng"], s2["lat"]), b, _stations(env, c2), s2["name"], "终点")]
    segments, cost = _segments(legs)
    transit = {"cost": f"{cost:.1f}", "duration": str(sum(leg.duration for leg in legs)),
               "walking_distance": str(sum(leg.distance for leg in legs if leg.mode == "walk")),
               "segments": segments}
    return {"route": {"origin": origin, "destination": destination, "distance": str(round(_dist(a, b))),
                      "transits": [transit]}}


@APP.tool()
def maps_distance(
    env: AppEnv,
    origins: str = Field(min_length=1, description="起点经度，纬度，可以传多个坐标，使用竖线隔离，比如120,30|120,31"),
    destination: str = Field(min_length=1, description="终点经度，纬度，坐标格式为：经度，纬度"),
    type: str | int = Field("1", description="距离测量类型: 1 驾车距离测量 (default), 0 直线距离测量, 3 步行距离测量"),
) -> dict[str, Any]:
    """距离测量 API 可以测量两个经纬度坐标之间的距离,支持驾车、步行以及球面距离测量"""
    kind = str(type).strip()
    if kind not in ("0", "1", "3"):
        raise _fail(f"type must be 0 (straight line), 1 (driving) or 3 (walking), got {type!r}")
    parts = [o for o in origins.split("|")]
    if len(parts) > 100:
        raise _fail(f"at most 100 origins are allowed, got {len(parts)}")
    b = _point(destination, "destination")
    results = []
    for i, raw in enumerate(parts, start=1):
        a = _point(raw, f"origins[{i}]")
        d = _dist(a, b)
        if kind == "0":
            dist, dur = _geo.straight(d)
        else:
            _check_same_land(a, b)
            dist, dur = _geo.driving(d) if kind == "1" else _geo.walking(d)
            if kind == "3" and dist > WALK_MAX_M:
                raise _fail(f"origin {i}: walking distance is measured up to 100 km", code=OVER_DIRECTION_RANGE,
                            kind="conflict")
        results.append({"origin_id": str(i), "dest_id": "1", "distance": str(dist), "duration": str(dur)})
    return {"results": results}


# -- tools: weather ---------------------------------------------------------------------------------
def _power(wind_kph: float) -> str:
    force = _geo.beaufort(wind_kph)
    return "1-3" if force <= 3 else str(force)


def cast(day: dict[str, Any]) -> dict[str, Any]:
    """An Amap forecast 'cast' from a daily weather record."""
    from datetime import date as _date

    d = _date.fromisoformat(day["date"])
    hi, lo = round(day["temp_max"]), round(day["temp_min"])
    wind = WIND_ZH[day["wind_dir"]]
    return {"date": day["date"], "week": WEEKDAY[d.weekday()],
            "dayweather": _geo.condition_text(day["condition_day"], lang="zh"),
            "nightweather": _geo.condition_text(day["condition_night"], lang="zh"),
            "daytemp": str(hi), "nighttemp": str(lo), "daywind": wind, "nightwind": wind,
            "daypower": _power(day["wind_kph"]), "nightpower": _power(day["wind_kph"] * 0.8),
            "daytemp_float": f"{hi:.1f}", "nighttemp_float": f"{lo:.1f}"}


@APP.tool()
def maps_weather(
    env: AppEnv,
    city: str = Field(min_length=1, description="城市名称或者adcode, e.g. '上海', '杭州市' or '330100'"),
) -> dict[str, Any]:
    """根据城市名称或者标准adcode查询指定城市的天气 (today and the next three days)"""
    c = _city_arg(env, city)
    today = env.clock.current().astimezone(_tz_for(c)).date()
    casts = []
    for i in range(4):
        day = c.get("days", {}).get((today + timedelta(days=i)).isoformat())
        if day is not None:
            casts.append(cast(day))
    if not casts or casts[0]["date"] != today.isoformat():
        raise _fail(f"no forecast for {c['name']} on {today.isoformat()}", code=UNKNOWN_ERROR, kind="conflict")
    return {"city": c["name"], "adcode": c["adcode"], "forecasts": casts}


def _tz_for(city: dict[str, Any]) -> Any:
    from zoneinfo import ZoneInfo

    return ZoneInfo("Asia/Taipei" if city["adcode"].startswith("71") else "Asia/Shanghai")
