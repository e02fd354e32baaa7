"""Before a run's first episode: one small request to each model endpoint the run will use.

A wrong URL, key or model name, or a setting the endpoint refuses, then stops the run within seconds with
one line naming the cause, instead of erring every episode after its retries. The request carries the
run's own settings and one trivial tool, so a server that refuses tools or a parameter says so here.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from mcp_persona.llm.base import ChatClient, ModelError
from mcp_persona.llm.retry import RetryPolicy

PREFLIGHT_TIMEOUT_S = 25.0
PING_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": "ping", "description": "Answers pong. Only for checking that tools are accepted.",
    "parameters": {"type": "object", "properties": {}}}}
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "This is a connectivity check before a benchmark run."},
    {"role": "user", "content": "Reply with the single word OK."},
]


class PreflightError(RuntimeError):
    """The endpoint cannot serve the run; the message is the one line to show."""


async def preflight(client: ChatClient, *, role: str = "agent", with_tools: bool = True,
                    timeout_s: float = PREFLIGHT_TIMEOUT_S) -> float:
    """Send one minimal request through ``client``; return its latency in seconds, or raise PreflightError.

    At most two attempts (a connection that drops once is not a dead endpoint), each within ``timeout_s``
    (and the run's own request timeout, if lower). Clients with no endpoint (the bundled local model) pass.
    """
    retry = getattr(client, "retry", None)
    if not isinstance(retry, RetryPolicy):
        return 0.0
    probe = copy.copy(client)  # the same endpoint, settings and connection pool; a short retry policy
    probe.retry = RetryPolicy(max_attempts=2, base_delay_s=0.5, max_delay_s=1.0,  # type: ignore[attr-defined]
                              timeout_s=min(timeout_s, retry.timeout_s), max_retry_after_s=5.0)
    start = time.perf_counter()
    try:
        await probe.complete(list(MESSAGES), [PING_TOOL] if with_tools else [])
    except ModelError as exc:
        raise PreflightError(explain(client, exc, role)) from exc
    return time.perf_counter() - start


def explain(client: ChatClient, exc: ModelError, role: str = "agent") -> str:
    """One line: which endpoint, what failed, and what to check."""
    where = getattr(client, "base_url", None) or "the provider's default endpoint"
    who = f"the {role} model {client.name} at {where}"
    hint = fix_for(exc)
    return f"{who} cannot serve this run: {exc}" + (f" — {hint}" if hint else "")


def fix_for(exc: ModelError) -> str:
    """What to check when an endpoint fails this way ('' when there is nothing to say)."""
    hint = {
        "connection": "is the server running and the --base-url right (scheme, host, port, /v1)?",
        "timeout": "the endpoint did not answer in time; raise --request-timeout if it is slow to start",
        "auth": "check the API key (--api-key-env names the variable it is read from)",
        "bad_request": "check the model name and the settings (--temperature, --max-tokens, --reasoning-effort ...)",
        "rate_limit": "the endpoint is rate-limiting; lower --max-requests or try later",
        "server_error": "the endpoint failed on its side; try again later",
        "malformed_response": "the endpoint's answer is not a chat completion; is --base-url an OpenAI-compatible "
                              "API (ending in /v1)?",
        "request_limit": "see the limit named above",
    }.get(exc.category or "", "")
    if exc.status_code == 404:
        hint = "no such model or path: check --model and that --base-url ends where the API is (e.g. /v1)"
    return hint
