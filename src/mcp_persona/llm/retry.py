"""How every HTTP model client survives a flaky endpoint: one policy, in one place.

* bounded attempts with exponential backoff and jitter (the random source and the
  sleep are injectable, so tests neither wait nor flake);
* ``Retry-After`` (seconds, or an HTTP date) honoured: never retried sooner than the
  server asked; a wait longer than ``max_retry_after_s`` ends the call instead, and
  the episode is left for ``--resume``;
* retried: 408, 409, 429, 5xx, timeouts, connection failures and unusable answers;
  never: the other 4xx (auth, validation) — the same request would fail again;
* a per-call timeout around each attempt (``anyio.fail_after``);
* at most N requests in flight per provider endpoint and scope: an
  ``anyio.CapacityLimiter`` shared by every client of that endpoint and scope in the
  event loop, held for the request only (not while backing off). The scope keeps the
  agent's limit and the judge's apart when both talk to one endpoint.

The SDKs' own retries are switched off (``max_retries=0``), so this is the only policy.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
import pydantic
from anyio.lowlevel import RunVar

from mcp_persona.llm.base import ChatResponse, ErrorCategory, ModelError

log = logging.getLogger("mcp_persona.llm")
T = TypeVar("T")

DEFAULT_CONCURRENCY = 8  # for a client made outside a run; ``run`` passes its own limits


def category_for_status(status: int) -> ErrorCategory:
    if status in (401, 402, 403):
        return "auth"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status == 409 or status >= 500:  # 409: a conflicting request in flight, transient (as OpenAI's SDK treats it)
        return "server_error"
    return "bad_request"


def error_for_status(status: int, headers: Mapping[str, str] | None, detail: str) -> ModelError:
    headers = headers or {}
    retry_after = headers.get("retry-after-ms")
    retry_after = f"{float(retry_after) / 1000}" if _is_number(retry_after) else headers.get("retry-after")
    return ModelError(f"HTTP {status}: {detail}"[:500], category=category_for_status(status), status_code=status,
                      retry_after=retry_after)


def _is_number(value: str | None) -> bool:
    try:
        return value is not None and float(value) >= 0
    except ValueError:
        return False


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date); None if absent/unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        return max(0.0, when.timestamp() - now)
    return max(0.0, seconds) if seconds == seconds else None  # NaN is no answer


async def _real_sleep(seconds: float) -> None:
    await anyio.sleep(seconds)


@dataclass
class RetryPolicy:
    max_attempts: int = 5  # attempts in all, the first included
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.5  # the backoff is drawn from [d·(1-jitter), d]
    timeout_s: float = 180.0  # per attempt
    max_retry_after_s: float = 120.0  # a server asking for longer ends the call (retried by --resume)
    rng: random.Random = field(default_factory=random.Random)
    sleep: Callable[[float], Awaitable[None]] = _real_sleep
    clock: Callable[[], float] = time.time  # wall clock, for Retry-After dates

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("jitter must be within [0, 1]")
        if self.timeout_s <= 0:
            raise ValueError("timeout_s must be positive")

    def backoff(self, failures: int) -> float:
        """The wait after the ``failures``-th failed attempt, Retry-After aside."""
        d = min(self.max_delay_s, self.base_delay_s * 2 ** (failures - 1))
        return d * (1.0 - self.jitter * self.rng.random())

    def delay(self, failures: int, error: ModelError) -> float | None:
        """How long to wait before the next attempt; None when the server asks for more than we will wait."""
        wait = self.backoff(failures)
        asked = parse_retry_after(error.retry_after, self.clock())
        if asked is not None:
            if asked > self.max_retry_after_s:
                return None
            wait = max(wait, asked)
        return wait

    async def call(
        self,
        attempt: Callable[[], Awaitable[T]],
        *,
        classify: Callable[[Exception], ModelError | None],
        limiter: Any = None,
        label: str = "model",
    ) -> tuple[T, int]:
        """Run ``attempt`` until it succeeds or the policy gives up; return (result, attempts made).

        ``classify`` turns an SDK/transport exception into a categorized ModelError, or None for an
        exception that is no endpoint failure (a bug: raised as it is, never retried); a ModelError
        raised by ``attempt`` itself (e.g. an answer that does not parse) is taken as it is.
        """
        history: list[str] = []
        for n in range(1, self.max_attempts + 1):
            try:
                if limiter is None:
                    with anyio.fail_after(self.timeout_s):
                        return await attempt(), n
                async with limiter:
                    with anyio.fail_after(self.timeout_s):
                        return await attempt(), n
            except TimeoutError:
                error = ModelError(f"no answer within {self.timeout_s:g} s", category="timeout")
            except ModelError as exc:
                error = exc
            except Exception as exc:
                classified = classify(exc)
                if classified is None:
                    raise
                classified.__cause__ = exc  # the SDK's own error stays on the record
                error = classified
            history.append(error.category or "error")
            if not error.retryable or n == self.max_attempts:
                raise error.after_attempts(n, history)
            wait = self.delay(n, error)
            if wait is None:
                asked = parse_retry_after(error.retry_after, self.clock()) or 0.0
                error.message += f"; asked to wait {asked:.0f} s, over the {self.max_retry_after_s:g} s limit"
                raise error.after_attempts(n, history)
            log.warning("%s: attempt %d/%d failed (%s); retrying in %.2f s", label, n, self.max_attempts, error, wait)
            await self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover


# --- per-endpoint concurrency -------------------------------------------------------------------------------

_LIMITERS: RunVar[dict[str, anyio.CapacityLimiter]] = RunVar("mcp_persona_llm_limiters")
# Where the limit must hold across processes (a cluster's workers), a factory of limiters shared by all of
# them replaces the per-loop ones: ``share_limits`` (the Ray executor sets it in each worker).
_SHARED: Callable[[str, int], Any] | None = None


def share_limits(factory: Callable[[str, int], Any] | None) -> None:
    """Make every endpoint limit come from ``factory(key, limit)``: an async context manager held around each
    request (None: back to one limiter per event loop)."""
    global _SHARED
    _SHARED = factory


def limiter_for(key: str, limit: int) -> Any:
    """The limiter every client of endpoint ``key`` shares in this event loop (created on first use), or the
    cross-process one where :func:`share_limits` set a factory.

    If clients of one endpoint ask for different limits, the latest one wins (for all of them).
    """
    if limit < 1:
        raise ValueError("the concurrency limit must be at least 1")
    if _SHARED is not None:
        return _SHARED(key, limit)
    try:
        limiters = _LIMITERS.get()
    except LookupError:
        limiters = {}
        _LIMITERS.set(limiters)
    limiter = limiters.get(key)
    if limiter is None:
        limiter = limiters[key] = anyio.CapacityLimiter(limit)
    elif limiter.total_tokens != limit:
        limiter.total_tokens = limit
    return limiter


def endpoint_key(provider: str, base_url: str | None, scope: str = "agent") -> str:
    return f"{provider}|{(base_url or 'default').rstrip('/')}|{scope}"


class PerLoop(Generic[T]):
    """One object per running event loop: an SDK client's connection pool cannot outlive the loop it was
    opened in, and a client object may well be used by several ``anyio.run`` calls in turn."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._by_loop: weakref.WeakKeyDictionary[Any, T] = weakref.WeakKeyDictionary()
        self._outside: T | None = None

    def get(self) -> T:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not in asyncio (trio, or no loop): one shared instance
            if self._outside is None:
                self._outside = self._factory()
            return self._outside
        made = self._by_loop.get(loop)
        if made is None:
            made = self._by_loop[loop] = self._factory()
        return made


