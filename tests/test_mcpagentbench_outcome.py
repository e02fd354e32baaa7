"""MCPAgentBench's outcome rule beside the argument rule: scripted agents on the bundled suite's own tasks, the
scores hand-computed (a task of one gold call weighs 1)."""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import pytest

from mcp_persona.agents.noop import NoopAgent
from mcp_persona.agents.reference import ReferenceAgent
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.mcpagentbench import episode_row, outcome
from mcp_persona.protocols.mcpagentbench.published import RecordedAgent
from mcp_persona.protocols.mcpagentbench.scoring import normalize_value, run_metrics, trial_metrics
from mcp_persona.runner import run_episode
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import GoldCall, GoldStep, Task

MAB = get_protocol("mcpagentbench")
TASKS = {t.id: t for t in load_tasks("mcpagentbench")}
RENTALS = "day_single_04"  # "show me apartment rentals in Austin": search_rental_properties(Austin, apartment)
EXPORT = "day_single_13"  # "export the OpenStreetMap data for Seattle as geojson to maps/seattle.geojson"
BARBECUE = "day_serial_04"  # search_restaurant(Austin, Barbecue), then the details of the first by name


def play(task_id: str | Task, *turns: list[tuple[str, dict[str, Any]]]) -> EpisodeRecord:
    """One episode of an agent that sends ``turns`` (a list of calls each) and stops."""
    task = TASKS[task_id] if isinstance(task_id, str) else task_id
    agent = RecordedAgent("scripted", {task.id: [list(t) for t in turns]})
    record = anyio.run(lambda: run_episode(task, agent, protocol=MAB))
    assert record.status == "ok", record.error
    return record


def metrics(*records: EpisodeRecord) -> dict[str, Any]:
    return run_metrics([episode_row(r, TASKS[r.task_id]) for r in records])


def test_a_place_in_other_words_fails_the_argument_rule_and_does_the_job_by_outcome() -> None:
    record = play(RENTALS, [("search_rental_properties", {"location": "City of Austin", "property_type": "apartment"})])
    assert '"property_id":"RP-3310"' in record.trajectory.tool_calls[0].result  # Austin's apartment all the same
    score = record.score.detail
    assert score is not None
    assert not score["finished"] and not score["paper_finished"]
    assert score["outcome_finished"] and score["outcome_efficient"]
    assert score["outcome_via"] == {"0.0": "reply"} and score["outcome_replay_diverged"] == []
    m = metrics(record)
    assert (m["tfs"], m["tefs"], m["tfs_paper"], m["tfs_outcome"], m["tefs_outcome"]) == (0.0, 0.0, 0.0, 1.0, 1.0)


def test_other_arguments_with_another_reply_fail_both_rules() -> None:
    record = play(RENTALS, [("search_rental_properties", {"location": "Dallas", "property_type": "apartment"})])
    assert record.trajectory.tool_calls[0].result == '{"count":0,"results":[]}'
    score = record.score.detail
    assert score is not None
    assert not score["finished"] and not score["outcome_finished"]
    assert score["outcome_missing"] == ['search_rental_properties {"location": "austin", "property_type": "apartment"}']
    assert score["outcome_extra"] == ['search_rental_properties {"location": "dallas", "property_type": "apartment"}']
    m = metrics(record)
    assert (m["tfs"], m["tfs_outcome"], m["tefs_outcome"]) == (0.0, 0.0, 0.0)


def test_a_write_to_another_place_fails_both_rules_and_one_with_the_same_effect_passes() -> None:
    gold = {"city": "Seattle", "output_path": "maps/seattle.geojson", "format": "geojson"}
    wrong = play(EXPORT, [("download_osm_data", gold | {"output_path": "exports/seattle.geojson"})])
    assert '"status":"written"' in wrong.trajectory.tool_calls[0].result  # the write succeeded, elsewhere
    assert wrong.score is not None and not wrong.score.detail["finished"] and not wrong.score.detail["outcome_finished"]
    right = play(EXPORT, [("download_osm_data", gold)])
    assert right.score is not None and right.score.detail["finished"] and right.score.detail["outcome_finished"]
    m = metrics(wrong, right)
    assert (m["tfs"], m["tfs_outcome"]) == (0.5, 0.5)


