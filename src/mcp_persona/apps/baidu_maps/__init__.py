"""Baidu Maps: mirrors the official baidu-maps/mcp server (mcp-server-baidu-maps).

Same tool names and arguments: ``map_geocode {address, is_china?}``, ``map_reverse_geocode {latitude,
longitude}``, ``map_search_places {query, tag?, region?, location?, radius?, is_china?}``,
``map_place_details {uid}``, ``map_directions {origin, destination, model?, is_china?}``,
``map_directions_matrix {origins, destinations, model?}``, ``map_weather {location?, district_id?}``,
``map_ip_location {ip?}`` and ``map_road_traffic {model, road_name?, city?, bounds?, vertexes?, center?,
radius?}``. Like upstream, each returns the Baidu Web API's own JSON: ``{"status": 0, "message": "ok",
"result": ...}`` (``location/ip`` answers with ``address``/``content`` instead, road traffic with
``description``/``evaluation``/``road_traffic``, the matrix with ``message: "成功"``). Failures are
``{"status": 2, "message": "Parameter Invalid: ..."}`` for bad, unknown or contradictory arguments and
``{"status": 1, "message": "Internal Service Error: ..."}`` when the service has no result (an address
it cannot geocode, an unroutable trip, an IP it cannot locate).

Kept quirks: coordinates are BD-09 (the amap dataset converted with the standard GCJ-02 to BD-09
formula); most coordinate arguments put the latitude first (``"31.214,121.480"``) while
``map_weather``'s ``location`` is longitude first, as upstream documents; ``map_directions`` accepts a
place name or a coordinate pair and geocodes names first; the reverse geocoder keeps Baidu's
``sematic_description`` spelling; route distances/durations are integers, matrix entries carry
``text``/``value`` pairs. Routes use the shared deterministic models of ``mcp_persona.apps._geo``
(haversine distance, fixed detours and speeds; see amap's docstring). Simulator choices: ``is_china`` is
validated but the dataset (Shanghai, Hangzhou, Taipei POIs; weather for ten cities) is the same either
way; ``map_weather`` reads "now" and the five-day forecast from the task clock; ``map_road_traffic``
serves ``model=road`` only (the dataset has no road geometry for bound/polygon/around) and the
congestion depends on the time of day (07-10, 10-17, 17-20, night); ``map_ip_location`` without an ip
locates the machine's fixed public IP. ``map_poi_extract`` (an advanced-permission service) is omitted.
"""

from mcp_persona.apps.baidu_maps.tools import APP

__all__ = ["APP"]
