"""The LiveMCPTool library: the catalogue, the servers listing, and the simulated engine's behaviour."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.clock import TaskClock
from mcp_persona.livemcptool import catalogue, open_episode, server_names, servers
from mcp_persona.livemcptool.engine import simulated_app

pytestmark = pytest.mark.anyio
CLOCK = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Shanghai")
REAL = {"filesystem", "memory", "sequential-thinking", "time", "git", "calculator", "excel",
        "word-document-server", "ppt"}


def _json(result: Any) -> Any:
    return json.loads(result.content[0].text)


def test_the_catalogue_has_every_livemcptool_server_and_tool() -> None:
    cat = catalogue()
    assert len(cat) == 70
    assert sum(len(s.tools) for s in cat.values()) == 527
    assert set(server_names("real")) == REAL
    assert {"12306-mcp", "yahoo-finance", "mcp-server-chart", "airbnb"} <= set(server_names("simulated"))
    assert cat["git"].tool("git_commit").input_schema["required"] == ["repo_path", "message"]
    for s in cat.values():
        assert len(set(s.tool_names)) == len(s.tool_names), s.name
        for t in s.tools:
            assert t.input_schema["type"] == "object" and "$schema" not in t.input_schema
            assert t.description.startswith(t.name.replace("_", " ")[:1].upper()) or t.description


def test_servers_command_lists_kind_category_and_tools() -> None:
    out = CliRunner().invoke(cli, ["servers", "--library", "livemcptool", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert rows == servers()
    assert {r["kind"] for r in rows} == {"real", "simulated"}
    by = {r["name"]: r for r in rows}
    assert by["excel"]["kind"] == "real" and by["excel"]["category"] == "File Access"
    assert "get-tickets" in by["12306-mcp"]["tools"] and by["12306-mcp"]["kind"] == "simulated"


async def test_search_filters_and_lookup_consumes_its_ids() -> None:
    async with open_episode(servers=["mcp-crypto-price", "howtocook-mcp"], clock=CLOCK) as ep:
        price = _json(await ep.call("mcp-crypto-price", "get-crypto-price", {"symbol": "eth"}))
        assert price["coin"]["name"] == "Ethereum" and price["coin"]["symbol"] == "ETH"
        other = _json(await ep.call("mcp-crypto-price", "get-crypto-price", {"symbol": "SOL"}))
        assert other["coin"]["value"] != price["coin"]["value"]
        missing = await ep.call("mcp-crypto-price", "get-crypto-price", {"symbol": "NOPE"})
        assert missing.is_error and "NOPE" in missing.content[0].text
        records = [r for r in simulated_app("howtocook-mcp").load_context("default")["records"]
                   if r["date"] <= "2026-03-10"]  # the ones that exist at the task's "now"
        category = records[0]["facets"]["category"]
        expected = sorted(r["name"] for r in records if r["facets"]["category"] == category)
        found = _json(await ep.call("howtocook-mcp", "mcp_howtocook_getRecipesByCategory", {"category": category}))
        assert sorted(r["name"] for r in found["matches"]) == expected and len(expected) < len(records)
        first = found["matches"][0]
        by_id = _json(await ep.call("howtocook-mcp", "mcp_howtocook_getRecipeById", {"query": first["id"]}))
        assert by_id["recipe"]["name"] == first["name"]


async def test_the_task_clock_hides_records_dated_later() -> None:
    app = simulated_app("wikipedia")
    dates = sorted(r["date"] for r in app.load_context("default")["records"])
    early = TaskClock(now=datetime.fromisoformat(dates[0] + "T12:00"), timezone="UTC")
    late = TaskClock(now=datetime(2026, 12, 31, 12), timezone="UTC")
    tool = next(t.name for t in app.entry.tools if t.behaviour == "search")
    totals = []
    for clock in (early, late):
        async with open_episode(servers=["wikipedia"], clock=clock) as ep:
            totals.append(_json(await ep.call("wikipedia", tool, {"query": ""}))["total"])
    assert totals[0] < totals[1] == len(dates)


async def test_created_records_are_found_updated_and_deleted_and_computed_results_depend_on_input() -> None:
    async with open_episode(servers=["taskmanager", "mcp-server-chart"], clock=CLOCK) as ep:
        plan = _json(await ep.call("taskmanager", "request_planning", {
            "originalRequest": "trip to Kyoto", "tasks": [{"title": "book hotel", "description": "near station"}]}))
        request_id = plan["id"]
        got = _json(await ep.call("taskmanager", "get_next_task", {"requestId": request_id}))
        assert got["task"]["fields"]["originalRequest"] == "trip to Kyoto"
        done = _json(await ep.call("taskmanager", "approve_request_completion", {"requestId": request_id}))
        assert done["updated"] == request_id
        env = ep.sim_envs["taskmanager"]
        before = env.tree.hash()
        bad = await ep.call("taskmanager", "mark_task_done", {"requestId": request_id})
        assert bad.is_error and "taskId" in bad.content[0].text
        assert env.tree.hash() == before  # a rejected call changes nothing

        a = _json(await ep.call("mcp-server-chart", "generate_column_chart",
                                {"data": [{"category": "a", "value": 3}, {"category": "b", "value": 5}]}))
        b = _json(await ep.call("mcp-server-chart", "generate_column_chart",
                                {"data": [{"category": "a", "value": 4}]}))
        assert a["numbers"] == {"count": 2, "sum": 8.0, "min": 3.0, "max": 5.0, "mean": 4.0}
        assert a["url"] != b["url"] and a["id"] != b["id"]


async def test_bad_input_is_rejected_with_the_field_named() -> None:
    async with open_episode(servers=["12306-mcp"], clock=CLOCK) as ep:
        wrong_type = await ep.call("12306-mcp", "get-tickets", {"date": 5, "fromStation": "BJP", "toStation": "SHH"})
        assert wrong_type.is_error and "date" in wrong_type.content[0].text
        unknown = await ep.call("12306-mcp", "get-tickets", {"date": "2026-03-11", "fromStation": "Beijing",
                                                             "toStation": "Shanghai", "seat": "A"})
        assert unknown.is_error and "seat" in unknown.content[0].text
        ok = _json(await ep.call("12306-mcp", "get-tickets", {"date": "2026-03-11", "fromStation": "Beijing",
                                                              "toStation": "Shanghai"}))
        assert ok["trains"] and ok["to_city"] == "Shanghai"


@pytest.mark.parametrize("given", ["May 8, 2026", "2026-05-08T09:00:00", "2026/03/11", "11.03.2026"])
async def test_a_train_date_in_another_form_is_refused_naming_the_accepted_form(given: str) -> None:
    # the real 12306-mcp takes a date as exactly ten characters, yyyy-MM-dd: the same inputs are refused here,
    # with the form a careful model can retry with, not the schema's bare "is too long"
    async with open_episode(servers=["12306-mcp"], clock=CLOCK) as ep:
        for tool, args in (("get-tickets", {"date": given, "fromStation": "Beijing", "toStation": "Shanghai"}),
                           ("get-interline-tickets", {"date": given, "fromStation": "Beijing",
                                                      "toStation": "Shanghai"}),
                           ("get-train-route-stations", {"departDate": given, "trainNo": "G1",
                                                         "fromStationTelecode": "VNP", "toStationTelecode": "AOH"})):
            bad = await ep.call("12306-mcp", tool, args)
            text = bad.content[0].text
            assert bad.is_error, text
            assert "must be YYYY-MM-DD, e.g. 2026-05-08" in text and given in text, text
            assert "too long" not in text and "too short" not in text
        ok = _json(await ep.call("12306-mcp", "get-tickets", {"date": "2026-03-11", "fromStation": "Beijing",
                                                              "toStation": "Shanghai"}))
        assert ok["date"] == "2026-03-11"


async def test_an_unknown_server_is_refused() -> None:
    from mcp_persona.livemcptool import EpisodeError

    with pytest.raises(EpisodeError, match="no-such-server"):
        async with open_episode(servers=["no-such-server"]):
            pass
