"""The Baidu Maps tools over the fixed Baidu dataset (see ``data/hierarchies/baidu_maps.json``)."""

from __future__ import annotations

import hashlib
import ipaddress
from datetime import timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from mcp_persona.apps import _geo
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, unicode_json

INTERNAL = 1  # "Internal Service Error" (also: no result)
PARAM_INVALID = 2  # "Parameter Invalid"
WEEK = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"]
WIND_ZH = {"N": "北风", "NE": "东北风", "E": "东风", "SE": "东南风", "S": "南风", "SW": "西南风", "W": "西风",
           "NW": "西北风"}
TRAFFIC_DESC = {0: "未知路况", 1: "畅通", 2: "缓行", 3: "拥堵", 4: "严重拥堵"}
WALK_MAX_M = 200_000


class BaiduApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return unicode_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code if failure.code is not None else (INTERNAL if failure.kind == "internal"
                                                               else PARAM_INVALID)
        head = "Parameter Invalid" if code == PARAM_INVALID else "Internal Service Error"
        return unicode_json({"status": code, "message": f"{head}: {failure.message}"})

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return self.error_payload(tool, ToolFailure(detail, kind="type", code=PARAM_INVALID))


APP = BaiduApp(
    "baidu_maps",
    title="Baidu Maps",
    category="information",
    personalized=False,
    description="Baidu Maps location services: geocoding, place search, routes, weather, IP location, road traffic.",
    real_server="baidu-maps/mcp (mcp-server-baidu-maps)",
)


def _fail(message: str, code: int = PARAM_INVALID, kind: Any = "range") -> ToolFailure:
    return ToolFailure(message, kind=kind, code=code)


def _ok(**fields: Any) -> dict[str, Any]:
    return {"status": 0, "message": "ok", **fields}


def _cities(env: AppEnv) -> dict[str, dict[str, Any]]:
    return env.tree.data.get("cities") or {}


def _pois(env: AppEnv) -> list[dict[str, Any]]:
    return sorted((env.tree.data.get("pois") or {}).values(), key=lambda p: p["uid"])


def _norm(text: str) -> str:
    return "".join(str(text).lower().split())


def _find_city(env: AppEnv, text: str) -> dict[str, Any] | None:
    probe = _norm(text)
    for c in _cities(env).values():
        if probe in (_norm(x) for x in [c["name"], c["district_id"], str(c["city_code"]), *c.get("aliases", [])]):
            return c
    return None


def _xy(p: dict[str, Any]) -> tuple[float, float]:
    return float(p["location"]["lng"]), float(p["location"]["lat"])


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return _geo.haversine_m(a[0], a[1], b[0], b[1])


def _latlng(text: str, field: str) -> tuple[float, float]:
    """A 'lat,lng' argument (Baidu puts latitude first) as (lng, lat)."""
    try:
        return _geo.parse_lnglat(text, lat_first=True)
    except ValueError:
        pass
    try:
        _geo.parse_lnglat(text)
    except ValueError as exc:
        raise _fail(f"{field} must be 'latitude,longitude', got {text!r}") from exc
    raise _fail(f"{field} must be 'latitude,longitude' (latitude first); {text!r} is 'longitude,latitude'",
                kind="conflict")


def _loc(p: tuple[float, float]) -> dict[str, float]:
    return {"lng": round(p[0], 6), "lat": round(p[1], 6)}


def _names(poi: dict[str, Any]) -> list[str]:
    return [_norm(poi["name"]), *(_norm(a) for a in (poi.get("alias") or "").split(";") if a)]


def _rank(poi: dict[str, Any], kw: str) -> int | None:
    k = _norm(kw)
    if not k:
        return None
    names = _names(poi)
    if k in names:
        return 0
    if any(k in n for n in names):
        return 1
    if k in poi["tag"] or k in _norm(poi["address"]):
        return 2
    if k in poi.get("tags", "").lower():
        return 3
    return None


