"""Asking a judge model: at most two attempts, the second after a corrective message."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from mcp_persona.judges.parse import JudgeAttempt, JudgeVerdict, VerdictParseError, corrective_message, parse_verdict
from mcp_persona.judges.render import Budgets
from mcp_persona.judges.schemas import shape_of
from mcp_persona.llm.base import ChatClient, ChatResponse, ModelError
from mcp_persona.trajectory import Usage

MAX_ATTEMPTS = 2

JSON_ONLY = (
    "Reply with exactly one JSON object and nothing else (no text before or after it; a ```json fenced block "
    "around it is accepted). Use this shape:\n{shape}"
)


def prompt_sha256(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


async def ask_judge(
    client: ChatClient,
    messages: list[dict[str, Any]],
    schema: type[BaseModel],
    *,
    judge: str,
    subject: str = "",
    prompt_version: str = "",
    context: dict[str, Any] | None = None,
    label: Callable[[BaseModel], Any] | None = None,
    score: Callable[[BaseModel], float | None] | None = None,
    max_attempts: int = MAX_ATTEMPTS,
) -> JudgeVerdict:
    """Ask, parse strictly, retry once with a corrective message, and record everything.

    ``label`` / ``score`` read the verdict's label and [0, 1] score from the validated model. An endpoint
    failure (:class:`ModelError`) ends in status ``error``, never in a guessed verdict.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    convo = list(messages)
    attempts: list[JudgeAttempt] = []
    usage = Usage()
    base = {"judge": judge, "model": client.name, "subject": subject, "prompt_version": prompt_version,
            "prompt_sha256": prompt_sha256(messages)}
    for _ in range(max_attempts):
        try:
            resp = await client.complete(convo, [])
        except ModelError as exc:
            attempts.append(JudgeAttempt(error=f"model error: {exc}"))
            return JudgeVerdict(status="error", attempts=attempts, usage=usage, cost_usd=_total(attempts),
                                error=str(exc), **base)
        usage = usage + resp.usage
        raw = resp.content
        try:
            verdict = parse_verdict(raw, schema, context=context)
        except VerdictParseError as exc:
            attempts.append(JudgeAttempt(raw=raw, error=str(exc), usage=resp.usage, cost_usd=_cost(resp)))
            convo = [*convo, {"role": "assistant", "content": raw or ""},
                     {"role": "user", "content": corrective_message(str(exc), shape_of(schema))}]
            continue
        attempts.append(JudgeAttempt(raw=raw, usage=resp.usage, cost_usd=_cost(resp)))
        return JudgeVerdict(
            status="ok", parsed=verdict.model_dump(mode="json"), label=label(verdict) if label else None,
            score=score(verdict) if score else None, attempts=attempts, usage=usage, cost_usd=_total(attempts),
            **base,
        )
    return JudgeVerdict(status="unparseable", attempts=attempts, usage=usage, cost_usd=_total(attempts),
                        error=f"no valid verdict in {len(attempts)} attempts: {attempts[-1].error}", **base)


def _cost(resp: ChatResponse) -> float | None:
    return getattr(resp, "cost_usd", None)  # clients that do not price calls leave it None


def _total(attempts: list[JudgeAttempt]) -> float | None:
    costs = [a.cost_usd for a in attempts if a.cost_usd is not None]
    return sum(costs) if costs else None


def system_message(text: str, schema: type[BaseModel]) -> dict[str, str]:
    return {"role": "system", "content": text.strip() + "\n\n" + JSON_ONLY.format(shape=shape_of(schema))}


class ModelJudge:
    """What every LLM judge holds: its client, the prompt budgets and how often a malformed answer is retried."""

    kind = "judge"

    def __init__(self, client: ChatClient, *, budgets: Budgets | None = None, max_attempts: int = MAX_ATTEMPTS):
        self.client = client
        self.budgets = budgets or Budgets()
        self.max_attempts = max_attempts

    @property
    def model(self) -> str:
        return self.client.name


__all__ = ["MAX_ATTEMPTS", "ModelJudge", "ask_judge", "system_message"]
