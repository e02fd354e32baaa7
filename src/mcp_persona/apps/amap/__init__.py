"""Amap (Gaode Maps): mirrors sugarforever/amap-mcp-server and the official Amap MCP server's tools.

Tool names and arguments are the official ones: ``maps_geo {address, city?}``, ``maps_regeocode
{location}``, ``maps_text_search {keywords, city?, types?}``, ``maps_around_search {location, radius?,
keywords?}``, ``maps_search_detail {id}``, ``maps_direction_walking`` / ``maps_direction_driving
{origin, destination}``, ``maps_direction_transit_integrated {origin, destination, city, cityd}``
(both cities required, as upstream), ``maps_distance {origins, destination, type?}`` and
``maps_weather {city}``. Coordinates are ``"longitude,latitude"`` strings (GCJ-02) and, as in the Amap
REST API, numbers in results are strings (``"distance": "631"``), empty values are ``[]`` and the
city suggestion key keeps upstream's typo ``ciytes``.

Responses carry the REST envelope the upstream servers unwrap: ``{"status": "1", "info": "OK",
"infocode": "10000", ...}`` followed by the upstream MCP payload (``return`` for geocoding, ``pois``,
``route.paths``, ``route.transits``, ``results``, ``forecasts``). Failures are ``{"status": "0",
"info": "INVALID_PARAMS", "infocode": "20000", "error": "Geocoding failed: INVALID_PARAMS",
"detail": ...}`` with Amap's infocodes: 20000 INVALID_PARAMS (bad, unknown or contradictory values),
20001 MISSING_REQUIRED_PARAMS, 20003 UNKNOWN_ERROR, 20802 ROUTE_FAIL (no land route, e.g. across the
Taiwan Strait), 20803 OVER_DIRECTION_RANGE (walking beyond 100 km).

Kept quirks: text search returns ids without coordinates, so ``maps_search_detail`` is needed for a
POI's location; POI ids look like ``B0FFGJ2K6R``; search results are capped at 20 with ``count``
giving the total; keywords separated by ``|`` match any. Simulator choices (documented, invented where
upstream is a live service): ``city`` in text search restricts results to that city; around-search
results are sorted nearest first and carry ``distance`` (the REST API has it; the official MCP strips
it); geocoding matches names, aliases and street addresses of the fixed dataset and returns the best
tier of matches; regeocoding describes the nearest POI within 3 km. Routes are computed, not looked
up: haversine distance with fixed detour factors and speeds per mode (walking 1.25x at 4.32 km/h,
driving 1.4x at 25 km/h for 10 km then 80 km/h, metro 1.3x at 35 km/h plus 300 s, high-speed rail
1.15x at 250 km/h plus 900 s; metro fare 3 yuan for 6 km then 1 yuan per 10 km, rail 0.46 yuan/km);
see ``mcp_persona.apps._geo.routes``. ``maps_weather`` returns today and the next three days from the
task clock (in the city's time zone), from the daily records shared with the ``weather`` app.
"""

from mcp_persona.apps.amap.tools import APP

__all__ = ["APP"]