def _brief(poi: dict[str, Any], distance: int | None = None) -> dict[str, Any]:
    info: dict[str, Any] = {"tag": poi["tag"]}
    if distance is not None:
        info["distance"] = distance
    if poi.get("overall_rating"):
        info["overall_rating"] = poi["overall_rating"]
    if poi.get("price"):
        info["price"] = poi["price"]
    return {"name": poi["name"], "location": dict(poi["location"]), "address": poi["address"],
            "province": poi["province"], "city": poi["city"], "area": poi["area"], "telephone": poi["telephone"],
            "detail": 1, "uid": poi["uid"], "detail_info": info}


def _in_taiwan(p: tuple[float, float]) -> bool:
    return 119.3 <= p[0] <= 122.2 and 21.8 <= p[1] <= 25.4


def _city_of_point(env: AppEnv, p: tuple[float, float], limit_m: float = 60_000) -> dict[str, Any] | None:
    best = min(_cities(env).values(), key=lambda c: _dist(p, (c["center"]["lng"], c["center"]["lat"])), default=None)
    if best is None or _dist(p, (best["center"]["lng"], best["center"]["lat"])) > limit_m:
        return None
    return best


# -- geocoding ----------------------------------------------------------------------------------------
def _geocode(env: AppEnv, address: str) -> tuple[tuple[float, float], str, int]:
    """(point, level, confidence) for an address, or a no-result failure."""
    q = _norm(address)
    for c in _cities(env).values():
        for d in c.get("districts", {}).values():
            if q in (_norm(d["name"]), _norm(c["name"] + d["name"])):
                return (d["center"]["lng"], d["center"]["lat"]), "区县", 50
        if q in (_norm(x) for x in [c["name"], *c.get("aliases", [])]):
            return (c["center"]["lng"], c["center"]["lat"]), "城市", 20
    stripped = q
    for c in _cities(env).values():
        for prefix in (c["province"], c["name"], *(d["name"] for d in c.get("districts", {}).values())):
            if stripped.startswith(_norm(prefix)) and len(stripped) > len(_norm(prefix)):
                stripped = stripped[len(_norm(prefix)):]
    best: tuple[int, str, dict[str, Any]] | None = None
    for poi in _pois(env):
        street_addr = _norm(poi["address"]).removeprefix(_norm(poi["city"] + poi["area"]))
        if q in _names(poi) or stripped in _names(poi):
            tier = 0
        elif any(ch.isdigit() for ch in stripped) and len(stripped) >= 4 and (
                street_addr.startswith(stripped) or stripped.startswith(street_addr)):
            tier = 1
        elif len(stripped) >= 2 and any(stripped in n for n in _names(poi)):
            tier = 2
        else:
            continue
        if best is None or (tier, poi["uid"]) < best[:2]:
            best = (tier, poi["uid"], poi)
    if best is None:
        raise _fail(f"无相关结果 for address {address!r}", code=INTERNAL, kind="not_found")
    level = {"park": "旅游景点", "scenic": "旅游景点", "landmark": "旅游景点", "museum": "旅游景点"}.get(
        best[2]["category"], "门址" if best[0] == 1 else "商务大厦")
    return _xy(best[2]), level, (80 if best[0] < 2 else 60)


@APP.tool()
def map_geocode(
    env: AppEnv,
    address: str = Field(min_length=1, max_length=84, description="待解析的地址, e.g. '上海市黄浦区建国中路10号'"),
    is_china: str = Field("true", description="查询地是否在中国大陆以外地区, 'true' or 'false' (default 'true')"),
) -> dict[str, Any]:
    """地理编码服务: 将地址解析为对应的位置坐标 (BD-09).地址结构越完整, 地址内容越准确, 解析的坐标精度越高."""
    _check_is_china(is_china)
    point, level, confidence = _geocode(env, address)
    return _ok(result={"location": _loc(point), "precise": 1 if level in ("门址", "商务大厦", "旅游景点") else 0,
                       "confidence": confidence, "comprehension": 100, "level": level})