def test_a_chain_takes_the_name_from_the_agents_own_reply_and_keeps_its_turns() -> None:
    search = ("search_restaurant", {"location": "City of Austin", "cuisineTypes": "Barbecue"})
    details = ("get_restaurant_details", {"restaurant_name": "Smoke & Brisket"})  # the first result's name
    two_turns = play(BARBECUE, [search], [details])
    assert two_turns.score is not None
    assert not two_turns.score.detail["finished"]
    assert two_turns.score.detail["outcome_finished"] and two_turns.score.detail["outcome_efficient"]
    assert two_turns.score.detail["outcome_via"] == {"0.0": "reply", "1.0": "arguments"}
    one_turn = play(BARBECUE, [search, details])  # the second call cannot have waited for the first's reply
    assert one_turn.score is not None
    assert one_turn.score.detail["outcome_finished"] and not one_turn.score.detail["outcome_efficient"]
    m = metrics(two_turns, one_turn)  # each weighs 2
    assert (m["tfs"], m["tfs_outcome"], m["tefs_outcome"]) == (0.0, 1.0, 0.5)


def test_run_metrics_weigh_the_outcome_rule_by_gold_calls_and_intervals_cover_it() -> None:
    rows = [{"weight": 1, "finished": False, "efficient": False, "paper_finished": False,
             "outcome_finished": True, "outcome_efficient": True},
            {"weight": 3, "finished": False, "efficient": False, "paper_finished": False,
             "outcome_finished": False, "outcome_efficient": False},
            {"weight": 2, "finished": True, "efficient": False, "paper_finished": True,
             "outcome_finished": True, "outcome_efficient": False}]
    m = run_metrics([r | {"output_tokens": 0, "elapsed_s": 0.0} for r in rows])
    assert m["tfs"] == pytest.approx(2 / 6) and m["tfs_outcome"] == pytest.approx(3 / 6)
    assert m["tefs_outcome"] == pytest.approx(1 / 6)
    assert MAB.headline_values(rows[0])["tfs_outcome"] == (1.0, 1.0)
    block = MAB.uncertainty([r | {"task_id": str(i), "epoch": 0} for i, r in enumerate(rows)])
    low, high = block["intervals"]["tfs_outcome"]
    assert 0.0 <= low <= 3 / 6 <= high <= 1.0


def _suite(agent: Any) -> list[EpisodeRecord]:
    async def main() -> list[EpisodeRecord]:
        return [await run_episode(task, agent, protocol=MAB) for task in TASKS.values()]

    records = anyio.run(main)
    assert all(r.status == "ok" and r.score is not None for r in records)
    return records


