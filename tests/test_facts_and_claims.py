"""Claims, not mentions; facts at the precision they are written; a fall in words is a negative change.

A comparison's answer is checked for the claim it makes (the winner put on top), so naming both entities with
the order swapped fails; a right claim in its own words passes. A spreadsheet number kept to more decimals, or
computed by a formula, is the figure asked for. "AAPL fell 0.76%" states -0.76 %."""

from __future__ import annotations

import pytest

from mcp_persona.scoring.checkpoints import _search
from mcp_persona.scoring.claims import claims_winner
from mcp_persona.scoring.match import value_matches
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import SearchCheckpoint

WINNER, RIVALS = "Interstellar", ["Oppenheimer"]


@pytest.mark.parametrize("answer", [
    "Interstellar made $339.1M more than Oppenheimer.",
    "Oppenheimer earned less than Interstellar did.",
    "Oppenheimer trails Interstellar by $339M.",
    "The bigger earner is Interstellar.",
    "Interstellar — $1.0B vs Oppenheimer's $0.7B",
    "Between the two, Interstellar comes out ahead at $1.0B; Oppenheimer took $0.7B.",
    "**Interstellar** grossed more.\n\nOppenheimer: $0.7B",
])
def test_a_right_claim_in_its_own_words_passes(answer: str) -> None:
    ok, why = claims_winner(answer, WINNER, RIVALS)
    assert ok, why


@pytest.mark.parametrize("answer", [
    "Oppenheimer made $339.1M more than Interstellar.",  # swapped
    "Interstellar earned less than Oppenheimer.",
    "Interstellar is not bigger than Oppenheimer.",
    "The bigger earner is Oppenheimer; Interstellar made $1.0B.",
    "Oppenheimer ($0.7B) vs Interstellar ($1.0B)",  # no claim, leads with the wrong one
    "Both films did well.",  # names neither
])
def test_a_swapped_or_missing_claim_fails(answer: str) -> None:
    ok, why = claims_winner(answer, WINNER, RIVALS)
    assert not ok, why


def test_a_choice_of_the_least_is_claimed_at_the_bottom() -> None:
    rivals = ["Hong Kong", "Tokyo"]
    assert claims_winner("Seoul is the cheapest stay at $262.", "Seoul", rivals, up=False)[0]
    assert claims_winner("Tokyo costs more than Seoul, and Hong Kong is the priciest.", "Seoul", rivals,
                         up=False)[0]
    assert not claims_winner("Tokyo is the cheapest; Seoul costs $262.", "Seoul", rivals, up=False)[0]


def test_a_search_checkpoint_with_a_claim_fails_a_swapped_answer_that_names_every_value() -> None:
    cp = SearchCheckpoint(type="generic_search", summary="which film made more", gt_value=["Interstellar",
                          "339.1"], claim={"winner": WINNER, "rivals": RIVALS})
    right = _search(0, cp, "Interstellar made $339.1M more than Oppenheimer.", [], set())
    swapped = _search(0, cp, "Oppenheimer made $339.1M more than Interstellar.", [], set())
    assert right.score == 1.0 and swapped.score == 0.0 and "Oppenheimer on top" in swapped.reason
    plain = SearchCheckpoint(type="generic_search", summary="which film made more",
                             gt_value=["Interstellar", "339.1"])
    assert _search(0, plain, "Oppenheimer made $339.1M more than Interstellar.", [], set()).score == 1.0  # why


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    (1898.86, 1898.859, True),  # =B4*C4, unrounded
    (1898.86, "1898.8612", True),
    (1898.86, 1898.8, False),
    (1898.86, 1898.87, False),
    (0.25, 0.2549, True),
    (0.25, 0.26, False),
    ("261", 260.6, True),
    ("261", 259, False),
    (1898.86, "n/a", False),
])
def test_approx_takes_the_figure_at_its_written_precision(expected: object, actual: object, ok: bool) -> None:
    assert value_matches({"$approx": expected}, actual) is ok


@pytest.mark.parametrize(("value", "text", "ok"), [
    ("-0.76", "AAPL fell 0.76% today", True),
    ("-0.76", "AAPL was down 0.76%", True),
    ("-3.2", "down $3.20 on the day", True),
    ("-2", "it declined by about 2%", True),
    ("-0.76", "AAPL: -0.76%", True),
    ("-0.76", "AAPL rose 0.76% today", False),
    ("-0.76", "AAPL is up 0.76%", False),
    ("150", "the price fell to 150", True),  # a level, not a change
    ("-150", "the price fell to 150", False),
])
def test_a_fall_in_words_is_a_negative_change(value: str, text: str, ok: bool) -> None:
    assert appears_in(value, text) is ok