@APP.tool()
def map_reverse_geocode(
    env: AppEnv,
    latitude: float = Field(ge=-90, le=90, description="纬度 (bd09ll)"),
    longitude: float = Field(ge=-180, le=180, description="经度 (bd09ll)"),
) -> dict[str, Any]:
    """逆地理编码服务: 根据纬经度坐标, 获取对应位置的地址描述, 所在行政区划, 道路以及相关POI等信息"""
    p = (longitude, latitude)
    city = _city_of_point(env, p)
    near = sorted(((round(_dist(p, _xy(q))), q["uid"], q) for q in _pois(env)), key=lambda t: t[:2])
    close = [t for t in near if t[0] <= 1000][:5]
    comp = {"country": "中国" if city else "", "province": city["province"] if city else "",
            "city": city["name"] if city else "", "district": "", "street": "", "street_number": "",
            "adcode": city["district_id"] if city else "0"}
    formatted, business, semantic = "", "", ""
    if city is not None:
        dist_ = min(city.get("districts", {}).values(),
                    key=lambda d: _dist(p, (d["center"]["lng"], d["center"]["lat"])), default=None)
        if near and near[0][0] <= 3000:
            top = near[0][2]
            comp.update(district=top["area"], street=top["street"], adcode=top["district_id"])
            business = top["business_area"]
            semantic = f"{top['name']}附近{near[0][0]}米"
        elif dist_ is not None:
            comp.update(district=dist_["name"], adcode=dist_["district_id"])
        formatted = f"{comp['province'] if comp['province'] != comp['city'] else ''}{comp['city']}" \
                    f"{comp['district']}{comp['street']}"
    pois = [{"name": q["name"], "uid": q["uid"], "distance": str(d), "addr": q["address"], "tag": q["tag"]}
            for d, _, q in close]
    return _ok(result={"location": _loc(p), "formatted_address": formatted, "business": business,
                       "addressComponent": comp, "pois": pois, "sematic_description": semantic,
                       "cityCode": city["city_code"] if city else 0})


# -- places -------------------------------------------------------------------------------------------
@APP.tool()
def map_search_places(
    env: AppEnv,
    query: str = Field(min_length=1, description="检索关键字; up to 10 keywords separated by ',' match any"),
    tag: str | None = Field(None, description="检索分类, e.g. '美食' or '医疗,旅游景点'"),
    region: str = Field("全国", description="检索的城市名称或citycode, e.g. '上海市' or '289'; default '全国'"),
    location: str | None = Field(None, description="圆形区域检索的中心点纬经度坐标, 'lat,lng'"),
    radius: int = Field(1000, ge=1, le=50000, description="圆形区域检索半径, 单位：米"),
    is_china: str = Field("true", description="检索地是否在中国大陆以外地区, 'true' or 'false'"),
) -> dict[str, Any]:
    """地点检索服务: 城市内检索 (region) 或圆形区域检索 (location + radius, nearest first)."""
    _check_is_china(is_china)
    kws = [k for k in (x.strip() for x in query.replace("，", ",").split(",")) if k]
    if not kws or len(kws) > 10:
        raise _fail("query must hold 1 to 10 keywords separated by ','")
    tags = [t.strip() for t in (tag or "").replace("，", ",").split(",") if t.strip()]
    center = _latlng(location, "location") if location else None
    city = None
    if center is None and _norm(region) not in ("全国", "china"):
        city = _find_city(env, region)
        if city is None:
            raise _fail(f"region {region!r} is not a known city name or citycode", kind="not_found")
    hits = []
    for poi in _pois(env):
        ranks = [r for r in (_rank(poi, k) for k in kws) if r is not None]
        if not ranks or (tags and not any(t in poi["tag"] for t in tags)):
            continue
        if city is not None and poi["city_district_id"] != city["district_id"]:
            continue
        if center is not None:
            d = round(_dist(center, _xy(poi)))
            if d > radius:
                continue
            hits.append((d, poi["uid"], _brief(poi, d)))
        else:
            hits.append((min(ranks), poi["uid"], _brief(poi)))
    hits.sort(key=lambda h: h[:2])
    return _ok(result_type="poi_type", total=len(hits), results=[h[2] for h in hits[:20]])


