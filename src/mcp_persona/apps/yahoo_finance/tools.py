"""The stock tools over the fixed daily bars (see ``data/hierarchies/yahoo_finance.json``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, now_local, parse_day
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "yahoo_finance",
    title="Yahoo Finance",
    category="information",
    personalized=False,
    description="US stock prices (daily history), company profiles, dividends, news and analyst "
                "recommendations.",
    real_server="Alex2Yang97/yahoo-finance-mcp",
)
Ticker = Field(min_length=1, max_length=10, pattern=r"^[A-Za-z.^-]+$", description="Ticker symbol, e.g. AAPL")
_CLOSE_HOUR = 16  # a session's bar exists once New York's market has closed


def _ticker(env: AppEnv, symbol: str) -> dict[str, Any]:
    t = collection(env, "tickers").get(symbol.upper())
    if t is None:
        raise ToolFailure(f"Company ticker {symbol} not found.", kind="not_found")
    return t


def _bars(env: AppEnv, t: dict[str, Any]) -> list[dict[str, Any]]:
    now = now_local(env, "America/New_York")
    last = now.date() if now.hour >= _CLOSE_HOUR else now.date() - timedelta(days=1)
    return [b for d, b in sorted(t["bars"].items()) if d <= last.isoformat()]


@APP.tool()
def get_historical_stock_prices(env: AppEnv, ticker: str = Ticker,
                                period: Literal["5d", "1mo", "3mo", "ytd"] = Field("1mo", description="Look-back"),
                                interval: Literal["1d", "1wk"] = Field("1d", description="Bar size")
                                ) -> list[dict[str, Any]]:
    """Daily (or weekly) OHLCV bars over a look-back period ending at the last closed session."""
    bars = _bars(env, _ticker(env, ticker))
    if not bars:
        return []
    last = date.fromisoformat(bars[-1]["date"])
    start = {"5d": None, "1mo": last - timedelta(days=30), "3mo": last - timedelta(days=91),
             "ytd": date(last.year, 1, 1)}[period]
    picked = bars[-5:] if start is None else [b for b in bars if b["date"] > start.isoformat()]
    if interval == "1d":
        return [{"Date": b["date"], "Open": b["open"], "High": b["high"], "Low": b["low"], "Close": b["close"],
                 "Volume": b["volume"]} for b in picked]
    weeks: dict[str, list[dict[str, Any]]] = {}
    for b in picked:
        d = date.fromisoformat(b["date"])
        weeks.setdefault((d - timedelta(days=d.weekday())).isoformat(), []).append(b)
    return [{"Date": wk, "Open": bs[0]["open"], "High": max(b["high"] for b in bs), "Low": min(b["low"] for b in bs),
             "Close": bs[-1]["close"], "Volume": sum(b["volume"] for b in bs)} for wk, bs in weeks.items()]


@APP.tool()
def get_stock_price_on_date(env: AppEnv, ticker: str = Ticker,
                            date: str = Field(description="Trading date YYYY-MM-DD")) -> dict[str, Any]:
    """The OHLCV bar of one trading session."""
    t = _ticker(env, ticker)
    d = parse_day(date, "date")
    bars = {b["date"]: b for b in _bars(env, t)}
    if d.isoformat() not in bars:
        if d.isoformat() in t["bars"]:
            raise fail(f"{date} has not closed yet", "conflict")
        why = "a weekend" if d.weekday() >= 5 else "not a trading day in the data"
        raise ToolFailure(f"No price data for {t['symbol']} on {date} ({why})", kind="not_found")
    return {"symbol": t["symbol"], **bars[d.isoformat()]}


@APP.tool()
def get_stock_info(env: AppEnv, ticker: str = Ticker) -> dict[str, Any]:
    """Company profile and key statistics (price, market cap, P/E from the last close)."""
    t = _ticker(env, ticker)
    bars = _bars(env, t)
    price = bars[-1]["close"] if bars else None
    info = {k: v for k, v in t.items() if k not in ("bars", "actions", "news", "recommendations")}
    if price is not None:
        info |= {"currentPrice": price, "previousClose": bars[-2]["close"] if len(bars) > 1 else None,
                 "marketCap": round(price * t["sharesOutstanding"]), "trailingPE": round(price / t["trailingEPS"], 2),
                 "dividendYield": round(t["dividendRate"] / price * 100, 2), "asOf": bars[-1]["date"]}
    return info


@APP.tool()
def get_yahoo_finance_news(env: AppEnv, ticker: str = Ticker) -> list[dict[str, Any]]:
    """Recent headlines about a company, newest first (only those published before now)."""
    t = _ticker(env, ticker)
    now = env.clock.current().strftime("%Y-%m-%dT%H:%M:%SZ")
    return sorted((n for n in t["news"].values() if n["published"] <= now), key=lambda n: n["published"],
                  reverse=True)


@APP.tool()
def get_stock_actions(env: AppEnv, ticker: str = Ticker) -> list[dict[str, Any]]:
    """Dividends and splits by ex-date."""
    return sorted(_ticker(env, ticker)["actions"].values(), key=lambda a: a["date"])


@APP.tool()
def get_recommendations(env: AppEnv, ticker: str = Ticker) -> dict[str, Any]:
    """Analyst recommendation counts for the current month."""
    t = _ticker(env, ticker)
    return {"symbol": t["symbol"], "period": "0m", **t["recommendations"]}
