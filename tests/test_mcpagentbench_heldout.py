"""MCPAgentBench after its held-out review: the servers resolve a path as a disk does and a refused call stands
for no gold call; an advice tool's reply is about its advice, not the request's words; a set argument's order
does not count and several writes may stand for one; a split lookup's counts merge; a wrong filter shows."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp_persona.apps._library.engine import resolve_path
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.mcpagentbench.outcome import facts_only, merged
from mcp_persona.protocols.mcpagentbench.published import RecordedAgent
from mcp_persona.protocols.mcpagentbench.scoring import normalize_arguments, normalize_value
from mcp_persona.runner import run_episode

MAB = get_protocol("mcpagentbench")
TASKS = {t.id: t for t in load_tasks("mcpagentbench")}
Call = tuple[str, dict[str, Any]]


def episode(task_id: str, *turns: list[Call]) -> tuple[dict[str, Any], list[Any]]:
    task = TASKS[task_id]
    record = anyio.run(lambda: run_episode(task, RecordedAgent("scripted", {task.id: [list(t) for t in turns]}),
                                           protocol=MAB))
    assert record.status == "ok" and record.score is not None, record.error
    return record.score.detail, record.trajectory.tool_calls


def outcome(task_id: str, *turns: list[Call]) -> dict[str, Any]:
    return episode(task_id, *turns)[0]


def test_a_path_resolves_as_on_a_disk() -> None:
    same = [("./guitar_loop.wav", "guitar_loop.wav"), ("./src/auth/login.py", "src/auth/login.py"),
            ("jobs/monthly_report/", "jobs/monthly_report"), ("./jobs/monthly_report/", "jobs/monthly_report"),
            ("https://data.acme.com/", "https://data.acme.com"), ("scripts", "scripts")]
    for given, meant in same:
        assert resolve_path(given) == meant, given
    kept = ["https://data.acme.com/sales/q1_2026.csv/", "scripts/etl_job.py/", "a note/with words/",
            "p/owasp-top-ten", "mongodb://analytics.internal:27017/shop"]
    for given in kept:
        assert resolve_path(given) == given, given  # a file is no folder; words and ids are not paths


@pytest.mark.parametrize(("task_id", "turns"), [
    ("day_single_23", [[("analyze_sound", {"filepath": "./guitar_loop.wav"})]]),
    ("pro_single_03", [[("patch_file", {"path": "./src/auth/login.py", "changes_path": "./patches/fix_login.diff"})]]),
    ("pro_single_05", [[("execute_python_code", {"code_dir": "./jobs/monthly_report/"})]]),
    ("pro_single_06", [[("search_and_read_files", {"path": "./scripts"})]]),
])
def test_a_path_written_another_way_reaches_the_file(task_id: str, turns: list[list[Call]]) -> None:
    score, calls = episode(task_id, *turns)
    assert not any(c.is_error for c in calls)  # the server finds it: no not_found behind a pass
    assert score["finished"] and score["outcome_finished"] and score["outcome_efficient"]


def test_a_refused_call_stands_for_no_gold_call_whatever_its_arguments() -> None:
    score, calls = episode("pro_single_20", [("analyze_sales",
                                              {"input_data_link": "https://data.acme.com/sales/q1_2026.csv/"})])
    assert calls[0].is_error  # a file's trailing slash: not found, as on a web server
    assert normalize_value("https://data.acme.com/sales/q1_2026.csv/") == \
        normalize_value("https://data.acme.com/sales/q1_2026.csv")  # the argument rule reads them alike ...
    assert not score["finished"] and not score["outcome_finished"]  # ... but the call did nothing
    right = outcome("pro_single_20", [("analyze_sales", {"input_data_link": "https://data.acme.com/sales/q1_2026.csv"})])
    assert right["finished"] and right["outcome_finished"]


FLIGHTS = ("search_flights", {"type": "one_way", "origin": "Chicago", "destination": "Seattle",
                              "departure_date": "2026-03-18", "cabin_class": "economy"})
RULE = {"question": "How does grappling work?", "rule_category": "combat", "complexity_level": "basic", "edition": "5e"}
AUSTIN = [("search_restaurant", {"location": "Austin", "cuisineTypes": "Mexican"}),
          ("get_balance", {"account_type": "savings"})]
PAPERS = ("search_academic_papers", {"query": "quantum error correction", "subject": "physics", "max_results": 3})
PATCH = ("patch_file", {"path": "src/auth/login.py", "changes_path": "patches/fix_login.diff"})
PLAN = {"topic": "LLM evaluation survey", "scope": "literature review", "schedule": "6 weeks",
        "constraints": ["two researchers"], "dependencies": ["dataset access"]}
# (task, calls, right?) -- the same advice asked in other words passes; another topic, edition or setting fails
ADVICE: list[tuple[str, list[Call], bool]] = [
    ("day_parallel_02", [FLIGHTS, ("strategy_guide", {"situation": "Our party is outnumbered and surrounded in an "
                                                                   "ambush"})], True),
    ("day_parallel_02", [FLIGHTS, ("strategy_guide", {"situation": "Party outnumbered and surrounded in an ambush"})],
     True),
    ("day_parallel_02", [FLIGHTS, ("strategy_guide", {"situation": "A dragon is attacking the village"})], False),
    ("day_multi_17", [AUSTIN[0], ("dmagent_ask_rule", RULE | {"question": "How does grappling work in combat?"}),
                      AUSTIN[1]], True),
    ("day_multi_17", [AUSTIN[0], ("dmagent_ask_rule", RULE | {"edition": "D&D 5e"}), AUSTIN[1]], True),
    ("day_multi_17", [AUSTIN[0], ("dmagent_ask_rule", RULE | {"edition": "3.5e"}), AUSTIN[1]], False),
    ("day_multi_17", [AUSTIN[0], ("dmagent_ask_rule", RULE | {"complexity_level": "advanced"}), AUSTIN[1]], False),
    ("day_multi_17", [AUSTIN[0], ("dmagent_ask_rule", RULE | {"question": "How does concentration work?"}),
                      AUSTIN[1]], False),
    ("pro_parallel_11", [("security_guidance", {"query": "How to store user passwords and prevent SQL injection?"}),
                         PAPERS], True),
    ("pro_parallel_11", [("security_guidance", {"query": "How do I speed up my React frontend?"}), PAPERS], False),
    ("pro_parallel_03", [PATCH, ("orchestrator_plan_task", PLAN | {"schedule": "six weeks",
                                                                   "constraints": ["2 researchers"]})], True),
    ("pro_parallel_03", [PATCH, ("orchestrator_plan_task", PLAN | {"schedule": "8 weeks"})], False),
    ("pro_parallel_03", [PATCH, ("orchestrator_plan_task", PLAN | {"constraints": ["three researchers"]})], False),
]


@pytest.mark.parametrize(("task_id", "calls", "right"), ADVICE, ids=[f"{t}-{r}" for t, _, r in ADVICE])
def test_advice_asked_in_other_words_passes_and_other_advice_fails(task_id: str, calls: list[Call],
                                                                   right: bool) -> None:
    assert outcome(task_id, calls)["outcome_finished"] is right


def test_a_number_word_is_its_number_in_prose() -> None:
    assert normalize_value("six weeks") == normalize_value("6 weeks")
    assert normalize_value("two researchers") == normalize_value("2 researchers")
    assert normalize_value("eight weeks") != normalize_value("6 weeks")
    assert normalize_value("three researchers") != normalize_value("2 researchers")


SEMGREP = ("Semgrep_Code_SAST", {"path": "src/auth/login.py", "ruleset": "p/owasp-top-ten",
                                 "config_file": ".semgrep.yml", "output_format": "sarif"})
MONGO = ("mongo_mcp", {"mongoUri": "mongodb://analytics.internal:27017/shop", "collection_name": "carts"})
SHOP, STATUS = "shop.example.com", "status.example.com"


def test_a_sets_order_does_not_count_and_one_write_per_item_stands_for_one() -> None:
    assert normalize_arguments("add_site", {"domains": [STATUS, SHOP]}) == \
        normalize_arguments("add_site", {"domains": [SHOP, STATUS]})
    swapped = outcome("pro_multi_13", [SEMGREP, MONGO, ("add_site", {"domains": [STATUS, SHOP]})])
    assert swapped["finished"] and swapped["outcome_finished"] and swapped["outcome_efficient"]
    each = outcome("pro_multi_13", [SEMGREP, MONGO, ("add_site", {"domains": [STATUS]}),
                                    ("add_site", {"domains": [SHOP]})])
    assert each["outcome_finished"] and not each["outcome_efficient"]  # split: finished, not efficiently
    for wrong in ([("add_site", {"domains": [SHOP]})],
                  [("add_site", {"domains": [SHOP]}), ("add_site", {"domains": ["blog.example.com"]})],
                  [("add_site", {"domains": [SHOP]}), ("add_site", {"domains": [SHOP, STATUS]})]):
        assert not outcome("pro_multi_13", [SEMGREP, MONGO, *wrong])["outcome_finished"], wrong


def test_a_count_beside_its_list_is_no_fact_of_its_own() -> None:
    one, none = {"count": 1, "results": [{"title": "x"}]}, {"count": 0, "results": []}
    assert merged([facts_only(one), facts_only(none)]) == facts_only(one)
    assert facts_only({"count": 1, "results": [], "total": 4}) == {"count": 1, "results": [], "total": 4}


SEAFOOD = ("search_restaurant", {"location": "Boston", "cuisineTypes": "Seafood"})
BOOK = ("make_reservation", {"restaurant_name": "Oyster Quay"})


def lookup(*branches: str) -> Call:
    return ("public_library_book_lookup", {"title": "Project Hail Mary", "branches": list(branches)})


def test_a_lookup_per_branch_stands_for_one_and_other_branches_do_not() -> None:
    each = outcome("day_multi_03", [SEAFOOD, lookup("Central"), lookup("Eastside")], [BOOK])
    assert each["outcome_finished"] and not each["outcome_efficient"]
    swapped = outcome("day_multi_03", [SEAFOOD, lookup("Eastside", "Central")], [BOOK])
    assert swapped["finished"] and swapped["outcome_finished"] and swapped["outcome_efficient"]
    for wrong in ([lookup("Northgate", "Westside")], [lookup("Central")], [lookup("Central"), lookup("Northgate")]):
        assert not outcome("day_multi_03", [SEAFOOD, *wrong], [BOOK])["outcome_finished"], wrong


SQL = ("Connect_SQL_Server", {"connectionString": 4409})
NEWS = {"query": "AI", "start_date": "2026-03-01", "end_date": "2026-03-10", "max_result": 3}


@pytest.mark.parametrize(("start", "right"), [("2026-03-01", True), ("2026-03-05", False), ("2026-02-01", False)])
def test_a_news_window_that_starts_elsewhere_shows(start: str, right: bool) -> None:
    score = outcome("pro_parallel_14", [SQL, ("search_news", NEWS | {"start_date": start})])
    assert score["outcome_finished"] is right
