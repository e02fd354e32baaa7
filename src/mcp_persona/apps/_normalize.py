"""How the simulated servers compare what a caller typed with what their records hold.

The real services behind the simulators are forgiving in the same few ways, so every simulator
that looks a name up or searches text uses this one module rather than its own rules:

* **case and spacing**: text is compared after NFKC, case folding and collapsing runs of spaces;
* **places**: ``"Austin, TX"``, ``"Tokyo, Japan"``, ``"Singapore City"``, ``"Hong Kong SAR"`` and
  ``"HK"`` name the same place as ``"Austin"``, ``"Tokyo"``, ``"Singapore"`` and ``"Hong Kong"``
  (a region or country after a comma, a trailing "City" or "SAR", and common short forms);
* **aliases and abbreviations**: ``"Mt. Fuji"`` is ``"Mount Fuji"``, ``"NYC"`` is ``"New York"``;
* **names**: a leading article (``"Weeknd"`` is ``"The Weeknd"``) and a company suffix
  (``"Toyota Inc."`` is ``"Toyota"``) or an API's trailing "API" (``"ExchangeRate API"`` is ``"ExchangeRate"``) do
  not decide a match;
* **words**: singular and plural, and a light stemmer (``apartments`` ~ ``apartment``,
  ``currencies`` ~ ``currency``; :func:`mcp_persona.apps._corpus.search.stem`), stop-words dropped
  and word order free in searches (``"restaurant in Tokyo"`` finds what ``"restaurant Tokyo"`` does).

Identifiers (``CU-1001``, ``tt0816692``, a path, an e-mail address) are compared exactly up to case:
a real service does not guess ids. Servers whose real counterpart is strict (Gmail's word matching)
do not use this module and say so in their docstring, and declare it on the app as a :class:`StrictNote`
per tool argument: the robustness gate of ``mcp-persona validate`` (:mod:`mcp_persona.robustness`)
excuses a variant that finds nothing there only when such a note covers its kind.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcp_persona.apps._corpus.search import STOPWORDS, stem

# A whole name that is a short form of another (compared after folding).
NAME_ALIASES: dict[str, str] = {
    "nyc": "new york", "new york city": "new york", "ny": "new york",
    "la": "los angeles", "sf": "san francisco", "dc": "washington", "washington dc": "washington",
    "washington d c": "washington", "hk": "hong kong", "hksar": "hong kong", "sg": "singapore",
    "kl": "kuala lumpur", "uk": "united kingdom", "gb": "united kingdom", "great britain": "united kingdom",
    "britain": "united kingdom", "us": "united states", "usa": "united states", "u s": "united states",
    "u s a": "united states", "united states of america": "united states", "america": "united states",
    "uae": "united arab emirates", "prc": "china", "mainland china": "china", "south korea": "korea",
    "republic of korea": "korea", "peking": "beijing", "bombay": "mumbai", "saigon": "ho chi minh",
    "ho chi minh city": "ho chi minh",
}
# A word that abbreviates another (compared after folding, the dot dropped).
WORD_ALIASES: dict[str, str] = {
    "mt": "mount", "mtn": "mountain", "ft": "fort", "pt": "point", "natl": "national", "nat'l": "national",
    "univ": "university", "intl": "international", "dept": "department", "ave": "avenue", "blvd": "boulevard",
    "rd": "road", "hwy": "highway", "&": "and",
}
# The short forms a search expands wherever they occur (unambiguous ones only: "la" or "us" are not).
TERM_ALIASES: dict[str, str] = {
    "nyc": "new york", "hk": "hong kong", "hksar": "hong kong", "sf": "san francisco", "mt": "mount",
    "mtn": "mountain", "ft": "fort", "natl": "national", "intl": "international", "univ": "university",
}
_US_STATES = {
    "al": "alabama", "ak": "alaska", "az": "arizona", "ar": "arkansas", "ca": "california", "co": "colorado",
    "ct": "connecticut", "de": "delaware", "fl": "florida", "ga": "georgia", "hi": "hawaii", "id": "idaho",
    "il": "illinois", "in": "indiana", "ia": "iowa", "ks": "kansas", "ky": "kentucky", "la": "louisiana",
    "me": "maine", "md": "maryland", "ma": "massachusetts", "mi": "michigan", "mn": "minnesota",
    "ms": "mississippi", "mo": "missouri", "mt": "montana", "ne": "nebraska", "nv": "nevada",
    "nh": "new hampshire", "nj": "new jersey", "nm": "new mexico", "ny": "new york", "nc": "north carolina",
    "nd": "north dakota", "oh": "ohio", "ok": "oklahoma", "or": "oregon", "pa": "pennsylvania",
    "ri": "rhode island", "sc": "south carolina", "sd": "south dakota", "tn": "tennessee", "tx": "texas",
    "ut": "utah", "vt": "vermont", "va": "virginia", "wa": "washington", "wv": "west virginia",
    "wi": "wisconsin", "wy": "wyoming", "dc": "district of columbia",
}
_COUNTRIES = {
    "united states", "canada", "mexico", "brazil", "argentina", "united kingdom", "england", "scotland",
    "ireland", "france", "germany", "italy", "spain", "portugal", "netherlands", "belgium", "switzerland",
    "austria", "sweden", "norway", "denmark", "finland", "poland", "czechia", "czech republic", "greece",
    "turkey", "russia", "ukraine", "egypt", "kenya", "nigeria", "south africa", "morocco", "israel",
    "united arab emirates", "saudi arabia", "qatar", "india", "pakistan", "china", "japan", "korea",
    "taiwan", "hong kong", "macau", "singapore", "malaysia", "thailand", "vietnam", "indonesia",
    "philippines", "australia", "new zealand", "iceland", "peru", "chile", "colombia",
}
_OTHER_REGIONS = {
    "ontario", "quebec", "british columbia", "alberta", "on", "qc", "bc", "ab", "nsw", "new south wales",
    "victoria", "queensland", "england", "tokyo", "kanto", "guangdong", "zhejiang", "jiangsu", "sichuan",
    "bavaria", "catalonia", "ile de france", "sar", "special administrative region", "municipality",
    "state", "province", "prefecture",
}
_REGIONS = frozenset(_US_STATES) | frozenset(_US_STATES.values()) | _COUNTRIES | _OTHER_REGIONS
# Words after a place name that do not change the place ("Singapore City", "Hong Kong SAR").
_PLACE_TAILS = ("city", "sar", "special administrative region", "municipality", "metropolitan area", "metro")
_COMPANY_SUFFIXES = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "plc", "ag", "sa",
    "gmbh", "nv", "bv", "se", "holdings", "group", "kk", "oyj", "ab", "spa", "pty", "lp", "llp",
})
# Words after a service's name that do not change the service ("ExchangeRate API" is ExchangeRate).
_SERVICE_SUFFIXES = frozenset({"api"})
_ARTICLES = ("the ", "a ", "an ")
_PUNCT = re.compile(r"[^\w\s,&']+")
_WORD = re.compile(r"[\w&']+")
_ID_LIKE = re.compile(r"^[^\s]*\d[^\s]*$|^[^\s]*[/@:_][^\s]*$")


# The variant kinds a strict note may excuse (the fair kinds of :func:`mcp_persona.robustness.fair_variants`).
STRICT_KINDS = ("case", "qualifier", "plural", "reorder", "phrase", "optional")


@dataclass(frozen=True)
class StrictNote:
    """A tool argument the real service matches strictly, so that a fair variant of a gold call may find
    nothing there, as it would on the real service; and why (the real service's documented behaviour).

    Written like a task's mutation exemption: what it excuses (``kind``s of ``tool``'s ``argument``) and
    a specific reason. Declared on the app (``App(..., strict=[...])``) beside its docstring's account."""

    tool: str
    argument: str
    kinds: tuple[str, ...]
    reason: str

    def __post_init__(self) -> None:
        unknown = [k for k in self.kinds if k not in STRICT_KINDS]
        if not self.kinds or unknown:
            raise ValueError(f"strict note on {self.tool}.{self.argument}: kinds must be some of "
                             f"{', '.join(STRICT_KINDS)} (got {', '.join(unknown) or 'none'})")
        if len(self.reason.strip()) < 25:
            raise ValueError(f"strict note on {self.tool}.{self.argument}: the reason must say what the real "
                             "service does (25 characters or more)")

    def covers(self, tool: str, argument: str, kind: str) -> bool:
        return (tool, argument) == (self.tool, self.argument) and kind in self.kinds

    @property
    def key(self) -> str:
        return f"{'/'.join(self.kinds)} {self.tool}.{self.argument}"


