"""LiveMCPBench's error taxonomy (its §Error Analysis), each kind from a hand-built episode record.

query: no route query described a needed tool; retrieve: one did, the retriever did not return it; tool: found,
never run right; answer (ours; the paper's "other"): every needed tool ran, the result is wrong; other: errored
or out of rounds. A failure resting on an unreadable judge verdict is ``unjudged``, in no kind.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.livemcpbench import error_taxonomy
from mcp_persona.protocols.livemcpbench.scoring import ERROR_KINDS, UNJUDGED, error_kind
from mcp_persona.retrieval import describes
from mcp_persona.run_config import RunConfig
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

PROTOCOL = get_protocol("livemcpbench")
STAY = "shopping_cheaper_stay_1"  # needs airbnb:airbnb_search
GAP = "finance_stock_gap_1"  # needs yahoo-finance:get_current_stock_price and calculator:calculate


def task(task_id: str) -> Task:
    return next(t for t in load_tasks("livemcpbench") if t.id == task_id)


def record(t: Task, events: list[ToolCallEvent], *, status: str = "ok", stop: str = "answered",
           score: dict[str, Any] | None = None) -> EpisodeRecord:
    traj = Trajectory(task_id=t.id, agent="copilot", events=events, stop_reason=stop)  # type: ignore[arg-type]
    detail = {"success": False, "rule_success": False, "judge_success": None, "acc": 0.0} | (score or {})
    return EpisodeRecord(task_id=t.id, epoch=0, category=t.spec.category, status=status,  # type: ignore[arg-type]
                         trajectory=traj, score=detail if status == "ok" else None)


def route(query: str, *named: tuple[str, str]) -> ToolCallEvent:
    result = json.dumps([{"server_name": s, "tool_name": n} for s, n in named]) if named else \
        "No tool matches that query; rephrase it."
    return ToolCallEvent(round=0, tool="route", via="route", arguments={"query": query}, result=result)


def ran(server: str, tool: str, *, error: bool = False) -> ToolCallEvent:
    return ToolCallEvent(round=1, server=server, tool=tool, via="execute", result="{}", is_error=error)


SEARCH = ("airbnb", "airbnb_search")


def test_the_kinds_are_the_papers_and_answer_apart() -> None:
    assert ERROR_KINDS == ("query", "retrieve", "tool", "answer", "other")
    assert UNJUDGED not in ERROR_KINDS


def test_a_query_error_is_a_query_that_does_not_describe_the_needed_tool() -> None:
    t = task(STAY)
    assert not describes("weather forecast in Paris", *SEARCH)
    # the retriever answered the query it got; the query asked for the wrong thing
    assert error_kind(t, record(t, [route("weather forecast in Paris", ("weather", "get_weather"))])) == "query"
    # no route at all (an agent that sees every tool and never called the needed one): never asked for it
    assert error_kind(t, record(t, [ran("weather", "get_weather")])) == "query"


def test_a_retrieve_error_is_a_good_query_the_retriever_missed() -> None:
    t = task(STAY)
    query = "search airbnb listings for a stay"
    assert describes(query, *SEARCH)
    missed = route(query, ("duckduckgo-search", "duckduckgo_web_search"))
    assert error_kind(t, record(t, [missed])) == "retrieve"
    assert error_kind(t, record(t, [route(query)])) == "retrieve"  # nothing returned for a good query
    # a bad query first, a good one later: the agent did ask for the tool
    assert error_kind(t, record(t, [route("weather forecast in Paris"), missed])) == "retrieve"


def test_with_several_needed_tools_an_undescribed_one_is_a_query_error() -> None:
    t = task(GAP)
    stock = route("current share price of AAPL", ("yahoo-finance", "get_current_stock_price"))
    assert describes("calculate the difference of two numbers", "calculator", "calculate")
    calc_missed = route("calculate the difference of two numbers", ("time", "convert_time"))
    runs = [ran("yahoo-finance", "get_current_stock_price")]
    # the calculator was never asked for: query; asked for and not returned: retrieve
    assert error_kind(t, record(t, [stock, *runs])) == "query"
    assert error_kind(t, record(t, [stock, calc_missed, *runs])) == "retrieve"


def test_a_tool_error_is_a_found_tool_never_run_right() -> None:
    t = task(STAY)
    found = route("search airbnb listings", SEARCH)
    assert error_kind(t, record(t, [found])) == "tool"  # found, never run
    assert error_kind(t, record(t, [found, ran(*SEARCH, error=True)])) == "tool"  # run wrongly
    assert error_kind(t, record(t, [ran(*SEARCH, error=True)])) == "tool"  # called directly, wrongly


def test_an_answer_error_is_every_tool_run_right_and_the_result_wrong() -> None:
    t = task(STAY)
    events = [route("search airbnb listings", SEARCH), ran(*SEARCH)]
    assert error_kind(t, record(t, events, score={"success": True})) is None
    assert error_kind(t, record(t, events)) == "answer"


def test_other_is_an_errored_episode_or_one_out_of_rounds() -> None:
    t = task(STAY)
    assert error_kind(t, record(t, [route("search airbnb listings", SEARCH), ran(*SEARCH)], stop="max_rounds")) \
        == "other"
    assert error_kind(t, record(t, [], status="error", stop="error")) == "other"


@pytest.mark.parametrize("status", ["unparseable", "error"])
def test_an_unreadable_judge_verdict_is_unjudged_never_an_error_kind(status: str) -> None:
    t = task(STAY)
    events = [route("search airbnb listings", SEARCH), ran(*SEARCH)]

    def judged(rule: str, rules_pass: bool) -> EpisodeRecord:
        return record(t, events, score={"success": False, "rule_success": rules_pass, "judge_success": False,
                                        "judge_status": status, "success_rule": rule})

    assert error_kind(t, judged("judge", True)) == UNJUDGED
    assert error_kind(t, judged("judge", False)) == UNJUDGED  # the judge alone decides: nobody said "failure"
    assert error_kind(t, judged("both", True)) == UNJUDGED  # the rules passed: only the verdict is missing
    assert error_kind(t, judged("both", False)) == "answer"  # the rules failed it, whatever the judge says
    # a readable "failure" is a failure like any other
    ok = record(t, events, score={"success": False, "rule_success": True, "judge_success": False,
                                  "judge_status": "ok", "success_rule": "judge"})
    assert error_kind(t, ok) == "answer"


def test_the_summary_counts_kinds_and_unjudged_apart() -> None:
    t = task(STAY)
    events = [route("search airbnb listings", SEARCH), ran(*SEARCH)]
    unreadable = {"success": False, "rule_success": True, "judge_success": False, "judge_status": "unparseable",
                  "success_rule": "judge"}
    records = [
        record(t, [route("weather forecast in Paris", ("weather", "get_weather"))]),
        record(t, [route("search airbnb listings for a stay")]),
        record(t, [route("search airbnb listings", SEARCH)]),
        record(t, events),
        record(t, [], status="error", stop="error"),
        record(t, events, score=unreadable),
        record(t, events, score={"success": True}),
    ]
    assert error_taxonomy(records, {t.id: t}) == {"query": 1, "retrieve": 1, "tool": 1, "answer": 1, "other": 1}
    config = RunConfig(suite="livemcpbench", agent="copilot", model=None, protocol="livemcpbench")
    summary = PROTOCOL.summarize(config, [t], records)
    assert summary["error_taxonomy"] == {"query": 1, "retrieve": 1, "tool": 1, "answer": 1, "other": 1}
    assert summary["unjudged_failures"] == 1
    assert [row["error_kind"] for row in summary["episodes"]] == \
        ["query", "retrieve", "tool", "answer", "other", UNJUDGED, None]
    lines = PROTOCOL.summary_lines(summary)
    assert "retrieve (described, the retriever did not return it) 1" in lines[0]
    assert "unjudged 1" in lines[1] and "no kind" in lines[1]
