"""Scoring: deterministic checkpoint and execution checks, and the suite metrics."""

from mcp_persona.scoring.checkpoints import CheckpointResult, TaskScore, score_episode
from mcp_persona.scoring.metrics import EpisodeScore, by_category, suite_metrics

__all__ = ["CheckpointResult", "EpisodeScore", "TaskScore", "by_category", "score_episode", "suite_metrics"]