def fold(text: Any) -> str:
    """NFKC, case-folded, runs of whitespace collapsed: the form every comparison starts from."""
    return " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())


def is_region(text: Any) -> bool:
    """A state, province or country as written after a place's name (``WA``, ``Texas``, ``UK``)."""
    t = _plain(str(text))
    return t in _REGIONS or NAME_ALIASES.get(t) in _REGIONS


def is_identifier(text: Any) -> bool:
    """A value that names a record by code (``CU-1001``, ``src/app.py``, ``2026-03-12``, ``a@b.c``):
    one token holding a digit or a ``/``, ``@``, ``:`` or ``_``. Compared exactly, up to case."""
    return bool(_ID_LIKE.match(fold(text)))


def _plain(text: str) -> str:
    """Folded text with punctuation (but commas, ampersands and apostrophes) turned into spaces."""
    return " ".join(_PUNCT.sub(" ", fold(text).replace("’", "'")).split())


def _singular(words: Iterable[str]) -> str:
    return " ".join(stem(w) for w in words)


def _bare_s(word: str) -> str:
    """A plural the stemmer leaves alone ("chilis", "taxis", "NDVIs": it keeps "-is" words such as
    "analysis" whole) with its final s dropped."""
    return word[:-1] if len(word) > 3 and word.endswith("is") else word


