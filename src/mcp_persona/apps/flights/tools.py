"""The flight tools over the fixed timetable (see ``data/hierarchies/flights.json``)."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from mcp_persona.apps._geo.geo import haversine_m
from mcp_persona.apps._live import JsonApp, collection, fail, matches, parse_day, today
from mcp_persona.apps._normalize import same_place
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "flights",
    title="Flights",
    category="information",
    personalized=False,
    description="Search scheduled flights between airports with fares, and look up airports.",
    real_server="flight-search MCP servers (Duffel / Kiwi style)",
)
Cabin = Literal["economy", "premium_economy", "business", "first"]
_CABIN = {"economy": 1.0, "premium_economy": 1.6, "business": 3.2, "first": 5.0}
Iata = Field(min_length=3, max_length=3, pattern=r"^[A-Za-z]{3}$", description="IATA airport code, e.g. HND")

CabinArg = Field("economy", description="Cabin")


def _airport(env: AppEnv, code: str) -> dict[str, Any]:
    a = collection(env, "airports").get(code.upper())
    if a is None:
        raise ToolFailure(f"Unknown airport code '{code}' (use search_airports)", kind="not_found")
    return a


def _offer(env: AppEnv, route: dict[str, Any], day: date, adults: int, cabin: str) -> dict[str, Any]:
    a, b = _airport(env, route["origin"]), _airport(env, route["destination"])
    km = haversine_m(a["lng"], a["lat"], b["lng"], b["lat"]) / 1000
    minutes = math.ceil((km / 820 * 60 + 30) / 5) * 5
    hh, mm = map(int, route["departure_local"].split(":"))
    dep = datetime(day.year, day.month, day.day, hh, mm, tzinfo=ZoneInfo(a["timezone"]))
    arr = (dep + timedelta(minutes=minutes)).astimezone(ZoneInfo(b["timezone"]))
    lead = (day - today(env)).days
    factor = 1.35 if lead < 7 else 1.1 if lead < 21 else 1.0
    fare = round((60 + 0.085 * km) * _CABIN[cabin] * factor)
    return {"flight_number": route["flight"], "airline": route["airline"], "origin": a["iata"],
            "destination": b["iata"], "departure": dep.isoformat(timespec="minutes"),
            "arrival": arr.isoformat(timespec="minutes"), "duration_minutes": minutes, "stops": 0,
            "cabin_class": cabin, "price_per_adult_usd": fare, "total_price_usd": fare * adults}


def _date(env: AppEnv, text: str) -> date:
    d = parse_day(text, "departure_date")
    if d < today(env):
        raise fail(f"departure_date {text} is in the past (today is {today(env)})", "conflict")
    if (d - today(env)).days > 330:
        raise fail("departure_date is more than 330 days ahead; schedules are not published yet")
    return d


@APP.tool()
def search_flights(env: AppEnv, origin: str = Iata, destination: str = Iata,
                   departure_date: str = Field(description="Date YYYY-MM-DD"),
                   adults: int = Field(1, ge=1, le=9, description="Number of adults"),
                   cabin_class: Cabin = CabinArg,
                   max_results: int = Field(10, ge=1, le=50, description="Maximum offers")) -> dict[str, Any]:
    """Nonstop flights operating on a date, cheapest then earliest first."""
    a, b = _airport(env, origin), _airport(env, destination)
    if a["iata"] == b["iata"]:
        raise fail("origin and destination are the same airport", "conflict")
    day = _date(env, departure_date)
    offers = [_offer(env, r, day, adults, cabin_class) for r in collection(env, "routes").values()
              if r["origin"] == a["iata"] and r["destination"] == b["iata"] and day.weekday() in r["weekdays"]]
    offers.sort(key=lambda o: (o["price_per_adult_usd"], o["departure"]))
    return {"origin": a["iata"], "destination": b["iata"], "date": day.isoformat(), "offers": offers[:max_results]}


@APP.tool()
def get_flight_details(env: AppEnv, flight_number: str = Field(min_length=3, max_length=8,
                                                               pattern=r"^[A-Z0-9]{2}\d{1,4}$",
                                                               description="Flight number, e.g. NH123"),
                       departure_date: str = Field(description="Date YYYY-MM-DD"),
                       cabin_class: Cabin = CabinArg) -> dict[str, Any]:
    """One flight on one date: times, duration, fare, and whether it operates that day."""
    route = collection(env, "routes").get(flight_number)
    if route is None:
        raise ToolFailure(f"Flight {flight_number} not found", kind="not_found")
    day = _date(env, departure_date)
    if day.weekday() not in route["weekdays"]:
        days = ", ".join(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][w] for w in route["weekdays"])
        raise ToolFailure(f"Flight {flight_number} does not operate on {departure_date} (operates {days})",
                          kind="not_found")
    return _offer(env, route, day, 1, cabin_class)


@APP.tool()
def search_airports(env: AppEnv, query: str = Field(min_length=1, max_length=100, description="City or airport name")
                    ) -> dict[str, Any]:
    """Airports whose code, name or city match the query."""
    hits = [a for a in collection(env, "airports").values()
            if a["iata"].lower() == query.lower().strip() or matches(query, a["name"], a["city"].replace("_", " "))
            or same_place(query, a["city"].replace("_", " "))]
    return {"airports": hits}
