"""An episode's score: what a protocol's rules, and then its judges, made of the episode, as one typed value.

* ``values``: the episode's numbers under the protocol's own keys (``acc``, ``exec_acc``, ``tfs``, ``success``
  ...): what a run's summary, intervals and ``compare`` are computed from;
* ``checks``: the parts that decided them, one per check (a checkpoint, a gold call, a file the agent left),
  each with its score and why;
* ``explanation``: why the score is what it is, in the protocol's words (what a report's episode view shows);
* ``detail``: the protocol's own record of how it scored (what its judges and failure analysis read back).

A protocol builds it once from its record (:meth:`mcp_persona.protocols.base.Protocol.scored`); a judge returns
a new one and never changes the rules' score. Records stored before scores were typed (one flat dict) read as
a score whose ``detail`` is that dict.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

Value = bool | int | float | None


class Check(BaseModel):
    """One check that decided part of an episode's score."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, description="what was checked, in the protocol's words")
    score: float | None = Field(ge=0.0, le=1.0, description="0..1; None: undecided (left to a judge, none came)")
    why: str = ""


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    values: dict[str, Value] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)
    explanation: list[str] = Field(default_factory=list)
    detail: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, data: Any) -> Any:
        # a record stored before scores were typed holds the protocol's flat dict
        if isinstance(data, dict) and "detail" not in data:
            return {"values": numbers_of(data), "detail": data}
        return data

    def value(self, key: str) -> Value:
        """One of the episode's values (None: the score has no such value, or it does not apply)."""
        return self.values.get(key)


def numbers_of(detail: dict[str, Any]) -> dict[str, Value]:
    """The numbers (and yes/no values) of a protocol's record, and the keys it left empty."""
    return {k: v for k, v in detail.items() if isinstance(v, bool | int | float) or v is None}
