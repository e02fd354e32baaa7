"""LiveMCPBench's checks read what the task asks for, both ways: a right answer in the agent's own words passes,
a wrong one (a swapped claim, a wrong count, the wrong folder, the whole table pasted under a wrong pick) fails.
Each case replays the task's gold calls, with one call's arguments or the final answer changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_persona.livemcptool.real import missing_reason
from mcp_persona.mutants import PlannedCall, ReplayAgent, gold_plan
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.livemcpbench.scoring import check_file, check_state
from mcp_persona.runner import run_episode
from mcp_persona.scoring.checkpoints import stated_about
from mcp_persona.scoring.claims import claims_winner
from mcp_persona.scoring.grounding import derivation_problem
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import Task

PROTOCOL = get_protocol("livemcpbench")
TASKS = {t.id: t for t in load_tasks("livemcpbench")}


def replay(task: Task, answer: str | None = None, **changed: dict[str, Any]) -> dict[str, Any]:
    """The gold chain's score, its ``tool`` call's arguments updated by ``changed[tool]``, and ``answer``."""
    plan = tuple(PlannedCall(p.label, p.round, p.call.model_copy(
        update={"arguments": {**p.call.arguments, **changed[p.call.tool]}})) if p.call.tool in changed else p
        for p in gold_plan(task))
    record = anyio.run(lambda: run_episode(task, ReplayAgent(plan, answer=answer), protocol=PROTOCOL))
    assert record.score is not None, record.error
    return record.score.detail


def failed(detail: dict[str, Any]) -> list[str]:
    return [f"{c['summary']}: {c['why']}" for c in detail["checks"] if not c["passed"]]


def needs(*servers: str) -> pytest.MarkDecorator:
    reasons = [r for s in servers if (r := missing_reason(s))]
    return pytest.mark.skipif(bool(reasons), reason="; ".join(reasons))


def item_values(t: Task) -> list[str]:
    """The per-item values of a task, in its own order: one check per item (bound to it by ``about``)."""
    return [cp.gt_value[0] for cp in t.spec.checkpoints if getattr(cp, "about", None) is not None]


# -- a comparison is read as a claim, by ticker, company, title or city -----------------------------------------
@pytest.mark.parametrize(("task_id", "answer", "ok"), [
    ("finance_stock_gap_1", "AAPL is at {a} and META at {b}, so Apple trades {d} higher per share.", True),
    ("finance_stock_gap_2", "TSLA is at {b} and NVDA at {a}, so Tesla trades higher by {d}.", True),
    ("finance_stock_gap_2", "NVDA is at {a} and TSLA at {b}, so Nvidia trades higher by {d}.", False),
    ("finance_stock_gap_3", "MSFT is at {a} and AMZN at {b}, so Microsoft trades {d} higher.", True),
    ("finance_stock_gap_3", "AMZN is at {b} and MSFT at {a}, so Amazon trades {d} higher.", False),
    ("finance_stock_gap_4", "GOOGL is at {a} and BABA at {b}, so Alphabet trades {d} higher.", True),
    ("finance_stock_gap_4", "BABA is at {b} and GOOGL at {a}, so Alibaba trades {d} higher.", False),
    ("finance_stock_gap_5", "KO is at {b} and JPM at {a}, so Coca-Cola trades {d} higher.", True),
    ("finance_stock_gap_5", "JPM is at {a} and KO at {b}, so JPMorgan trades {d} higher.", False),
    ("leisure_hn_points_1", "'Ask HN: remote work' has {b} points and 'Show HN: a tiny database' has {a}, so the "
                            "Ask HN thread got {d} more.", True),
    ("leisure_hn_points_1", "'Show HN: a tiny database' has {a} and 'Ask HN: remote work' has {b}, so the Show HN "
                            "post got {d} more.", False),
    ("leisure_hn_points_2", "'SQLite internals' has {b} and 'Rust 2.0 roadmap' has {a}, so the SQLite story got {d} "
                            "more points.", True),
    ("leisure_hn_points_2", "'Rust 2.0 roadmap' has {a} and 'SQLite internals' has {b}, so the Rust story got {d} "
                            "more points.", False),
    ("leisure_hn_points_3", "'Launch HN: devtools startup' {a} and 'Show HN: a tiny database' {b}, so the Launch HN "
                            "post got {d} more.", True),
    ("leisure_hn_points_3", "'Show HN: a tiny database' {b} and 'Launch HN: devtools startup' {a}, so the Show HN "
                            "post got {d} more.", False),
    ("leisure_hn_points_4", "'SQLite internals' {a} and 'Ask HN: remote work' {b}, so the SQLite story got {d} more.",
     True),
    ("leisure_hn_points_4", "'Ask HN: remote work' {b} and 'SQLite internals' {a}, so the Ask HN thread got {d} more.",
     False),
    ("shopping_cheaper_stay_1", "Seaside flat Barcelona: ${a}; Tokyo capsule studio: ${b}. The Tokyo one is cheaper.",
     True),
    ("shopping_cheaper_stay_1", "Seaside flat Barcelona costs ${a}, Tokyo capsule studio ${b}, so the Barcelona flat "
                                "is cheaper.", False),
    ("shopping_cheaper_stay_2", "Paris Montmartre apartment: ${b}/night; Loft near Central Park: ${a}/night. The "
                                "Central Park loft is cheaper.", True),
    ("shopping_cheaper_stay_2", "Paris Montmartre apartment is ${b} and Loft near Central Park ${a}, so the "
                                "Montmartre apartment is cheaper.", False),
    ("shopping_cheaper_stay_3", "Hutong courtyard Beijing: ${a}; Seaside flat Barcelona: ${b}. The Barcelona flat is "
                                "cheaper.", True),
    ("shopping_cheaper_stay_3", "Hutong courtyard Beijing is ${a} and Seaside flat Barcelona ${b}, so the Beijing "
                                "courtyard is cheaper.", False),
    ("shopping_cheaper_stay_4", "Tokyo capsule studio is ${a} a night and Loft near Central Park ${b}, so the Tokyo "
                                "studio is cheaper.", True),
    ("shopping_cheaper_stay_4", "Loft near Central Park is ${b} and Tokyo capsule studio ${a}, so the Central Park "
                                "loft is cheaper.", False),
])
def test_a_comparison_is_scored_on_its_claim_in_the_agents_words(task_id: str, answer: str, ok: bool) -> None:
    t = TASKS[task_id]
    a, b = item_values(t)  # the values in the task's own order: {a} is the first entity's
    derived = next((cp.gt_value[0] for cp in t.spec.checkpoints if getattr(cp, "derived", None)), "")
    detail = replay(t, answer.format(a=a, b=b, d=derived))
    assert bool(detail["rule_success"]) is ok, failed(detail)


# -- office_csv_filter: the row count asked for, not the items' names ----------------------------------------------
@needs("filesystem")
@pytest.mark.parametrize(("answer", "ok"), [
    ("expensive_jan.csv has 3 rows.", True),  # the count alone: the names were never asked for
    ("Done: three rows (plus the header) are in expensive_jan.csv.", True),
    ("**3** data rows were copied.", True),
    ("expensive_jan.csv has 4 rows: Monitors, Headsets, Webcams.", False),  # the names, the wrong count
    ("I copied the expensive items into expensive_jan.csv.", False),  # no count at all
])
def test_office_csv_filter_checks_the_row_count(answer: str, ok: bool) -> None:
    t = TASKS["office_csv_filter_1"]
    assert t.spec.checkpoints[0].gt_value == ["3"]
    detail = replay(t, answer)
    assert bool(detail["rule_success"]) is ok, failed(detail)


@needs("filesystem")
def test_office_csv_filter_count_comes_from_the_file_read() -> None:
    t = TASKS["office_csv_filter_1"]
    detail = replay(t, "expensive_jan.csv has 3 rows.", read_file={"path": "$WORKDIR/missing.csv"})
    assert not detail["rule_success"]
    answer = next(c for c in detail["checks"] if c["kind"] == "answer")
    assert not answer["passed"] and answer["ungrounded"] == ["3"]


def test_a_count_written_as_a_word_derives_as_its_number() -> None:
    assert derivation_problem("three", "199/199+183/183+197/197") is None
    assert derivation_problem("four", "199/199+183/183+197/197") is not None
    assert derivation_problem("many", "1+1") is not None


def test_no_csv_filter_file_name_holds_a_digit() -> None:
    # an answer quoting the file ("expensive_3.csv has 4 rows") must not be read as stating the count
    for i in range(1, 6):
        t = TASKS[f"office_csv_filter_{i}"]
        assert not any(ch.isdigit() for ch in t.spec.file_checks[0].path + t.spec.input_files[0])


# -- office_docx_report: the region with its own figure, and the document's pick is the highest ------------------
def _docx(path: Path, paragraphs: list[str]) -> None:
    from docx import Document

    doc = Document()
    for p in paragraphs:
        doc.add_paragraph(p)
    doc.save(str(path))


REGIONS_1 = ["North: 241.6", "South: 398.1", "East: 150.2"]


@pytest.mark.parametrize(("paragraphs", "ok"), [
    (["Q1 regional summary", "South had the highest Q1 figure: 398.1."], True),
    (["Q1 regional summary", "The region with the highest Q1 figure is South, at 398.1."], True),
    (["Q1 regional summary", "Top region in Q1: **South** (398.1), well ahead of North."], True),
    (["Q1 regional summary", "South led Q1 with 398.1.", *REGIONS_1], True),  # a right pick with the table too
    (["Q1 regional summary", "East had the highest Q1 figure.", *REGIONS_1], False),  # wrong pick, table pasted
    (["Q1 regional summary", "The highest Q1 figure was 398.1.", "South is one of our regions."], False),  # apart
    (["Q1 regional summary", "North had the highest Q1 figure: 398.1."], False),  # the figure given to another
])
def test_office_docx_report_binds_the_figure_to_the_leading_region(tmp_path: Path, paragraphs: list[str],
                                                                  ok: bool) -> None:
    check = TASKS["office_docx_report_1"].spec.file_checks[0]
    assert check.claim is not None and check.claim.winner == "South"
    _docx(tmp_path / check.path, paragraphs)
    passed, why = check_file(check, tmp_path)
    assert passed is ok, why


@needs("excel", "word-document-server")
@pytest.mark.parametrize(("answer", "ok"), [
    ("Wrote summary_1.docx: South had the top Q1 figure, 398.1.", True),
    ("East leads; South had 398.1.", False),  # the reviewer's swapped pick
    ("summary_1.docx is written.", False),  # neither the region nor the figure stated
])
def test_office_docx_report_answer_states_the_pick(answer: str, ok: bool) -> None:
    detail = replay(TASKS["office_docx_report_1"], answer)
    assert bool(detail["rule_success"]) is ok, failed(detail)


# -- lifestyle_dinner_note: the folder asked for, and the dish however hyphenated ---------------------------------
def _note(**fields: str) -> dict[str, list[dict[str, Any]]]:
    return {"basic-memory": [{"created_by": "write_note", "fields": fields}]}


@pytest.mark.parametrize(("folder", "content", "ok"), [
    ("meals", "Steamed Fish and Tomato Egg Stir-fry: 1364.29 calories in total.", True),
    ("Meals/", "- Steamed Fish\n- Tomato Egg Stir Fry\nTotal: 1,364.29 kcal", True),  # its own spelling
    ("notes", "Steamed Fish and Tomato Egg Stir-fry: 1364.29 calories in total.", False),  # the wrong folder
    ("notes", "Meals: Steamed Fish and Tomato Egg Stir-fry, 1364.29 calories.", False),  # "meals" only in the text
    ("meals", "Steamed Fish and Tomato Egg Stir-fry: 1346.29 calories in total.", False),  # a value off
])
def test_lifestyle_dinner_note_checks_the_folder(folder: str, content: str, ok: bool) -> None:
    check = TASKS["lifestyle_dinner_note_2"].spec.state_checks[0]
    passed, why = check_state(check, _note(title="Dinner plan 2", folder=folder, content=content))
    assert passed is ok, why


def test_lifestyle_dinner_note_in_another_folder_fails_end_to_end() -> None:
    t = TASKS["lifestyle_dinner_note_1"]
    assert replay(t)["rule_success"]
    detail = replay(t, write_note={"folder": "notes"})
    assert not detail["rule_success"] and any("folder" in f for f in failed(detail)), failed(detail)


def test_lifestyle_dinner_note_reads_an_ampersand_as_and() -> None:
    check = TASKS["lifestyle_dinner_note_5"].spec.state_checks[0]
    right = "- Dumplings — 855.08 kcal\n- Hot & Sour Soup — 148.37 kcal\nTotal: 1003.45 kcal"
    passed, why = check_state(check, _note(title="Dinner plan 5", folder="meals", content=right))
    assert passed, why
    wrong = right.replace("Hot & Sour", "Hot & Spicy")  # another dish
    assert not check_state(check, _note(title="Dinner plan 5", folder="meals", content=wrong))[0]


# -- each item's value is stated beside that item: values swapped between items fail -------------------------------
@pytest.mark.parametrize(("task_id", "answer", "ok"), [
    ("finance_crypto_basket_3", "BNB is about $454.83 and XRP about $966.21, so 3 BNB + 7 XRP ≈ $8,128", True),
    ("finance_crypto_basket_3", "BNB 966.21, XRP 454.83; total 8127.96", False),
    ("finance_stock_gap_4", "Alphabet (GOOGL) is at $894.45 and Alibaba (BABA) at $205.79, so Alphabet trades about "
                            "$688.66 higher", True),
    ("finance_stock_gap_4", "GOOGL is at $205.79 and BABA at $894.45, so GOOGL trades $688.66 higher", False),
    ("finance_kospi_cap_1", "Samsung: 551.44; SK hynix: 419.55; combined 970.99", True),
    ("finance_kospi_cap_1", "005930 is 419.55 and 000660 is 551.44, so 970.99 combined", False),
    ("leisure_wuwa_pair_5", "Changli's tier rating (632.89) is 252.41 above Calcharo's (380.48)", True),
    ("leisure_wuwa_pair_5", "Changli 380.48, Calcharo 632.89; Changli is higher by 252.41", False),
    ("leisure_ygo_card_5", "Black Dragon — card ID: ygocdb-005; market price: $40.07", True),
    ("leisure_ygo_card_5", "**Black Dragon**\n- Card ID: ygocdb-005\n- Market price: about $40", True),
    ("leisure_ygo_card_5", "'Black Dragon' is card ygocdb-001 at 40.07 (the search also returned ygocdb-005, White "
                           "Dragon, at 464.62)", False),
    ("lifestyle_recipe_calories_1", "| Dish | kcal |\n|---|---|\n| Kung Pao Chicken | 465.75 |\n| Mapo Tofu | 427.9 "
                                    "|\n| Total | 893.65 |", True),
    ("lifestyle_recipe_calories_1", "Kung Pao Chicken 427.9 kcal, Mapo Tofu 465.75 kcal; total 893.65 kcal", False),
    ("lifestyle_recipe_calories_2", "Tomato egg stir fry comes to 854.06 calories and braised pork belly to 701.22, "
                                    "so 1,555.28 kcal altogether", True),
    ("lifestyle_recipe_calories_2", "Tomato Egg Stir-fry 701.22, Braised Pork Belly 854.06; total 1555.28", False),
    ("lifestyle_weather_pair_2", "Paris (329.56) trails London (865.65) by 536.09", True),
    ("lifestyle_weather_pair_2", "London 329.56, Paris 865.65; London is higher by 536.09", False),
    ("office_docx_read_1", "69k USD approved, i.e. 23k USD/month", True),
    ("office_docx_read_1", "Approved: 23000 USD for the quarter; per month: 69000 USD", False),
    ("shopping_asset_basket_2", "about $1,860 in total (silver $230.50 each, crude oil $938.24)", True),
    ("shopping_asset_basket_2", "Silver 938.24, Crude oil 230.5; total 1860.24", False),
    ("travel_airbnb_stay_2", "$758/night, so 2 nights come to $1,516", True),
    ("travel_airbnb_stay_2", "Two nights cost 758 in total; the nightly price is 1516", False),
    ("travel_train_fare_5", "G13 (¥990.02) costs ¥146.66 more than D301 (¥843.36)", True),
    ("travel_train_fare_5", "D301 990.02, G13 843.36: D301 is cheaper by 146.66", False),
])
def test_each_items_value_is_bound_to_its_item(task_id: str, answer: str, ok: bool) -> None:
    t = TASKS[task_id]
    detail = replay(t, answer)
    assert bool(detail["rule_success"]) is ok, failed(detail)


def test_shopping_cheaper_stay_binds_each_price_to_its_listing() -> None:
    t = TASKS["shopping_cheaper_stay_1"]
    a, b = item_values(t)
    claim = " The Barcelona one is cheaper." if float(a) < float(b) else " The Tokyo one is cheaper."
    assert replay(t, f"Seaside flat Barcelona: ${a}; Tokyo capsule studio: ${b}." + claim)["rule_success"]
    assert not replay(t, f"Seaside flat Barcelona: ${b}; Tokyo capsule studio: ${a}." + claim)["rule_success"]


# -- leisure_hn_points: a story by its words, hyphenated or not; both titles asked for; no reading by the lead ----
@pytest.mark.parametrize(("task_id", "answer", "ok"), [
    ("leisure_hn_points_1", "'Show HN: a tiny database' has 679 points and 'Ask HN: remote work' has 709.25 points, "
                            "so the remote-work story got 30.25 more", True),
    ("leisure_hn_points_1", "The remote work story got more points (709.25 vs 679 for the tiny database one), a gap of "
                            "30.25", False),  # no title given
    ("leisure_hn_points_1", "'Ask HN: remote work' has 679 points and 'Show HN: a tiny database' has 709.25, so Ask HN:"
                            " remote work got 30.25 more", False),  # points swapped
    ("leisure_hn_points_1", "'Ask HN: remote work' 709.25, 'Show HN: a tiny database' 679; gap 30.25",
     False),  # which got more is never said: the story named first is no pick
    ("leisure_hn_points_3", "'Show HN: a tiny database' scored 679 points and 'Launch HN: devtools startup' scored "
                            "872.43; the devtools post leads by 193.43 points", True),
    ("leisure_hn_points_3", "The devtools startup story got more points: 872.43 vs 679, a gap of 193.43", False),
    ("leisure_hn_points_3", "'Launch HN: devtools startup' 679, 'Show HN: a tiny database' 872.43; the Launch HN post "
                            "leads by 193.43", False),
])
def test_leisure_hn_points_reads_stories_by_their_words(task_id: str, answer: str, ok: bool) -> None:
    detail = replay(TASKS[task_id], answer)
    assert bool(detail["rule_success"]) is ok, failed(detail)


def test_names_match_their_hyphen_and_ampersand_variants() -> None:
    assert claims_winner("The remote-work story got more.", "remote work", ["tiny database"])[0]
    assert not claims_winner("The remote-work story got less.", "remote work", ["tiny database"])[0]
    assert "709" in stated_about("remote-work: 709; tiny database: 679", ["remote work"], ["tiny database"])
    assert "709" not in stated_about("remote-work: 679; tiny database: 709", ["remote work"], ["tiny database"])
    assert appears_in("Hot and Sour Soup", "Hot & Sour Soup — 148.37 kcal")
    assert not appears_in("Hot and Sour Soup", "Hot & Spicy Soup")
    assert appears_in("AT&T", "AT&T shares") and not appears_in("AT and T", "AT&T shares")  # a word's & kept