def test_an_other_checkpoint_with_targets_fails_on_the_wrong_chat() -> None:
    """"Mark the notices channel as read" is not met by marking another chat (social_telegram_006)."""
    from types import SimpleNamespace

    from mcp_persona.protocols import load_tasks
    from mcp_persona.scoring.checkpoints import _other

    task = next(t for t in load_tasks("persona") if t.id == "social_telegram_006")
    cp = task.spec.checkpoints[2]
    assert cp.tool == "mark_as_read" and cp.expect_calls == [{"chat_id": -1001718366236}]

    def run(*chats: int) -> float | None:
        calls = [SimpleNamespace(tool="mark_as_read", server="telegram", is_error=False, arguments={"chat_id": c})
                 for c in chats]
        return _other(2, cp, SimpleNamespace(tool_calls=calls)).score

    assert run(-1001718366236) == 1.0
    assert run(7046600107) == 0.0  # another chat
    assert run(7046600107, -1001718366236) == 1.0  # the right one among others
    assert run() == 0.0


NOTE = "# Tuesday, March 10\n\n## Tasks\n- [ ] Review the deck\n{tasks}\n## Notes\nCall with Lumen.\n{notes}"
LINE = "- [ ] Send the Q1 campaign summary draft to Song Ke"


@pytest.mark.parametrize(("tasks", "notes", "ok"), [
    (LINE, "", True),  # in the Tasks section
    ("### Today\n" + LINE, "", True),  # in a subsection of it
    ("", LINE, False),  # appended at the end of the note, under Notes
    ("", "", False),
])
def test_a_line_asked_for_in_a_section_must_be_in_that_section(tasks: str, notes: str, ok: bool) -> None:
    """obsidian_002: "add a task to today's daily note, in its Tasks section"."""
    expected = {"$section": ["Tasks", "Send the Q1 campaign summary draft to Song Ke"]}
    assert value_matches(expected, NOTE.format(tasks=tasks, notes=notes)) is ok


@pytest.mark.parametrize(("value", "text", "ok"), [
    ("March 20", "the deadline is 20 March", True),
    ("March 20", "the deadline is 2026-03-20", True),
    ("March 20", "the deadline is March 20, 2026", True),
    ("March 20", "the deadline is the 20th of March", True),
    ("March 20", "the deadline is March 21", False),
    ("March 20", "the deadline is 20 April", False),
    ("2026-03-09", "it is on March 9", True),  # the episode's own year
    ("2026-03-09", "it is on March 19", False),
])
def test_a_date_without_its_year_is_the_same_day_in_any_form(value: str, text: str, ok: bool) -> None:
    assert appears_in(value, text) is ok


def test_an_entity_is_also_known_by_its_aliases() -> None:
    """A ticker by its company, a listing by its city: "so Apple trades higher" claims AAPL."""
    aliases = {"AAPL": ["Apple"], "META": ["Meta"], "NVDA": ["Nvidia"], "TSLA": ["Tesla"]}
    assert claims_winner("AAPL is at $183.10 and META at $125.10, so Apple trades $58 higher", "AAPL", ["META"],
                         aliases=aliases)[0]
    assert not claims_winner("NVDA is at $198.95 and TSLA at $816.16, so Nvidia trades higher", "TSLA", ["NVDA"],
                             aliases=aliases)[0]
    stays = {"Seaside flat Barcelona": ["Barcelona"], "Tokyo capsule studio": ["Tokyo"]}
    assert claims_winner("Seaside flat Barcelona: $285.80. Tokyo capsule studio: $41.94. The Tokyo one is cheaper.",
                         "Tokyo capsule studio", ["Seaside flat Barcelona"], up=False, aliases=stays)[0]
    assert not claims_winner("Barcelona costs $285.80, Tokyo $41.94, so the Barcelona flat is cheaper",
                             "Tokyo capsule studio", ["Seaside flat Barcelona"], up=False, aliases=stays)[0]


@pytest.mark.parametrize(("value", "text", "ok"), [
    ("S$60", "a budget up to SGD 60", True),
    ("S$60", "a budget of $60", True),
    ("S$10", "a S$100 cap", False),
])
def test_a_singapore_dollar_amount_is_a_number_in_any_currency_form(value: str, text: str, ok: bool) -> None:
    assert appears_in(value, text) is ok
