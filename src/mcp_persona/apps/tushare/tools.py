"""The Tushare tools over the fixed Tushare dataset (see ``data/hierarchies/tushare.json``).

Every tool answers as the Tushare Pro HTTP API does: a table as ``fields`` plus ``items`` rows.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

PARAM_ERROR = 40101  # the simulator answers every bad, missing or contradictory argument with it
INTERNAL = 50101
TS_CODE = re.compile(r"^\d{6}\.(SH|SZ|BJ)$")
DATE = r"^\d{8}$"


class TushareApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return json.dumps({"request_id": _request_id(tool, result), "code": 0, "msg": "", "data": result},
                          ensure_ascii=False)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code if failure.code is not None else (INTERNAL if failure.kind == "internal"
                                                               else PARAM_ERROR)
        return json.dumps({"request_id": _request_id(tool, failure.message), "code": code, "msg": failure.message,
                           "data": None}, ensure_ascii=False)

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return self.error_payload(tool, ToolFailure(f"参数错误 (invalid parameters): {detail}", kind="type"))


def _request_id(tool: str, payload: Any) -> str:
    """Deterministic stand-in for Tushare's request_id."""
    return hashlib.sha1(f"{tool}:{json.dumps(payload, ensure_ascii=False, sort_keys=True)}".encode()).hexdigest()[:32]


APP = TushareApp(
    "tushare",
    title="Tushare Pro",
    category="information",
    personalized=False,
    description="Chinese A-share market data (Tushare Pro): stock list, daily bars, valuation, trading calendar, "
                "index bars, income statements, financial indicators and the Dragon-Tiger list.",
    real_server="zhewenzhang/tushare_MCP (Tushare Pro API interface names)",
)


def _fail(message: str, kind: Any = "range") -> ToolFailure:
    return ToolFailure(message, kind=kind, code=PARAM_ERROR)


def _table(fields: list[str], rows: list[dict[str, Any]], wanted: str | None) -> dict[str, Any]:
    if wanted:
        chosen = [f.strip() for f in wanted.split(",") if f.strip()]
        unknown = [f for f in chosen if f not in fields]
        if unknown:
            raise _fail(f"fields 参数错误: unknown field(s) {', '.join(unknown)} (available: {', '.join(fields)})")
        fields = chosen
    return {"fields": fields, "items": [[r.get(f) for f in fields] for r in rows], "has_more": False}


def _date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        datetime.strptime(value, "%Y%m%d")
    except ValueError as exc:
        raise _fail(f"{name} {value!r} is not a real date (YYYYMMDD)") from exc
    return value


def _range(start: str | None, end: str | None, trade_date: str | None = None) -> Callable[[str], bool]:
    s, e, t = _date(start, "start_date"), _date(end, "end_date"), _date(trade_date, "trade_date")
    if t and (s or e):
        raise _fail("give trade_date or start_date/end_date, not both", kind="conflict")
    if s and e and s > e:
        raise _fail(f"start_date {s} is after end_date {e}", kind="conflict")
    if t:
        return lambda d: d == t
    return lambda d: (s is None or d >= s) and (e is None or d <= e)


def _codes(ts_code: str | None) -> list[str]:
    if not ts_code:
        return []
    codes = [c.strip().upper() for c in ts_code.split(",") if c.strip()]
    bad = [c for c in codes if not TS_CODE.match(c)]
    if bad:
        raise _fail(f"ts_code {', '.join(bad)} is not of the form 000001.SZ / 600000.SH / 830799.BJ")
    return codes


def _stocks(env: AppEnv) -> dict[str, dict[str, Any]]:
    return env.tree.data.get("stocks") or {}


# -- stock list and calendar -------------------------------------------------------------------------
BASIC_FIELDS = ["ts_code", "symbol", "name", "area", "industry", "market", "exchange", "curr_type", "list_status",
                "list_date", "delist_date", "is_hs"]
DEFAULT_BASIC = ["ts_code", "symbol", "name", "area", "industry", "market", "list_date"]


