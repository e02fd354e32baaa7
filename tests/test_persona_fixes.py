"""Persona review fixes: what an answer says next to a name (``beside``, ``$beside``), items in order (``$order``),
another tool doing the same job (``also``), 万 as a scale word, a time range's start, a number after a CJK
character, and a scale word grounding an arithmetic operand; each both ways."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp_persona.equivalents import facts_answer
from mcp_persona.mutants import PlannedCall, ReplayAgent, gold_plan
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode
from mcp_persona.scoring.claims import said_beside
from mcp_persona.scoring.grounding import numbers
from mcp_persona.scoring.match import value_matches
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import SearchCheckpoint

PERSONA = {t.id: t for t in load_tasks("persona")}


def scores(task_id: str, answer: str, plan: tuple[PlannedCall, ...] | None = None) -> list[Any]:
    task = PERSONA[task_id]
    record = anyio.run(lambda: run_episode(task, ReplayAgent(plan or gold_plan(task), answer=answer)))
    assert record.score is not None
    return [c["score"] for c in record.score.detail["checkpoints"]]


# -- beside: a value with what is said of it ------------------------------------------------------------------
@pytest.mark.parametrize(("answer", "ok"), [
    ("Flamingo, rated 4; ViT, rated 5", True),
    ("You finished Flamingo (4/5) and ViT (5/5).", True),
    ("- ViT: 5 stars\n- Flamingo: 4 stars", True),
    ("Flamingo rated 5 and ViT rated 4", False),  # swapped: Flamingo's stretch ends where ViT is named
    ("Flamingo, rated 5; ViT, rated 4", False),
])
def test_said_beside_reads_each_name_with_its_own_words(answer: str, ok: bool) -> None:
    flamingo = said_beside(answer, ["Flamingo"], [["4/5", "rated 4", "4 stars", "(4"]], ["ViT"])
    vit = said_beside(answer, ["ViT"], [["5/5", "rated 5", "5 stars", "(5"]], ["Flamingo"])
    assert (flamingo and vit) is ok


def test_said_beside_other_names_bound_a_stretch() -> None:
    pending = [["hasn't", "not responded", "pending"]]
    assert said_beside("Only Hannah Koh hasn't responded yet.", ["Hannah Koh"], pending, ["Daniel Tan"])
    assert not said_beside("Hannah Koh accepted; Daniel Tan hasn't responded.", ["Hannah Koh"], pending, ["Daniel Tan"])
    assert not said_beside("Hannah Koh accepted, but Daniel Tan hasn't responded.", ["Hannah Koh"], pending,
                           ["Daniel Tan"])


def test_said_beside_finds_a_number_written_another_way() -> None:
    due = [["2026-03-18"]]
    assert said_beside("Credit card ¥1,237 by 18 March; rent ¥7,800 by 25 March", ["1,236.80"], due, ["7800"])
    assert not said_beside("Credit card ¥1,237 by 25 March; rent ¥7,800 by 18 March", ["1,236.80"], due, ["7800"])


def test_a_rating_check_needs_each_rating_next_to_its_paper() -> None:
    right = "You finished Flamingo (rated 4) and An Image is Worth 16x16 Words (rated 5)."
    swapped = "Flamingo, rated 5; An Image is Worth 16x16 Words, rated 4"
    assert scores("content_notion_007", right) == [1.0]
    assert scores("content_notion_007", swapped) == [0.5]  # named, so retrieved; the ratings are wrong


def test_items_said_alike_of_two_names_do_not_bound_each_other() -> None:
    """'A and B (both from the kickoff)': the kickoff is said of both."""
    right = ("Open for you: 'Send poster v1 for review' and 'Confirm store count with the partner' (both from the "
             "2026-03-03 kickoff), and 'Collect the missing invoices' (2026-03-09 Q1 budget check-in).")
    wrong = ("'Collect the missing invoices' came from the kickoff; 'Send poster v1 for review' and 'Confirm store "
             "count' from the weekly sync.")
    assert scores("content_notion_005", right)[0] == 1.0
    assert scores("content_notion_005", wrong)[0] == 0.5


def test_facts_answer_keeps_what_is_said_next_to_a_value_and_swaps_it() -> None:
    task = PERSONA["content_notion_007"]
    right, swapped = facts_answer(task), facts_answer(task, swap=True)
    assert right is not None and swapped is not None and right != swapped
    cp = task.spec.checkpoints[0]
    assert isinstance(cp, SearchCheckpoint) and cp.beside
    assert scores(task.id, right) == [1.0] and scores(task.id, swapped) == [0.5]


# -- operators: $beside and $order -----------------------------------------------------------------------------
def test_beside_operator_tells_a_swap() -> None:
    kenji = {"$beside": {"of": "Kenji", "says": [["retrieval"], ["12"]], "apart": ["Elif", "FlashAttention"]}}
    assert value_matches(kenji, "Mar 12 retrieval heads – Kenji, Mar 19 FlashAttention-2 – me, Mar 26 Longformer – "
                                "Elif")
    assert not value_matches(kenji, "12th: Elif, Longformer recap; 26th: Kenji, retrieval heads")


def test_order_operator_puts_an_item_right_after_another() -> None:
    order = {"$order": ["readiness review Fri 13 Mar", "final T&Cs to Hannah", "code freeze"]}
    assert value_matches(order, "Key dates: readiness review Fri 13 Mar, final T&Cs to Hannah Fri 13 Mar, code freeze")
    assert not value_matches(order, "Key dates: readiness review Fri 13 Mar, code freeze Mon 16 Mar, final T&Cs to "
                                    "Hannah")


# -- other checkpoints: another tool doing the same job ---------------------------------------------------------
def test_listing_the_days_events_checks_free_time_as_well_as_freebusy() -> None:
    task = PERSONA["lark_x_020"]
    plan = list(gold_plan(task))
    at = next(i for i, p in enumerate(plan) if p.call.tool == "calendar_v4_freebusy_list")

    def swap(tool: str, arguments: dict[str, Any]) -> tuple[PlannedCall, ...]:
        call = plan[at].call.model_copy(update={"tool": tool, "arguments": arguments})
        return (*plan[:at], PlannedCall(plan[at].label, plan[at].round, call), *plan[at + 1:])

    listing = swap("calendar_v4_calendarEvent_list", {"path": {"calendar_id": "primary"},
                                                      "params": {"start_time": "1773849600", "end_time": "1773936000"}})
    assert scores(task.id, task.reference_answer, listing)[1] == 1.0
    unrelated = swap("im_v1_chat_list", {})
    assert scores(task.id, task.reference_answer, unrelated)[1] == 0.0


# -- numbers and times as a reader reads them -------------------------------------------------------------------
@pytest.mark.parametrize(("value", "text", "ok"), [
    ("23.5万", "235K followers", True),
    ("4.4万", "about 44,000 fans", True),
    ("4.4万", "4.4万粉丝", True),
    ("4.4万", "4.4K fans", False),
    ("23.5万", "23.5K followers", False),
    ("13:00", "Heavy rain warning 1-5pm", True),
    ("13:00", "between 1 and 5 pm", True),
    ("16:00", "reading group 4-5 pm", True),
    ("13:00", "warning 3-5pm", False),
    ("04:00", "4-5 pm", False),
    ("3 days", "请在3天内领取", True),
    ("7 days", "请在3天内领取", False),
])
def test_scale_words_time_ranges_and_cjk_numbers(value: str, text: str, ok: bool) -> None:
    assert appears_in(value, text) is ok


def test_a_number_with_a_scale_word_grounds_arithmetic() -> None:
    assert 45000.0 in numbers("45k print") and 45.0 in numbers("45k print")
    assert 12800.0 not in numbers("12.9k quote")
