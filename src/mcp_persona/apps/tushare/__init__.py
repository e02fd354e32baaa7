"""Tushare Pro: A-share market data, mirroring the Tushare Pro API as exposed by Tushare MCP servers.

The paper's server (zhewenzhang/tushare_MCP) wraps a few Tushare calls behind Chinese-text tools
(get_stock_basic_info, search_stocks, get_income_statement); this simulator exposes the Tushare Pro
interfaces themselves, under their own names and argument names: ``stock_basic {ts_code?, name?,
exchange?, market?, list_status?, fields?}``, ``trade_cal {exchange?, start_date?, end_date?, is_open?}``,
``daily`` / ``daily_basic {ts_code?, trade_date?, start_date?, end_date?, fields?}``, ``index_daily
{ts_code, ...}``, ``income`` / ``fina_indicator {ts_code, ann_date?, start_date?, end_date?, period?,
fields?}`` and ``top_list {trade_date, ts_code?, fields?}``.

Responses are the HTTP API's envelope: ``{"request_id": ..., "code": 0, "msg": "", "data": {"fields":
[...], "items": [[...], ...], "has_more": false}}`` — a table the agent must zip itself. Failures are
``{"code": 40101, "msg": ..., "data": null}``; the simulator uses 40101 for every bad, missing or
contradictory argument (Tushare itself uses 40101 for a bad token; invented here). Kept quirks: dates
are ``YYYYMMDD`` strings; bars come newest first; ``ts_code`` takes several codes comma-separated;
an unknown but well-formed ``ts_code`` yields an empty table, not an error; ``fields`` selects and orders
the columns; ``daily`` needs ``ts_code`` or ``trade_date``; vol is in lots (手) and amount in 1,000 CNY;
``income`` amounts are cumulative year to date; ``start_date``/``end_date`` of statements filter the
announcement date. ``request_id`` is a hash of the call, never random.

The dataset is fixed and synthetic: 21 listed stocks (real names and codes, synthetic prices generated
once by a seeded script), one delisted stock, five indices, the 2026 SSE calendar for January–March
(closed on Jan 1–2, Feb 16–20 and Feb 23 for New Year and the Spring Festival), daily bars for the 40
trading days 2026-01-05..2026-03-09, statements for 2024Q4..2025Q3 (plus 2025 annual reports announced
by early March for five companies) and the Dragon-Tiger list entries of every day a stock moved 7% or more.
"""

from mcp_persona.apps.tushare.tools import APP

__all__ = ["APP"]