@pytest.mark.slow
def test_every_gold_call_of_the_suite_does_its_own_job_by_outcome_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference agent finishes every task by the outcome rule even when no two calls may match by their
    arguments: each gold call, replayed on the state it saw, gives its own reply (a read) or state change."""
    count = itertools.count()
    monkeypatch.setattr(outcome, "call_key", lambda tool, args: (tool, str(next(count))))
    scores = [r.score.detail if r.score else {} for r in _suite(ReferenceAgent())]
    assert all(s["outcome_finished"] and s["outcome_efficient"] and not s["outcome_replay_diverged"] for s in scores)
    via = [v for s in scores for v in s["outcome_via"].values()]
    assert len(via) == sum(len(t.gold_calls) for t in TASKS.values())
    assert set(via) == {"reply", "state change"} and via.count("state change") >= 40


@pytest.mark.slow
def test_reference_and_noop_on_the_suite_by_both_rules() -> None:
    for agent, full in ((ReferenceAgent(), 1.0), (NoopAgent(), 0.0)):
        m = metrics(*_suite(agent))
        assert (m["tfs"], m["tefs"], m["tfs_outcome"], m["tefs_outcome"]) == (full,) * 4, agent.name


def test_avg_at_k_by_the_outcome_rule_too() -> None:
    def row(epoch: int, weight: int, finished: bool, outcome: bool) -> dict[str, object]:
        return {"epoch": epoch, "weight": weight, "finished": finished, "efficient": finished,
                "paper_finished": finished, "outcome_finished": outcome, "outcome_efficient": outcome,
                "output_tokens": 0, "elapsed_s": 0.0}

    # trial 0: the 1-call task finished by arguments, the 3-call one by outcome only; trial 1: neither rule on it
    rows = [row(0, 1, True, True), row(0, 3, False, True), row(1, 1, True, True), row(1, 3, False, False)]
    m = trial_metrics(rows)
    assert m["tfs_avg@2"] == pytest.approx((1 / 4 + 1 / 4) / 2)
    assert m["tfs_outcome_avg@2"] == pytest.approx((4 / 4 + 1 / 4) / 2)
    assert m["tefs_outcome_avg@2"] == m["tfs_outcome_avg@2"]


# -- the same facts: an echoed argument in the agent's words, one call for several, several for one --------------
ZONES = "day_parallel_13"  # download_osm_data(Seattle, ...) and get_time(["Asia/Tokyo", "Europe/London"])
OSM = ("download_osm_data", {"city": "Seattle", "output_path": "maps/seattle.geojson", "format": "geojson"})
WOLFRAM = "pro_parallel_07"  # figma_export_code(...) and wolfram_query(..., location="Boston"), which echoes it
FIGMA = ("figma_export_code", {"fileKey": "Fk29XaLm", "nodeId": "12:7"})


def time_in(*zones: str) -> tuple[str, dict[str, Any]]:
    return "get_time", {"timezone": list(zones)}


def one_call_per_zone() -> Task:
    """day_parallel_13 with a gold call per zone: the shape of a task where the tool takes one zone at a time."""
    task = TASKS[ZONES]
    calls = [GoldCall(server="mab_travel", tool=OSM[0], arguments=OSM[1]),
             *(GoldCall(server="mab_home", tool="get_time", arguments={"timezone": [z]})
               for z in ("Asia/Tokyo", "Europe/London"))]
    return task.model_copy(update={"id": "zones_one_by_one", "gold": [GoldStep(calls=calls)],
                                   "spec": task.spec.model_copy(update={"type": "multi"})})


def test_a_reply_that_echoes_the_agents_own_words_for_the_same_place_does_the_job() -> None:
    def score(location: str) -> dict[str, Any]:
        record = play(WOLFRAM, [FIGMA, ("wolfram_query", {"query": "distance earth moon", "format": "plaintext",
                                                           "location": location})])
        assert f'"assumptions":{{"location":"{location}"}}' in record.trajectory.tool_calls[1].result
        assert record.score is not None
        return record.score.detail

    right = score("City of Boston")  # Boston, in other words: the same answer, the place echoed as the agent wrote it
    assert not right["finished"] and right["outcome_finished"] and right["outcome_efficient"]
    assert right["outcome_via"] == {"0.0": "arguments", "0.1": outcome.ECHOED}
    wrong = score("Denver")  # the same answer but for another place: the echo is a fact, and a wrong one
    assert not wrong["finished"] and not wrong["outcome_finished"]
    assert wrong["outcome_missing"] == [
        'wolfram_query {"format": "plaintext", "location": "boston", "query": "distance earth moon"}']
    assert right["paper_finished"] and wrong["paper_finished"]  # the paper's rule: wolfram_query by name only


def test_one_call_with_both_zones_does_the_job_of_one_call_per_zone() -> None:
    task = one_call_per_zone()
    both = play(task, [OSM, time_in("Europe/London", "Asia/Tokyo")])  # any order: every fact once
    assert both.score is not None
    s = both.score.detail
    assert not s["finished"] and not s["paper_finished"]
    assert s["outcome_finished"] and s["outcome_efficient"] and s["outcome_extra"] == []
    assert s["outcome_via"] == {"0.0": "arguments", "0.1": outcome.COVERED, "0.2": outcome.COVERED}
    for zones in (("Asia/Seoul", "Europe/London"), ("Asia/Tokyo",)):  # Seoul: Tokyo's offset, another zone
        wrong = play(task, [OSM, time_in(*zones)])
        assert wrong.score is not None and not wrong.score.detail["outcome_finished"], zones
        assert wrong.score.detail["outcome_missing"], zones
    more = play(task, [OSM, time_in("Asia/Tokyo", "Europe/London", "America/New_York")])  # a zone not asked for
    assert more.score is not None and not more.score.detail["outcome_finished"]
    assert more.score.detail["outcome_missing"] == []
    assert more.score.detail["outcome_extra"] == [
        'get_time {"timezone": ["Asia/Tokyo", "Europe/London", "America/New_York"]} (returns more than the gold '
        "calls it stands for)"]
    m = run_metrics([episode_row(r, task) for r in (both, more)])  # each weighs 3
    assert (m["tfs"], m["tfs_paper"], m["tfs_outcome"], m["tefs_outcome"]) == (0.0, 0.0, 0.5, 0.5)


def test_one_call_per_zone_does_the_job_of_one_call_with_both_but_not_efficiently() -> None:
    split = play(ZONES, [OSM, time_in("Asia/Tokyo"), time_in("Europe/London")])
    assert split.score is not None
    s = split.score.detail
    assert not s["finished"] and not s["paper_finished"]
    assert s["outcome_finished"] and not s["outcome_efficient"]  # two calls where one does: finished, not efficient
    assert s["outcome_via"] == {"0.0": "arguments", "0.1": outcome.SPLIT}
    for zones in (("Asia/Tokyo", "Asia/Seoul"), ("Asia/Tokyo", "Asia/Tokyo")):
        wrong = play(ZONES, [OSM, *(time_in(z) for z in zones)])
        assert wrong.score is not None and not wrong.score.detail["outcome_finished"], zones
    once_more = play(ZONES, [OSM, time_in("Asia/Tokyo"), time_in("Europe/London"), time_in("Asia/Tokyo")])
    assert once_more.score is not None and not once_more.score.detail["outcome_finished"]
    assert once_more.score.detail["outcome_extra"] == ['get_time {"timezone": ["Asia/Tokyo"]}']


def test_facts_compare_echoes_by_name_and_merged_lists_as_multisets() -> None:
    def reply(**fields: Any) -> Any:
        return normalize_value(fields)

    facts = outcome.Facts(outcome.echoes_of({"city": "City of Seattle"}), outcome.echoes_of({"city": "Seattle"}))
    assert facts.same(reply(city="City of Seattle", t=12), reply(city="Seattle", t=12))
    assert not facts.same(reply(city="City of Seattle", t=12), reply(city="Seattle", t=13))  # the data differ
    assert not facts.same(reply(where="City of Seattle"), reply(where="Portland"))  # not the call's own argument
    other = outcome.Facts(outcome.echoes_of({"city": "Portland"}), outcome.echoes_of({"city": "Seattle"}))
    assert not other.same(reply(city="Portland", t=12), reply(city="Seattle", t=12))
    none = outcome.Facts({}, {})
    joined = outcome.merged([{"src": "iex", "r": [1]}, {"src": "iex", "r": [2]}])
    assert joined == {"src": "iex", "r": [1, 2]}
    assert none.same({"src": "iex", "r": [2, 1]}, joined, ordered=False)
    assert not none.same({"src": "iex", "r": [2, 1]}, joined)  # in order, unless merged
    assert not none.same({"src": "iex", "r": [2, 1, 3]}, joined, ordered=False)
    assert none.same({"src": "iex", "r": [2, 1, 3]}, joined, ordered=False, within=True)
    assert not none.same({"src": "iex", "r": [2, 2]}, joined, ordered=False)  # each fact once
    assert outcome.merged([{"src": "iex"}, {"src": "sip"}]) is outcome.merged([{"a": 1}, {"b": 1}])  # unmergeable
