"""The Tushare app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv

APP = get_app("tushare")
DATA = APP.load_context("default")

H = AppHarness(APP, read_only=True, envelope={"code": 0, "msg": ""})
call = H.call_json
env = H.env_fixture()


async def rows(env: AppEnv, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    body = await H.ok_json(env, tool, args)
    assert len(body["request_id"]) == 32
    return [dict(zip(body["data"]["fields"], item, strict=True)) for item in body["data"]["items"]]


def test_dataset() -> None:
    assert APP.personalized is False and len(APP.tool_names) == 8
    assert len(DATA["stocks"]) == 22 and len(DATA["indices"]) == 5
    days = sorted(DATA["stocks"]["600519.SH"]["daily"])
    assert days[0] == "20260105" and days[-1] == "20260309" and len(days) == 40
    for s in DATA["stocks"].values():
        for b in s["daily"].values():
            assert b["low"] <= min(b["open"], b["close"]) <= max(b["open"], b["close"]) <= b["high"]


@pytest.mark.anyio
async def test_stock_basic(env: AppEnv) -> None:
    listed = await rows(env, "stock_basic", {})
    assert len(listed) == 21 and listed[0]["ts_code"] == "000001.SZ"
    assert set(listed[0]) == {"ts_code", "symbol", "name", "area", "industry", "market", "list_date"}
    sz = await rows(env, "stock_basic", {"exchange": "SZSE", "market": "创业板", "fields": "ts_code,name"})
    assert sz == [{"ts_code": "300059.SZ", "name": "东方财富"}, {"ts_code": "300750.SZ", "name": "宁德时代"}]
    gone = await rows(env, "stock_basic", {"list_status": "D", "fields": "ts_code,name,delist_date"})
    assert gone == [{"ts_code": "600087.SH", "name": "退市长油", "delist_date": "20140605"}]
    assert (await rows(env, "stock_basic", {"name": "贵州茅台"}))[0]["ts_code"] == "600519.SH"


@pytest.mark.anyio
async def test_daily_and_daily_basic(env: AppEnv) -> None:
    bars = await rows(env, "daily", {"ts_code": "600519.SH", "start_date": "20260305", "end_date": "20260309"})
    assert [b["trade_date"] for b in bars] == ["20260309", "20260306", "20260305"]
    assert bars[0]["close"] == DATA["stocks"]["600519.SH"]["daily"]["20260309"]["close"]
    assert bars[0]["pre_close"] == bars[1]["close"]
    one_day = await rows(env, "daily", {"trade_date": "20260306", "fields": "ts_code,close"})
    assert len(one_day) == 21 and one_day == sorted(one_day, key=lambda r: r["ts_code"])
    two = await rows(env, "daily", {"ts_code": "600519.SH,000858.SZ", "trade_date": "20260306"})
    assert [r["ts_code"] for r in two] == ["000858.SZ", "600519.SH"]
    assert await rows(env, "daily", {"ts_code": "600000.SH"}) == []  # well-formed but unknown: empty, as Tushare
    assert await rows(env, "daily", {"ts_code": "600519.SH", "trade_date": "20260217"}) == []  # market closed
    basic = await rows(env, "daily_basic", {"ts_code": "600519.SH", "trade_date": "20260309"})
    bar = DATA["stocks"]["600519.SH"]["daily"]["20260309"]
    assert basic[0]["total_mv"] == bar["total_mv"] == round(bar["close"] * 125620, 4)
    assert basic[0]["pe_ttm"] == bar["pe_ttm"] and basic[0]["total_share"] == 125620


@pytest.mark.anyio
async def test_trade_cal_and_index(env: AppEnv) -> None:
    cal = await rows(env, "trade_cal", {"start_date": "20260213", "end_date": "20260225", "is_open": "1"})
    assert [c["cal_date"] for c in cal] == ["20260225", "20260224", "20260213"]
    assert cal[1]["pretrade_date"] == "20260213"
    jan = await rows(env, "trade_cal", {"exchange": "SZSE", "start_date": "20260101", "end_date": "20260105"})
    assert [(c["cal_date"], c["is_open"]) for c in jan][-3:] == [("20260103", 0), ("20260102", 0), ("20260101", 0)]
    idx = await rows(env, "index_daily", {"ts_code": "000001.SH", "trade_date": "20260309"})
    assert idx[0]["close"] == DATA["indices"]["000001.SH"]["daily"]["20260309"]["close"]


@pytest.mark.anyio
async def test_statements_and_top_list(env: AppEnv) -> None:
    inc = await rows(env, "income", {"ts_code": "600519.SH"})
    assert [r["end_date"] for r in inc] == ["20251231", "20250930", "20250630", "20250331", "20241231"]
    annual = await rows(env, "income", {"ts_code": "600519.SH", "period": "20251231", "fields": "ann_date,n_income"})
    assert annual == [{"ann_date": "20260227", "n_income": DATA["stocks"]["600519.SH"]["income"]["20251231"][
        "n_income"]}]
    recent = await rows(env, "income", {"ts_code": "000858.SZ", "start_date": "20251001", "end_date": "20260309"})
    assert [r["end_date"] for r in recent] == ["20250930"]
    fi = await rows(env, "fina_indicator", {"ts_code": "300750.SZ", "period": "20250930"})
    assert fi[0]["roe"] == DATA["stocks"]["300750.SZ"]["fina_indicator"]["20250930"]["roe"]
    top = await rows(env, "top_list", {"trade_date": "20260309"})
    assert [t["ts_code"] for t in top] == ["600036.SH"] and top[0]["reason"].startswith("日涨幅偏离值达到7%")
    expected = sorted((td, c) for c, s in DATA["stocks"].items() for td in s["top_list"])
    assert all(abs(DATA["stocks"][c]["daily"][td]["pct_chg"]) >= 7 for td, c in expected)


ERRORS = [
    ("daily", {"ts_code": 600519}, "ts_code"),
    ("stock_basic", {"fields": ["ts_code"]}, "fields"),
    ("trade_cal", {"is_open": 1}, "is_open"),
    ("top_list", {"trade_date": 20260309}, "trade_date"),
    ("index_daily", {}, "ts_code"),
    ("income", {"period": "20250930"}, "ts_code"),
    ("top_list", {}, "trade_date"),
    ("daily", {"start_date": "20260101"}, "ts_code 和 trade_date 至少需要一个"),
    ("daily", {"ts_code": "600519.SH", "start_date": "2026-03-01"}, "pattern"),
    ("stock_basic", {"list_status": "X"}, "list_status"),
    ("trade_cal", {"exchange": "NYSE"}, "exchange"),
    ("daily", {"ts_code": "600519.SH", "start_date": "20260230"}, "not a real date"),
    ("fina_indicator", {"ts_code": "600519.SH", "period": "20250815"}, "not a quarter end"),
    ("daily", {"ts_code": "600519.SH", "start_date": "20260309", "end_date": "20260301"}, "is after end_date"),
    ("daily", {"ts_code": "600519.SH", "trade_date": "20260306", "start_date": "20260301"}, "not both"),
    ("daily", {"ts_code": "MOUTAI"}, "is not of the form"),
    ("income", {"ts_code": "600519.SH,000858.SZ"}, "exactly one stock"),
    ("top_list", {"trade_date": "20260217"}, "not a trading day"),
    ("stock_basic", {"fields": "ts_code,price"}, "unknown field(s) price"),
    ("index_daily", {"ts_code": "000001.SH", "trade_date": "20260306", "end_date": "20260309"}, "not both"),
    ("trade_cal", {"start_date": "20260310", "end_date": "20260301"}, "is after end_date"),
    ("daily_basic", {"ts_code": "600519", "trade_date": "20260306"}, "is not of the form"),
]


@pytest.mark.parametrize(("tool", "args", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], needle: str) -> None:
    before = env.tree.hash()
    err, body = await call(env, tool, args)
    assert err and body["code"] == 40101 and body["data"] is None, body
    assert needle in body["msg"], body["msg"]
    assert env.tree.hash() == before
