"""Whether a text *says* something, read by its words rather than one fixed wording.

A message check that looks for the substring "not requeue" rejects "won't be automatically re-queued" and
"killed without being requeued", and one that looks for "resubmit" anywhere passes "requeued automatically, no
need to resubmit". :func:`says` reads a short phrase the way a reader does:

* by its content words (small words such as "a", "the", "for", "be" do not count), each in any inflection
  (``fix`` / ``fixed`` / ``fixes``; ``warning`` / ``warned``; ``re-queued`` / ``requeue``), in any order, all in
  one clause (a sentence, a line, a part between commas, semicolons, dashes or brackets): "a warning out for
  heavy rain" says "Heavy Rain Warning";
* with its polarity: a phrase written ``"not requeued"`` asks for the words said negated, any other phrase for
  them said plainly. A clause is negated when a negation ("not", "n't", "no", "never", "without", "rather than",
  "instead of", 不 / 没 / 无 / 未 / 别) comes before its last matched word, at most a few words before its first;
  the first clause that holds the words decides, so "requeued automatically, no need to resubmit" says
  "requeued" (not "not requeued") and does not say "resubmit".

A word with a CJK character is looked for as written (a substring of the clause).
"""

from __future__ import annotations

import re
from functools import lru_cache

from mcp_persona.scoring.normalize import normalize

# words that carry no content of their own in a short phrase
STOP = frozenset(re.findall(r"\w+", (
    "a an the of for to in on at by with from into out up is are be been being was were will would shall "
    "should can could may might do does did has have had it its this that these those there their our "
    "your my his her and or as so than then just also too please")))
# where a clause ends: sentence ends, lines, semicolons, commas, dashes, brackets, a colon before a space, "but"
_CLAUSE = re.compile(r"(?<=[.!?。！？])\s+|\n+|[;；,，、()（）\[\]]|\s[—–-]\s|:\s|：|\sbut\s")
_TOKEN = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*|[\u3400-\u9fff]")
_NEGATION = re.compile(r"\b(?:not|no|never|without|nothing|none|neither|nor|cannot|rather than|instead of)\b|n['’]t\b"
                       r"|[不没無无未别勿非]")
_WINDOW = 5  # how many words before the first matched word a negation may stand
_SUFFIXES = ("ations", "ation", "ings", "ing", "ied", "ies", "ed", "es", "s", "e", "y")


def stem(word: str) -> str:
    """``word`` lower-cased, hyphens and apostrophes gone, one common suffix cut (kept 3 letters at least)."""
    w = re.sub(r"['’-]", "", word.lower())
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def _same(a: str, b: str) -> bool:
    """Two stems of one word: equal, or one the other with at most two more letters (resubmitt / resubmit)."""
    short, long_ = sorted((a, b), key=len)
    return (long_.startswith(short) and len(long_) - len(short) <= 2 and len(short) >= 3) or a == b


def content_words(phrase: str) -> tuple[bool, list[str]]:
    """(negated, the content words) of a phrase: a leading "not" / "no" asks for the words said negated."""
    words = [m.group() for m in _TOKEN.finditer(normalize(phrase))]
    negated = bool(words) and words[0] in ("not", "no", "never")
    if negated:
        words = words[1:]
    content = [w for w in words if w not in STOP and not re.fullmatch(r"[\u3400-\u9fff]", w)]
    cjk = "".join(w for w in words if re.fullmatch(r"[\u3400-\u9fff]", w))
    return negated, content + ([cjk] if cjk else [])


def clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(normalize(text)) if c and c.strip()]


def polarity(words: list[str], clause: str) -> bool | None:
    """None when ``clause`` does not hold every one of ``words``; else whether it says them negated."""
    tokens = list(_TOKEN.finditer(clause))
    stems = [stem(t.group()) for t in tokens]
    first, last = len(clause), -1
    for word in words:
        if re.search(r"[\u3400-\u9fff]", word):
            at = clause.find(word)
            if at < 0:
                return None
            first, last = min(first, at), max(last, at)
            continue
        want = stem(word)
        hits = [t.start() for t, s in zip(tokens, stems, strict=True) if _same(s, want)]
        if not hits:
            return None
        first, last = min(first, hits[0]), max(last, hits[0])
    before = [t.start() for t in tokens if t.start() < first]
    start = before[-_WINDOW] if len(before) >= _WINDOW else 0
    return _NEGATION.search(clause[start:last]) is not None


@lru_cache(maxsize=1024)
def says(phrase: str, text: str) -> bool:
    """Whether ``text`` says ``phrase`` (see the module's docstring): the first clause holding its content words
    says them with the polarity the phrase asks for."""
    negated, words = content_words(phrase)
    if not words:
        return False
    for clause in clauses(text):
        found = polarity(words, clause)
        if found is not None:
            return found == negated
    return False


__all__ = ["clauses", "content_words", "says", "stem"]
