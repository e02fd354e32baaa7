"""Strict verdict parsing, and the verdict record every judge returns.

A judge is told to reply with one JSON object and nothing else. Parsing accepts
exactly that, optionally inside one ```json fenced block, with whitespace around
it, and nothing more:

* any prose before or after the object, two objects, a list, invalid JSON
  (trailing commas, single quotes, ``NaN``), duplicate keys → malformed;
* the object is then validated against the judge's pydantic schema in strict
  mode (no ``"1"`` for ``1``, no ``true`` for ``1``, no extra keys, no missing
  ones) → malformed when it does not fit.

A malformed reply is never read for a verdict word. The judge's caller makes one
more attempt with a corrective message (:func:`corrective_message`); if that
fails too the verdict is recorded as ``unparseable`` with every raw reply kept.
This is the opposite of the LiveMCPBench evaluator, whose verdict regex missed a
quoted ``"success"`` and then searched the whole reply for the word "success",
scoring "failure" verdicts whose reasoning said "successfully" as successes.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mcp_persona.trajectory import Usage

VerdictStatus = Literal["ok", "unparseable", "error"]

_FENCE = re.compile(r"^```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?[ \t]*```$", re.DOTALL)


class VerdictParseError(ValueError):
    """The reply is not exactly one JSON object fitting the judge's schema. The message says why, in words
    that can be sent back to the judge."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise VerdictParseError(f"the JSON object has the key {key!r} twice")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise VerdictParseError(f"{name} is not valid JSON")


def extract_json_object(text: str | None) -> dict[str, Any]:
    """The one JSON object ``text`` consists of (optionally fenced), or :class:`VerdictParseError`."""
    if text is None or not text.strip():
        raise VerdictParseError("the reply is empty")
    body = text.strip()
    if body.startswith("```"):
        fenced = _FENCE.match(body)
        if fenced is None:
            raise VerdictParseError("the reply has text outside the ```json fenced block, or the block is not closed")
        body = fenced.group("body").strip()
        if "```" in body:
            raise VerdictParseError("the reply has more than one fenced block")
    if not body.startswith("{"):
        raise VerdictParseError("the reply does not start with a JSON object (text before it is not allowed)")
    try:
        value = json.loads(body, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except RecursionError:
        raise VerdictParseError("the JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise VerdictParseError(
                "the reply has text after the JSON object (only one object, and nothing else, is allowed)"
            ) from None
        raise VerdictParseError(f"the reply is not valid JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(value, dict):  # unreachable after the "{" check, kept for clarity
        raise VerdictParseError("the reply is not a JSON object")
    return value


def validate_verdict(
    obj: dict[str, Any], schema: type[BaseModel], *, context: dict[str, Any] | None = None
) -> BaseModel:
    """``obj`` validated against ``schema`` (which should be strict); problems become one readable message."""
    try:
        return schema.model_validate(obj, strict=True, context=context)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            where = ".".join(str(p) for p in err["loc"]) or "(object)"
            problems.append(f"{where}: {err['msg']}")
        raise VerdictParseError("the JSON object does not fit the required shape: " + "; ".join(problems)) from None


def parse_verdict(text: str | None, schema: type[BaseModel], *, context: dict[str, Any] | None = None) -> BaseModel:
    """Exactly one JSON object that fits ``schema``, or :class:`VerdictParseError`. Never a guess."""
    return validate_verdict(extract_json_object(text), schema, context=context)


def corrective_message(error: str, shape: str) -> str:
    """What the judge is told after a malformed reply, before its second (last) attempt."""
    return (
        f"Your reply could not be used: {error}.\n"
        f"Reply again with only the JSON object, in exactly this shape:\n{shape}\n"
        "No text before or after it; no comments; use double quotes; no trailing commas."
    )


class JudgeAttempt(BaseModel):
    """One call to the judge model: its raw reply, why it was rejected (if it was), and its usage."""

    raw: str | None = None
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None  # as the client priced the call (None: unknown)


class JudgeVerdict(BaseModel):
    """What a judge decided about one subject, with everything needed to audit it later.

    * ``status``: ``ok`` (``parsed`` holds the validated verdict), ``unparseable`` (every attempt was
      malformed; ``parsed`` is None and nothing was guessed), or ``error`` (the judge's endpoint failed;
      retryable, distinct from a malformed reply).
    * ``label``: the verdict in the judge's own scale (0/0.5/1, Likert 1–5, ``success``/``failure``, a
      failure mode, a list of key points); ``score``: the same mapped to [0, 1] where that means something.
    * ``attempts``: each call's raw output, rejection reason and usage (the first malformed reply is kept
      even when the second is valid).
    * ``cost_usd``: the sum over attempts of what the client priced each call at; None when it priced none
      (the runner may fill it from its own price table).
    """

    model_config = ConfigDict(extra="forbid")

    judge: str
    model: str
    subject: str = ""
    status: VerdictStatus
    parsed: dict[str, Any] | None = None
    label: Any = None
    score: float | None = None
    attempts: list[JudgeAttempt] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    error: str | None = None
    prompt_version: str = ""
    prompt_sha256: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def raw_outputs(self) -> list[str | None]:
        return [a.raw for a in self.attempts]


__all__ = [
    "JudgeAttempt",
    "JudgeVerdict",
    "VerdictParseError",
    "VerdictStatus",
    "corrective_message",
    "extract_json_object",
    "parse_verdict",
    "validate_verdict",
]
