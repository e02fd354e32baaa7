"""Context distractors (paper Table 9): unrelated encyclopedia-style paragraphs.

With ``--context-distractors N`` each task's unnecessary context gets N extra
paragraphs drawn, seeded by the task id, from a shipped pool
(``data/distractors.json``, 2,400 paragraphs of 40-100 words). The paper drew
from DBpedia entity descriptions; with no network here, the pool is built by
:func:`build_pool` from fictional entities and templates (seeded, so
``build_pool() == load_pool()`` is tested), keeping the property that matters:
fluent, factual-sounding text about things no task is about.
"""

from __future__ import annotations

import json
import random
from functools import cache
from importlib import resources

POOL_SIZE = 2400

_SYL = ["ar", "bel", "cor", "dan", "el", "fen", "gal", "har", "is", "jor", "kal", "lor", "mar", "nor", "ol",
        "pra", "quen", "ros", "sil", "tor", "ul", "val", "wen", "xan", "yor", "zel", "ath", "bri", "cas", "dor"]
_REGIONS = ["the northern highlands", "the eastern lowlands", "a coastal province", "the central plateau",
            "a mountainous district", "the southern delta", "an inland basin", "the western archipelago"]
_CENTURIES = ["twelfth", "fourteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "early twentieth"]
_MATERIALS = ["limestone", "granite", "red brick", "timber", "sandstone", "basalt", "marble"]
_GENRES = ["folk rock", "chamber jazz", "synth-pop", "baroque revival", "ambient electronic", "post-punk"]
_FIELDS = ["marine biology", "number theory", "soil chemistry", "medieval history", "acoustics", "glaciology",
           "comparative linguistics", "structural engineering"]
_TRADES = ["textile weaving", "salt production", "shipbuilding", "copper mining", "tea cultivation",
           "glassmaking", "wool trading", "printing"]

_TEMPLATES = {
    "river": [
        "The {name} is a river in {region}, about {n1} kilometres long.",
        "It rises on the slopes of Mount {name2} and flows {dir} through farmland and small villages.",
        "Its basin covers roughly {n2} square kilometres and supports {trade} along its lower course.",
        "A stone bridge built in the {century} century still carries a local road across it near {name3}.",
        "The river is known for seasonal floods that deposit fertile silt on the surrounding plains.",
        "Several species of freshwater fish found in its waters are not recorded anywhere else.",
    ],
    "town": [
        "{name} is a market town in {region} with a population of about {n3} people.",
        "It grew up in the {century} century around {trade} and a weekly cattle fair.",
        "The old quarter is built largely of {material} and is protected as a heritage area.",
        "{name} is linked to the regional capital, {name2}, by a railway opened in {year}.",
        "Its annual lantern festival draws visitors from across the province each autumn.",
        "The town hall houses a small museum on local crafts and the history of {trade}.",
    ],
    "album": [
        "{Name} is the {ordinal} studio album by the {genre} band {name2}, released in {year}.",
        "It was recorded over {n4} weeks in a converted {material} warehouse outside {name3}.",
        "Critics praised its layered arrangements, though some found the second half uneven.",
        "The single \"{Name3} Lights\" reached the top twenty of several national charts.",
        "The album was reissued on vinyl for its twentieth anniversary with four unreleased demos.",
        "Its cover shows a hand-painted map of an imaginary coastline.",
    ],
    "scientist": [
        "{Name} {Name2} was a researcher in {field} born in {name3} in {year}.",
        "After studying at the provincial academy, {pron} spent {n4} years mapping {topic}.",
        "{Pron} is best remembered for a method of measurement still taught in introductory courses.",
        "{Name2} published more than {n5} papers and supervised a generation of field researchers.",
        "A research vessel and a minor planet were later named in {poss} honour.",
        "{Poss_cap} notebooks are kept in the archive of the {name} Institute.",
    ],
    "species": [
        "The {name} warbler is a small songbird found in the forests of {region}.",
        "Adults measure about {n6} centimetres and have olive upperparts with a pale yellow throat.",
        "It feeds mainly on insects gleaned from the undersides of leaves.",
        "Breeding pairs build cup-shaped nests of moss and grass in dense undergrowth.",
        "The species was first described in {year} from specimens collected near {name2}.",
        "Its population is considered stable, although logging has reduced parts of its range.",
    ],
    "ship": [
        "The {Name} was a three-masted merchant ship launched in {year} at the yards of {name2}.",
        "Built of oak and pine, she measured {n7} metres and carried cargoes of {cargo}.",
        "She made {n4} voyages to distant ports before being converted into a training vessel.",
        "In a storm off {name3} she lost her foremast but reached harbour without loss of life.",
        "The ship was broken up in the {century} century; her figurehead survives in a maritime museum.",
        "A model of the {Name} is displayed in the harbour master's office of her home port.",
    ],
}


def _word(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(_SYL) for _ in range(parts))


def _paragraph(rng: random.Random) -> str:
    kind = rng.choice(sorted(_TEMPLATES))
    he = rng.random() < 0.5
    slots = {
        "name": _word(rng, 2).capitalize(), "name2": _word(rng, 2).capitalize(), "name3": _word(rng, 3).capitalize(),
        "region": rng.choice(_REGIONS), "century": rng.choice(_CENTURIES), "material": rng.choice(_MATERIALS),
        "trade": rng.choice(_TRADES), "genre": rng.choice(_GENRES), "field": rng.choice(_FIELDS),
        "dir": rng.choice(["north", "south", "east", "west"]), "year": str(rng.randint(1780, 2015)),
        "n1": str(rng.randint(40, 900)), "n2": f"{rng.randint(2, 90) * 100:,}", "n3": f"{rng.randint(3, 95) * 1000:,}",
        "n4": str(rng.randint(3, 30)), "n5": str(rng.randint(20, 300)), "n6": str(rng.randint(9, 16)),
        "n7": str(rng.randint(28, 70)), "ordinal": rng.choice(["second", "third", "fourth", "debut", "fifth"]),
        "cargo": rng.choice(["timber", "wool", "tea", "salt", "coal", "grain"]),
        "topic": rng.choice(["coastal currents", "river sediments", "bird migration", "alpine flora"]),
        "pron": "he" if he else "she", "poss": "his" if he else "her",
    }
    slots |= {"Name": slots["name"], "Name2": slots["name2"], "Name3": slots["name3"],
              "Pron": slots["pron"].capitalize(), "Poss_cap": slots["poss"].capitalize()}
    sentences = _TEMPLATES[kind]
    first, rest = sentences[0], sentences[1:]
    chosen = [first, *rng.sample(rest, rng.randint(2, len(rest)))]
    return " ".join(s.format(**slots) for s in chosen)


def build_pool(size: int = POOL_SIZE, seed: int = 20260310) -> list[str]:
    """Distinct paragraphs of 40-100 words, deterministic for a seed."""
    rng = random.Random(seed)
    pool: list[str] = []
    seen: set[str] = set()
    while len(pool) < size:
        text = _paragraph(rng)
        words = len(text.split())
        if 40 <= words <= 100 and text not in seen:
            seen.add(text)
            pool.append(text)
    return pool


@cache
def load_pool() -> tuple[str, ...]:
    text = (resources.files("mcp_persona") / "data" / "distractors.json").read_text(encoding="utf-8")
    return tuple(json.loads(text))


def distractors_for(task_id: str, n: int) -> list[str]:
    """``n`` paragraphs for a task: seeded by its id, so every run and every agent sees the same ones."""
    if n < 0:
        raise ValueError("the number of distractors must be >= 0")
    pool = load_pool()
    if n > len(pool):
        raise ValueError(f"at most {len(pool)} distractors are available")
    return random.Random(f"distractors/{task_id}").sample(pool, n)
