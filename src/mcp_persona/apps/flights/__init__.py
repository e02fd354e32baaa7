"""Flights: a flight search in the style of the flight-search MCP servers (Duffel / Kiwi style tools).

Tools: ``search_flights {origin, destination, departure_date, adults?, cabin_class?, max_results?}`` and
``search_airports {query}``; ``get_flight_details {flight_number, departure_date}``. A fixed timetable
says which flight operates on which weekday and when it leaves (local time). Block time is the
great-circle distance at 820 km/h plus 30 minutes, rounded up to 5 minutes; the fare per adult is
60 USD + 0.085 USD/km, times 1.6 (premium economy), 3.2 (business) or 5 (first), times 1.35 when
departing within 7 days of today and 1.1 within 21 days, rounded to whole dollars.
"""

from mcp_persona.apps.flights.tools import APP

__all__ = ["APP"]
