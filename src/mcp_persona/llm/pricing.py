"""What a model call cost, in USD: list prices from the maintained ``genai-prices`` database, or a run's own.

The database's data ships inside the package and is read from there: no lookup ever goes to the network
(the package can refresh itself from the web, but only when asked to, which this module never does, and its
own snapshot is read here, not whatever a refresh installed). The provider is the spec's (``openai``,
``anthropic``), unless the endpoint's base URL is one the database knows (OpenRouter, DeepSeek, Groq,
Together, Gemini's OpenAI-compatible API, ...): a model served there is priced at that provider's rates.

A model the database does not price costs ``None``, never a price borrowed from a look-alike name;
:func:`unpriced_reason` says why, and a run prices it with ``--price-in/--price-out`` (a
:class:`PriceOverride`). ``UsageDetail`` counts cached and cache-written tokens as part of the prompt and
reasoning tokens as part of the completion, the database's convention too: nothing is billed twice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import cache
from importlib.metadata import version
from typing import Any

from mcp_persona.llm.base import UsageDetail
from mcp_persona.trajectory import Usage

DATABASE = "genai-prices"
OVERRIDE = "override"
#: Models that run in this process: free.
FREE_PROVIDERS = frozenset({"local"})


@dataclass(frozen=True)
class PriceOverride:
    """A run's own prices, USD per million tokens, for a self-hosted or unlisted model. Cached prompt tokens
    cost ``cached_input`` when given, else ``input`` (no discount assumed); cache writes cost ``input``."""

    input: float
    output: float
    cached_input: float | None = None

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"the {name.replace('_', ' ')} price must be a non-negative number (got {value})")

    @classmethod
    def from_flags(cls, price_in: float | None, price_out: float | None, price_cached_in: float | None = None,
                   *, flag: str = "--price") -> PriceOverride | None:
        """The override the command-line flags ask for; None when none is given. Both ``-in`` and ``-out`` or
        neither: a model's cost needs both."""
        if price_in is None and price_out is None:
            if price_cached_in is not None:
                raise ValueError(f"{flag}-cached-in needs {flag}-in and {flag}-out")
            return None
        if price_in is None or price_out is None:
            raise ValueError(f"give both {flag}-in and {flag}-out (USD per million tokens), or neither")
        return cls(price_in, price_out, price_cached_in)

    def cost(self, usage: UsageDetail) -> float:
        cached = usage.cached_tokens
        cached_rate = self.input if self.cached_input is None else self.cached_input
        uncached = max(0, usage.prompt_tokens - cached)
        return (uncached * self.input + cached * cached_rate + usage.completion_tokens * self.output) / 1_000_000

    def to_dict(self) -> dict[str, float | None]:
        return asdict(self)


def database_version() -> str:
    return version(DATABASE)


def pricing_version() -> str:
    """The price database and its version, as a run records it (``genai-prices 0.2.3``)."""
    return f"{DATABASE} {database_version()}"


def price_source(override: PriceOverride | None = None) -> str:
    """Where a client's prices come from: ``override`` or the database with its version."""
    return OVERRIDE if override is not None else pricing_version()


@cache
def _snapshot() -> Any:
    """The database as the installed package ships it (a refresh another caller started is not used)."""
    from genai_prices import data, data_snapshot

    return data_snapshot.DataSnapshot(providers=data.providers, from_auto_update=False)


def _split(model: str) -> tuple[str | None, str]:
    provider, sep, name = model.strip().partition(":")
    if not sep:
        return None, model.strip()
    return provider.strip().lower(), name.strip()


@cache
def _provider_at(base_url: str) -> str | None:
    """The database's provider whose API lives at ``base_url``, if any (a local server is none)."""
    import re

    url = base_url.strip()
    for provider in _snapshot().providers:
        if re.match(provider.api_pattern, url):
            return str(provider.id)
    return None


def find_price(model: str, base_url: str | None = None) -> tuple[Any, Any] | None:
    """(provider, model info) of the database for ``model`` (``provider:name`` or a bare name), or None."""
    provider, name = _split(model)
    if not name:
        return None
    if base_url and (at := _provider_at(base_url)) is not None:
        provider = at
    try:
        return _snapshot().find_provider_model(name, None, provider, None)
    except LookupError:
        return None


def as_detail(usage: UsageDetail | Usage | Mapping[str, Any]) -> UsageDetail:
    if isinstance(usage, UsageDetail):
        return usage
    if isinstance(usage, Usage):
        return UsageDetail(prompt_tokens=usage.input_tokens, completion_tokens=usage.output_tokens)
    return UsageDetail.model_validate(dict(usage))


def cost_usd(model: str | None, usage: UsageDetail | Usage | Mapping[str, Any], *, base_url: str | None = None,
             override: PriceOverride | None = None) -> float | None:
    """The cost of one call (or of summed usage) in USD; None when the model is not priced.

    A plain ``Usage`` has no cache breakdown, so all its prompt tokens are billed at the input rate. Cached
    tokens of a model whose database entry has no cached rate make the cost None: no guess.
    """
    u = as_detail(usage)
    if override is not None:
        return override.cost(u)
    if not model:
        return None
    if _split(model)[0] in FREE_PROVIDERS or model.strip() in FREE_PROVIDERS:
        return 0.0
    found = find_price(model, base_url)
    if found is None:
        return None
    from genai_prices import Usage as DbUsage

    provider, info = found
    now = datetime.now(UTC)
    if u.cached_tokens and info.get_prices(now).cache_read_mtok is None:
        return None
    calc = info.calc_price(
        DbUsage(input_tokens=u.prompt_tokens, cache_read_tokens=u.cached_tokens,
                cache_write_tokens=u.cache_write_tokens, output_tokens=u.completion_tokens,
                output_reasoning_tokens=u.reasoning_tokens),
        provider, genai_request_timestamp=now)
    return float(calc.total_price)


def unpriced_reason(model: str | None, *, base_url: str | None = None,
                    override: PriceOverride | None = None) -> str | None:
    """Why calls of ``model`` get no cost (one line naming the fix); None when they are priced."""
    if override is not None or (model and (_split(model)[0] in FREE_PROVIDERS or model.strip() in FREE_PROVIDERS)):
        return None
    if not model:
        return "no model"
    if find_price(model, base_url) is None:
        where = f" at {base_url}" if base_url and _provider_at(base_url) else ""
        return f"no price for {model.strip()}{where} in {pricing_version()}; pass --price-in/--price-out"
    return None


def pricing_record(override: PriceOverride | None) -> dict[str, Any]:
    """Where a role's prices come from, as a run records it: the source, and the override's prices if any."""
    record: dict[str, Any] = {"source": price_source(override)}
    if override is not None:
        record["usd_per_mtok"] = override.to_dict()
    return record
