"""Shared geography and climate helpers of the information apps (amap, baidu_maps, weather).

Not an app (the registry skips packages whose name starts with ``_``). Everything here is pure
and deterministic: distances come from the haversine formula, routes from fixed detour factors
and speeds per mode (see :mod:`.routes`), and the hour-by-hour weather of a day from its daily
record by a fixed diurnal curve (see :mod:`.climate`), so the three apps agree with one another.
"""

from mcp_persona.apps._geo.climate import CONDITIONS, HourlyWeather, beaufort, condition_text, hourly, hourly_day
from mcp_persona.apps._geo.geo import (
    bearing_deg,
    compass_en,
    compass_zh,
    format_lnglat,
    haversine_m,
    parse_lnglat,
)
from mcp_persona.apps._geo.routes import (
    Leg,
    driving,
    metro_rides,
    nearest,
    rail_leg,
    riding,
    straight,
    transit_legs,
    walk_leg,
    walking,
)

__all__ = [
    "CONDITIONS",
    "HourlyWeather",
    "Leg",
    "bearing_deg",
    "beaufort",
    "compass_en",
    "compass_zh",
    "condition_text",
    "driving",
    "format_lnglat",
    "haversine_m",
    "hourly",
    "hourly_day",
    "metro_rides",
    "nearest",
    "parse_lnglat",
    "rail_leg",
    "riding",
    "straight",
    "transit_legs",
    "walk_leg",
    "walking",
]
