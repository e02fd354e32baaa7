"""A run's cost end to end: prices from the database or the run's own, per task in summary.json, and why an
unknown cost is unknown. The endpoint is a loopback server answering as OpenAI's does (see test_llm_faults)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.llm import pricing_version
from test_llm_faults import OK, FaultServer


@pytest.fixture
def server() -> Iterator[FaultServer]:
    fault = FaultServer()
    fault.thread.start()
    try:
        yield fault
    finally:
        fault.close()


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _run(server: FaultServer, model: str, run_dir: Path, *extra: str) -> Any:
    server.default = OK  # every answer: 120 prompt tokens, 7 completion tokens, the final answer
    return CliRunner().invoke(cli, ["run", "--suite", "persona", "--agent", "model", "--model", model,
                                    "--base-url", server.url, "--limit", "2", "--run-dir", str(run_dir), *extra])


def test_an_unlisted_model_gets_a_cost_from_the_runs_prices(server: FaultServer, tmp_path: Path) -> None:
    result = _run(server, "openai:my-qwen", tmp_path / "run", "--price-in", "0.5", "--price-out", "2")
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    per_episode = (120 * 0.5 + 7 * 2.0) / 1e6  # one model call an episode
    cost = summary["cost"]
    assert cost["usd"] == pytest.approx(2 * per_episode) and cost["per_task_usd"] == pytest.approx(per_episode)
    assert list(cost["by_task_usd"].values()) == pytest.approx([per_episode, per_episode])
    assert cost["pricing"] == summary["pricing"] == {
        "agent": {"source": "override", "usd_per_mtok": {"input": 0.5, "output": 2.0, "cached_input": None}}}
    assert cost["unknown_because"] == []
    assert "cost $0.0001 ($0.0001 per task) · prices: agent override" in result.output


def test_an_unpriced_run_says_why_and_a_listed_model_names_the_database(server: FaultServer, tmp_path: Path) -> None:
    result = _run(server, "openai:my-qwen", tmp_path / "bare")
    assert result.exit_code == 0, result.output
    cost = json.loads((tmp_path / "bare" / "summary.json").read_text())["cost"]
    why = f"no price for openai:my-qwen in {pricing_version()}; pass --price-in/--price-out"
    assert cost["usd"] is None and cost["per_task_usd"] is None and cost["unknown_because"] == [why]
    assert set(cost["by_task_usd"].values()) == {None}
    assert f"cost unknown: {why}" in result.output
    # a model the database lists, behind a gateway: priced at its list price, the source recorded
    result = _run(server, "openai:gpt-4o-mini", tmp_path / "listed")
    assert result.exit_code == 0, result.output
    cost = json.loads((tmp_path / "listed" / "summary.json").read_text())["cost"]
    assert cost["per_task_usd"] == pytest.approx((120 * 0.15 + 7 * 0.6) / 1e6)  # $0.15 / $0.60 per 1M
    assert cost["pricing"] == {"agent": {"source": pricing_version()}}


@pytest.mark.parametrize(("flags", "words"), [
    (["--price-in", "1"], "give both --price-in and --price-out"),
    (["--price-cached-in", "1"], "--price-cached-in needs --price-in and --price-out"),
    (["--judge-price-in", "1", "--judge-price-out", "1"], "give --judge PROVIDER:MODEL too"),
])
def test_price_flags_that_cannot_apply_are_refused(server: FaultServer, tmp_path: Path, flags: list[str],
                                                   words: str) -> None:
    result = _run(server, "openai:my-qwen", tmp_path / "run", *flags)
    assert result.exit_code == 2 and words in result.output, result.output
    assert server.requests == [] and not (tmp_path / "run").exists()


def test_a_sweep_model_carries_its_prices_to_its_runs() -> None:
    from mcp_persona.sweep import SweepModel

    model = SweepModel(model="openai:my-qwen", base_url="http://127.0.0.1:8000/v1", price_in=0.1, price_out=0.4)
    assert model.run_flags() == {"agent": "model", "model": "openai:my-qwen", "base_url": "http://127.0.0.1:8000/v1",
                                 "price_in": 0.1, "price_out": 0.4}
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        SweepModel(model="openai:my-qwen", price_in=-1.0, price_out=0.4)


def test_the_judges_calls_are_priced_on_the_same_path(server: FaultServer, tmp_path: Path) -> None:
    result = _run(server, "openai:my-qwen", tmp_path / "run", "--price-in", "0.5", "--price-out", "2",
                  "--judge", "openai:judge-x", "--judge-base-url", server.url, "--judge-policy", "replace",
                  "--judge-price-in", "1", "--judge-price-out", "4")
    assert result.exit_code == 0, result.output
    judged = sum(1 for r in server.requests if r["model"] == "judge-x") - 1  # the preflight is no episode's
    assert judged > 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    agent, judge = (120 * 0.5 + 7 * 2.0) / 1e6, (120 * 1.0 + 7 * 4.0) / 1e6  # each call: 120 in, 7 out
    assert summary["cost"]["usd"] == pytest.approx(2 * agent + judged * judge)
    assert summary["judge"]["cost_usd"] == pytest.approx(judged * judge)  # every judge call scored a checkpoint
    assert summary["pricing"]["judge"] == {"source": "override",
                                           "usd_per_mtok": {"input": 1.0, "output": 4.0, "cached_input": None}}
