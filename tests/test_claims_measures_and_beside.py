"""A claim about the asked measure, a reference named after "compared with" / "than", a figure beside what it is
about, a short word as a word, numbers in scientific notation: each read both ways (the right answer in other
words passes, the wrong one fails)."""

from __future__ import annotations

from mcp_persona.scoring.checkpoints import stated_about
from mcp_persona.scoring.claims import claims_winner
from mcp_persona.scoring.normalize import appears_as_word, appears_in

PROFIT = {"measure": ["profit"], "other_measures": ["budget", "revenue"]}


def test_a_claim_about_another_measure_is_no_claim_about_the_asked_one() -> None:
    right = "Interstellar had the bigger budget ($165M), yet Oppenheimer made more profit: $875.8M vs $536.7M"
    assert claims_winner(right, "Oppenheimer", ["Interstellar"], **PROFIT)[0]
    assert not claims_winner(right, "Oppenheimer", ["Interstellar"])[0]  # without the measure: the budget clause
    also = "Spirited Away made more profit. Spirited Away had a far smaller budget ($19M vs $50M)."
    assert claims_winner(also, "Spirited Away", ["The Boy and the Heron"], **PROFIT)[0]
    # one clause, both measures: the comparative nearest the asked one counts
    assert claims_winner("Oppenheimer had a smaller budget but made more profit", "Oppenheimer", ["Interstellar"],
                         **PROFIT)[0]
    wrong = "Oppenheimer had the bigger budget, yet Interstellar made more profit"
    assert not claims_winner(wrong, "Oppenheimer", ["Interstellar"], **PROFIT)[0]
    views = "Tokyo Walks' video has more views (3,333,691) than Kitchen Lab's. Kitchen Lab has more subscribers."
    subs = {"measure": ["subscri"], "other_measures": ["view"]}
    assert claims_winner(views, "Kitchen Lab", ["Tokyo Walks"], **subs)[0]
    assert not claims_winner("Tokyo Walks has more subscribers than Kitchen Lab.", "Kitchen Lab", ["Tokyo Walks"],
                             **subs)[0]


DAY = {"aliases": {"today": ["198435"], "2026-03-02": ["march 2", "200018.75", "then"]}, "by_lead": False}


def test_a_reference_is_put_the_other_way_and_a_lead_can_be_no_claim() -> None:
    def today_less(answer: str) -> bool:
        return claims_winner(answer, "today", ["2026-03-02"], up=False, **DAY)[0]

    assert today_less("1,250 EUR is 198,435 JPY today. That is 1,583.75 JPY less than the 200,018.75 JPY on "
                      "2026-03-02.")
    assert not today_less("1,250 EUR is 198,435 JPY today. That is 1,583.75 JPY more than the 200,018.75 JPY on "
                          "2026-03-02.")
    assert today_less("Compared with 2026-03-02 (200,018.75 JPY), the amount has decreased by 1,583.75 JPY.")
    assert not today_less("Compared with 2026-03-02 (200,018.75 JPY), the amount has increased by 1,583.75 JPY.")
    assert today_less("1,250 EUR is 198,435 JPY today, down from 200,018.75 JPY on March 2.")
    assert not today_less("1,250 EUR is 198,435 JPY today, up from 200,018.75 JPY on March 2.")
    assert today_less("That's a drop of 1,583.75 JPY since then.")
    # no comparison at all: every answer names today first, so its lead says nothing
    assert not today_less("Today: 198,435 JPY. On 2026-03-02: 200,018.75 JPY.")
    assert claims_winner("Today: 198,435 JPY. On 2026-03-02: 200,018.75 JPY.", "today", ["2026-03-02"], up=False)[0]
    # "up" is no comparative in "up to"
    assert not claims_winner("Rain up to 60% in Seoul.", "Seoul", ["Tokyo"], by_lead=False)[0]


def test_a_figure_is_read_beside_what_it_is_about() -> None:
    titles = ["The hidden cost of microservices", "Postgres 18 released", "The Model Context Protocol, one year later"]

    def score_of(answer: str, k: int, score: str) -> bool:
        return appears_in(score, stated_about(answer, [titles[k]], [t for t in titles if t != titles[k]]))

    inline = f"{titles[0]} (1249); {titles[1]} (1247); {titles[2]} (1227)"
    assert score_of(inline, 0, "1249") and score_of(inline, 1, "1247") and score_of(inline, 2, "1227")
    swapped = f"{titles[0]} (1247); {titles[1]} (1249); {titles[2]} (1227)"
    assert not score_of(swapped, 0, "1249") and not score_of(swapped, 1, "1247")
    table = "| Points | Story |\n|---|---|\n" + "\n".join(f"| {s} | {t} |" for s, t in
                                                        zip(["1,249", "1,247", "1,227"], titles, strict=True))
    assert score_of(table, 0, "1249") and score_of(table, 1, "1247") and not score_of(table, 0, "1247")
    sections = "## Seoul\n- AQI: 115\n- Max: 10 °C\n\n## Tokyo\n- AQI: 27"
    assert appears_in("115", stated_about(sections, ["Seoul"], ["Tokyo"]))
    assert not appears_in("27", stated_about(sections, ["Seoul"], ["Tokyo"]))


def test_a_short_word_is_a_word_of_its_own() -> None:
    assert appears_as_word("MIT", "fastify is MIT-licensed") and appears_as_word("MIT", "License: (MIT).")
    assert not appears_as_word("MIT", "Apache-2.0, with frequent commits")
    assert appears_in("MIT", "Apache-2.0, with frequent commits")  # the plain reading, unchanged


def test_numbers_in_scientific_notation_are_numbers() -> None:
    for said in ("2.55 × 10⁻⁸", "2.553e-8", "2.55e-08", "2.55 x 10^-8", "2.55·10⁻⁸", "2.55 * 10^(-8)",
                 "0.0000000255"):
        assert appears_in("2.55e-08", f"the gap is {said}"), said
    for off in ("3.55e-8", "2.56 × 10⁻⁸", "2.55e-7", "2.55"):
        assert not appears_in("2.55e-08", f"the gap is {off}"), off
    assert not appears_in("2.55e-08", "id 9f2e-4a1b")
