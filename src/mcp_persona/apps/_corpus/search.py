"""Deterministic ranking over small document sets.

* **Tokens**: the text is lower-cased (NFKC); a token is a run of ASCII letters and
  digits, or one CJK character. One-letter alphabetic tokens and a short list of
  English stopwords are dropped.
* **Stemming**: a light suffix stemmer, the same for documents and queries:
  ``-ies`` → ``-y``, ``-sses`` → ``-ss``, a final ``-s`` (not ``-ss``/``-us``/``-is``)
  is dropped, and ``-ing``/``-ed`` are dropped from words of at least 6/5 letters
  (a doubled final consonant left behind is undoubled: ``running`` → ``run``).
  ``walking``, ``walks`` and ``walked`` all become ``walk``.
* **Score**: BM25 (k1 = 1.2, b = 0.75) over one weighted bag of words per document,
  in which a token of a field with weight *w* counts *w* times (titles usually 3,
  keywords 2, bodies 1); idf = ln(1 + (N − df + 0.5) / (df + 0.5)). Each distinct
  query term counts once.
* **Matching**: a document is a hit when it contains at least ``ceil(frac × n)`` of
  the ``n`` distinct query terms (``frac`` = ``min_should_match``, at least one term).
* **Order**: score descending (compared at 6 decimals), then the order the documents
  were given to the index (callers give a stable order, e.g. newest first).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

K1 = 1.2
B = 0.75

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "about",
        "after",
        "before",
        "over",
        "under",
        "between",
        "during",
        "via",
        "vs",
        "per",
        "any",
        "all",
        "some",
        "more",
        "most",
        "other",
        "such",
        "only",
        "own",
        "same",
        "too",
        "very",
        "just",
        "also",
        "should",
        "would",
        "could",
        "may",
        "might",
    ]
)

_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_DOUBLE = re.compile(r"([b-df-hj-np-tv-z])\1$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


def stem(word: str) -> str:
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) >= 5:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) >= 6:
        return _undouble(word[:-3])
    if word.endswith("ed") and len(word) >= 5:
        return _undouble(word[:-2])
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _undouble(word: str) -> str:
    return word[:-1] if _DOUBLE.search(word) and not word.endswith(("ll", "ss", "zz")) else word


def tokenize(text: str) -> list[str]:
    """Stemmed tokens of ``text``, stopwords and one-letter words removed, in order."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    # a pure function of the text; cached because every episode re-reads the same corpus
    out = []
    for tok in _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()):
        if tok in STOPWORDS or (len(tok) == 1 and tok.isascii() and tok.isalpha()):
            continue
        out.append(stem(tok))
    return tuple(out)


def query_terms(query: str) -> list[str]:
    """The distinct search terms of a query, in order of first appearance."""
    return list(dict.fromkeys(tokenize(query)))


@dataclass(frozen=True)
class Hit:
    key: str
    score: float
    matched: int  # how many distinct query terms the document contains