@functools.lru_cache(maxsize=65536)
def name_keys(text: str) -> frozenset[str]:
    """Every form of a name a real service would take as the same name (see the module docstring).
    Two names are the same when their keys meet (:func:`same_name`)."""
    base = _plain(text)
    forms = {base}
    head, comma, tail = base.rpartition(",")
    if comma and head.strip():
        tail = tail.strip()
        if tail in _REGIONS or NAME_ALIASES.get(tail) in _REGIONS:
            forms.add(head.strip())
    forms = {" ".join(f.replace(",", " ").split()) for f in forms}
    for f in list(forms):
        for tail in _PLACE_TAILS:
            if f.endswith(" " + tail) and len(f) > len(tail) + 1:
                forms.add(f[: -len(tail) - 1])
        if f.startswith("city of "):
            forms.add(f[len("city of "):])
    for f in list(forms):
        words = [WORD_ALIASES.get(w.rstrip("'"), w) for w in f.split()]
        forms.add(" ".join(words))
    for f in list(forms):
        for article in _ARTICLES:
            if f.startswith(article) and len(f) > len(article):
                forms.add(f[len(article):])
        words = f.split()
        while len(words) > 1 and (words[-1] in _COMPANY_SUFFIXES or words[-1] in _SERVICE_SUFFIXES):
            words = words[:-1]
            forms.add(" ".join(words))
    forms |= {NAME_ALIASES[f] for f in forms if f in NAME_ALIASES}
    words = [f.replace("&", "and").replace("'", "").split() for f in forms if f]
    return frozenset([_singular(w) for w in words] + [_singular(map(_bare_s, w)) for w in words])


def same_name(a: Any, b: Any) -> bool:
    """Whether two names (of a place, person, company, category...) are the same for a real service.
    Identifiers compare exactly up to case."""
    if is_identifier(a) or is_identifier(b):
        return fold(a) == fold(b)
    return bool(name_keys(str(a)) & name_keys(str(b)))


def same_place(query: Any, name: str, *qualifiers: str) -> bool:
    """Whether ``query`` names the place called ``name`` whose region, country... are ``qualifiers``:
    bare, or qualified by one of them or by any known region or country ("Xi'an, Shaanxi")."""
    return same_name(query, name) or any(same_name(query, f"{name}, {q}") for q in qualifiers if q)


@functools.lru_cache(maxsize=65536)
def terms(text: str) -> tuple[str, ...]:
    """The distinct search terms of a text: folded, aliases expanded (``mt`` -> ``mount``, ``nyc`` ->
    ``new york``), stop-words dropped, stemmed; in order of first appearance. A text made only of
    stop-words keeps them (a search for "The Who" still searches)."""
    words = [w.strip("'") for w in _WORD.findall(_plain(text).replace(",", " "))]
    words = [w for w in words if w]
    expanded: list[str] = []
    for w in words:
        expanded.extend(TERM_ALIASES.get(w, w).split())
    kept = [w for w in expanded if w not in STOPWORDS and w != "&"] or expanded
    return tuple(dict.fromkeys(stem(w) for w in kept))


def _flatten(fields: Iterable[Any]) -> Iterable[str]:
    for f in fields:
        if f is None or isinstance(f, bool):
            continue
        if isinstance(f, str | int | float):
            yield str(f)
        elif isinstance(f, dict):
            yield from _flatten(f.values())
        else:
            yield from _flatten(f)


def _hay(fields: tuple[Any, ...]) -> tuple[set[str], str]:
    texts = list(_flatten(fields))
    words: set[str] = set()
    for t in texts:
        words.update(terms(t))
    return words, " ".join(fold(t) for t in texts)


def _hit(term: str, words: set[str], text: str) -> bool:
    # a whole stemmed word, or (as the servers always allowed) a piece of a longer word: "react" in "reactjs"
    return term in words or term in text or _bare_s(term) in words


def hits_per_term(query: str, *fields: Any) -> dict[str, bool]:
    """For each term of ``query`` (see :func:`terms`), whether ``fields`` hold it."""
    words, text = _hay(fields)
    return {t: _hit(t, words, text) for t in terms(query)}


def term_hits(query: str, *fields: Any) -> int:
    """How many distinct terms of ``query`` occur in ``fields`` (strings, numbers, lists, dicts),
    singular or plural, in any order: a relevance for ranking. Stop-words do not count."""
    words, text = _hay(fields)
    return sum(1 for t in terms(query) if _hit(t, words, text))


def matches_all(query: str, *fields: Any) -> bool:
    """Every term of ``query`` occurs in ``fields`` (in any order); an empty query matches nothing."""
    wanted = terms(query)
    words, text = _hay(fields)
    return bool(wanted) and all(_hit(t, words, text) for t in wanted)


__all__ = [
    "NAME_ALIASES",
    "STRICT_KINDS",
    "TERM_ALIASES",
    "WORD_ALIASES",
    "StrictNote",
    "fold",
    "hits_per_term",
    "is_identifier",
    "matches_all",
    "name_keys",
    "same_name",
    "same_place",
    "term_hits",
    "terms",
]
