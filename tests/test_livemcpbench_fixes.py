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
from mcp_persona.scoring.grounding import derivation_problem
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
    a, b = t.spec.checkpoints[0].gt_value  # the values in the task's own order: {a} is the first entity's
    derived = t.spec.checkpoints[1].gt_value[0] if len(t.spec.checkpoints) > 1 else ""
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