class Index:
    """BM25 over weighted fields; ``docs`` is (key, {field: text}) in a stable order."""

    def __init__(self, docs: Iterable[tuple[str, Mapping[str, str]]], weights: Mapping[str, float]) -> None:
        self.keys: list[str] = []
        self._tf: list[Counter[str]] = []
        self._len: list[float] = []
        self._df: Counter[str] = Counter()
        for key, fields in docs:
            bag: Counter[str] = Counter()
            for name, text in fields.items():
                w = weights.get(name, 1.0)
                for tok in tokenize(text or ""):
                    bag[tok] += w
            self.keys.append(key)
            self._tf.append(bag)
            self._len.append(sum(bag.values()))
            self._df.update(bag.keys())
        self._avg = (sum(self._len) / len(self._len)) if self._len else 0.0

    def __len__(self) -> int:
        return len(self.keys)

    def idf(self, term: str) -> float:
        n, df = len(self.keys), self._df.get(term, 0)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def scores(self, terms: Sequence[str]) -> list[tuple[float, int]]:
        """(BM25 score, distinct terms matched) of every document, in index order."""
        out = []
        for bag, dl in zip(self._tf, self._len, strict=True):
            score, matched = 0.0, 0
            norm = 1 - B + B * (dl / self._avg if self._avg else 0.0)
            for term in terms:
                tf = bag.get(term, 0.0)
                if tf > 0:
                    matched += 1
                    score += self.idf(term) * tf * (K1 + 1) / (tf + K1 * norm)
            out.append((score, matched))
        return out

    def score_terms(self, terms: Sequence[str], *, min_should_match: float = 0.5) -> list[Hit]:
        if not terms:
            return []
        need = max(1, math.ceil(len(terms) * min_should_match))
        hits = [
            (-round(score, 6), pos, Hit(key, round(score, 4), matched))
            for pos, (key, (score, matched)) in enumerate(zip(self.keys, self.scores(terms), strict=True))
            if matched >= need
        ]
        hits.sort(key=lambda h: (h[0], h[1]))
        return [h[2] for h in hits]

    def search(self, query: str, *, min_should_match: float = 0.5) -> list[Hit]:
        return self.score_terms(query_terms(query), min_should_match=min_should_match)


_ABBREVIATIONS = (" Dr.", " Prof.", " Mr.", " Ms.", " Mrs.", " St.", " No.", " vs.", " e.g.", " i.e.", " approx.")
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+\.\s+|>\s*)")


def plain_sentences(text: str, *, headings: bool = True) -> list[str]:
    """The sentences of a markdown text: at least one per line; list markers, heading marks,
    emphasis and code ticks removed; a table row is one sentence, its cells labelled with the
    table's header (``Method: PayNow; Fee: 1.0%``); heading lines dropped unless ``headings``."""
    out: list[str] = []
    header: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            header = []
            continue
        if line.startswith("|"):
            cells = [c.strip().replace("**", "").replace("`", "") for c in line.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):  # the separator under a header row
                if out and not header:
                    header = [h.strip() for h in out.pop().split("; ")]
                continue
            if header and len(header) == len(cells):
                out.append("; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True) if c))
            else:
                out.append("; ".join(c for c in cells if c))
            continue
        header = []
        if not headings and line.startswith("#"):
            continue
        line = _MARKUP.sub("", line).replace("**", "").replace("*", "").replace("`", "").strip()
        pieces: list[str] = []
        for piece in _SENTENCE.split(line):
            if pieces and (" " + pieces[-1]).endswith(_ABBREVIATIONS):
                pieces[-1] += " " + piece
            else:
                pieces.append(piece)
        out.extend(p.strip() for p in pieces if p.strip())
    return out


def best_sentence(text: str, terms: Sequence[str]) -> str:
    """The sentence of ``text`` (see :func:`plain_sentences`; headings are not sentences unless
    the text has nothing else) holding the most distinct ``terms``, the earliest of equals."""
    sentences = plain_sentences(text, headings=False) or plain_sentences(text)
    if not sentences:
        return ""
    wanted = set(terms)
    best, best_n = sentences[0], -1
    for s in sentences:
        n = len(wanted & set(tokenize(s)))
        if n > best_n:
            best, best_n = s, n
    return best


def estimate_tokens(text: str) -> int:
    """Tokens a text costs, estimated as one per four characters (rounded up)."""
    return (len(text) + 3) // 4


_DAY = re.compile(r"^(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?$")


def parse_day(value: str, *, end: bool = False) -> date:
    """A day from ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` (``/`` also allowed); a partial
    date means its first day, or its last day when ``end`` is true. ValueError if bad."""
    m = _DAY.match(value.strip())
    if not m:
        raise ValueError(f"not a date: {value!r}")
    year = int(m.group(1))
    month = int(m.group(2)) if m.group(2) else (12 if end else 1)
    if m.group(3):
        day = int(m.group(3))
    elif end:
        nxt = date(year + (month == 12), month % 12 + 1, 1)
        day = (nxt - date(year, month, 1)).days
    else:
        day = 1
    return date(year, month, day)  # raises ValueError for impossible dates