@APP.tool()
def stock_basic(
    env: AppEnv,
    ts_code: str | None = Field(None, description="TS股票代码, e.g. '600519.SH' (comma-separated for several)"),
    name: str | None = Field(None, description="股票名称 (exact), e.g. '贵州茅台'"),
    exchange: Literal["SSE", "SZSE", "BSE"] | None = Field(None, description="交易所 SSE上交所 SZSE深交所 BSE北交所"),
    market: str | None = Field(None, description="市场类别: 主板 / 创业板 / 科创板 / 北交所"),
    list_status: Literal["L", "D", "P"] = Field("L", description="上市状态 L上市 D退市 P暂停上市 (default L)"),
    fields: str | None = Field(None, description="comma-separated output fields (default: ts_code,symbol,name,area,"
                                                 "industry,market,list_date)"),
) -> dict[str, Any]:
    """股票列表 (stock_basic): 股票代码、名称、上市日期、退市日期等基础信息."""
    codes = _codes(ts_code)
    rows = []
    for s in sorted(_stocks(env).values(), key=lambda s: s["ts_code"]):
        if codes and s["ts_code"] not in codes:
            continue
        if (name and s["name"] != name) or (exchange and s["exchange"] != exchange):
            continue
        if market and s["market"] != market:
            continue
        if s["list_status"] != list_status:
            continue
        rows.append(s)
    table = _table(BASIC_FIELDS, rows, fields or ",".join(DEFAULT_BASIC))
    return table


