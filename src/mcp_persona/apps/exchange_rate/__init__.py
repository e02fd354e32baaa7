"""Exchange rates: currency conversion in the style of the exchange-rate MCP servers.

Tools: ``get_exchange_rate {base, target, date?}``, ``convert_currency {amount, from_currency,
to_currency, date?}``, ``get_historical_rates {base, target, start_date, end_date}`` (with min, max,
mean and change over the period) and ``list_currencies``. Rates are one fixing per day (no "latest"
intraday feed): "today" is the task clock's date, and a date after it is refused. Thirteen currencies
against USD for 2026-01-01..2026-03-24 form the fixed dataset; cross rates go through USD and are given
to six significant digits.
"""

from mcp_persona.apps.exchange_rate.tools import APP

__all__ = ["APP"]