# --- SDK exceptions → categories (openai and anthropic share a shape: both are Stainless SDKs) ----------------


def classify_sdk_error(exc: Exception, sdk: Any) -> ModelError | None:
    """An exception from the ``openai`` or ``anthropic`` SDK module ``sdk`` as a categorized ModelError;
    None for anything else (our own bug, say), which the caller re-raises untouched."""
    if isinstance(exc, sdk.APIStatusError):
        return error_for_status(exc.status_code, exc.response.headers, _detail(exc))
    if isinstance(exc, sdk.APITimeoutError):
        return ModelError(f"{type(exc).__name__}: {exc}", category="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        cause = _root_cause(exc)
        if _is_truncated_body(cause):
            return ModelError(f"the answer was cut off: {cause}", category="malformed_response")
        return ModelError(f"{type(exc).__name__}: {cause or exc}", category="connection")
    if isinstance(exc, sdk.APIResponseValidationError | json.JSONDecodeError | UnicodeDecodeError
                  | pydantic.ValidationError):  # a body that is not the JSON it claims to be
        return ModelError(f"unusable answer: {type(exc).__name__}: {exc}"[:500], category="malformed_response")
    if isinstance(exc, OSError):
        return ModelError(f"{type(exc).__name__}: {exc}", category="connection")
    if isinstance(exc, sdk.APIError):
        return ModelError(f"{type(exc).__name__}: {exc}", category="server_error")
    return None


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", None) or exc)


def _root_cause(exc: BaseException) -> BaseException | None:
    cause = exc.__cause__ or exc.__context__
    seen = 0
    while cause is not None and (cause.__cause__ or cause.__context__) is not None and seen < 10:
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return cause


def _is_truncated_body(cause: BaseException | None) -> bool:
    text = str(cause or "").lower()
    return "incomplete" in text or "complete message body" in text or "less data than" in text


async def call_endpoint(
    owner: Any, sdk: Any, send: Callable[[], Awaitable[Any]], parse: Callable[[Any], ChatResponse]
) -> ChatResponse:
    """One chat call of an HTTP client under the shared policy: retries, the endpoint's concurrency
    limit, latency of the successful attempt, and cost (the price database's, or the client's
    ``price_override``).

    ``owner`` is the client (``provider``, ``base_url``, ``model``, ``name``, ``retry``, ``max_concurrency``,
    ``scope``, optionally ``price_override``);
    ``sdk`` the provider SDK module whose exceptions are classified; ``send`` makes the request and ``parse``
    turns its answer into a :class:`ChatResponse`.
    """
    from mcp_persona.llm.pricing import cost_usd

    async def attempt() -> ChatResponse:
        start = time.perf_counter()
        resp = parse(await send())
        resp.latency_s = time.perf_counter() - start
        return resp

    limiter = limiter_for(endpoint_key(owner.provider, owner.base_url, owner.scope), owner.max_concurrency)
    resp, attempts = await owner.retry.call(attempt, classify=lambda e: classify_sdk_error(e, sdk),
                                            limiter=limiter, label=owner.name)
    resp.attempts = attempts
    if resp.usage_detail is not None:
        override = getattr(owner, "price_override", None)
        resp.cost_usd = cost_usd(owner.name, resp.usage_detail, base_url=owner.base_url, override=override)
        if resp.cost_usd is None and resp.model and resp.model != owner.model:
            resp.cost_usd = cost_usd(f"{owner.provider}:{resp.model}", resp.usage_detail, base_url=owner.base_url)
    return resp
