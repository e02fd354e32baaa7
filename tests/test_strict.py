"""The strict pass and mutation testing, with scripted agents that do a task badly.

Each scripted agent replays a bundled task's gold chain with one deliberate fault; the strict pass (and,
where the fault loses content, Acc) must drop, while harmless variations (an idempotent repeated update, a
read that marks a message as read) must not cost anything.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcp_persona.mutants import (
    PASTE_SENTENCES,
    ReplayAgent,
    derive_mutants,
    gold_plan,
    mutation_test,
    observe_gold,
)
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode
from mcp_persona.scoring.grounding import PASTE_MIN_REPEATED, verbatim_form
from mcp_persona.scoring.strict import compare_end_states, strict_pass
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import GoldCall, Task
from mcp_persona.validate import mutation_problems

pytestmark = pytest.mark.anyio


def bundled(task_id: str) -> Task:
    return next(t for t in load_tasks("persona") if t.id == task_id)


async def replay(task: Task, plan: Any) -> EpisodeRecord:
    return await run_episode(task, ReplayAgent(tuple(plan)))


def with_checkpoints(task: Task, checkpoints: list[dict[str, Any]], **extra: Any) -> Task:
    # the bundled task's own exemptions are dropped: each test states the ones it means
    data = task.model_dump(mode="json")
    data["spec"] |= {"checkpoints": checkpoints, "mutation_exemptions": []} | extra
    return type(task).model_validate(data)


# -- the strict pass ----------------------------------------------------------------------------------
async def test_gold_replay_passes_strictly() -> None:
    record = await replay(bundled("collab_wecom_003"), gold_plan(bundled("collab_wecom_003")))
    assert record.score is not None
    assert record.score.detail["acc"] == 1.0
    end = record.score.detail["end_state"]
    assert (end["equivalent"], end["missing"], end["extra"]) == (True, [], [])
    assert end["gold"] == ["wecom: create media", "wecom: create message in groups[wr8dijbpopcwb3rr6sourqcf7a]",
                           "wecom: create message in groups[wr8dijbpopcwb3rr6sourqcf7a]"]
    assert record.score.detail["strict"] is True


async def test_a_message_sent_twice_fails_strict_but_not_acc() -> None:
    task = bundled("collab_wecom_003")
    plan = gold_plan(task)
    record = await replay(task, (*plan, plan[-1]))  # the closing send_text once more
    assert record.score is not None
    assert record.score.detail["acc"] == 1.0  # every checkpoint is still met: the paper's metric cannot see it
    assert record.score.detail["strict"] is False
    assert record.score.detail["end_state"]["extra"] == ["wecom: create message in groups[wr8dijbpopcwb3rr6sourqcf7a]"]
    assert record.score.detail["end_state"]["missing"] == []


async def test_an_idempotent_repeated_update_is_not_a_difference() -> None:
    task = bundled("collab_lark_002")
    plan = gold_plan(task)
    patch = next(p for p in plan if p.call.tool == "calendar_v4_calendarEvent_patch")
    record = await replay(task, (*plan, patch))
    assert record.score is not None
    assert record.score.detail["collateral"] == []
    assert record.score.detail["strict"] is True


async def test_a_read_side_effect_the_app_declares_is_not_collateral() -> None:
    task = bundled("email_gmail_001")
    plan = list(gold_plan(task))
    inbox = await replay(task, plan)
    assert inbox.score is not None and inbox.score.detail["strict"] is True
    # read every message the search returned: Gmail marks them read (declared in ignore_changes)
    reads = [p for p in plan if p.call.tool == "read_email"]
    assert reads, "the task reads an email"
    record = await replay(task, (*plan, *reads))
    assert record.score is not None
    assert record.score.detail["collateral"] == []
    assert record.score.detail["strict"] is True


async def test_a_write_to_another_chat_fails_strict_and_acc() -> None:
    task = bundled("collab_lark_002")
    plan = gold_plan(task)
    idx = next(i for i, p in enumerate(plan) if p.call.tool == "im_v1_message_create")
    call = plan[idx].call
    other = "ou_043b026c48bbf33feff9243a8f506b40"  # Zhao, not Wang Fang
    args = call.arguments | {"data": call.arguments["data"] | {"receive_id": other}}
    wrong = plan[idx].__class__(plan[idx].label, plan[idx].round, GoldCall(server=call.server, tool=call.tool,
                                                                            arguments=args))
    record = await replay(task, (*plan[:idx], wrong, *plan[idx + 1:]))
    assert record.score is not None
    assert record.score.detail["acc"] < 1.0
    assert record.score.detail["strict"] is False


def test_strict_pass_needs_every_part() -> None:
    ok = {"checkpoints": [{"score": 1.0}], "collateral": [], "end_state": {"equivalent": True}}
    assert strict_pass(ok) is True
    assert strict_pass(ok | {"checkpoints": [{"score": 1.0}, {"score": None}]}) is False  # undecided
    assert strict_pass(ok | {"checkpoints": [{"score": 0.5}]}) is False
    assert strict_pass(ok | {"collateral": ["lark: modify event x"]}) is False
    assert strict_pass(ok | {"end_state": {"equivalent": False}}) is False


def test_end_state_comparison_counts_copies() -> None:
    from collections import Counter

    gold = Counter({("slack", "create", "message", "channels[C1]", ()): 1})
    twice = Counter({("slack", "create", "message", "channels[C1]", ()): 2})
    elsewhere = Counter({("slack", "create", "message", "channels[C2]", ()): 1})
    assert compare_end_states(gold, gold).equivalent
    assert compare_end_states(gold, twice).extra == ["slack: create message in channels[C1]"]
    cmp = compare_end_states(gold, elsewhere)
    assert cmp.missing == ["slack: create message in channels[C1]"]
    assert cmp.extra == ["slack: create message in channels[C2]"]



async def test_a_message_sent_twice_into_the_chat_it_opened_fails_strict() -> None:
    """The first message to a user opens the direct chat; the second copy lands in that new chat. The end state
    counts what the created chat holds, so one create holding two messages is not one holding one."""
    task = bundled("social_telegram_003")
    plan = gold_plan(task)
    send = next(p for p in plan if p.call.tool == "send_message")
    gold = await replay(task, plan)
    assert gold.score is not None and gold.score.detail["strict"] is True
    assert gold.score.detail["end_state"]["gold"] == ["telegram: create chat holding 1 x message"]
    record = await replay(task, (*plan, send))
    assert record.score is not None
    assert record.score.detail["acc"] == 1.0
    assert record.score.detail["strict"] is False
    assert record.score.detail["end_state"]["extra"] == ["telegram: create chat holding 2 x message"]
    assert record.score.detail["end_state"]["missing"] == ["telegram: create chat holding 1 x message"]


def test_end_state_comparison_counts_what_a_created_entity_holds() -> None:
    from collections import Counter

    one = ("lark", "create", "chat", "", (("member", ()), ("member", ()), ("message", ())))
    two = ("lark", "create", "chat", "", (("member", ()), ("member", ()), ("message", ()), ("message", ())))
    assert compare_end_states(Counter([one]), Counter([one])).equivalent
    cmp = compare_end_states(Counter([one]), Counter([two]))
    assert cmp.extra == ["lark: create chat holding 2 x member, 2 x message"]
    assert cmp.missing == ["lark: create chat holding 2 x member, 1 x message"]
    nested = ("notion", "create", "page", "pages[p1]", (("block", (("block", ()),)),))
    assert compare_end_states(Counter([nested]), Counter([nested])).extra == []
    assert compare_end_states(Counter(), Counter([nested])).extra == [
        "notion: create page in pages[p1] holding 1 x block (1 x block)"]

# -- mutation testing ---------------------------------------------------------------------------------
WEAK_TEXT = {  # the text's content is not checked: "ok" passes
    "type": "operate", "summary": "Text mentioning Song Ke", "server": "wecom", "tool": "send_text",
    "operate_type": "create", "entity": "message",
    "expect": {"msgtype": "text", "text.mentioned_list": {"$has": "SongKe"}},
    "parent_expect": {"name": "Orbit Lab Marketing Dept"},
}
STRONG_TEXT = WEAK_TEXT | {"expect": WEAK_TEXT["expect"] | {"text.content": {"$contains": "Q1 campaign summary"}}}


def wecom_task(text_checkpoint: dict[str, Any], **extra: Any) -> Task:
    base = bundled("collab_wecom_003")
    return with_checkpoints(base, [*base.model_dump(mode="json")["spec"]["checkpoints"][:2], text_checkpoint], **extra)


async def test_the_four_mutant_kinds_are_derived_from_observed_writes() -> None:
    task = wecom_task(STRONG_TEXT)
    obs = await observe_gold(task)
    assert obs.writes == {(2, 0), (3, 0), (4, 0)}  # upload_file, send_file, send_text; the reads change nothing
    keys = {m.key for m in derive_mutants(task, obs)}
    assert {"drop 2.0", "drop 3.0", "drop 4.0", "duplicate 4.0", "free_text 4.0 content"} <= keys
    assert not any(k.startswith(("drop 0.", "drop 1.")) for k in keys)  # reads are never dropped


async def test_a_weak_text_checkpoint_lets_the_free_text_mutant_survive() -> None:
    weak = await mutation_test(wecom_task(WEAK_TEXT))
    survivors = {r.mutant.key for r in weak.survivors}
    assert "free_text 4.0 content" in survivors
    problems = mutation_problems(wecom_task(WEAK_TEXT), weak)
    assert any("free_text 4.0 content" in p for p in problems)


async def test_a_content_check_kills_it() -> None:
    strong = await mutation_test(wecom_task(STRONG_TEXT))
    by_key = {r.mutant.key: r for r in strong.results}
    assert by_key["free_text 4.0 content"].killed
    assert by_key["duplicate 4.0"].killed and by_key["drop 4.0"].killed
    assert not by_key["drop 4.0"].equivalent


async def test_a_write_doubled_inside_a_created_container_is_its_own_mutant_and_killed() -> None:
    task = bundled("social_telegram_003")
    obs = await observe_gold(task)
    assert obs.creates == obs.nested == {(3, 0)}  # send_message opens the direct chat with its message
    result = await mutation_test(task)
    by_key = {r.mutant.key: r for r in result.results}
    assert "duplicate 3.0" not in by_key
    doubled = by_key["duplicate_nested 3.0"]
    assert not doubled.equivalent and doubled.killed  # before contents were compared: equivalent, uncounted
    wecom = await observe_gold(wecom_task(STRONG_TEXT))
    assert (4, 0) in wecom.creates and not wecom.nested  # messages into an existing group: plain duplicates


async def test_an_exemption_excuses_its_survivor_and_only_it() -> None:
    exemption = {"kind": "free_text", "call": "4.0", "argument": "content",
                 "reason": "the user only asked for Song Ke to be mentioned; the wording is free"}
    task = wecom_task(WEAK_TEXT, mutation_exemptions=[exemption])
    result = await mutation_test(task)
    assert not any("free_text 4.0 content" in p for p in mutation_problems(task, result))
    stale = wecom_task(STRONG_TEXT, mutation_exemptions=[exemption])
    problems = mutation_problems(stale, await mutation_test(stale))
    assert problems == ["mutation exemption 'free_text 4.0 content' excuses no surviving mutant"]


def test_an_exemption_needs_a_real_reason() -> None:
    with pytest.raises(ValueError, match="at least 25"):
        wecom_task(WEAK_TEXT, mutation_exemptions=[{"kind": "drop", "call": "4.0", "reason": "free"}])


def test_anyio_backend_runs_the_mutation_test_synchronously() -> None:
    # validate calls mutation_test from a sync CLI through anyio.run
    result = anyio.run(mutation_test, wecom_task(STRONG_TEXT))
    assert result.counted and not result.survivors


async def test_rules_never_pass_what_they_cannot_check() -> None:
    base = bundled("collab_wecom_003")
    cps = base.model_dump(mode="json")["spec"]["checkpoints"]
    cps[2] = STRONG_TEXT | {"rules_cannot_check": "whether the text tells Song Ke where the file is"}
    task = with_checkpoints(base, cps)
    record = await replay(task, gold_plan(task))
    assert record.score is not None
    assert record.score.detail["checkpoints"][2]["score"] is None
    assert record.score.detail["acc"] == 1.0  # Acc is the mean over decided checkpoints
    assert record.score.detail["strict"] is False  # an undecided checkpoint is not a pass
    wrong = await replay(task, gold_plan(task)[:-1])  # the text never sent: the rules can still fail it
    assert wrong.score is not None and wrong.score.detail["checkpoints"][2]["score"] == 0.5  # only the file message


def test_sloppy_agents_score_below_the_gold_chain() -> None:
    """The benchmark's scripted agents on the collaboration tasks: each fault costs the strict pass."""
    import importlib.util
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "sloppy_agents.py"
    spec = importlib.util.spec_from_file_location("sloppy_agents", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        metrics = module.main(["--tasks", "collab_*"])
    finally:
        sys.modules.pop(spec.name, None)
    gold = metrics.pop("gold")
    assert gold["strict_sr"] == 1.0 and gold["acc"] == 1.0
    equivalent = metrics.pop("equivalent answer")  # no fault: the reference answer in another form
    assert equivalent["strict_sr"] == 1.0 and equivalent["acc"] == 1.0
    for name, m in metrics.items():
        assert m["strict_sr"] < 0.5, name
    assert metrics["writes twice"]["acc"] > 0.95  # the paper's Acc cannot see a second copy...
    assert metrics["writes twice"]["strict_sr"] < 0.35  # ...the strict pass can
    assert metrics["answer only"]["strict_sr"] == 0.0  # values never retrieved are not a pass
    # nearly every value is in the pasted outputs and the state is right: only the copy rule stops these (a value
    # whose check needs what is said beside it, in the answer's own clause, is not stated by a raw output)
    assert metrics["paste all"]["acc"] > 0.9 and metrics["paste all"]["strict_sr"] == 0.0
    assert metrics["paste + sentence"]["acc"] > 0.9 and metrics["paste + sentence"]["strict_sr"] == 0.0


async def test_pasting_the_outputs_never_passes_strict() -> None:
    """Every persona task: the gold chain answered with its outputs pasted, verbatim or with a sentence before and
    after, loses the strict pass the gold chain with the reference answer keeps. The one exception is documented
    in grounding: everything the tools returned is a line or two, so pasting it with a sentence is answering."""
    wrapped_passes = []
    for task in load_tasks("persona"):
        plan = gold_plan(task)
        gold = await replay(task, plan)
        pasted = await run_episode(task, ReplayAgent(plan, paste_outputs=True))
        wrapped = await run_episode(task, ReplayAgent(plan, paste_outputs=True, around=PASTE_SENTENCES))
        assert gold.score is not None and pasted.score is not None and wrapped.score is not None
        assert gold.score.detail["strict"] is True and gold.score.detail["answer_dump"] is False, task.id
        assert pasted.score.detail["strict"] is False and pasted.score.detail["answer_dump"] is True, task.id
        if wrapped.score.detail["strict"]:
            returned = sum(len(verbatim_form(c.result)) for c in wrapped.trajectory.tool_calls)
            assert returned < PASTE_MIN_REPEATED, (task.id, wrapped.trajectory.final_answer)
            wrapped_passes.append(task.id)
        else:
            assert wrapped.score.detail["answer_dump"] is True, task.id
    assert len(wrapped_passes) <= 3, wrapped_passes  # of 223: one-line confirmations (a message id)
