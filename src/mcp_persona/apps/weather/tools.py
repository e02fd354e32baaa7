"""The weather tools over the fixed weather dataset (see ``data/hierarchies/weather.json``).

"Now", "today" and "tomorrow" are the task clock's instant seen in the city's own time zone; the
hour-by-hour values come from the day's record through :func:`mcp_persona.apps._geo.hourly`.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import Field

from mcp_persona.apps import _geo
from mcp_persona.apps._normalize import same_place
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json, unicode_json

MISSING_PARAM = 1003  # "Parameter q is missing."
NOT_FOUND = 1006  # "No matching location found."
INVALID_VALUE = 1009  # invented: a value out of range or contradicting another
NO_DATA = 1010  # invented: the dataset has no record for that date
INTERNAL = 9999


class WeatherApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code if failure.code is not None else (INTERNAL if failure.kind == "internal"
                                                               else INVALID_VALUE)
        return unicode_json({"error": {"code": code, "message": failure.message}})

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        code = MISSING_PARAM if any(v.kind == "missing" for v in violations) else INVALID_VALUE
        detail = "; ".join(f"Parameter {v.field}: {v.message}" for v in violations)
        return self.error_payload(tool, ToolFailure(detail, kind="type", code=code))


APP = WeatherApp(
    "weather",
    title="Weather",
    category="information",
    personalized=False,
    description="Current conditions, hourly and daily forecasts, history, alerts and air quality for 15 cities.",
    real_server="modelcontextprotocol quickstart weather server / WeatherAPI-style weather MCP servers",
)


def _city(env: AppEnv, text: str) -> dict[str, Any]:
    """The city a location names, as WeatherAPI's search resolves it: any case, with a region or
    country ("Hangzhou, Zhejiang", "Tokyo, Japan"), "Singapore City", "Hong Kong SAR", "HK", or the
    Chinese name (see :mod:`mcp_persona.apps._normalize`)."""
    probe = "".join(text.split())
    for c in (env.tree.data.get("cities") or {}).values():
        if probe in (c["name_zh"], c["name_zh"] + "市") or same_place(text, c["name"], c["region"], c["country"]):
            return c
    raise ToolFailure(f"No matching location found for '{text}'.", kind="not_found", code=NOT_FOUND)


def _local_now(env: AppEnv, city: dict[str, Any]) -> datetime:
    return env.clock.current().astimezone(ZoneInfo(city["timezone"]))


def _day(city: dict[str, Any], d: date) -> dict[str, Any]:
    rec = city.get("days", {}).get(d.isoformat())
    if rec is None:
        raise ToolFailure(f"No weather data for {city['name']} on {d.isoformat()} (the dataset covers "
                          f"{min(city['days'])} to {max(city['days'])}).", kind="conflict", code=NO_DATA)
    return rec


def _location(city: dict[str, Any], now: datetime) -> dict[str, Any]:
    return {"name": city["name"], "region": city["region"], "country": city["country"], "lat": city["lat"],
            "lon": city["lng"], "tz_id": city["timezone"], "localtime": f"{now:%Y-%m-%d %H:%M}"}


def _hour_view(h: _geo.HourlyWeather, when: datetime) -> dict[str, Any]:
    return {"time": f"{when:%Y-%m-%d %H:00}", "temp_c": h.temp_c, "feels_like_c": h.feels_like_c,
            "condition": _geo.condition_text(h.condition, is_day=h.is_day), "humidity": h.humidity,
            "wind_kph": h.wind_kph, "wind_dir": h.wind_dir, "precip_mm": h.precip_mm,
            "chance_of_rain": h.precip_chance, "is_day": int(h.is_day)}


def _day_view(rec: dict[str, Any]) -> dict[str, Any]:
    return {"date": rec["date"], "condition_day": _geo.condition_text(rec["condition_day"]),
            "condition_night": _geo.condition_text(rec["condition_night"], is_day=False),
            "max_temp_c": rec["temp_max"], "min_temp_c": rec["temp_min"], "avg_humidity": rec["humidity"],
            "max_wind_kph": round(rec["wind_kph"] * 1.2, 1), "wind_dir": rec["wind_dir"],
            "total_precip_mm": rec["precip_mm"], "chance_of_rain": rec["precip_chance"], "uv_index": rec["uv_index"],
            "sunrise": rec["sunrise"], "sunset": rec["sunset"]}


@APP.tool()
def get_current_weather(
    env: AppEnv,
    city: str = Field(min_length=1, description="City name, e.g. 'Shanghai', 'Hangzhou', 'Taipei' or '上海'"),
) -> dict[str, Any]:
    """Current weather conditions in a city (at the current hour, local time)."""
    c = _city(env, city)
    now = _local_now(env, c)
    rec = _day(c, now.date())
    h = _geo.hourly(rec, now.hour)
    current = {"last_updated": f"{now:%Y-%m-%d %H:00}", **{k: v for k, v in _hour_view(h, now).items()
                                                           if k != "time"},
               "pressure_hpa": h.pressure_hpa, "visibility_km": h.visibility_km, "uv_index": h.uv_index}
    return {"location": _location(c, now), "current": current}


@APP.tool()
def get_forecast(
    env: AppEnv,
    city: str = Field(min_length=1, description="City name"),
    days: int = Field(3, ge=1, le=7, description="Number of days from today (1-7)"),
) -> dict[str, Any]:
    """Daily forecast for a city from today (local date) for up to 7 days; days past the end of the
    forecast horizon are left out."""
    c = _city(env, city)
    now = _local_now(env, c)
    _day(c, now.date())
    out = []
    for i in range(days):
        rec = c["days"].get((now.date() + timedelta(days=i)).isoformat())
        if rec is None:
            break
        out.append(_day_view(rec))
    return {"location": _location(c, now), "forecast": {"forecastday": out}}


@APP.tool()
def get_hourly_forecast(
    env: AppEnv,
    city: str = Field(min_length=1, description="City name"),
    hours: int = Field(24, ge=1, le=48, description="Number of hours from the current hour (1-48)"),
) -> dict[str, Any]:
    """Hour-by-hour forecast for a city starting at the current local hour."""
    c = _city(env, city)
    now = _local_now(env, c)
    _day(c, now.date())
    start = now.replace(minute=0, second=0, microsecond=0)
    out = []
    for i in range(hours):
        when = start + timedelta(hours=i)
        rec = c["days"].get(when.date().isoformat())
        if rec is None:
            break
        out.append(_hour_view(_geo.hourly(rec, when.hour), when))
    return {"location": _location(c, now), "hourly": out}


@APP.tool()
def get_historical_weather(
    env: AppEnv,
    city: str = Field(min_length=1, description="City name"),
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A past date, YYYY-MM-DD"),
) -> dict[str, Any]:
    """Observed weather of a city on a past date (before today, local time)."""
    c = _city(env, city)
    now = _local_now(env, c)
    try:
        d = datetime.strptime(date, "%Y-%m-%d").date()
    except ValueError as exc:
        raise ToolFailure(f"'{date}' is not a real date.", kind="range", code=INVALID_VALUE) from exc
    if d >= now.date():
        raise ToolFailure(f"{date} is not in the past (today is {now.date().isoformat()} in {c['name']}); "
                          "use get_forecast.", kind="conflict", code=INVALID_VALUE)
    return {"location": _location(c, now), "history": _day_view(_day(c, d))}


@APP.tool()
def get_alerts(
    env: AppEnv,
    region: str = Field(min_length=1, description="A region, province or city, e.g. 'Zhejiang' or 'Shanghai'"),
) -> dict[str, Any]:
    """Active and upcoming weather alerts for a region (a city or the region it belongs to); expired ones
    are left out."""
    probe = "".join(region.lower().split())
    cities = [c for c in (env.tree.data.get("cities") or {}).values()
              if probe in {"".join(c["region"].lower().split()), "".join(c["country"].lower().split())}]
    if not cities:
        cities = [_city(env, region)]
    keys = {c["key"] for c in cities}
    out = []
    for a in sorted((env.tree.data.get("alerts") or {}).values(), key=lambda a: (a["onset"], a["alert_id"])):
        if a["city"] not in keys:
            continue
        now = _local_now(env, env.tree.data["cities"][a["city"]]).replace(tzinfo=None)
        onset, expires = datetime.fromisoformat(a["onset"]), datetime.fromisoformat(a["expires"])
        if expires <= now:
            continue
        out.append({"id": a["alert_id"], "event": a["event"], "severity": a["severity"], "sender": a["sender"],
                    "area": env.tree.data["cities"][a["city"]]["name"], "onset": a["onset"], "expires": a["expires"],
                    "status": "active" if onset <= now else "upcoming", "description": a["description"]})
    return {"region": region, "count": len(out), "alerts": out}


@APP.tool()
def get_air_quality(
    env: AppEnv,
    city: str = Field(min_length=1, description="City name"),
) -> dict[str, Any]:
    """Today's air quality in a city: US-EPA AQI, category, dominant pollutant and concentrations."""
    c = _city(env, city)
    now = _local_now(env, c)
    rec = c.get("air_quality", {}).get(now.date().isoformat())
    if rec is None:
        raise ToolFailure(f"No air quality data for {c['name']} on {now.date().isoformat()}.", kind="conflict",
                          code=NO_DATA)
    return {"location": _location(c, now), "air_quality": {**rec, "units": "ug/m3 (co: mg/m3)"}}
