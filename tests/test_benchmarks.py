"""The tool-call benchmark still runs end to end and reports sane numbers (so it cannot silently rot)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_tool_call.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("bench_tool_call", SCRIPT)
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
