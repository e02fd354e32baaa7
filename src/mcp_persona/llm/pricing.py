"""What a model call cost, from the versioned price table shipped in ``mcp_persona/data/pricing.json``.

Prices are per 1M tokens, in USD. A model is found by its exact ``provider:model`` key,
by one of its listed aliases (dated snapshots), or by its bare name when that is
unambiguous. A model not in the table costs ``None``: never a price borrowed from a
look-alike name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from mcp_persona.llm.base import UsageDetail
from mcp_persona.trajectory import Usage


class Rates(BaseModel):
    input: float
    output: float
    cached_input: float | None = None  # None: the table does not know the cached rate
    cache_write: float | None = None  # None: cache writes are billed as input


class LongContext(Rates):
    above_prompt_tokens: int


class Price(Rates):
    aliases: list[str] = Field(default_factory=list)
    long_context: LongContext | None = None


class PricingTable(BaseModel):
    version: str
    currency: str = "USD"
    models: dict[str, Price]

    def lookup(self, model: str) -> tuple[str, Price] | None:
        """(key, price) of ``model`` — ``provider:name`` or a bare name — or None."""
        model = model.strip()
        if model in self.models:
            return model, self.models[model]
        provider, sep, name = model.partition(":")
        if not sep:
            provider, name = "", model
        hits = [(key, price) for key, price in self.models.items()
                if (not provider or key.split(":", 1)[0] == provider)
                and (key.split(":", 1)[-1] == name or name in price.aliases)]
        return hits[0] if len(hits) == 1 else None


@lru_cache(maxsize=4)
def load_pricing(path: str | None = None) -> PricingTable:
    """The bundled table, or the one at ``path``."""
    if path is None:
        text = resources.files("mcp_persona").joinpath("data/pricing.json").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return PricingTable.model_validate(json.loads(text))


def pricing_version() -> str:
    return load_pricing().version


def as_detail(usage: UsageDetail | Usage | Mapping[str, Any]) -> UsageDetail:
    if isinstance(usage, UsageDetail):
        return usage
    if isinstance(usage, Usage):
        return UsageDetail(prompt_tokens=usage.input_tokens, completion_tokens=usage.output_tokens)
    return UsageDetail.model_validate(dict(usage))


def cost_usd(model: str | None, usage: UsageDetail | Usage | Mapping[str, Any],
             table: PricingTable | None = None) -> float | None:
    """The list-price cost of one call (or of summed usage) in USD; None when the model is not priced.

    A plain ``Usage`` has no cache breakdown, so all its prompt tokens are billed at the input rate.
    """
    if not model:
        return None
    found = (table or load_pricing()).lookup(model)
    if found is None:
        return None
    price = found[1]
    u = as_detail(usage)
    rates: Rates = price
    if price.long_context is not None and u.prompt_tokens > price.long_context.above_prompt_tokens:
        rates = price.long_context
    cached = u.cached_tokens
    if cached and rates.cached_input is None:
        return None  # the cached rate is unknown: no guess
    written = u.cache_write_tokens
    write_rate = rates.input if rates.cache_write is None else rates.cache_write
    uncached = max(0, u.prompt_tokens - cached - written)
    total = (uncached * rates.input + cached * (rates.cached_input or 0.0) + written * write_rate
             + u.completion_tokens * rates.output)
    return total / 1_000_000
