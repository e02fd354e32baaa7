"""The exchange-rate tools over the fixed daily fixings (see ``data/hierarchies/exchange_rate.json``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, parse_day, today
from mcp_persona.apps._live.calc import tidy
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "exchange_rate",
    title="Exchange Rates",
    category="information",
    personalized=False,
    description="Daily exchange rates between 13 currencies: a rate, a conversion, a period's history.",
    real_server="exchange-rate MCP servers (ExchangeRate-API / Frankfurter style)",
)
Code = Field(min_length=3, max_length=3, pattern=r"^[A-Za-z]{3}$", description="ISO 4217 code, e.g. USD")
Day = Field(None, description="Date YYYY-MM-DD (default: today)")


def _cur(env: AppEnv, code: str) -> dict[str, Any]:
    cur = collection(env, "currencies").get(code.upper())
    if cur is None:
        raise ToolFailure(f"Unsupported currency code '{code}' (supported: "
                          f"{', '.join(sorted(collection(env, 'currencies')))})", kind="not_found")
    return cur


def _day(env: AppEnv, text: str | None, name: str = "date") -> date:
    d = today(env) if text is None else parse_day(text, name)
    if d > today(env):
        raise fail(f"{name} {d} is in the future (today is {today(env)})", "conflict")
    return d


def _rate(env: AppEnv, base: str, target: str, d: date) -> float:
    b, t = _cur(env, base), _cur(env, target)
    key = d.isoformat()
    if key not in b["rates"]:
        first, last = min(b["rates"]), max(b["rates"])
        raise fail(f"no rates for {key} (the archive covers {first} to {last})", "not_found")
    return tidy(t["rates"][key]["per_usd"] / b["rates"][key]["per_usd"], 6)


@APP.tool()
def get_exchange_rate(env: AppEnv, base: str = Code, target: str = Code, date: str | None = Day) -> dict[str, Any]:
    """How many ``target`` one unit of ``base`` buys on a date."""
    d = _day(env, date)
    return {"base": base.upper(), "target": target.upper(), "date": d.isoformat(), "rate": _rate(env, base, target, d)}


@APP.tool()
def convert_currency(env: AppEnv, amount: float = Field(gt=0, le=1e12, description="Amount in from_currency"),
                     from_currency: str = Code, to_currency: str = Code, date: str | None = Day) -> dict[str, Any]:
    """Convert an amount at a date's rate; the result is rounded to 2 decimals."""
    d = _day(env, date)
    rate = _rate(env, from_currency, to_currency, d)
    return {"from": from_currency.upper(), "to": to_currency.upper(), "amount": amount, "date": d.isoformat(),
            "rate": rate, "result": round(amount * rate, 2)}


@APP.tool()
def get_historical_rates(env: AppEnv, base: str = Code, target: str = Code,
                         start_date: str = Field(description="First date YYYY-MM-DD"),
                         end_date: str = Field(description="Last date YYYY-MM-DD")) -> dict[str, Any]:
    """Daily rates over a period (at most 92 days) with min, max, mean and change from first to last."""
    a, b = _day(env, start_date, "start_date"), _day(env, end_date, "end_date")
    if b < a:
        raise fail(f"end_date {end_date} is before start_date {start_date}", "conflict")
    if (b - a).days > 92:
        raise fail("a period is at most 92 days", "range")
    series = {(a + timedelta(days=i)).isoformat(): _rate(env, base, target, a + timedelta(days=i))
              for i in range((b - a).days + 1)}
    vals = list(series.values())
    first, last = vals[0], vals[-1]
    return {"base": base.upper(), "target": target.upper(), "start_date": a.isoformat(), "end_date": b.isoformat(),
            "rates": series, "min": min(vals), "max": max(vals), "mean": tidy(sum(vals) / len(vals), 6),
            "change": tidy(last - first, 6), "change_pct": round((last - first) / first * 100, 2)}


@APP.tool()
def list_currencies(env: AppEnv) -> dict[str, Any]:
    """The supported currencies (ISO code and name)."""
    return {"currencies": {c["code"]: c["name"] for c in collection(env, "currencies").values()}}
