"""The generation settings a researcher sets for a model, checked against what its API takes.

Each is None unless set, and then the request carries nothing for it (the provider's default), with two
exceptions kept from before: an OpenAI-compatible chat model runs at temperature 0 unless told otherwise
(OpenAI's reasoning models take only their default), and answers are capped at 4096 tokens.

How each reaches a request body:

* ``temperature``, ``top_p``: the field of that name (Anthropic: sent as raw body fields, its SDK has none);
* ``max_tokens``: ``max_completion_tokens`` on the official OpenAI API, ``max_tokens`` elsewhere;
* ``seed``: ``seed``; refused for Anthropic (the API has no seed);
* ``reasoning_effort``: OpenAI's ``reasoning_effort`` (none, minimal, low, medium, high, xhigh); Anthropic's
  ``output_config.effort`` (low, medium, high, xhigh, max);
* ``thinking_budget``: Anthropic's ``thinking: {type: enabled, budget_tokens}``, its thinking blocks sent
  back on every later turn of the episode, as the API requires with tool use; refused for OpenAI-style
  endpoints (use ``reasoning_effort``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

DEFAULT_MAX_TOKENS = 4096
OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
ANTHROPIC_EFFORTS = ("low", "medium", "high", "xhigh", "max")
MIN_THINKING_BUDGET = 1024  # Anthropic's documented floor for budget_tokens


@dataclass(frozen=True)
class ModelSettings:
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None

    @classmethod
    def merged(cls, settings: ModelSettings | None, **shortcuts: Any) -> ModelSettings:
        """``settings`` (or none) with the shortcut fields that are given (a client's ``temperature=`` ...)."""
        given = {k: v for k, v in shortcuts.items() if v is not None}
        return replace(settings or cls(), **given)

    def check(self, provider: str) -> ModelSettings:
        """These settings for ``provider`` (openai, anthropic, local); ValueError naming the flag to fix."""
        if self.temperature is not None and not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"--temperature must be within 0..2 (got {self.temperature:g})")
        if provider == "anthropic" and self.temperature is not None and self.temperature > 1.0:
            raise ValueError(f"--temperature must be within 0..1 for Anthropic models (got {self.temperature:g})")
        if self.top_p is not None and not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"--top-p must be within (0, 1] (got {self.top_p:g})")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"--max-tokens must be at least 1 (got {self.max_tokens})")
        if provider == "anthropic":
            if self.seed is not None:
                raise ValueError("--seed: Anthropic's Messages API has no seed parameter; leave it out")
            if self.reasoning_effort is not None and self.reasoning_effort not in ANTHROPIC_EFFORTS:
                raise ValueError(f"--reasoning-effort {self.reasoning_effort!r}: Anthropic takes "
                                 f"{', '.join(ANTHROPIC_EFFORTS)}")
            if self.thinking_budget is not None:
                if self.thinking_budget < MIN_THINKING_BUDGET:
                    raise ValueError(f"--thinking-budget must be at least {MIN_THINKING_BUDGET} tokens "
                                     f"(got {self.thinking_budget})")
                if self.thinking_budget >= self.answer_tokens:
                    raise ValueError(f"--thinking-budget ({self.thinking_budget}) must be below --max-tokens "
                                     f"({self.answer_tokens}): thinking counts toward the answer's tokens")
                if self.temperature is not None and self.temperature != 1.0:
                    raise ValueError("--temperature cannot be set with --thinking-budget: Anthropic's extended "
                                     "thinking runs at its default temperature")
                if self.top_p is not None and self.top_p < 0.95:
                    raise ValueError("--top-p must be within 0.95..1 with --thinking-budget (Anthropic's rule)")
        else:
            if self.thinking_budget is not None:
                raise ValueError("--thinking-budget is Anthropic's extended thinking; for OpenAI-style reasoning "
                                 "models use --reasoning-effort")
            if self.reasoning_effort is not None and self.reasoning_effort not in OPENAI_EFFORTS:
                raise ValueError(f"--reasoning-effort {self.reasoning_effort!r}: OpenAI-style endpoints take "
                                 f"{', '.join(OPENAI_EFFORTS)}")
        return self

    @property
    def answer_tokens(self) -> int:
        return self.max_tokens if self.max_tokens is not None else DEFAULT_MAX_TOKENS

    def to_dict(self) -> dict[str, Any]:
        """The settings that were set (what a run records and a report label shows)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def label(self) -> str:
        return " ".join(f"{k.replace('_', '-')}={v}" for k, v in self.to_dict().items())
