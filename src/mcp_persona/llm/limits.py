"""What each model API accepts in a request, checked before the request is sent.

A request a provider would refuse is a clear error naming the limit here, never a silent cut (dropping
tools would change the benchmark) and never a 400 discovered per episode. The limits, as documented:

* OpenAI Chat Completions (``openai``): at most 128 tools a request (else 400 ``array_above_max_length``);
  function names ``^[a-zA-Z0-9_-]{1,64}$``; parameters a JSON Schema of type ``object``; every ``tool``
  message answers a call of the assistant turn right before it, and every call of that turn is answered
  before the next user or assistant turn.
* Anthropic Messages (``anthropic``): no documented maximum of tools; names ``^[a-zA-Z0-9_-]{1,64}$``;
  ``input_schema`` of type ``object``; ``tool_result`` blocks first in the user turn that follows the
  ``tool_use`` turn, one per ``tool_use`` id (the client's conversion gives that when OpenAI's rule holds).
* An OpenAI-compatible server (``compatible``: vLLM, Ollama, llama.cpp's server, SGLang): no tool maximum
  (the model's context window is the bound); names not checked (its chat template renders any); the
  tool-result order as OpenAI's.

``--api-limits`` picks one; by default the official OpenAI endpoint gets ``openai``, any other
``--base-url`` ``compatible`` (a gateway that forwards to OpenAI, such as OpenRouter or Azure, needs
``--api-limits openai``), Anthropic ``anthropic``, and the bundled local model ``compatible``.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_persona.llm.base import ModelError

_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


@dataclass(frozen=True)
class RequestLimits:
    key: str  # as ``--api-limits`` spells it
    api: str  # the API's name, for messages
    max_tools: int | None  # None: no documented maximum
    name_pattern: re.Pattern[str] | None  # None: the server does not check names
    name_rule: str = ""

    def tool_problems(self, tools: Sequence[Mapping[str, Any]]) -> list[str]:
        """What in ``tools`` (OpenAI function specs) this API refuses; empty when it accepts them."""
        problems: list[str] = []
        if self.max_tools is not None and len(tools) > self.max_tools:
            problems.append(f"{len(tools)} tools, over the {self.api} limit of {self.max_tools} per request")
        for tool in tools:
            fn = tool.get("function", tool)
            name = fn.get("name")
            if not isinstance(name, str) or not name:
                problems.append(f"a tool without a name: {str(fn)[:80]}")
                continue
            if self.name_pattern is not None and not self.name_pattern.fullmatch(name):
                problems.append(f"tool name {name!r} breaks the {self.api} rule {self.name_rule}")
            params = fn.get("parameters")
            if params is not None and (not isinstance(params, Mapping) or params.get("type") != "object"):
                problems.append(f"tool {name!r}: parameters must be a JSON Schema of type object")
        return problems

    def check_tools(self, tools: Sequence[Mapping[str, Any]]) -> None:
        if problems := self.tool_problems(tools):
            raise RequestLimitError(self, problems)


OPENAI = RequestLimits("openai", "OpenAI Chat Completions", 128, _NAME, "^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC = RequestLimits("anthropic", "Anthropic Messages", None, _NAME, "^[a-zA-Z0-9_-]{1,64}$")
COMPATIBLE = RequestLimits("compatible", "OpenAI-compatible server", None, None)
NONE = RequestLimits("none", "no API limits", None, None)
LIMITS: dict[str, RequestLimits] = {lim.key: lim for lim in (OPENAI, ANTHROPIC, COMPATIBLE, NONE)}


def limits_for(provider: str, base_url: str | None, choice: str | None = None) -> RequestLimits:
    """The limits a client of ``provider`` at ``base_url`` is held to; ``choice`` (``--api-limits``) overrides."""
    if choice is not None and choice != "auto":
        if choice not in LIMITS:
            raise ValueError(f"unknown --api-limits {choice!r}: use auto, {', '.join(LIMITS)}")
        return LIMITS[choice]
    if provider == "anthropic":
        return ANTHROPIC
    if provider == "openai" and (base_url is None or "api.openai.com" in base_url):
        return OPENAI
    return COMPATIBLE


class ToolsCheck:
    """``limits.check_tools`` memoised per tool list: an episode sends the same list on every turn, and a
    client serves many episodes at once. Keeps the last few lists (strong references, so an id is never
    reused while remembered)."""

    def __init__(self, limits: RequestLimits, keep: int = 64) -> None:
        self.limits = limits
        self.keep = keep
        self._seen: OrderedDict[int, tuple[Sequence[Mapping[str, Any]], list[str]]] = OrderedDict()

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        found = self._seen.get(id(tools))
        if found is None or found[0] is not tools:
            found = (tools, self.limits.tool_problems(tools))
            self._seen[id(tools)] = found
            if len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        if found[1]:
            raise RequestLimitError(self.limits, found[1])


class RequestLimitError(ModelError):
    """A request the provider would refuse, caught before it was sent (never retried)."""

    def __init__(self, limits: RequestLimits, problems: list[str]) -> None:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        super().__init__(f"request refused before sending ({limits.api}): {shown}", category="request_limit")
        self.problems = problems


def message_problems(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Breaks of the tool-result ordering every supported API requires (OpenAI's rule; Anthropic's follows
    from it through the client's conversion): each assistant turn's calls answered, each by exactly one
    ``tool`` message, right after it and before anything else."""
    problems: list[str] = []
    open_calls: set[str] = set()  # calls of the last assistant turn not answered yet
    answerable: set[str] = set()  # calls the tool messages now may answer
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if call_id not in answerable:
                problems.append(f"message {i}: a tool result for {call_id!r}, which the assistant turn before it "
                                "did not call")
            elif call_id not in open_calls:
                problems.append(f"message {i}: a second tool result for {call_id!r}")
            open_calls.discard(call_id)  # type: ignore[arg-type]
            continue
        if open_calls:
            problems.append(f"message {i}: {role} turn before the results of {', '.join(sorted(open_calls))}")
        open_calls, answerable = set(), set()
        if role == "assistant":
            ids = [c.get("id") for c in m.get("tool_calls") or []]
            if len(set(ids)) != len(ids):
                problems.append(f"message {i}: an assistant turn calls two tools with one id")
            open_calls, answerable = set(ids), set(ids)  # type: ignore[arg-type]
    if open_calls:
        problems.append(f"the calls {', '.join(sorted(open_calls))} of the last assistant turn have no results")
    return problems


def check_messages(limits: RequestLimits, messages: Sequence[Mapping[str, Any]]) -> None:
    if limits is NONE:
        return
    if problems := message_problems(messages):
        raise RequestLimitError(limits, problems)
