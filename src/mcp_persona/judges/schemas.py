"""The verdict shape of each judge. All strict: exact types, no extra keys, nothing coerced or rounded."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

_STRICT = ConfigDict(extra="forbid", strict=True)

CHECKPOINT_SCORES = (0.0, 0.5, 1.0)
LIKERT_TO_SCORE = {1: 0.0, 2: 0.25, 3: 0.5, 4: 0.75, 5: 1.0}

FailureMode = Literal[
    "ignoring_requirement",
    "overconfident_self_solving",
    "unproductive_thinking",
    "wrong_tool_selection",
    "syntactic_parameter_error",
    "semantic_parameter_error",
    "output_parsing_error",
]
FAILURE_MODES: tuple[str, ...] = FailureMode.__args__  # type: ignore[attr-defined]


def likert_to_score(likert: int) -> float:
    """LiveMCP-101's mapping of a 1–5 Likert rating onto [0, 1]: 1→0, 2→.25, 3→.5, 4→.75, 5→1."""
    if isinstance(likert, bool) or likert not in LIKERT_TO_SCORE:
        raise ValueError(f"a Likert rating is an integer 1-5, not {likert!r}")
    return LIKERT_TO_SCORE[likert]


class CheckpointVerdict(BaseModel):
    """MCP-Persona: one checkpoint scored 0, 0.5 or 1. Any other number (0.7, 0.49) is invalid: never snapped."""

    model_config = _STRICT
    reason: str = Field(min_length=1)
    score: float

    @field_validator("score")
    @classmethod
    def _three_levels(cls, value: float) -> float:
        if value not in CHECKPOINT_SCORES:
            raise ValueError(f"score must be exactly 0, 0.5 or 1, not {value}")
        return value


class LikertVerdict(BaseModel):
    """LiveMCP-101: a 1–5 integer rating (4.0 or "4" are invalid) and its justification."""

    model_config = _STRICT
    feedback: str = Field(min_length=1)
    likert: int = Field(ge=1, le=5)


class KeyPointVerdict(BaseModel):
    """LiveMCPBench: per key point met or not, then success / failure.

    Validated against the number of key points the judge was given (validation context
    ``n_key_points``); a ``success`` with an unmet key point is self-contradictory and invalid.
    """

    model_config = _STRICT
    key_points_met: list[bool]
    reason: str = Field(min_length=1)
    status: Literal["success", "failure"]

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> KeyPointVerdict:
        n = (info.context or {}).get("n_key_points")
        if n is not None and len(self.key_points_met) != n:
            raise ValueError(f"key_points_met must have one entry per key point ({n}), not {len(self.key_points_met)}")
        if self.status == "success" and not all(self.key_points_met):
            raise ValueError("status is 'success' but a key point is marked as not met")
        return self


class KeyPointList(BaseModel):
    """Key points extracted from a task description (LiveMCPBench, for tasks without annotated ones)."""

    model_config = _STRICT
    key_points: list[str] = Field(min_length=1, max_length=20)

    @field_validator("key_points")
    @classmethod
    def _non_blank(cls, value: list[str]) -> list[str]:
        if any(not p.strip() for p in value):
            raise ValueError("a key point is blank")
        return [p.strip() for p in value]


class FailureVerdict(BaseModel):
    """LiveMCP-101's taxonomy: which of the seven failure modes caused the episode to fail."""

    model_config = _STRICT
    evidence: str = Field(min_length=1)
    mode: FailureMode


def shape_of(schema: type[BaseModel]) -> str:
    """The one-line JSON shape shown to a judge (in its prompt and in the corrective message)."""
    return _SHAPES[schema]


_SHAPES: dict[type[BaseModel], str] = {
    CheckpointVerdict: '{"reason": "<one or two sentences>", "score": <0 or 0.5 or 1>}',
    LikertVerdict: '{"feedback": "<why this rating>", "likert": <integer 1 to 5>}',
    KeyPointVerdict: '{"key_points_met": [<true or false, one per key point, in order>], '
                     '"reason": "<short reasoning>", "status": "<success or failure>"}',
    KeyPointList: '{"key_points": ["<key point>", "..."]}',
    FailureVerdict: '{"evidence": "<the events that show it>", "mode": "<one of the mode names>"}',
}


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")


__all__ = [
    "CHECKPOINT_SCORES",
    "FAILURE_MODES",
    "LIKERT_TO_SCORE",
    "CheckpointVerdict",
    "FailureMode",
    "FailureVerdict",
    "KeyPointList",
    "KeyPointVerdict",
    "LikertVerdict",
    "likert_to_score",
    "shape_of",
]