@APP.tool()
def trade_cal(
    env: AppEnv,
    exchange: Literal["SSE", "SZSE", "BSE"] = Field("SSE", description="交易所 (default SSE)"),
    start_date: str | None = Field(None, pattern=DATE, description="开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="结束日期 YYYYMMDD"),
    is_open: Literal["0", "1"] | None = Field(None, description="是否交易 '0'休市 '1'交易"),
) -> dict[str, Any]:
    """交易日历 (trade_cal): 各交易所交易日历 (newest date first)."""
    keep = _range(start_date, end_date)
    rows = [{"exchange": exchange, **c} for c in (env.tree.data.get("trade_cal") or {}).values()
            if keep(c["cal_date"]) and (is_open is None or c["is_open"] == int(is_open))]
    rows.sort(key=lambda r: r["cal_date"], reverse=True)
    return _table(["exchange", "cal_date", "is_open", "pretrade_date"], rows, None)


# -- bars ---------------------------------------------------------------------------------------------
DAILY_FIELDS = ["ts_code", "trade_date", "open", "high", "low", "close", "pre_close", "change", "pct_chg", "vol",
                "amount"]
BASIC_DAILY_FIELDS = ["ts_code", "trade_date", "close", "turnover_rate", "pe_ttm", "pb", "total_share", "float_share",
                      "total_mv", "circ_mv"]


def _bars(env: AppEnv, collection: str, ts_code: str | None, trade_date: str | None, start: str | None,
          end: str | None) -> list[dict[str, Any]]:
    codes = _codes(ts_code)
    if not codes and not trade_date:
        raise _fail("ts_code 和 trade_date 至少需要一个 (give ts_code or trade_date)", kind="missing")
    keep = _range(start, end, trade_date)
    source = env.tree.data.get(collection) or {}
    rows = []
    for code in codes or sorted(source):
        owner = source.get(code)
        if owner is None:
            continue  # an unknown code has no rows, as in Tushare
        for td, bar in owner.get("daily", {}).items():
            if keep(td):
                rows.append({"ts_code": code, "total_share": owner.get("total_share"),
                             "float_share": owner.get("float_share"), **bar})
    rows.sort(key=lambda r: (-int(r["trade_date"]), r["ts_code"]))
    return rows


@APP.tool()
def daily(
    env: AppEnv,
    ts_code: str | None = Field(None, description="股票代码, e.g. '000001.SZ' (comma-separated for several)"),
    trade_date: str | None = Field(None, pattern=DATE, description="交易日期 YYYYMMDD"),
    start_date: str | None = Field(None, pattern=DATE, description="开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="结束日期 YYYYMMDD"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """A股日线行情 (daily, 未复权): vol in 手 (lots of 100 shares), amount in 千元; newest trading day first."""
    return _table(DAILY_FIELDS, _bars(env, "stocks", ts_code, trade_date, start_date, end_date), fields)


@APP.tool()
def daily_basic(
    env: AppEnv,
    ts_code: str | None = Field(None, description="股票代码"),
    trade_date: str | None = Field(None, pattern=DATE, description="交易日期 YYYYMMDD"),
    start_date: str | None = Field(None, pattern=DATE, description="开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="结束日期 YYYYMMDD"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """每日指标 (daily_basic): 换手率(%)、市盈率TTM、市净率、总股本/流通股本(万股)、总市值/流通市值(万元)."""
    return _table(BASIC_DAILY_FIELDS, _bars(env, "stocks", ts_code, trade_date, start_date, end_date), fields)


@APP.tool()
def index_daily(
    env: AppEnv,
    ts_code: str = Field(min_length=1, description="指数代码, e.g. '000001.SH' 上证指数, '399006.SZ' 创业板指"),
    trade_date: str | None = Field(None, pattern=DATE, description="交易日期 YYYYMMDD"),
    start_date: str | None = Field(None, pattern=DATE, description="开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="结束日期 YYYYMMDD"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """指数日线行情 (index_daily): vol in 手, amount in 千元; newest trading day first."""
    fields_ = ["ts_code", "trade_date", "close", "open", "high", "low", "pre_close", "change", "pct_chg", "vol",
               "amount"]
    return _table(fields_, _bars(env, "indices", ts_code, trade_date, start_date, end_date), fields)


# -- financial statements -----------------------------------------------------------------------------
INCOME_FIELDS = ["ts_code", "ann_date", "f_ann_date", "end_date", "report_type", "comp_type", "basic_eps",
                 "diluted_eps", "total_revenue", "revenue", "oper_cost", "operate_profit", "total_profit", "n_income",
                 "n_income_attr_p"]
FINA_FIELDS = ["ts_code", "ann_date", "end_date", "eps", "dt_eps", "bps", "roe", "grossprofit_margin",
               "netprofit_margin", "debt_to_assets", "current_ratio", "or_yoy"]


def _reports(env: AppEnv, collection: str, ts_code: str, ann_date: str | None, start: str | None,
             end: str | None, period: str | None) -> list[dict[str, Any]]:
    codes = _codes(ts_code)
    if len(codes) != 1:
        raise _fail("ts_code must name exactly one stock", kind="conflict")
    _date(period, "period")
    if period and period[4:] not in ("0331", "0630", "0930", "1231"):
        raise _fail(f"period {period} is not a quarter end (MMDD 0331/0630/0930/1231)")
    keep_ann = _range(start, end, ann_date)
    stock = _stocks(env).get(codes[0])
    if stock is None:
        return []
    rows = [{"ts_code": codes[0], **r} for r in stock.get(collection, {}).values()
            if keep_ann(r["ann_date"]) and (period is None or r["end_date"] == period)]
    rows.sort(key=lambda r: r["end_date"], reverse=True)
    return rows


@APP.tool()
def income(
    env: AppEnv,
    ts_code: str = Field(min_length=1, description="股票代码"),
    ann_date: str | None = Field(None, pattern=DATE, description="公告日期 YYYYMMDD"),
    start_date: str | None = Field(None, pattern=DATE, description="公告开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="公告结束日期 YYYYMMDD"),
    period: str | None = Field(None, pattern=DATE, description="报告期 (quarter end, e.g. 20250930)"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """利润表 (income, 合并报表): cumulative year-to-date amounts in CNY; start/end_date filter ann_date."""
    return _table(INCOME_FIELDS, _reports(env, "income", ts_code, ann_date, start_date, end_date, period), fields)


@APP.tool()
def fina_indicator(
    env: AppEnv,
    ts_code: str = Field(min_length=1, description="股票代码"),
    ann_date: str | None = Field(None, pattern=DATE, description="公告日期 YYYYMMDD"),
    start_date: str | None = Field(None, pattern=DATE, description="公告开始日期 YYYYMMDD"),
    end_date: str | None = Field(None, pattern=DATE, description="公告结束日期 YYYYMMDD"),
    period: str | None = Field(None, pattern=DATE, description="报告期 (quarter end)"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """财务指标 (fina_indicator): eps, bps, roe (%), margins (%), debt_to_assets (%), current_ratio, or_yoy (%)."""
    return _table(FINA_FIELDS, _reports(env, "fina_indicator", ts_code, ann_date, start_date, end_date, period),
                  fields)


@APP.tool()
def top_list(
    env: AppEnv,
    trade_date: str = Field(pattern=DATE, description="交易日期 YYYYMMDD"),
    ts_code: str | None = Field(None, description="股票代码"),
    fields: str | None = Field(None, description="comma-separated output fields"),
) -> dict[str, Any]:
    """龙虎榜每日明细 (top_list): stocks whose daily move deviated by 7% or more, with buy/sell amounts (CNY)."""
    _date(trade_date, "trade_date")
    cal = (env.tree.data.get("trade_cal") or {}).get(trade_date)
    if cal is not None and cal["is_open"] == 0:
        raise _fail(f"{trade_date} is not a trading day (previous trading day: {cal['pretrade_date']})",
                    kind="conflict")
    codes = _codes(ts_code)
    rows = []
    for code, s in sorted(_stocks(env).items()):
        entry = s.get("top_list", {}).get(trade_date)
        if entry is not None and (not codes or code in codes):
            rows.append({"ts_code": code, **entry})
    fields_ = ["trade_date", "ts_code", "name", "close", "pct_change", "turnover_rate", "amount", "l_sell", "l_buy",
               "l_amount", "net_amount", "net_rate", "amount_rate", "float_values", "reason"]
    return _table(fields_, rows, fields)