@APP.tool()
def map_place_details(
    env: AppEnv,
    uid: str = Field(min_length=1, description="POI的唯一标识 (uid from map_search_places)"),
) -> dict[str, Any]:
    """地点详情检索服务: 传入uid, 检索POI详情信息, 如评分、营业时间等."""
    poi = env.tree.top("poi", uid)
    if poi is None:
        raise _fail(f"uid {uid!r} does not name a place", kind="not_found")
    info = {"tag": poi["tag"], "type": poi["category"], "detail_url": f"http://api.map.baidu.com/place/detail?uid={uid}"
            "&output=html&source=placeapi_v2", "shop_hours": poi["shop_hours"]}
    if poi.get("overall_rating"):
        info["overall_rating"] = poi["overall_rating"]
    if poi.get("price"):
        info["price"] = poi["price"]
    if poi.get("lines"):
        info["lines"] = poi["lines"]
    return _ok(result={"uid": uid, "name": poi["name"], "location": dict(poi["location"]), "address": poi["address"],
                       "province": poi["province"], "city": poi["city"], "area": poi["area"],
                       "telephone": poi["telephone"], "detail": 1, "detail_info": info})


# -- routes -------------------------------------------------------------------------------------------
def _endpoint(env: AppEnv, text: str, field: str) -> tuple[float, float]:
    t = text.strip()
    if t and (t[0].isdigit() or t[0] in "+-") and "," in t:
        return _latlng(t, field)
    return _geocode(env, t)[0]


def _steps(a: tuple[float, float], b: tuple[float, float], dist: int, dur: int, verb: str) -> list[dict[str, Any]]:
    if dist == 0:
        return []
    heading = _geo.compass_zh(_geo.bearing_deg(a[0], a[1], b[0], b[1]))
    d1, t1 = round(dist * 0.6), round(dur * 0.6)
    return [{"distance": d1, "duration": t1, "instruction": f"向{heading}{verb}{d1}米"},
            {"distance": dist - d1, "duration": dur - t1, "instruction": f"{verb}{dist - d1}米, 到达终点"}]


def _stations(env: AppEnv, city: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": p["name"], "lng": _xy(p)[0], "lat": _xy(p)[1], "lines": p["lines"], "tags": p["tags"],
             "railway": p["category"] == "railway"}
            for p in _pois(env) if p["city_district_id"] == city["district_id"] and p.get("lines")]


def _transit(env: AppEnv, a: tuple[float, float], b: tuple[float, float]) -> dict[str, Any]:
    c1, c2 = _city_of_point(env, a), _city_of_point(env, b)
    if c1 is None or c2 is None:
        raise _fail("no public transport data around the origin or the destination", code=INTERNAL,
                    kind="conflict")
    if c1["district_id"] == c2["district_id"]:
        legs = _geo.transit_legs(a, b, _stations(env, c1))
    else:
        def rail(c: dict[str, Any], p: tuple[float, float]) -> dict[str, Any]:
            rails = [s for s in _stations(env, c) if s["railway"]]
            found = _geo.nearest([s for s in rails if "high-speed" in s["tags"]] or rails, *p)
            if found is None:
                raise _fail(f"{c['name']} has no railway station", code=INTERNAL, kind="conflict")
            return found
        s1, s2 = rail(c1, a), rail(c2, b)
        trip = "G" + str(7300 + int(hashlib.sha1(f"{s1['name']}>{s2['name']}".encode()).hexdigest(), 16) % 200)
        legs = [*_geo.transit_legs(a, (s1["lng"], s1["lat"]), _stations(env, c1), "起点", s1["name"]),
                _geo.rail_leg(s1, s2, trip),
                *_geo.transit_legs((s2["lng"], s2["lat"]), b, _stations(env, c2), s2["name"], "终点")]
    steps = []
    for leg in legs:
        if leg.mode == "walk":
            if leg.distance:
                steps.append([{"type": 5, "distance": leg.distance, "duration": leg.duration,
                               "instruction": f"步行{leg.distance}米, 到达{leg.end}"}])
        else:
            kind = 3 if leg.mode == "metro" else 1
            steps.append([{"type": kind, "distance": leg.distance, "duration": leg.duration,
                           "instruction": f"乘坐{leg.line}, 从{leg.start}到{leg.end}",
                           "vehicle_info": {"name": leg.line, "on_station": leg.start, "off_station": leg.end}}])
    return {"distance": sum(leg.distance for leg in legs), "duration": sum(leg.duration for leg in legs),
            "steps": steps}


