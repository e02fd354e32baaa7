"""The map tools over the fixed places (see ``data/hierarchies/google_maps.json``)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_persona.apps._geo import routes
from mcp_persona.apps._geo.geo import haversine_m
from mcp_persona.apps._live import JsonApp, collection, fail, score, squash
from mcp_persona.apps._normalize import same_place
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "google_maps",
    title="Google Maps",
    category="information",
    personalized=False,
    description="Geocode addresses, search places, read place details, distance matrices, directions and "
                "elevation in five cities.",
    real_server="modelcontextprotocol/servers google-maps",
)
Mode = Literal["driving", "walking", "bicycling", "transit"]
_LATLNG = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
_MODELS = {"driving": routes.driving, "walking": routes.walking, "bicycling": routes.riding,
           "transit": routes.metro}
Centre = Field(None, description="Centre of the search")
Origins = Field(min_length=1, max_length=10, description="Origins: place names, addresses, place ids or lat,lng")
Destinations = Field(min_length=1, max_length=10, description="Destinations, as origins")

ModeArg = Field("driving", description="Travel mode")
Points = Field(min_length=1, max_length=20, description="Points")


class LatLng(BaseModel):
    model_config = ConfigDict(extra="forbid")
    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)


def _view(p: dict[str, Any]) -> dict[str, Any]:
    return {"place_id": p["place_id"], "name": p["name"], "formatted_address": p["formatted_address"],
            "location": {"lat": p["lat"], "lng": p["lng"]}, "rating": p["rating"],
            "user_ratings_total": p["user_ratings_total"], "types": p["types"]}


def _resolve(env: AppEnv, text: str) -> tuple[str, float, float]:
    """(display name, lat, lng) of a place name, address, place id, city or "lat,lng"."""
    m = _LATLNG.match(text)
    if m:
        lat, lng = float(m.group(1)), float(m.group(2))
        if not (-90 <= lat <= 90 and -180 <= lng <= 180):
            raise fail(f"'{text}' is not a valid latitude,longitude")
        return text.strip(), lat, lng
    places = collection(env, "places")
    if text in places:
        p = places[text]
        return p["name"], p["lat"], p["lng"]
    probe = squash(text)
    for p in places.values():
        if probe in (squash(p["name"]), squash(p["formatted_address"])) or squash(p["name"]) in probe:
            return p["name"], p["lat"], p["lng"]
    for c in collection(env, "cities").values():
        if same_place(text, c["name"], c["country"]):
            return c["name"], c["lat"], c["lng"]
    raise ToolFailure(f"Geocoding failed: ZERO_RESULTS for '{text}'", kind="not_found")


def _city_near(env: AppEnv, lat: float, lng: float) -> dict[str, Any]:
    return min(collection(env, "cities").values(), key=lambda c: haversine_m(c["lng"], c["lat"], lng, lat))


@APP.tool()
def maps_geocode(env: AppEnv, address: str = Field(min_length=1, max_length=300, description="Address or place name")
                 ) -> dict[str, Any]:
    """Coordinates and formatted address of an address, place name or city."""
    name, lat, lng = _resolve(env, address)
    places = [p for p in collection(env, "places").values() if p["name"] == name]
    formatted = places[0]["formatted_address"] if places else f"{name}, {_city_near(env, lat, lng)['country']}"
    return {"location": {"lat": lat, "lng": lng}, "formatted_address": formatted,
            "place_id": places[0]["place_id"] if places else None}


@APP.tool()
def maps_reverse_geocode(env: AppEnv, latitude: float = Field(ge=-90, le=90, description="Latitude"),
                         longitude: float = Field(ge=-180, le=180, description="Longitude")) -> dict[str, Any]:
    """The nearest known place and the city of a coordinate."""
    near = min(collection(env, "places").values(), key=lambda p: haversine_m(p["lng"], p["lat"], longitude, latitude))
    city = _city_near(env, latitude, longitude)
    dist = haversine_m(near["lng"], near["lat"], longitude, latitude)
    if haversine_m(city["lng"], city["lat"], longitude, latitude) > 100_000:
        raise ToolFailure(f"ZERO_RESULTS: no covered city within 100 km of {latitude},{longitude}", kind="not_found")
    return {"formatted_address": near["formatted_address"] if dist < 500 else f"{city['name']}, {city['country']}",
            "nearest_place": _view(near), "distance_to_nearest_m": round(dist), "city": city["name"]}


@APP.tool()
def maps_search_places(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="What to look for, "
                                                       "e.g. 'ramen in Tokyo' or 'museum London'"),
                       location: LatLng | None = Centre,
                       radius: int | None = Field(None, ge=1, le=50000, description="Search radius in metres "
                                                  "(needs location)")) -> dict[str, Any]:
    """Places matching a text query (name, type, address), best match then highest rated first."""
    if radius is not None and location is None:
        raise fail("radius needs location", "missing")
    hits = []
    for p in collection(env, "places").values():
        s = score(query, p["name"], p["formatted_address"], [t.replace("_", " ") for t in p["types"]],
                  collection(env, "cities")[p["city"]]["name"])
        if not s:
            continue
        if location is not None:
            d = haversine_m(p["lng"], p["lat"], location.longitude, location.latitude)
            if d > (radius or 50_000):
                continue
        hits.append((s, p))
    top = max((s for s, _ in hits), default=0)
    best = sorted((p for s, p in hits if s == top), key=lambda p: (-p["rating"], -p["user_ratings_total"]))
    return {"places": [_view(p) for p in best]}


@APP.tool()
def maps_place_details(env: AppEnv, place_id: str = Field(min_length=1, description="A place_id from a search")
                       ) -> dict[str, Any]:
    """A place's details: address, phone, website, rating, price level, opening hours."""
    p = collection(env, "places").get(place_id)
    if p is None:
        raise ToolFailure(f"Place details request failed: INVALID_REQUEST (unknown place_id '{place_id}')",
                          kind="not_found")
    return _view(p) | {"formatted_phone_number": p["phone"], "website": p["website"],
                       "price_level": p["price_level"], "opening_hours": {"daily": p["opening_hours"]}}


