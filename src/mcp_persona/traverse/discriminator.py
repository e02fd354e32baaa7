"""The response discriminator: success, structured error, or unexpected failure.

Rules first (paper §3.1.1: only calls whose error is a *structured* one, a specific message the
server meant to send, are verified; a crash, a timeout or a transport failure is not):

* a transport failure (the call raised, the process died, a timeout) -> ``unexpected_failure``;
* an error result whose text is empty or carries a crash signature (a JavaScript or Python
  exception name, a stack frame, JSON-RPC ``-32603``, "internal error") -> ``unexpected_failure``;
* any other error result -> ``structured_error``;
* a non-error result that embeds an error envelope (``{"error": ...}`` without data,
  ``{"success": false}``, a non-zero ``code``) -> ``structured_error`` (a wrapper-level success
  with an error inside, which the paper warns boolean flags miss);
* otherwise ``success``.

An optional judge (any :class:`~mcp_persona.llm.base.ChatClient`) can replace the rules; its raw
output is kept and parsed strictly; an unparseable verdict falls back to the rules and says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mcp_persona.llm.base import ChatClient
from mcp_persona.traverse.models import Label

_CRASH = re.compile(
    r"\b(TypeError|ReferenceError|RangeError|SyntaxError|AttributeError|KeyError|IndexError|NameError)\b"
    r"|Cannot read propert|is not a function|is not defined|Maximum call stack|Traceback \(most recent call last\)"
    r"|-32603|\binternal (server )?error\b|\bat \S+ \(\S+:\d+:\d+\)|Unhandled|Segmentation fault",
    re.IGNORECASE,
)
LABELS: tuple[Label, ...] = ("success", "structured_error", "unexpected_failure")


def _embedded_error(text: str) -> bool:
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return False
    if not isinstance(body, dict):
        return False
    if body.get("success") is False or body.get("ok") is False:
        return True
    if "error" in body and body["error"] and not any(k in body for k in ("data", "result", "results")):
        return True
    code = body.get("code")
    return isinstance(code, int) and not isinstance(code, bool) and code != 0 and "data" not in body


def classify(text: str, is_error: bool, *, transport_error: bool = False) -> Label:
    """The rule-based label of one response."""
    if transport_error:
        return "unexpected_failure"
    if is_error:
        if not text.strip() or _CRASH.search(text):
            return "unexpected_failure"
        return "structured_error"
    if _embedded_error(text):
        return "structured_error"
    return "success"


def is_success(text: str, is_error: bool) -> bool:
    return classify(text, is_error) == "success"


# -- the optional judge -------------------------------------------------------------------------------
JUDGE_SYSTEM = (
    "You label one response of an MCP tool. Answer with one JSON object and nothing else: "
    '{"label": "success" | "structured_error" | "unexpected_failure", "reason": "<one sentence>"}. '
    "success: the response substantively fulfils the tool's declared function. structured_error: the "
    "server rejected the call with a specific, intentional error message (validation, not found, access "
    "denied, conflict). unexpected_failure: a crash, a stack trace, an empty or generic internal error, a "
    "timeout or a transport failure."
)


@dataclass(frozen=True)
class Verdict:
    label: Label
    source: str  # "rules" | "judge" | "rules-fallback"
    raw: str = ""
    reason: str = ""


def parse_verdict(raw: str) -> tuple[Label, str] | None:
    """The judge's label, or None when its output is not exactly the JSON asked for."""
    text = raw.strip()
    if text.startswith("```"):
        text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("label") not in LABELS:
        return None
    return body["label"], str(body.get("reason", ""))


async def judge(client: ChatClient, *, tool: dict[str, Any], arguments: dict[str, Any], text: str,
                is_error: bool, transport_error: bool = False) -> Verdict:
    """Ask ``client`` for the label; fall back to the rules when its answer does not parse."""
    rules = classify(text, is_error, transport_error=transport_error)
    if transport_error:
        return Verdict(rules, "rules")
    user = json.dumps({"tool": tool.get("name"), "description": tool.get("description", ""),
                       "input_schema": tool.get("inputSchema", {}), "arguments": arguments,
                       "is_error_flag": is_error, "response": text[:4000]}, ensure_ascii=False)
    reply = await client.complete([{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}],
                                  [])
    raw = reply.content or ""
    parsed = parse_verdict(raw)
    if parsed is None:
        return Verdict(rules, "rules-fallback", raw=raw)
    return Verdict(parsed[0], "judge", raw=raw, reason=parsed[1])