def _check_is_china(is_china: str) -> None:
    """Baidu's own message for a value other than 'true' / 'false' (the dataset answers both the same)."""
    if is_china not in ("true", "false"):
        raise _fail(f"input `is_china` invaild, please reinput `is_china` with `true` or `false` (got {is_china!r})")


@APP.tool()
def map_directions(
    env: AppEnv,
    origin: str = Field(min_length=1, description="起点位置名称或纬经度坐标, 纬度在前, 经度在后"),
    destination: str = Field(min_length=1, description="终点位置名称或纬经度坐标, 纬度在前, 经度在后"),
    model: Literal["driving", "riding", "walking", "transit"] = Field("driving", description="路线规划类型"),
    is_china: str = Field("true", description="查询地是否在中国大陆以外地区, 'true' or 'false'"),
) -> dict[str, Any]:
    """路线规划服务: 根据起终点`位置名称`或`纬经度坐标`规划驾车、骑行、步行或公交出行路线."""
    _check_is_china(is_china)
    a, b = _endpoint(env, origin, "origin"), _endpoint(env, destination, "destination")
    if _in_taiwan(a) != _in_taiwan(b):
        raise _fail("起终点之间无可达路线 (across the Taiwan Strait)", code=INTERNAL, kind="conflict")
    d = _dist(a, b)
    if model == "transit":
        route = _transit(env, a, b)
    else:
        dist, dur = {"driving": _geo.driving, "riding": _geo.riding, "walking": _geo.walking}[model](d)
        if model == "walking" and dist > WALK_MAX_M:
            raise _fail(f"walking routes are planned up to 200 km; this one is {dist} m", kind="conflict")
        verb = {"driving": "行驶", "riding": "骑行", "walking": "步行"}[model]
        route = {"distance": dist, "duration": dur, "steps": _steps(a, b, dist, dur, verb)}
    return _ok(type=2, result={"origin": _loc(a), "destination": _loc(b), "routes": [route]})


def _dist_text(m: int) -> str:
    return f"{m}米" if m < 1000 else f"{m / 1000:.1f}公里"


def _dur_text(s: int) -> str:
    minutes = max(1, round(s / 60))
    return f"{minutes}分钟" if minutes < 60 else f"{minutes // 60}小时{minutes % 60}分钟"


@APP.tool()
def map_directions_matrix(
    env: AppEnv,
    origins: str = Field(min_length=1, description="多个起点纬经度坐标, 纬度在前, 经度在后, 多个起点用|分隔"),
    destinations: str = Field(min_length=1, description="多个终点纬经度坐标, 纬度在前, 经度在后, 多个终点用|分隔"),
    model: Literal["driving", "riding", "walking"] = Field("driving", description="批量算路类型"),
) -> dict[str, Any]:
    """批量算路服务: 根据起点和终点坐标计算路线规划距离和行驶时间 (rows: every origin × every destination)."""
    os_ = [_latlng(o, f"origins[{i}]") for i, o in enumerate(origins.split("|"), start=1)]
    ds_ = [_latlng(o, f"destinations[{i}]") for i, o in enumerate(destinations.split("|"), start=1)]
    if len(os_) * len(ds_) > 100:
        raise _fail(f"起终点个数之积不能超过100 (got {len(os_)} x {len(ds_)})")
    fn = {"driving": _geo.driving, "riding": _geo.riding, "walking": _geo.walking}[model]
    out = []
    for a in os_:
        for b in ds_:
            if _in_taiwan(a) != _in_taiwan(b):
                raise _fail("起终点之间无可达路线 (across the Taiwan Strait)", code=INTERNAL, kind="conflict")
            dist, dur = fn(_dist(a, b))
            if model == "walking" and _dist(a, b) > WALK_MAX_M:
                raise _fail("步行时任意起终点之间的距离不得超过200KM", kind="conflict")
            out.append({"distance": {"text": _dist_text(dist), "value": dist},
                        "duration": {"text": _dur_text(dur), "value": dur}})
    return {"status": 0, "message": "成功", "result": out}