def _leg(a: tuple[str, float, float], b: tuple[str, float, float], mode: str) -> dict[str, Any]:
    d = haversine_m(a[2], a[1], b[2], b[1])
    if d > 200_000:
        return {"status": "ZERO_RESULTS"}
    dist, secs = _MODELS[mode](d) if d > 0 else (0, 0)
    return {"status": "OK", "distance": {"text": f"{dist / 1000:.1f} km", "value": dist},
            "duration": {"text": f"{round(secs / 60)} mins", "value": secs}}


@APP.tool()
def maps_distance_matrix(env: AppEnv,
                         origins: list[str] = Origins,
                         destinations: list[str] = Destinations,
                         mode: Mode = ModeArg) -> dict[str, Any]:
    """Distance (metres) and duration (seconds) from every origin to every destination."""
    src = [_resolve(env, o) for o in origins]
    dst = [_resolve(env, d) for d in destinations]
    return {"origin_addresses": [s[0] for s in src], "destination_addresses": [d[0] for d in dst],
            "results": [{"elements": [_leg(s, d, mode) for d in dst]} for s in src]}


@APP.tool()
def maps_directions(env: AppEnv, origin: str = Field(min_length=1, description="Start"),
                    destination: str = Field(min_length=1, description="End"),
                    mode: Mode = ModeArg) -> dict[str, Any]:
    """A route summary between two points: distance, duration and one step."""
    a, b = _resolve(env, origin), _resolve(env, destination)
    if (a[1], a[2]) == (b[1], b[2]):
        raise fail("origin and destination are the same place", "conflict")
    leg = _leg(a, b, mode)
    if leg["status"] != "OK":
        raise ToolFailure(f"Directions request failed: ZERO_RESULTS ({mode} from {a[0]} to {b[0]})", kind="not_found")
    step = {"instructions": f"{mode.capitalize()} from {a[0]} to {b[0]}", "distance": leg["distance"],
            "duration": leg["duration"], "travel_mode": mode.upper()}
    return {"routes": [{"summary": f"{a[0]} to {b[0]}", "distance": leg["distance"], "duration": leg["duration"],
                        "steps": [step]}]}


@APP.tool()
def maps_elevation(env: AppEnv, locations: list[LatLng] = Points) -> dict[str, Any]:
    """Elevation (metres) of points inside the covered cities (the city's mean elevation)."""
    out = []
    for loc in locations:
        city = _city_near(env, loc.latitude, loc.longitude)
        if haversine_m(city["lng"], city["lat"], loc.longitude, loc.latitude) > 100_000:
            raise ToolFailure(f"no elevation data at {loc.latitude},{loc.longitude}", kind="not_found")
        out.append({"elevation": city["elevation_m"], "location": {"lat": loc.latitude, "lng": loc.longitude},
                    "resolution": 1000})
    return {"results": out}
