"""What an episode cost in calls, tokens and time: the same figures under every protocol."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_persona.store import EpisodeRecord
from mcp_persona.trajectory import Trajectory


def usage_metrics(records: Sequence[EpisodeRecord]) -> dict[str, float]:
    """Tool calls, errors, rounds, tokens and time per episode: the same under every protocol."""
    n = len(records) or 1
    trajs = [r.trajectory for r in records]
    tool_calls = [len(t.tool_calls) for t in trajs]
    return {
        "avg_tool_calls": sum(tool_calls) / n,
        "tool_error_rate": (sum(sum(e.is_error for e in t.tool_calls) for t in trajs) / sum(tool_calls))
        if sum(tool_calls) else 0.0,
        "avg_rounds": sum(t.rounds for t in trajs) / n,
        "avg_input_tokens": sum(t.usage.input_tokens for t in trajs) / n,
        "avg_output_tokens": sum(t.usage.output_tokens for t in trajs) / n,
        "avg_elapsed_s": sum(t.elapsed_s for t in trajs) / n,
        **tool_def_stats(trajs),
    }


def tool_def_stats(trajs: Sequence[Trajectory]) -> dict[str, float]:
    """What the tool definitions cost per model request (mean over requests, and the largest)."""
    per_request = [(t.tool_def_chars, t.tool_def_tokens) for t in trajs for _ in t.model_calls]
    n = len(per_request) or 1
    return {
        "tool_def_chars_per_request": sum(c for c, _ in per_request) / n,
        "tool_def_tokens_per_request": sum(k for _, k in per_request) / n,
        "tool_def_tokens_max": max((k for _, k in per_request), default=0),
    }