# -- weather, IP, traffic -----------------------------------------------------------------------------
def _tz(city: dict[str, Any]) -> ZoneInfo:
    return ZoneInfo("Asia/Taipei" if city["district_id"].startswith("71") else "Asia/Shanghai")


@APP.tool()
def map_weather(
    env: AppEnv,
    location: str | None = Field(None, description="经纬度坐标, 经度在前纬度在后, 逗号分隔"),
    district_id: str | None = Field(None, description="行政区划代码, 需保证为6位无符号整数"),
    is_china: str = Field("true", description="查询地是否在中国大陆以外地区, 'true' or 'false'"),
) -> dict[str, Any]:
    """天气查询服务: 通过行政区划或是经纬度坐标查询实时天气信息及未来5天天气预报."""
    _check_is_china(is_china)
    name = None
    if location:
        try:
            p = _geo.parse_lnglat(location)
        except ValueError as exc:
            raise _fail(f"location must be 'longitude,latitude', got {location!r}") from exc
        city = _city_of_point(env, p, 100_000)
        if city is None:
            raise _fail(f"no weather station near {location!r}", code=INTERNAL, kind="not_found")
    elif district_id:
        if not (len(district_id) == 6 and district_id.isdigit()):
            raise _fail(f"district_id must be a 6-digit code, got {district_id!r}")
        city = next((c for c in _cities(env).values()
                     if district_id == c["district_id"] or district_id in c.get("districts", {})), None)
        if city is None:
            raise _fail(f"district_id {district_id!r} is not a known district", kind="not_found")
        name = city.get("districts", {}).get(district_id, {}).get("name")
    else:
        raise _fail("give location or district_id", kind="missing")
    now = env.clock.current().astimezone(_tz(city))
    days = city.get("days", {})
    today = days.get(now.date().isoformat())
    if today is None:
        raise _fail(f"no weather data for {now.date().isoformat()}", code=INTERNAL, kind="conflict")
    hour = _geo.hourly(today, now.hour)
    current = {"text": _geo.condition_text(hour.condition, lang="zh"), "temp": round(hour.temp_c),
               "feels_like": round(hour.feels_like_c), "rh": hour.humidity,
               "wind_class": f"{_geo.beaufort(hour.wind_kph)}级", "wind_dir": WIND_ZH[hour.wind_dir],
               "uptime": f"{now:%Y%m%d%H}0000"}
    forecasts = []
    for i in range(5):
        d = now.date() + timedelta(days=i)
        rec = days.get(d.isoformat())
        if rec is None:
            break
        forecasts.append({"text_day": _geo.condition_text(rec["condition_day"], lang="zh"),
                          "text_night": _geo.condition_text(rec["condition_night"], lang="zh"),
                          "high": round(rec["temp_max"]), "low": round(rec["temp_min"]),
                          "wc_day": f"{_geo.beaufort(rec['wind_kph'])}级", "wd_day": WIND_ZH[rec["wind_dir"]],
                          "wc_night": f"{_geo.beaufort(rec['wind_kph'] * 0.8)}级", "wd_night": WIND_ZH[rec["wind_dir"]],
                          "date": d.isoformat(), "week": WEEK[d.weekday()]})
    loc = {"country": "中国", "province": city["province"], "city": city["name"], "name": name or city["name"],
           "id": district_id or city["district_id"]}
    return {"status": 0, "result": {"location": loc, "now": current, "forecasts": forecasts}, "message": "success"}


