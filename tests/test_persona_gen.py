"""Persona-Gen: tool graph, chain sampling, prototyping, enrichment, fuzzification, review and import.

No real model is called: a scripted ChatClient answers every prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.persona_gen.enrich import EnrichError, enrich
from mcp_persona.persona_gen.entities import catalog
from mcp_persona.persona_gen.fuzzify import fuzzify
from mcp_persona.persona_gen.graph import ToolGraph, build_graph, load_graph
from mcp_persona.persona_gen.pipeline import generate, make_candidate
from mcp_persona.persona_gen.prototype import Prototype, PrototypeError, parse_prototype, prototype
from mcp_persona.persona_gen.review import import_review, read_review, write_review
from mcp_persona.persona_gen.sample import Chain, feeds_for, is_coherent, llm_realism, sample_chains
from mcp_persona.protocols import load_tasks
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.protocols.persona.validate import check_task
from mcp_persona.tasks import SearchCheckpoint

SERVERS = ["lark", "obsidian"]


class ScriptedClient:
    """A ChatClient test double: replies in order from a list, or from a function of the messages."""

    name = "scripted"

    def __init__(self, replies: list[str] | Callable[[list[dict[str, Any]]], str]) -> None:
        self.replies = replies
        self.calls: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        self.calls.append([dict(m) for m in messages])
        if callable(self.replies):
            return ChatResponse(content=self.replies(messages))
        return ChatResponse(content=self.replies[len(self.calls) - 1])


def template_for(messages: list[dict[str, Any]]) -> str:
    """What a dutiful model would answer to a prototyping prompt: placeholders for what the chain touches."""
    tools = re.findall(r"^\d+\. \[\w+\] (\S+)", messages[1]["content"], re.MULTILINE)
    chain = " ".join(tools)
    ph: dict[str, str] = {}
    texts: dict[str, str] = {}
    asks: list[str] = []
    if "batchGetId" in chain:
        ph |= {"contact_name": "person", "phone": "phone"}
        asks.append("look up {contact_name} (phone {phone})")
    if re.search(r"im_v1_(chat_list|chat_get|chatMembers|message_list)", chain):
        ph["chat_name"] = "chat"
        asks.append("check the {chat_name} chat")
    if "im_v1_chat_create" in chain:
        ph["group_name"] = "text"
        texts["group_name"] = "Poster Printing"
        asks.append("start a group called {group_name}")
    if "message_create" in chain:
        ph["message_text"] = "text"
        texts["message_text"] = "the poster files are in the shared folder"
        asks.append("tell them that {message_text}")
    if "calendarEvent_create" in chain:
        ph |= {"event_title": "text", "date": "date", "time": "time"}
        texts["event_title"] = "Poster print review"
        asks.append("put {event_title} on my calendar {date} at {time}")
    elif re.search(r"calendarEvent_(get|patch|list)|freebusy", chain):
        ph |= {"meeting": "event"}
        asks.append("look at {meeting}")
    if re.search(r"obsidian_(list_files_in_dir|get_file|batch_get|get_frontmatter|delete|put|append|patch)", chain):
        ph["note_title"] = "note"
        asks.append("open my note {note_title}")
    if re.search(r"obsidian_(append|put|patch)_content", chain):
        ph["note_line"] = "text"
        texts["note_line"] = "- [ ] Send the Q1 summary to Song Ke"
        asks.append("add {note_line}")
    if "simple_search" in chain:
        ph["search_term"] = "text"
        texts["search_term"] = "launch"
        asks.append("search my notes for {search_term}")
    if not asks:
        ph["day"] = "date"
        asks.append("check everything for {day}")
    return json.dumps({"template": "Please " + ", then ".join(asks) + ".", "placeholders": ph, "texts": texts})


def chain_of(graph: ToolGraph, *tools: str) -> Chain:
    return Chain(tuple(tools), (len(tools),), tuple(feeds_for(graph, tools)))


@pytest.fixture(scope="module")
def graph() -> ToolGraph:
    return anyio.run(lambda: build_graph(SERVERS))


# -- the tool graph ------------------------------------------------------------------------------------------
def test_graph_has_the_known_edges(graph: ToolGraph) -> None:
    e = graph.edge("lark:contact_v3_user_batchGetId", "lark:calendar_v4_calendarEventAttendee_create")
    assert e is not None and e.kind == "key" and "user_id" in e.names
    assert any(lk.in_path == "data.attendees[].user_id" for lk in e.links)
    e = graph.edge("lark:im_v1_chat_list", "lark:im_v1_message_create")
    assert e is not None and "chat_id" in e.names
    assert any(lk.out_path == "data.items.0.chat_id" and lk.in_path == "data.receive_id" for lk in e.links)
    assert "event_id" in graph.edge("lark:calendar_v4_calendarEvent_create",
                                    "lark:calendar_v4_calendarEventAttendee_create").names  # type: ignore[union-attr]
    assert "filepath" in graph.edge("obsidian:obsidian_simple_search",
                                    "obsidian:obsidian_get_file_contents").names  # type: ignore[union-attr]
    # outputs are observed: the note text of get_file_contents is no JSON object, so it feeds nothing
    assert graph.nodes["obsidian:obsidian_get_file_contents"].outputs == ()
    assert not graph.successors("obsidian:obsidian_get_file_contents")
    # free text flows only between servers, never out of a write
    assert all(graph.nodes[e.src].server != graph.nodes[e.dst].server for e in graph.edges if e.kind == "text")
    assert not any(graph.nodes[e.src].mutates for e in graph.edges if e.kind == "text")
    stats = graph.stats()
    assert stats["nodes"] == 31 and stats["key_edges"] > 80 and stats["observed_nodes"] >= 25


def test_graph_round_trips_through_its_cache(graph: ToolGraph, tmp_path: Path) -> None:
    again = ToolGraph.from_json(json.loads(json.dumps(graph.to_json())))
    assert again.nodes == graph.nodes and again.edges == graph.edges
    cache = tmp_path / "graph.json"
    built = load_graph(["lark"], cache=cache)
    assert cache.is_file() and built.servers() == ["lark"]
    cache.write_text(json.dumps({**json.loads(cache.read_text()), "edges": []}))  # proves the next load reads it
    assert load_graph(["lark"], cache=cache).edges == []
    assert load_graph(["lark"], cache=cache, refresh=True).edges == built.edges


# -- sampling ------------------------------------------------------------------------------------------------
def test_sampling_respects_the_five_constraints(graph: ToolGraph) -> None:
    vetoed: list[Chain] = []

    def realism(chain: Chain) -> bool:  # the realism hook: any callable
        if any("delete" in t for t in chain.tools):
            vetoed.append(chain)
            return False
        return True

    chains = sample_chains(graph, n=40, servers=SERVERS, max_len=3, seed=7, realism=realism)
    assert len(chains) == 40
    assert vetoed and not any("delete" in t for c in chains for t in c.tools)  # realism
    assert len({c.tools for c in chains}) == len(chains)  # deduplication
    assert {len(c.tools) for c in chains} == {1, 2, 3}
    for c in chains:
        assert any(graph.nodes[t].personalized for t in c.tools)  # personalization
        assert is_coherent(graph, c.tools)  # coherence: every later tool fed by an earlier one
        assert all(any(f.dst == j for f in c.feeds) for j in range(1, len(c.tools)))
        start = 0
        assert sum(c.units) == len(c.tools)
        for size in c.units:  # dependency: units are connected pieces of one server
            unit = c.tools[start:start + size]
            assert len({t.split(":")[0] for t in unit}) == 1
            assert size == 1 or is_coherent(graph, unit)
            start += size
    assert chains == sample_chains(graph, n=40, servers=SERVERS, max_len=3, seed=7, realism=realism)  # seeded
    assert chains != sample_chains(graph, n=40, servers=SERVERS, max_len=3, seed=8, realism=realism)
    assert all(len(c.servers) == 1 for c in chains)  # cross-server only when asked
    crossing = sample_chains(graph, n=30, servers=SERVERS, min_len=3, max_len=4, seed=1, cross_server=True)
    assert any(len(c.servers) == 2 for c in crossing)
    assert {len(c.tools) for c in sample_chains(graph, n=5, servers=["lark"], max_len=1, seed=0)} == {1}
    more = sample_chains(graph, n=10, servers=SERVERS, max_len=3, seed=7, exclude=[c.tools for c in chains])
    assert more and not {c.tools for c in more} & {c.tools for c in chains}  # deduplication across runs


def test_llm_realism_filter(graph: ToolGraph) -> None:
    chains = sample_chains(graph, n=3, servers=["lark"], max_len=2, seed=0)
    client = ScriptedClient(['{"realistic": false, "reason": "nobody does this"}',
                             '```json\n{"realistic": true, "reason": "fine"}\n```', "sure, why not"])
    kept = anyio.run(lambda: llm_realism(client, graph, chains))
    assert [c for c, _ in kept] == chains[1:]
    assert [why for _, why in kept] == ["fine", "unreadable verdict"]


# -- prototyping ---------------------------------------------------------------------------------------------
VALID = json.dumps({"template": "Tell the {chat_name} group that {message_text}.",
                    "placeholders": {"chat_name": "chat", "message_text": "text"},
                    "texts": {"message_text": "the poster files are ready"}})


def test_prototyping_with_a_scripted_client(graph: ToolGraph) -> None:
    chain = chain_of(graph, "lark:im_v1_chat_list", "lark:im_v1_message_create")
    client = ScriptedClient([VALID])
    proto = anyio.run(lambda: prototype(client, graph, chain))
    assert proto == Prototype("Tell the {chat_name} group that {message_text}.",
                              {"chat_name": "chat", "message_text": "text"},
                              {"message_text": "the poster files are ready"})
    prompt = client.calls[0][1]["content"]
    assert "im_v1_chat_list" in prompt and "gets its data.receive_id (chat_id) from step 1" in prompt

    client = ScriptedClient(["Sure! Here is a template: Tell {chat} hi", "```json\n" + VALID + "\n```"])
    assert anyio.run(lambda: prototype(client, graph, chain)) == proto  # malformed, then valid
    assert len(client.calls) == 2 and "invalid" in client.calls[1][-1]["content"]

    client = ScriptedClient(["not json", '{"template": "Hi {who}", "placeholders": {"who": "alien"}}'])
    with pytest.raises(PrototypeError, match="unknown type"):  # malformed twice: rejected
        anyio.run(lambda: prototype(client, graph, chain))
    assert len(client.calls) == 2


@pytest.mark.parametrize("answer, why", [
    ('{"template": "Hi {a}", "placeholders": {"b": "person"}}', "disagree"),
    ('{"template": "Say {t}", "placeholders": {"t": "text"}}', "texts"),
    ('{"template": "Hi {a} }", "placeholders": {"a": "person"}}', "brace"),
    ('{"template": "Hi {a}", "placeholders": {"a": "person"}, "extra": 1}', "keys"),
    ('[1, 2]', "keys"),
])
def test_prototype_parsing_is_strict(answer: str, why: str) -> None:
    with pytest.raises(PrototypeError, match=why):
        parse_prototype(answer)


# -- enrichment and fuzzification ----------------------------------------------------------------------------
def test_enrichment_fills_from_real_contexts(graph: ToolGraph) -> None:
    chain = chain_of(graph, "lark:im_v1_chat_list", "lark:im_v1_message_create")
    draft = anyio.run(lambda: enrich(graph, chain, parse_prototype(VALID), contexts={"lark": "chen_yu"}, seed=1))
    chats = {e.display: e for e in catalog("lark", "chen_yu") if e.type == "chat"}
    chat = draft.entity_of("chat_name")
    assert chat is not None and chat.display in chats and chat.display in draft.instruction
    args = draft.steps[1].arguments
    assert args["params"]["receive_id_type"] == "chat_id"
    assert args["data"]["receive_id"] == chat.id  # picked from a list of chats: a concrete id
    assert json.loads(args["data"]["content"]) == {"text": "the poster files are ready"}
    assert [(u.source, u.step, u.link) for u in draft.steps[1].uses] == [("found", 0, "chat_id")]

    # a phone number resolved to an id: the only result of the lookup becomes a $ref
    chain = chain_of(graph, "lark:contact_v3_user_batchGetId", "lark:im_v1_message_create")
    proto = parse_prototype(json.dumps({"template": "Text {who} (phone {phone}): {msg}",
                                        "placeholders": {"who": "person", "phone": "phone", "msg": "text"},
                                        "texts": {"msg": "running late"}}))
    draft = anyio.run(lambda: enrich(graph, chain, proto, contexts={"lark": "chen_yu"}, seed=2))
    who = draft.entity_of("who")
    assert who is not None and draft.steps[0].arguments == {"data": {"mobiles": [who.slot("mobile")]}}
    assert draft.steps[1].arguments["data"]["receive_id"] == {"$ref": "0.0:data.user_list.0.user_id"}
    assert draft.steps[1].arguments["params"]["receive_id_type"] == "open_id"

    # a note two folders deep: the folder is picked from the vault listing, the file from the folder
    chain = chain_of(graph, "obsidian:obsidian_list_files_in_vault", "obsidian:obsidian_list_files_in_dir",
                     "obsidian:obsidian_get_file_contents")
    proto = Prototype("What does my note {note} say?", {"note": "note"})
    draft = anyio.run(lambda: enrich(graph, chain, proto, contexts={"obsidian": "chen_yu"}, seed=3))
    note = draft.entity_of("note")
    assert note is not None and note.id.endswith(".md") and "/" in note.id
    assert draft.steps[1].arguments == {"dirpath": note.id.rsplit("/", 1)[0] + "/"}
    assert draft.steps[2].arguments == {"filepath": note.id}

    with pytest.raises(EnrichError, match="required input"):  # a required free text no placeholder gives
        anyio.run(lambda: enrich(graph, chain_of(graph, "lark:im_v1_chat_list", "lark:im_v1_message_create"),
                                 Prototype("Ping {c}", {"c": "chat"}), contexts={"lark": "chen_yu"}))


def test_fuzzification_removes_ids_and_lists_them_as_implicit(graph: ToolGraph) -> None:
    chain = chain_of(graph, "lark:im_v1_chat_list", "lark:im_v1_message_create")
    proto = parse_prototype(json.dumps({
        "template": "Post {msg} in {chat} (chat id {chat_id}).",
        "placeholders": {"msg": "text", "chat": "chat", "chat_id": "chat_id"}, "texts": {"msg": "'hello all'"}}))
    draft = anyio.run(lambda: enrich(graph, chain, proto, contexts={"lark": "chen_yu"}, seed=0))
    chat = draft.entity_of("chat")
    assert chat is not None and chat.id in draft.instruction  # S_inst still has the id
    fuzzy = fuzzify(draft, keep=[chat.id])
    assert chat.id not in fuzzy.instruction and chat.display in fuzzy.instruction
    assert "chat id" not in fuzzy.instruction and "()" not in fuzzy.instruction
    assert any(chat.id in fact and "chat_id" in fact for fact in fuzzy.implicit_context)
    assert len(fuzzy.unnecessary_context) == 3
    assert not any(chat.display in fact for fact in fuzzy.unnecessary_context)

    chain = chain_of(graph, "lark:contact_v3_user_batchGetId", "lark:im_v1_message_create")
    proto = parse_prototype(json.dumps({"template": "Text {who} (phone {phone}): {msg}",
                                        "placeholders": {"who": "person", "phone": "phone", "msg": "text"},
                                        "texts": {"msg": "running late"}}))
    draft = anyio.run(lambda: enrich(graph, chain, proto, contexts={"lark": "chen_yu"}, seed=2))
    who = draft.entity_of("who")
    assert who is not None
    fuzzy = fuzzify(draft)
    assert who.slot("mobile") not in fuzzy.instruction and who.display in fuzzy.instruction
    assert fuzzy.necessary_context == {f"{who.display}'s phone number": who.slot("mobile")}
    assert any("resolved from the phone number" in fact for fact in fuzzy.implicit_context)


# -- end to end ----------------------------------------------------------------------------------------------
def test_end_to_end_generate_review_import(graph: ToolGraph, tmp_path: Path) -> None:
    client = ScriptedClient(template_for)
    candidates, stats = anyio.run(lambda: generate(client, servers=["lark"], n=8, seed=0, graph=graph))
    assert stats.candidates == len(candidates) == 8 and stats.chains >= 8
    valid = [c for c in candidates if not c.problems]
    assert len(valid) / len(candidates) >= 0.6, [c.problems for c in candidates]
    for c in candidates:
        assert c.task.id.startswith("gen_lark_s0_") and c.task.spec.category == "collaboration"
        assert c.task.gold and c.task.spec.checkpoints and c.task.spec.implicit_context is not None

    review = tmp_path / "review.jsonl"
    assert write_review(review, candidates) == 8
    items = read_review(review)
    assert [i.id for i in items] == [c.task.id for c in candidates] and {i.status for i in items} == {"pending"}
    assert [PersonaTask.model_validate(i.task_json) for i in items] == [c.task for c in candidates]  # round trip

    # a reviewer accepts a valid one, accepts a tampered copy (wrong GT), rejects one, leaves the rest pending
    good = next(c for c in candidates if not c.problems and any(isinstance(cp, SearchCheckpoint)
                                                                for cp in c.task.spec.checkpoints))
    lines = [json.loads(line) for line in review.read_text().splitlines()]
    for line in lines:
        if line["id"] == good.task.id:
            line["status"] = "accepted"
    tampered = json.loads(json.dumps(next(x for x in lines if x["id"] == good.task.id)))
    tampered["id"] = tampered["task"]["id"] = good.task.id + "_tampered"
    tampered["task"]["instruction"] += " Thanks!"
    search = next(cp for cp in tampered["task"]["spec"]["checkpoints"] if cp["type"].endswith("search"))
    search["gt_value"] = ["a value no tool returns"]
    lines.append(tampered)
    rejected = next(x for x in lines if x["id"] != good.task.id)
    rejected["status"] = "rejected"
    review.write_text("".join(json.dumps(x) + "\n" for x in lines))

    suite = tmp_path / "suite"
    report = anyio.run(lambda: import_review(review, suite))
    assert report.written == [suite / f"{good.task.id}.json"]
    assert list(report.failed) == [tampered["id"]]
    assert any("not in any gold tool output" in p for p in report.failed[tampered["id"]])
    assert report.rejected == [rejected["id"]] and len(report.pending) == 6
    imported = load_tasks(str(suite))
    assert imported == [good.task]
    assert anyio.run(lambda: check_task(imported[0])) == []
    again = anyio.run(lambda: import_review(review, suite))  # the same id twice is refused
    assert not again.written and any("already in" in p for p in again.failed[good.task.id])


def test_a_failing_model_request_loses_one_chain(graph: ToolGraph) -> None:
    class Flaky(ScriptedClient):
        async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
            if not self.calls:
                self.calls.append(messages)
                raise ModelError("endpoint hiccup")
            return await super().complete(messages, tools)

    candidates, stats = anyio.run(lambda: generate(Flaky(template_for), servers=["lark"], n=2, seed=0, graph=graph))
    assert len(candidates) == 2 and sum(v for k, v in stats.dropped.items() if k.startswith("model error")) == 1


def test_cross_server_candidate(graph: ToolGraph) -> None:
    tools = ("lark:calendar_v4_calendar_primary", "lark:calendar_v4_calendarEvent_list",
             "obsidian:obsidian_simple_search", "obsidian:obsidian_get_file_contents")
    chain = chain_of(graph, *tools)
    assert is_coherent(graph, tools) and any(f.kind == "text" for f in chain.feeds)
    proto = Prototype("Find notes about {meeting} and tell me what they say.", {"meeting": "event"})
    cand = anyio.run(lambda: make_candidate(ScriptedClient([]), graph, chain, task_id="x_1", suite="t", proto=proto,
                                            contexts={"lark": "chen_yu", "obsidian": "chen_yu"}))
    assert cand.task.spec.category == "lark_centric" and cand.task.spec.variant == "long"
    assert [s.server for s in cand.task.servers] == ["lark", "obsidian"]
    meeting = cand.task.gold[2].calls[0].arguments["query"]
    assert meeting in cand.task.instruction


def test_cli_graph_tasks_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_persona.cli import app

    runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
    cache = tmp_path / "g.json"
    res = runner.invoke(app, ["gen", "graph", "--servers", "lark", "--json", "--cache", str(cache)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["nodes"] == 16 and cache.is_file()

    monkeypatch.setattr("mcp_persona.llm.make_client", lambda spec, **kw: ScriptedClient(template_for))
    review = tmp_path / "review.jsonl"
    res = runner.invoke(app, ["gen", "tasks", "--model", "openai:scripted", "--servers", "lark", "--n", "3",
                              "--seed", "1", "--out", str(review), "--graph-cache", str(cache), "--valid-only"])
    assert res.exit_code == 0, res.output
    assert "chains sampled" in res.output
    lines = [json.loads(x) for x in review.read_text().splitlines()]
    assert lines and all(not x["problems"] for x in lines)
    lines[0]["status"] = "accepted"
    review.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = runner.invoke(app, ["gen", "import", str(review), "--suite-dir", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert "1 written, 0 refused" in res.output
    monkeypatch.undo()
    res = runner.invoke(app, ["gen", "tasks", "--model", "nope", "--servers", "lark", "--out", str(review)])
    assert res.exit_code == 2 and "unknown model provider" in res.output
    res = runner.invoke(app, ["gen", "tasks", "--model", "local", "--servers", "larkk", "--out", str(review)])
    assert res.exit_code == 2 and "unknown server" in res.output
