"""Yahoo Finance: US stock data in the style of the yahoo-finance MCP server (Alex2Yang97/yahoo-finance-mcp).

Tools and arguments as there: ``get_historical_stock_prices {ticker, period?, interval?}`` (period
``5d``/``1mo``/``3mo``/``ytd``, interval ``1d``/``1wk``; ending today), ``get_stock_info {ticker}``,
``get_yahoo_finance_news {ticker}``, ``get_stock_actions {ticker}`` (dividends, splits) and
``get_recommendations {ticker}``; plus ``get_stock_price_on_date {ticker, date}`` for one session's bar.
"Today" is the task clock's date in New York; only bars up to the last session before now are shown.
Ten stocks with synthetic daily bars for 2026-01-02..2026-03-24 form the fixed dataset.
"""

from mcp_persona.apps.yahoo_finance.tools import APP

__all__ = ["APP"]
