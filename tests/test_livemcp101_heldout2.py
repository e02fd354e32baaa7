"""LiveMCP-101 after its second held-out review: each pattern checked both ways on a task it covers (a right
answer in the solver's own words, calls or layout passes; a wrong one fails)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_persona.protocols import load_tasks
from mcp_persona.scoring.grounding import Evidence
from mcp_persona.trial import read_calls, try_task

LIVE = {t.id: t for t in load_tasks("livemcp101")}


def run(tid: str, answer: str, calls: list[dict[str, Any]] | None = None, tmp: Path | None = None) -> dict[str, Any]:
    planned = None
    if calls is not None:
        assert tmp is not None
        f = tmp / "calls.json"
        f.write_text(json.dumps(calls))
        planned = read_calls(f)
    score = try_task(LIVE[tid], answer=answer, calls=planned).score
    assert score is not None
    return score.values


def test_a_conversion_by_a_known_factor_is_grounded() -> None:
    ev = Evidence.of([], given="")
    assert ev.why_ungrounded("1082.68", "330 / 0.3048") is not None  # 330 was never shown
    ev = Evidence.of([], given="It is 330 m tall")
    assert ev.why_ungrounded("1082.68", "330 / 0.3048") is None
    assert ev.why_ungrounded("1082.68", "330 / 0.31") is not None  # no known factor


def test_a_rate_times_the_total_worked_out_by_the_agent_is_grounded(tmp_path: Path) -> None:
    calls = [{"server": "yahoo_finance", "tool": "get_stock_info", "arguments": {"ticker": k}}
             for k in ("AAPL", "MSFT", "NVDA")]
    calls.append({"server": "exchange_rate", "tool": "get_exchange_rate", "arguments": {"base": "USD", "target": "EUR"}})
    v = run("finance_medium_01", "Your portfolio is worth $18,975.30, that's €17,483.84.", calls, tmp_path)
    assert v["strict"] is True
    v = run("finance_medium_01", "Your portfolio is worth $18,975.30, that's €17,843.84.", calls, tmp_path)
    assert v["strict"] is False
