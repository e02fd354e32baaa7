"""What an answer claims when the user asks for a comparison or a choice ("which stock trades higher?", "which
city is denser?", "the cheapest of the three"): the entity it puts on top, not merely the names it mentions.

A name-presence check passes "Oppenheimer made more than Interstellar" when Interstellar made more: both names
are there. Here each clause (a sentence, a line, a part after a semicolon) that names an entity of the choice
and uses a comparative or superlative word says which way it puts that entity:

* ``A is bigger than B`` / ``A has more ... than B`` / ``A beats B``: A up, B down; ``A is smaller than B``,
  ``A trails B``: A down, B up;
* ``the biggest is A`` / ``A is the largest`` / ``A wins``: A up; ``A trails``: A down;
* a negation before the word (``A is not bigger than B``) turns it round.

* a verb of change after the subject (``today's amount fell``, ``A rose``, ``A is down from B``) places the
  subject as the comparative does; ``... more than B`` with no subject of its own puts B the other way.

The answer claims the winner when it puts the winner the asked way at least once and never puts a rival the
asked way (nor the winner the other way); of two entities, the rival put the other way puts the winner the
asked way. An answer with no comparative clause at all ("Oppenheimer — $975M vs $773M") is read by its lead:
the winner must be the first of the entities it names (unless the claim says its lead is no claim).

A claim may name its ``measure`` (the words of what is compared: ``profit``, ``subscriber``) and the
``other_measures`` an answer may compare the same entities by in passing (``budget``, ``view``): a clause that
names another measure and not the asked one is no claim about it ("Interstellar had the bigger budget, yet
Oppenheimer made more profit"), and in a clause naming both, the comparative nearest the asked measure counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UP = ("more", "higher", "larger", "bigger", "greater", "denser", "longer", "older", "taller", "heavier", "faster",
      "richer", "pricier", "costlier", "outperforms", "outperformed", "outperform", "beats", "beat", "exceeds",
      "exceeded", "ahead", "above", "most", "highest", "largest", "biggest", "greatest", "densest", "longest",
      "oldest", "tallest", "best", "wins", "won", "leads", "surpasses", "surpassed", "outsold", "outgrossed",
      "outearned", "top", "winner", "higher-priced", "expensive", "priciest", "dearest", "strongest", "led",
      "stronger")
DOWN = ("less", "lower", "smaller", "fewer", "shorter", "younger", "cheaper", "slower", "behind", "below",
        "trails", "trailed", "underperforms", "underperformed", "least", "lowest", "smallest", "fewest", "worst",
        "cheapest", "shortest", "youngest", "loses", "lower-priced", "less-populated", "weakest", "weaker",
        "trailing", "lags", "lagged", "lagging")
# verbs of change: they place the subject before them, never an entity after them ("fell since B" is no "B fell")
RISE = ("rose", "risen", "increased", "gained", "grew", "strengthened", "climbed", "rise", "increase")
FALL = ("fell", "fallen", "dropped", "decreased", "declined", "weakened", "slipped", "shrank", "drop", "decrease",
        "decline")
# what an entity named right after these is: the reference a comparison is made against ("compared with B",
# "down from B", "vs B", "since B"), never its subject
_REFERENCE = re.compile(r"\b(?:than|vs\.?|versus|compared (?:with|to)|relative to|against|from|since)\s+"
                        r"(?:(?:the|that|of|on|in|at)\s+)*$")
# "up"/"down" compare only before a reference or an amount ("down from B", "up 3%"), not in "set up", "up to"
_UP_DOWN = re.compile(r"\s+(?:from|by|on|over|versus|vs\b|compared|against|[\d$£€¥₩])")
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")
_NEGATION = re.compile(r"\b(?:not|never)\b|n't\b")
# sentences, lines, semicolons, and the halves of "A ..., and/but/while B ...": one comparison each
_CLAUSE = re.compile(r"(?<=[.!?])\s+|\n+|;\s*|,?\s+(?:so|therefore|hence|thus|which means|yet|though|although)\s+|"
                     r",?\s+(?:and|but|while|whereas)\s+"
                     r"(?=\S+(?:\s\S+)?\s+(?:is|are|was|has|had|costs?|made|earned|grossed|trades?|traded)\b)")


@dataclass(frozen=True)
class Stance:
    entity: str
    up: bool  # put on top (more, higher, the largest) or at the bottom


def stances(answer: str, entities: list[str], aliases: dict[str, list[str]] | None = None, *,
            measure: tuple[str, ...] | list[str] = (),
            other_measures: tuple[str, ...] | list[str] = ()) -> list[Stance]:
    """Every placing of an entity that a clause of ``answer`` makes (see the module's docstring); an entity is
    also named by each of its ``aliases`` (a ticker's company, a listing's city); ``measure`` and
    ``other_measures``: the words of the compared quantity and of others (see the module)."""
    names = _names(entities, aliases)
    # a name with "and" in it ("The Boy and the Heron") is one name, never two clauses: its "and" is glued
    glued = {n.lower(): n.lower().replace(" and ", "_and_")
             for ns in names.values() for n in ns if " and " in n.lower()}
    text = _plain(answer)
    for name, glue in sorted(glued.items(), key=lambda g: -len(g[0])):
        text = text.replace(name, glue)
    names = {e: [glued.get(n.lower(), n) for n in ns] for e, ns in names.items()}
    out: list[Stance] = []
    for clause in (part for c in _CLAUSE.split(text) for part in _comparisons(c)):
        named = sorted((m.start(), e) for e in entities for n in names[e] for m in _mentions(clause, n))
        words = [(m.start(), m.group()) for m in _WORD.finditer(clause) if _compares(m, clause)]
        if not named or not words:
            continue
        asked, other = _measured(clause, measure), _measured(clause, other_measures)
        if other and not asked:
            continue  # a comparison of another measure ("the bigger budget"): no claim about the asked one
        if other:  # both measures: the comparative nearest the asked one
            words = [min(words, key=lambda w: min(abs(w[0] - a) for a in asked))]
        at, comparative = words[0]
        up = comparative in UP or comparative in RISE or comparative == "up"
        if _NEGATION.search(clause[max(0, at - 12):at]):
            up = not up
        # an entity named as the reference is the reference wherever the clause names it ("compared with B ($5)")
        ref = {e for pos, e in named if _REFERENCE.search(clause[max(0, pos - 40):pos])}
        refs = {pos for pos, e in named if e in ref}
        before = [e for pos, e in named if pos < at and pos not in refs]
        after = [e for pos, e in named if pos > at]
        after_at = [pos for pos, _ in named if pos > at]
        than = clause.find(" than ", at)
        if before:
            subject = before[-1]
            out.append(Stance(subject, up))
            # "A is bigger than B", "A beats B", "A trails B", "compared with B, A is ...": B the other way
            rest = [e for pos, e in named if (pos > (than if than >= 0 else at) or pos in refs) and e != subject]
            out += [Stance(e, not up) for e in rest]
        elif refs or (than >= 0 and any(pos > than for pos in after_at)):
            # "(that is) 1,583.75 more than B", "compared with B, the amount has decreased": B the other way
            out += [Stance(e, not up) for pos, e in named if pos in refs or (than >= 0 and pos > than)]
        elif comparative in RISE + FALL + ("up", "down"):
            continue  # a verb of change places its subject only: "fell since B" is not "B fell"
        elif after and _names_it(clause[at + len(comparative):after_at[0]]):
            out.append(Stance(after[0], up))  # "the biggest is A", "highest: A", "best performer was A"
    return out


def claims_winner(answer: str, winner: str, rivals: list[str], *, up: bool = True,
                  aliases: dict[str, list[str]] | None = None, measure: tuple[str, ...] | list[str] = (),
                  other_measures: tuple[str, ...] | list[str] = (), by_lead: bool = True) -> tuple[bool, str]:
    """(passed, why): whether ``answer`` puts ``winner`` above (``up``) or below (not ``up``: the cheapest, the
    least) every one of ``rivals``, as the module's docstring reads a claim; ``aliases``: other names of each;
    ``measure``, ``other_measures``: the words of the compared quantity and of others; ``by_lead``: whether an
    answer that makes no readable comparison is read by the entity it names first."""
    entities = [winner, *rivals]
    found = stances(answer, entities, aliases, measure=measure, other_measures=other_measures)
    way = "on top" if up else "at the bottom"
    if found:
        wrong = [s.entity for s in found if s.entity != winner and s.up == up]
        if wrong:
            return False, f"the answer puts {wrong[0]} {way}, not {winner}"
        if any(s.entity == winner and s.up != up for s in found):
            return False, f"the answer puts {winner} the other way"
        if any(s.entity == winner and s.up == up for s in found):
            return True, f"the answer puts {winner} {way}"
        if len(rivals) == 1 and any(s.entity == rivals[0] for s in found):  # of two, the other one the other way
            return True, f"the answer puts {rivals[0]} the other way, so {winner} {way}"
    names = _names(entities, aliases)
    firsts = sorted((m.start(), e) for e in entities for n in names[e] for m in _mentions(_plain(answer), n))
    if not firsts or winner not in {e for _, e in firsts}:
        return False, f"the answer does not name {winner}"
    if not by_lead:
        return False, f"the answer does not say which way {winner} compares with {', '.join(rivals)}"
    if firsts[0][1] == winner:
        return True, f"the answer leads with {winner}"
    return False, f"the answer leads with {firsts[0][1]}, not {winner}, and claims no order"


def _compares(word: re.Match[str], clause: str) -> bool:
    """Whether a word of ``clause`` is a comparative (or a verb of change, or "up"/"down" before a reference)."""
    w = word.group()
    if w in ("up", "down"):
        return _UP_DOWN.match(clause, word.end()) is not None
    return w in UP or w in DOWN or w in RISE or w in FALL


def _measured(clause: str, words: tuple[str, ...] | list[str]) -> list[int]:
    """Where ``clause`` names one of ``words`` (at a word's start: "profit" in "profitable")."""
    return [m.start() for w in words for m in re.finditer(rf"(?<![a-z]){re.escape(w.lower())}", clause)]


def _names(entities: list[str], aliases: dict[str, list[str]] | None) -> dict[str, list[str]]:
    """Each entity with every name it goes by: its own and its aliases."""
    return {e: [e, *(aliases or {}).get(e, [])] for e in entities}


def _names_it(gap: str) -> bool:
    """Whether the words between a superlative and the entity after it make it the superlative's entity ("the
    biggest is A", "lived longest: Marie Curie"): a few words, and no comparison of their own ("lowest, below
    A" puts A the other way, relative to something else)."""
    return len(_WORD.findall(gap)) <= 3 and re.search(r"\b(?:than|ahead|behind|above|below|over)\b", gap) is None


def _plain(text: str) -> str:
    """The answer lower-cased, without markdown emphasis (``**$5**`` inside a title reads ``$5``) nor thousands
    separators (``200,018.75`` reads ``200018.75``)."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # thousands separators: no comma to cut a clause at
    text = re.sub(r"\s+&\s+", " and ", text)  # "Hot & Sour" is "Hot and Sour"
    return re.sub(r"(\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`)", "", text).lower()


def _comparisons(clause: str) -> list[str]:
    """``clause`` cut at commas and bars where each side makes a comparison of its own ("MSFT was the best,
    NVDA the worst", "Best: MSFT | Worst: NVDA"); a part with no comparative word stays with the one before."""
    groups: list[str] = []
    for part in re.split(r",\s*|\s*\|\s*|\s+and\s+", clause):
        compares = any(w in UP or w in DOWN or w in RISE or w in FALL for w in _WORD.findall(part))
        # "..., (well) ahead of B": a relation to what came before, not a comparison of its own
        relative = re.match(r"(?:(?:well|far|way|just|slightly|comfortably|clearly)\s+)?(?:ahead|behind|above|below|"
                            r"than|over)\b", part) is not None
        if groups and (relative or not compares or not any(w in UP or w in DOWN for w in _WORD.findall(groups[-1]))):
            groups[-1] += ", " + part
        else:
            groups.append(part)
    return groups


def _mentions(text: str, entity: str) -> list[re.Match[str]]:
    name = re.sub(r"\s+&\s+", " and ", entity.lower())
    return list(re.finditer(rf"(?<![\w]){name_pattern(name)}(?![\w])", text))


def name_pattern(name: str) -> str:
    """A regular expression for ``name`` that reads a space between two of its words as a hyphen too and the
    other way round: "the remote-work story" names "remote work", "Stir Fry" names "Stir-fry"."""
    return r"[\s-]+".join(re.escape(part) for part in re.split(r"(?<=\w)[\s-]+(?=\w)", name))


# -- what an answer says next to a name ----------------------------------------------------------------------
# A statement about one thing: a sentence, a line, a part after a semicolon, each side of a contrast ("21 days
# instead of up to 60 today", "60 proposed vs 21 today": what is said on one side is not said of the other).
_STATEMENT = re.compile(r"(?<=[.!?。！？])\s+|\n+|;\s*|；|(?i:,?\s+(?:vs\.?|versus|compared (?:with|to)|instead of|"
                        r"as against|whereas|rather than)\s+)")


def said_beside(answer: str, names: list[str], items: list[str | list[str]], others: list[str]) -> bool:
    """Whether ``answer`` says every one of ``items`` (a text, or a list of texts any of which will do) next to
    one of ``names``: within a mention's stretch, the part of its statement (a sentence, a line, a part after a
    semicolon, one side of "vs" / "instead of" / "compared with") between the nearest mentions of ``others``
    before and after it. "Flamingo, rated 4; ViT, rated 5" rates Flamingo 4; "Flamingo rated 5 and ViT rated 4"
    does not (Flamingo's stretch ends where ViT is named),
    nor does "Hannah accepted; Daniel has not responded" say Hannah has not."""
    from mcp_persona.scoring.normalize import appears_in, normalize, quantity

    def spans(text: str, name: str) -> list[tuple[int, int]]:
        needle = normalize(name)
        if not needle:
            return []
        # a name that starts with a Latin letter starts a word: "end" is not named in "friend" (Chinese has no
        # word boundaries: 中位数 is named in 互动中位数)
        lead = r"(?<![A-Za-z])" if needle[0].isascii() and needle[0].isalpha() else ""
        found = [(m.start(), m.end()) for m in re.finditer(lead + re.escape(needle), text)]
        if not found and quantity(needle) is not None:  # a number written another way: rounded, with a sign
            found = [(m.start(), m.end()) for m in re.finditer(r"[^\s(),;:]*\d[^\s(),;:]*", text)
                     if appears_in(needle, m.group())]
        return found

    for statement in _STATEMENT.split(answer):
        text = normalize(statement)
        own = [s for n in names for s in spans(text, n)]
        if not own:
            continue
        bounds = [b for o in others for b in spans(text, o)
                  if not any(b[0] < e and s < b[1] for s, e in own)]  # a rival's name inside its own is no rival
        for s, e in own:
            lo = max((b[1] for b in bounds if b[1] <= s), default=0)
            hi = min((b[0] for b in bounds if b[0] >= e), default=len(text))
            stretch = text[lo:hi]
            if all(any(appears_in(alt, stretch) for alt in ([i] if isinstance(i, str) else i)) for i in items):
                return True
    return False
