"""Shared text search for the information apps (medical, context7, web_search, deep_research, arxiv, news).

The apps search fixed datasets shipped in their contexts, so every ranking here is a
pure function of the data and the query: no randomness, no clock, no network. See
:mod:`mcp_persona.apps._corpus.search` for the exact tokenizer, stemmer and BM25 score.
"""

from mcp_persona.apps._corpus.search import (
    STOPWORDS,
    Hit,
    Index,
    best_sentence,
    estimate_tokens,
    parse_day,
    plain_sentences,
    query_terms,
    stem,
    tokenize,
)
from mcp_persona.apps._corpus.web import find_page, normalize_url, ordered, rank_pages, search_pages

__all__ = [
    "STOPWORDS",
    "Hit",
    "Index",
    "best_sentence",
    "estimate_tokens",
    "find_page",
    "normalize_url",
    "ordered",
    "parse_day",
    "plain_sentences",
    "query_terms",
    "rank_pages",
    "search_pages",
    "stem",
    "tokenize",
]
