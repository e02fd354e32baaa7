"""Response similarity (paper §4.3, appendix A.2): TF-IDF cosine, ROUGE-L, BLEU and METEOR.

Each response is first serialized to canonical JSON (parsed and re-dumped with sorted keys and no
whitespace when it is JSON; other text is kept as it is), then split by one tokenizer shared by all
four metrics: runs of word characters and single punctuation marks, so that error codes,
identifier formats and the structure of an envelope all count.

* TF-IDF: cosine of the two responses' vectors under scikit-learn's ``TfidfVectorizer`` fitted
  on every response of the replay (real and simulated);
* ROUGE-L: ``rouge-score``'s LCS F-measure, the real response as the reference (its recall is
  reported too);
* BLEU: ``sacrebleu.sentence_bleu`` on the tokens (``tokenize="none"``, default smoothing), / 100;
* METEOR: ``nltk``'s ``meteor_score`` with WordNet 3.0 read from Debian's ``wordnet-base``
  dictionary files (``/usr/share/wordnet``; nltk's reader needs a ``lexnames`` table, which that
  package does not ship and which is supplied here from WordNet's documented list). Without those
  files METEOR falls back to exact matching (stems only, no synonyms) and the report says so.

Two identical responses score 1.0 on every metric (METEOR's fragmentation penalty would
otherwise keep a perfect match of a short text below 1).
"""

from __future__ import annotations

import io
import json
import math
import re
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

WORDNET_DIR = Path("/usr/share/wordnet")
_TOKEN = re.compile(r"\w+|[^\w\s]")

# WordNet 3.0's lexicographer files, in file-number order (lexnames(5WN)); 1 noun, 2 verb, 3 adj, 4 adv.
_LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant",
    "noun.possession", "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state",
    "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition", "verb.communication",
    "verb.competition", "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_POS_NUM = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def canonical(text: str) -> str:
    """Canonical JSON of a JSON response; any other text as it is (quoting it would only add two
    tokens that every pair of plain-text responses shares)."""
    try:
        value: Any = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return text
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


# -- WordNet ------------------------------------------------------------------------------------------------
@cache
def wordnet() -> Any | None:
    """nltk's WordNet reader over Debian's WordNet 3.0 files, or None when they are not installed."""
    if not (WORDNET_DIR / "data.noun").is_file():
        return None
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if str(WORDNET_DIR) not in nltk.data.path:
        nltk.data.path.append(str(WORDNET_DIR))  # nltk opens files only under its data paths
    lexnames = "".join(f"{i:02d}\t{name}\t{_POS_NUM[name.split('.')[0]]}\n" for i, name in enumerate(_LEXNAMES))

    class DebianWordNet(WordNetCorpusReader):
        def open(self, file: str) -> Any:
            if file == "lexnames":
                return io.StringIO(lexnames)
            return super().open(file)

        def map_wn(self, version: str = "wordnet") -> None:  # no OMW mapping: this *is* WordNet 3.0
            return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not needed
        return DebianWordNet(str(WORDNET_DIR), None)


class _ExactOnly:
    """A WordNet stand-in with no synonyms: METEOR then matches exact words and stems only."""

    def synsets(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def meteor_mode() -> str:
    return "wordnet-3.0" if wordnet() is not None else "exact+stem (no WordNet)"


# -- the metrics -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Similarity:
    tfidf: float
    rouge: float
    rouge_recall: float
    bleu: float
    meteor: float


class Scorer:
    """Similarity of (real, simulated) response pairs; TF-IDF is fitted on all of them at once."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self.pairs = [(canonical(r), canonical(s)) for r, s in pairs]
        docs = [d for pair in self.pairs for d in pair]
        self._tfidf = None
        if any(tokens(d) for d in docs):
            from sklearn.feature_extraction.text import TfidfVectorizer

            vec = TfidfVectorizer(tokenizer=tokens, token_pattern=None, lowercase=True)
            self._matrix = vec.fit_transform(docs)
            self._tfidf = vec

    def score(self, i: int) -> Similarity:
        real, sim = self.pairs[i]
        if real == sim:
            return Similarity(1.0, 1.0, 1.0, 1.0, 1.0)
        return Similarity(self._cosine(i), *rouge_l(real, sim), bleu(real, sim), meteor(real, sim))

    def _cosine(self, i: int) -> float:
        if self._tfidf is None:
            return 0.0
        a, b = self._matrix[2 * i], self._matrix[2 * i + 1]
        na = math.sqrt(a.multiply(a).sum())
        nb = math.sqrt(b.multiply(b).sum())
        if na == 0 or nb == 0:
            return 0.0
        return float(a.multiply(b).sum() / (na * nb))

    def all(self) -> list[Similarity]:
        return [self.score(i) for i in range(len(self.pairs))]


class _Tok:
    def tokenize(self, text: str) -> list[str]:
        return [t.lower() for t in tokens(text)]


@cache
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tok())


def rouge_l(reference: str, candidate: str) -> tuple[float, float]:
    """(F-measure, recall) of ROUGE-L."""
    if reference == candidate:
        return 1.0, 1.0
    s = _rouge().score(reference, candidate)["rougeL"]
    return float(s.fmeasure), float(s.recall)


def bleu(reference: str, candidate: str) -> float:
    if reference == candidate:
        return 1.0
    import sacrebleu

    hyp, ref = " ".join(tokens(candidate)), " ".join(tokens(reference))
    if not hyp or not ref:
        return 0.0
    return float(sacrebleu.sentence_bleu(hyp, [ref], tokenize="none").score) / 100.0


def meteor(reference: str, candidate: str) -> float:
    if reference == candidate:
        return 1.0
    from nltk.translate.meteor_score import meteor_score

    ref, hyp = tokens(reference), tokens(candidate)
    if not ref or not hyp:
        return 0.0
    return float(meteor_score([ref], hyp, wordnet=wordnet() or _ExactOnly()))


def similarity(reference: str, candidate: str) -> Similarity:
    """All four metrics for one pair (TF-IDF fitted on the pair alone)."""
    return Scorer([(reference, candidate)]).score(0)
