"""The benchmarks still run end to end and report sane numbers (so they cannot silently rot)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load_script(name: str = "bench_tool_call"):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses/typing resolve annotations through sys.modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def test_bench_tool_call_runs_and_reports_positive_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script()
    result = bench.main(["--calls", "20", "--rounds", "1", "--episodes", "2"])

    expected = {"sdk floor (echo)", "ours read", "ours write", "ours rejected", "json load/save read",
                "json load/save write", "episode set-up"}
    assert set(result["wall_us"]) == expected
    assert set(result["cpu_us"]) == expected
    for name in expected:
        assert math.isfinite(result["wall_us"][name]) and result["wall_us"][name] > 0, name
        assert math.isfinite(result["cpu_us"][name]) and result["cpu_us"][name] >= 0, name
    assert len(result["ratios"]) == 6
    for label, (wall, cpu) in result["ratios"].items():
        assert math.isfinite(wall) and wall > 0, label
        assert math.isfinite(cpu) and cpu >= 0, label
    assert set(result["setup_phases_us"]) == {"env", "server", "connect", "list_tools", "close", "total"}

    out = capsys.readouterr().out
    assert "wall us/call" in out
    for row in [*expected - {"episode set-up"}, "episode set-up (per episode)"]:
        line = next(ln for ln in out.splitlines() if ln.startswith(row + " "))
        assert float(line[len(row):].split()[0]) > 0, line
    for label in result["ratios"]:
        line = next(ln for ln in out.splitlines() if ln.startswith(label))
        assert float(line[len(label):].split()[0].rstrip("x")) > 0, line


def test_bench_sandbox_breaks_a_run_down_and_times_another_version(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script("bench_sandbox")
    src = str(BENCHMARKS.parent / "src")
    medians = bench.main(2, 2, [src])  # this very tree as the other version: the worker path runs end to end
    assert list(medians) == ["python", "bwrap true", "bwrap python", "run_python", f"before: {src}"]
    assert all(math.isfinite(ms) and ms > 0 for ms in medians.values()), medians
    assert medians["run_python"] > medians["bwrap true"]  # a whole run holds the walls' start
    out = capsys.readouterr().out
    assert "2 runs of time.sleep(0.5) at once:" in out and f"before: {src}" in out


def test_bench_agent_turn_runs_and_reports_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load_script("bench_agent_turn")
    result = bench.main(["--tasks", "3", "--levels", "1,4", "--waves", "1", "--latency", "0.05"])

    turns = result["turns"]
    assert turns["episodes"] == 3 and turns["answered"] == 3  # the endpoint walked every gold chain to its answer
    assert turns["turns"] == turns["requests"] >= 3
    assert 0 < turns["cpu_ms_median"] <= turns["cpu_ms_p95"]
    assert 0 < turns["client_cpu_ms_median"] < turns["cpu_ms_p95"]  # the client's share is part of a turn
    assert 0 < turns["request_bytes_p50"] <= turns["request_bytes_max"]
    assert turns["request_bytes_max_task"] in {t.id for t in bench.load_tasks("persona")[:3]}
    assert set(turns["tasks_over_budget"]) <= {t.id for t in bench.load_tasks("persona")[:3]}
    assert set(result["scaling"]) == {1, 4}
    for c, row in result["scaling"].items():
        assert row["episodes"] == c and row["errors"] == 0, row
        assert row["eps"] > 0 and row["rss_mb_per_episode"] >= 0
    assert result["scaling"][1]["ratio"] == 1.0

    out = capsys.readouterr().out
    for mark in ("(a) harness CPU per model turn", "(b,c)", "(d) request bytes per turn"):
        assert mark in out


@pytest.mark.parametrize(("suite", "tasks"), [
    ("mcpagentbench", "day_parallel_0[1-3],day_serial_0[1-3],pro_multi_0[1-2]"),
    ("livemcp101", "finance_easy_0[1-3],office_medium_0[1-2],software_*_01"),
])
def test_sloppy_agents_score_below_gold_under_each_protocol(suite: str, tasks: str) -> None:
    """The scripted faults, scored by each protocol's own run summary: none reaches the gold chain's score
    where it changed the task (MCPAgentBench: turns split or merged cost TEFS only, as the paper's rule says)."""
    bench = _load_script("sloppy_agents")
    results = bench.main(["--suite", suite, "--tasks", tasks])
    gold = results.pop("gold")
    primary = "tefs" if suite == "mcpagentbench" else "tsr"
    assert gold[primary] == 1.0 and gold["faulted"] == 0
    equivalent = results.pop("equivalent answer", None)  # no fault: the reference answer in another form
    assert equivalent is None or equivalent[primary] == 1.0
    for name, m in results.items():
        assert m["faulted"] > 0, name
        if suite == "livemcp101" and name == "writes twice":
            assert m["tsr"] <= 1.0 and m["strict_sr"] < 1.0  # rewriting a file is idempotent; a second issue is not
            continue
        assert m[primary] < 1.0, (name, m[primary])
    if suite == "mcpagentbench":
        assert results["a call a turn"]["tfs"] == 1.0 and results["all in one turn"]["tfs"] == 1.0
    else:
        assert results["answer only"]["tsr"] == 0.0 and results["paste all"]["tsr"] == 0.0
