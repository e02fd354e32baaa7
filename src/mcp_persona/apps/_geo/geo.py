"""Coordinates: parsing, great-circle distance and bearings."""

from __future__ import annotations

import math
import re

EARTH_RADIUS_M = 6_371_000.0
_PAIR = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*,\s*([+-]?\d+(?:\.\d+)?)\s*$")


def parse_lnglat(text: str, *, lat_first: bool = False) -> tuple[float, float]:
    """``"lng,lat"`` (or ``"lat,lng"`` with ``lat_first``) as (lng, lat); ValueError when malformed
    or out of range (|lng| <= 180, |lat| <= 90)."""
    m = _PAIR.match(text or "")
    if not m:
        raise ValueError(f"{text!r} is not a coordinate pair")
    a, b = float(m.group(1)), float(m.group(2))
    lng, lat = (b, a) if lat_first else (a, b)
    if not (-180 <= lng <= 180 and -90 <= lat <= 90):
        raise ValueError(f"{text!r} is out of range")
    return lng, lat


def format_lnglat(lng: float, lat: float) -> str:
    """Amap style: six decimals, longitude first."""
    return f"{lng:.6f},{lat:.6f}"


def haversine_m(lng1: float, lat1: float, lng2: float, lat2: float) -> float:
    """Great-circle distance in metres on a sphere of radius 6,371 km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lng2 - lng1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def bearing_deg(lng1: float, lat1: float, lng2: float, lat2: float) -> float:
    """Initial bearing from point 1 to point 2, degrees clockwise from north in [0, 360)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lng2 - lng1)
    x = math.sin(dl) * math.cos(p2)
    y = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return (math.degrees(math.atan2(x, y)) + 360) % 360


_COMPASS_ZH = ["北", "东北", "东", "东南", "南", "西南", "西", "西北"]
_COMPASS_EN = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def compass_zh(bearing: float) -> str:
    """One of the eight Chinese compass points (北, 东北, ...) for a bearing."""
    return _COMPASS_ZH[int(((bearing % 360) + 22.5) // 45) % 8]


def compass_en(bearing: float) -> str:
    return _COMPASS_EN[int(((bearing % 360) + 22.5) // 45) % 8]
