"""Tool retrieval over a tool library: the ``route`` behind the MCP Copilot agent.

The weighting is LiveMCPBench's (from MCP-Zero): a query is scored against every server twice (its
description and its summary, ``data/livemcptool/summaries.json``) and keeps the better of the two;
the top 5 servers survive; each of their tools scores ``(s * t) * max(s, t)`` with ``s`` the server
score and ``t`` the tool's own similarity; the best ``top`` tools are returned.

Similarity is BM25 (``bm25s``) by default, every score divided by the query's best so both sit in
[0, 1] like the paper's cosines; :class:`EmbeddingScorer` swaps in an OpenAI-compatible embeddings
endpoint. A query may name its two halves the paper's way (``server: ... tool: ...``); otherwise the
whole query is used for both. Indexes are built once per library and process (:func:`get_router`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict

TOP_SERVERS = 5
TOP_TOOLS = 3
LIBRARIES = ("livemcptool",)

_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get", "give", "how", "i",
    "in", "is", "it", "its", "look", "me", "my", "of", "on", "or", "please", "show", "tell", "that", "the", "this",
    "to", "up", "use", "what", "when", "where", "which", "who", "with", "you", "your"})
_SPLIT = re.compile(r"server\s*:(?P<server>.*?)tool\s*:(?P<tool>.*)", re.IGNORECASE | re.DOTALL)


def tokenize(text: str) -> list[str]:
    """Lower-cased word stems: camelCase, snake_case and kebab-case names split into words, a
    plural 's' dropped, so ``getStockPrices`` meets "stock price"."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


class Summaries(BaseModel):
    """``data/<library>/summaries.json``: one sentence per server on what it is for."""

    model_config = ConfigDict(extra="forbid")
    version: int
    summaries: dict[str, str]


@dataclass(frozen=True)
class ToolDoc:
    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Hit:
    server: str
    tool: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"server": self.server, "tool": self.tool, "score": round(self.score, 6)}


class Scorer(Protocol):
    """Similarities in [0, 1] of one query to every document of a fixed corpus."""

    def scores(self, query: str) -> np.ndarray: ...


class BM25Scorer:
    def __init__(self, docs: Sequence[str]) -> None:
        import bm25s  # here, not at import: every CLI command loads the protocols, few build an index

        self._bm25 = bm25s.BM25()
        # bm25s wants non-empty documents; a placeholder token matches no query
        self._bm25.index([tokenize(d) or ["\x00"] for d in docs], show_progress=False)
        self._vocab = self._bm25.vocab_dict
        self._n = len(docs)

    def scores(self, query: str) -> np.ndarray:
        words = [w for w in tokenize(query) if w in self._vocab]
        if not words:
            return np.zeros(self._n, dtype=np.float32)
        raw = self._bm25.get_scores(words)
        best = float(raw.max())
        return raw / best if best > 0 else raw


class EmbeddingsError(RuntimeError):
    """The embeddings endpoint cannot serve the router; the message is one line: which URL, what failed, what
    to do."""


class Embedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (the paper used Qwen3-Embedding-0.6B); unit vectors.
    A query is embedded once however many corpora it is scored against. An endpoint that refuses the request,
    cannot be reached or answers something that is not embeddings raises :class:`EmbeddingsError`."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "none") -> None:
        from openai import OpenAI

        self.base_url = base_url
        self._client = OpenAI(base_url=base_url, api_key=api_key)
        self._model = model
        self.query = lru_cache(maxsize=256)(lambda text: self.embed([text])[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        import openai

        model = f"model {self._model!r}" if self._model else "no --embeddings-model"
        where = f"the embeddings endpoint {self.base_url.rstrip('/')}/embeddings ({model})"
        try:
            data = self._client.embeddings.create(model=self._model, input=texts).data
            vecs = np.array([d.embedding for d in sorted(data, key=lambda d: d.index)], dtype=np.float32)
        except openai.APIStatusError as exc:
            missing = ("the server has no such path or model: point --embeddings-url at an OpenAI-compatible API "
                       "that serves /embeddings (usually ending in /v1) and check --embeddings-model")
            hint = {404: missing, 405: missing, 501: missing, 401: "the endpoint wants an API key",
                    403: "the endpoint refused the API key"}.get(
                exc.status_code, "check --embeddings-url and --embeddings-model")
            raise EmbeddingsError(f"{where} answered HTTP {exc.status_code}: {hint}; or leave --embeddings-url out "
                                  "to route with BM25") from exc
        except openai.APIConnectionError as exc:  # a timeout too
            raise EmbeddingsError(f"{where} cannot be reached ({type(exc).__name__}: {exc}): is the server running "
                                  "and the URL right (scheme, host, port, /v1)?") from exc
        except (openai.OpenAIError, AttributeError, TypeError, ValueError, KeyError) as exc:
            raise EmbeddingsError(f"{where} did not answer with embeddings ({type(exc).__name__}: {exc}): is "
                                  "--embeddings-url an OpenAI-compatible API?") from exc
        if vecs.ndim != 2 or len(vecs) != len(texts):
            raise EmbeddingsError(f"{where} answered {len(vecs)} embeddings for {len(texts)} texts")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms == 0, 1, norms)


class EmbeddingScorer:
    """Cosine similarity to a corpus embedded once."""

    def __init__(self, docs: Sequence[str], embedder: Embedder) -> None:
        self._embedder = embedder
        self._docs = embedder.embed(list(docs))

    def scores(self, query: str) -> np.ndarray:
        return np.clip(self._docs @ self._embedder.query(query), 0.0, 1.0)


class Router:
    """Ranks a library's tools for a query (see the module docstring for the weighting)."""

    def __init__(self, servers: dict[str, tuple[str, str]], tools: Sequence[ToolDoc], *,
                 embeddings: dict[str, str] | None = None) -> None:
        self.server_names = list(servers)
        self.tools = list(tools)
        self._server_index = {name: i for i, name in enumerate(self.server_names)}
        self._tool_server = np.array([self._server_index[t.server] for t in self.tools])
        descriptions = [servers[n][0] for n in self.server_names]
        summaries = [servers[n][1] for n in self.server_names]
        # A tool's document: its own name in words, its description, and its server's summary
        # (the catalogue's tool descriptions are terse; the summary carries the everyday words).
        tool_docs = [f"{t.tool} {t.description} {servers[t.server][1]}" for t in self.tools]
        if embeddings:
            embedder = Embedder(**embeddings)
            self._desc: Scorer = EmbeddingScorer(descriptions, embedder)
            self._summ: Scorer = EmbeddingScorer(summaries, embedder)
            self._tool: Scorer = EmbeddingScorer(tool_docs, embedder)
        else:
            self._desc, self._summ, self._tool = BM25Scorer(descriptions), BM25Scorer(summaries), BM25Scorer(tool_docs)

    def route(self, query: str, top: int = TOP_TOOLS, top_servers: int = TOP_SERVERS) -> list[Hit]:
        m = _SPLIT.search(query)
        server_q, tool_q = (m.group("server"), m.group("tool")) if m else (query, query)
        s = np.maximum(self._desc.scores(server_q), self._summ.scores(server_q))
        if not s.any():
            return []
        kept = np.argsort(-s, kind="stable")[:top_servers]
        kept = kept[s[kept] > 0]
        t = self._tool.scores(tool_q)
        mask = np.isin(self._tool_server, kept)
        st = s[self._tool_server]
        combined = np.where(mask, st * t * np.maximum(st, t), -1.0)
        order = np.argsort(-combined, kind="stable")[:top]
        return [Hit(self.tools[i].server, self.tools[i].tool, float(combined[i])) for i in order if combined[i] > 0]

    def tool(self, server: str, tool: str) -> ToolDoc | None:
        return next((t for t in self.tools if t.server == server and t.tool == tool), None)

    def tool_rank(self, query: str, server: str, tool: str) -> int | None:
        """Where ``server:tool`` ranks among all the library's tools by its own similarity to ``query`` alone
        (its name, description and server summary; no server gating, no cut): 1 is first, ties share the
        better rank. None when the tool is not in the library or nothing of it matches the query."""
        i = next((k for k, t in enumerate(self.tools) if t.server == server and t.tool == tool), None)
        if i is None:
            return None
        scores = self._tool.scores(query)
        return int((scores > scores[i]).sum()) + 1 if scores[i] > 0 else None


def load_summaries(library: str) -> dict[str, str]:
    path = resources.files("mcp_persona") / "data" / library / "summaries.json"
    return Summaries.model_validate_json(path.read_text(encoding="utf-8")).summaries


def _library_router(library: str, embeddings: dict[str, str] | None) -> Router:
    if library != "livemcptool":
        raise KeyError(f"unknown tool library {library!r} (known: {', '.join(LIBRARIES)})")
    from mcp_persona.livemcptool import catalogue

    summaries = load_summaries(library)
    missing = [n for n in catalogue() if n not in summaries]
    if missing:
        raise ValueError(f"{library} summaries.json lacks servers: {', '.join(missing)}")
    servers = {n: (s.description, summaries[n]) for n, s in catalogue().items()}
    tools = [ToolDoc(s.name, t.name, t.description, t.input_schema) for s in catalogue().values() for t in s.tools]
    return Router(servers, tools, embeddings=embeddings)


@cache
def get_router(library: str = "livemcptool", embeddings_json: str = "") -> Router:
    """The library's router, built on first use and kept for the process. ``embeddings_json``:
    ``{"base_url": ..., "model": ...}`` as JSON for an embeddings endpoint; empty means BM25."""
    return _library_router(library, json.loads(embeddings_json) if embeddings_json else None)


KEYWORD_TOP = 5  # a query describes a tool when a plain keyword search puts the tool this high (of 527)


def describes(query: str, server: str, tool: str, library: str = "livemcptool") -> bool:
    """Whether ``query`` asks for ``server:tool`` in words a retriever should match: a plain keyword search
    (BM25, whatever the run routed with) over every tool of the library ranks it among the first
    :data:`KEYWORD_TOP` (:meth:`Router.tool_rank`). The task's own key points, used as queries, describe 95%
    of the bundled suite's gold tools this way; those of a task of another domain, 2%. Lexical: a query that
    means the tool in wholly other words ("to MP3" for "extract audio") does not describe it."""
    rank = get_router(library).tool_rank(query, server, tool)
    return rank is not None and rank <= KEYWORD_TOP


def flat_schema(schema: dict[str, Any]) -> dict[str, str]:
    """A tool's parameters the way LiveMCPBench's route shows them: ``{param: "(Optional, type) desc"}``."""
    required = set(schema.get("required") or [])
    out = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type", "any") if isinstance(prop, dict) else "any"
        desc = prop.get("description", "") if isinstance(prop, dict) else ""
        flag = "Required" if name in required else "Optional"
        out[name] = f"({flag}, {kind if isinstance(kind, str) else '/'.join(kind)}) {desc}".rstrip()
    return out
