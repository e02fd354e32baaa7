"""Airbnb: lodging search in the style of openbnb-org/mcp-server-airbnb.

The two tools keep that server's names and camelCase arguments: ``airbnb_search {location, checkin?,
checkout?, adults?, children?, infants?, pets?, minPrice?, maxPrice?, cursor?}`` and
``airbnb_listing_details {id, checkin?, checkout?, adults?, children?, infants?, pets?}``. Search answers
``{searchUrl, searchResults, paginationInfo}``; with dates, listings booked on any night of the stay or
whose minimum stay is longer are left out and each result carries the stay's total price (nights ×
nightly price + cleaning fee, USD). Forty listings in five cities form the fixed dataset.
"""

from mcp_persona.apps.airbnb.tools import APP

__all__ = ["APP"]