@APP.tool()
def map_ip_location(
    env: AppEnv,
    ip: str | None = Field(None, description="需要定位的IP地址; empty: the caller's own public IP"),
) -> dict[str, Any]:
    """IP定位服务: 通过所给IP获取具体位置信息和城市名称, 可用于定位IP或用户当前位置."""
    raw = ip or env.tree.data.get("client_ip", "")
    try:
        addr = ipaddress.ip_address(raw)
    except ValueError as exc:
        raise _fail(f"ip {raw!r} is not a valid IPv4 or IPv6 address") from exc
    if addr.is_private or addr.is_loopback:
        raise _fail(f"ip {raw!r} is a private address and cannot be located", kind="conflict")
    block = next((b for b in (env.tree.data.get("ip_blocks") or {}).values()
                  if addr in ipaddress.ip_network(b["cidr"])), None)
    if block is None:
        raise _fail(f"ip {raw!r} 定位失败 (no location data)", code=INTERNAL, kind="not_found")
    city = _cities(env)[block["city_district_id"]]
    return {"address": f"CN|{block['province']}|{block['city']}|None|{block['isp']}|0|0",
            "content": {"address": block["city"] if block["province"] == block["city"]
                        else f"{block['province']}{block['city']}",
                        "address_detail": {"adcode": city["district_id"], "city": city["name"],
                                           "city_code": city["city_code"], "district": "",
                                           "province": city["province"], "street": "", "street_number": ""},
                        "point": {"x": f"{city['center']['lng']:.8f}", "y": f"{city['center']['lat']:.8f}"}},
            "status": 0}


def _period(hour: int) -> str:
    if 7 <= hour < 10:
        return "morning"
    if 10 <= hour < 17:
        return "midday"
    if 17 <= hour < 20:
        return "evening"
    return "night"


@APP.tool()
def map_road_traffic(
    env: AppEnv,
    model: Literal["road", "bound", "polygon", "around"] = Field(description="路况查询类型"),
    road_name: str | None = Field(None, description="道路名称和道路方向, model=road时必传 (如:建国中路东向西)"),
    city: str | None = Field(None, description="城市名称或城市adcode, model=road时必传 (如:上海市)"),
    bounds: str | None = Field(None, description="区域左下角和右上角的纬经度坐标, model=bound时必传"),
    vertexes: str | None = Field(None, description="多边形区域的顶点纬经度坐标, model=polygon时必传"),
    center: str | None = Field(None, description="圆形区域的中心点纬经度坐标, model=around时必传"),
    radius: int | None = Field(None, ge=1, le=1000, description="圆形区域的半径(米), 取值[1,1000]"),
) -> dict[str, Any]:
    """实时路况查询服务: 查询具体道路的实时拥堵评价和拥堵路段、拥堵距离、拥堵趋势等信息 (this dataset: model=road)."""
    if model != "road":
        raise _fail(f"model={model} needs road geometry, which this dataset does not have; use model=road",
                    kind="conflict")
    if not road_name or not city:
        raise _fail("road_name and city are required when model=road", kind="missing")
    c = _find_city(env, city)
    if c is None:
        raise _fail(f"city {city!r} is not a known city name or adcode", kind="not_found")
    q = _norm(road_name)
    road, direction = None, ""
    for r in sorted((env.tree.data.get("roads") or {}).values(), key=lambda r: -len(r["road_name"])):
        if r["city_district_id"] == c["district_id"] and q.startswith(_norm(r["road_name"])):
            road, direction = r, road_name.strip()[len(r["road_name"]):].strip()
            break
    if road is None:
        raise _fail(f"no traffic data for road {road_name!r} in {c['name']}", kind="not_found")
    if direction and direction not in road["directions"]:
        raise _fail(f"direction {direction!r} is not one of {road['directions']}", kind="conflict")
    hour = env.clock.current().astimezone(_tz(c)).hour
    period = road["periods"][_period(hour)]
    status, sections = period["status"], period["sections"]
    where = f"{road['road_name']}" + (f"：{direction}方向" if direction else "")
    if sections:
        desc = f"{where}，" + "；".join(f"{s['section_desc']}{TRAFFIC_DESC[s['status']]}" for s in sections) + "。"
    else:
        desc = f"{where}，全程{TRAFFIC_DESC[status]}。"
    return {"status": 0, "message": "成功", "description": desc,
            "evaluation": {"status": status, "status_desc": TRAFFIC_DESC[status]},
            "road_traffic": [{"road_name": road["road_name"], "congestion_sections": sections}]}
