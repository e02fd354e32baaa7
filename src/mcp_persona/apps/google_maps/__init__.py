"""Google Maps: places, geocoding and travel times in the style of the reference Google Maps MCP server
(modelcontextprotocol/servers, ``src/google-maps``).

Same tool names and arguments: ``maps_geocode {address}``, ``maps_reverse_geocode {latitude,
longitude}``, ``maps_search_places {query, location?, radius?}``, ``maps_place_details {place_id}``,
``maps_distance_matrix {origins, destinations, mode?}``, ``maps_elevation {locations}`` and
``maps_directions {origin, destination, mode?}``; answers use that server's field names (``place_id``,
``formatted_address``, ``location``, ``rating``, ``distance``/``duration`` with ``text`` and ``value``).
Origins and destinations may be place names, addresses, place ids or "lat,lng".

Five cities and thirty places form the fixed map. Distances and durations come from coordinates by
the shared route models (``mcp_persona.apps._geo.routes``: driving, walking, bicycling; transit is
modelled as a metro ride at 35 km/h plus 5 minutes' wait).
"""

from mcp_persona.apps.google_maps.tools import APP

__all__ = ["APP"]
