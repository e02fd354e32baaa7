"""Deterministic route models, computed from coordinates only.

Every route starts from the great-circle (haversine) distance ``d`` between its ends, in metres,
then applies a fixed detour factor and speed per mode; distances are rounded to whole metres and
durations to whole seconds:

* walking:  distance = round(1.25 d); duration = round(distance / 1.2)          (4.32 km/h)
* riding:   distance = round(1.30 d); duration = round(distance / 4.0)          (14.4 km/h)
* driving:  distance = round(1.40 d); the first 10 km at 25 km/h, the rest at 80 km/h
* straight: distance = round(d); duration 0
* transit (one city): walk to the station nearest the origin, ride the metro (one shared line,
  or two lines through the transfer station that minimises the ridden distance), walk from the
  station nearest the destination. A metro ride is round(1.30 d) metres at 35 km/h plus a
  300 s wait. Trips of at most 800 m, or whose two nearest stations coincide, are walked.
* rail (between cities): round(1.15 d) metres at 250 km/h plus a 900 s wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.apps._geo.geo import haversine_m

WALK_DETOUR, WALK_SPEED = 1.25, 1.2
RIDE_DETOUR, RIDE_SPEED = 1.30, 4.0
DRIVE_DETOUR, DRIVE_CITY_KMH, DRIVE_HIGHWAY_KMH, DRIVE_CITY_M = 1.40, 25.0, 80.0, 10_000
METRO_DETOUR, METRO_KMH, METRO_WAIT_S = 1.30, 35.0, 300
RAIL_DETOUR, RAIL_KMH, RAIL_WAIT_S = 1.15, 250.0, 900
WALK_ONLY_M = 800


def straight(d: float) -> tuple[int, int]:
    return round(d), 0


def walking(d: float) -> tuple[int, int]:
    dist = round(d * WALK_DETOUR)
    return dist, round(dist / WALK_SPEED)


def riding(d: float) -> tuple[int, int]:
    dist = round(d * RIDE_DETOUR)
    return dist, round(dist / RIDE_SPEED)


def driving(d: float) -> tuple[int, int]:
    dist = round(d * DRIVE_DETOUR)
    city = min(dist, DRIVE_CITY_M)
    rest = max(dist - DRIVE_CITY_M, 0)
    return dist, round(city * 3.6 / DRIVE_CITY_KMH + rest * 3.6 / DRIVE_HIGHWAY_KMH)


def metro(d: float) -> tuple[int, int]:
    dist = round(d * METRO_DETOUR)
    return dist, round(dist * 3.6 / METRO_KMH) + METRO_WAIT_S


def rail(d: float) -> tuple[int, int]:
    dist = round(d * RAIL_DETOUR)
    return dist, round(dist * 3.6 / RAIL_KMH) + RAIL_WAIT_S


@dataclass(frozen=True)
class Leg:
    """One part of a public-transport trip."""

    mode: str  # walk | metro | rail
    distance: int
    duration: int
    start: str = ""
    end: str = ""
    line: str = ""
    start_xy: tuple[float, float] = (0.0, 0.0)
    end_xy: tuple[float, float] = (0.0, 0.0)
    extra: dict[str, Any] = field(default_factory=dict)


def _xy(item: dict[str, Any]) -> tuple[float, float]:
    return float(item["lng"]), float(item["lat"])


def _d(a: tuple[float, float], b: tuple[float, float]) -> float:
    return haversine_m(a[0], a[1], b[0], b[1])


def nearest(items: Sequence[dict[str, Any]], lng: float, lat: float) -> dict[str, Any] | None:
    """The item (with ``lng``/``lat``/``name``) closest to a point; ties broken by name."""
    if not items:
        return None
    return min(items, key=lambda it: (_d(_xy(it), (lng, lat)), str(it.get("name", ""))))


def walk_leg(a: tuple[float, float], b: tuple[float, float], start: str, end: str) -> Leg:
    dist, dur = walking(_d(a, b))
    return Leg("walk", dist, dur, start, end, "", a, b)


def _ride(s1: dict[str, Any], s2: dict[str, Any], line: str) -> Leg:
    dist, dur = metro(_d(_xy(s1), _xy(s2)))
    return Leg("metro", dist, dur, s1["name"], s2["name"], line, _xy(s1), _xy(s2))


def metro_rides(s1: dict[str, Any], s2: dict[str, Any], stations: Sequence[dict[str, Any]]) -> list[Leg] | None:
    """The metro rides from station s1 to s2: one shared line, else one transfer; None if neither."""
    common = sorted(set(s1["lines"]) & set(s2["lines"]))
    if common:
        return [_ride(s1, s2, common[0])]
    best: tuple[float, str, list[Leg]] | None = None
    for t in stations:
        if t["name"] in (s1["name"], s2["name"]):
            continue
        a = sorted(set(s1["lines"]) & set(t["lines"]))
        b = sorted(set(t["lines"]) & set(s2["lines"]))
        if a and b:
            cost = _d(_xy(s1), _xy(t)) + _d(_xy(t), _xy(s2))
            cand = (cost, t["name"], [_ride(s1, t, a[0]), _ride(t, s2, b[0])])
            if best is None or cand[:2] < best[:2]:
                best = cand
    return None if best is None else best[2]


def transit_legs(
    origin: tuple[float, float], dest: tuple[float, float], stations: Sequence[dict[str, Any]],
    origin_name: str = "起点", dest_name: str = "终点",
) -> list[Leg]:
    """A one-city public-transport trip (see the module docstring): its legs in order."""
    d = _d(origin, dest)
    metro_stations = [s for s in stations if s.get("lines")]
    s1 = nearest(metro_stations, *origin)
    s2 = nearest(metro_stations, *dest)
    if d <= WALK_ONLY_M or s1 is None or s2 is None or s1["name"] == s2["name"]:
        return [walk_leg(origin, dest, origin_name, dest_name)]
    rides = metro_rides(s1, s2, metro_stations)
    if rides is None:
        return [walk_leg(origin, dest, origin_name, dest_name)]
    return [walk_leg(origin, _xy(s1), origin_name, s1["name"]), *rides,
            walk_leg(_xy(s2), dest, s2["name"], dest_name)]


def rail_leg(s1: dict[str, Any], s2: dict[str, Any], trip: str) -> Leg:
    dist, dur = rail(_d(_xy(s1), _xy(s2)))
    return Leg("rail", dist, dur, s1["name"], s2["name"], trip, _xy(s1), _xy(s2))
