"""The reference execution a protocol may ask for (``Protocol.reference_agent``): LiveMCP-101 runs the validated
plan concurrently with the tested agent, each in an environment of its own, and keeps its answer, calls and end
state with the episode."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_persona.agents import Agent, NoopAgent, ReferenceAgent
from mcp_persona.environment import Environment
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.base import PoolSpec, ToolPool
from mcp_persona.protocols.livemcp101 import LiveMCP101Protocol
from mcp_persona.protocols.persona import gold_changes
from mcp_persona.runner import Judging, run_episode, run_suite
from mcp_persona.scoring.strict import compare_end_states
from mcp_persona.store import EpisodeRecord, RunStore
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

TASKS = {t.id: t for t in load_tasks("livemcp101")}
LIVE = get_protocol("livemcp101")
SMALL = {"pool_size": 6}  # fewer servers to open; the draw still adds servers the task does not use
AGENT_BOOK = "/home/user/workspace/agent-only.xlsx"


class _WithReference(LiveMCP101Protocol):
    """LiveMCP-101 with another reference agent (the runner knows no protocol by name)."""

    def __init__(self, reference: Agent) -> None:
        self._reference = reference

    def reference_agent(self, task: Task) -> Agent:
        return self._reference


class _Handshake:
    """Two agents that can only finish if they run at the same time: the tested one writes its own workbook,
    then waits for the reference; the reference waits for that write before it replays the plan."""

    def __init__(self) -> None:
        self.agent_wrote = anyio.Event()
        self.reference_done = anyio.Event()
        self.envs: dict[str, Environment] = {}

    def tested(self) -> Agent:
        hs = self

        class Tested:
            name, model = "tested", None

            async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
                hs.envs["tested"] = env
                trajectory.events.append(await env.call("excel", "create_workbook", {"filepath": AGENT_BOOK},
                                                        round=0))
                hs.agent_wrote.set()
                with anyio.fail_after(20):  # run after the agent, the reference would never set this
                    await hs.reference_done.wait()
                trajectory.final_answer, trajectory.stop_reason = "done", "answered"

        return Tested()

    def reference(self) -> Agent:
        hs = self

        class Waiting:
            name, model = "reference", None

            async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
                hs.envs["reference"] = env
                with anyio.fail_after(20):  # run before the agent, the agent would never set this
                    await hs.agent_wrote.wait()
                await ReferenceAgent().run(task, env, trajectory)
                hs.reference_done.set()

        return Waiting()


def test_the_reference_runs_concurrently_in_an_environment_of_its_own() -> None:
    task = TASKS["office_medium_01"]

    async def main() -> tuple[EpisodeRecord, _Handshake]:
        hs = _Handshake()
        return await run_episode(task, hs.tested(), protocol=_WithReference(hs.reference()), settings=SMALL), hs

    record, hs = anyio.run(main)
    assert record.status == "ok", record.error
    assert record.reference is not None and record.reference.status == "ok", record.reference
    tested_env, reference_env = hs.envs["tested"], hs.envs["reference"]
    assert tested_env is not reference_env and tested_env.spec.servers == reference_env.spec.servers
    # the agent's write is not in the reference's end state, and the reference's writes are not in the agent's
    assert any("agent-only.xlsx" in d for d in record.diff) and not any("aapl-week" in d for d in record.diff)
    assert any("aapl-week" in d for d in record.reference.diff)
    assert not any("agent-only" in d for d in record.reference.diff)
    assert record.score is not None and record.score.detail["end_state"]["source"] == "reference run"
    assert record.score.detail["reference"]["changes"] == ["excel: create workbook holding 1 x worksheet"]


def test_timestamps_overlap() -> None:
    """Both runs are in flight at once (an agent that takes its time; the reference starts while it waits)."""
    task = TASKS["finance_easy_01"]
    spans: dict[str, tuple[float, float]] = {}

    class Slow:
        name, model = "slow", None

        async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
            t0 = anyio.current_time()
            await anyio.sleep(0.3)
            spans["agent"] = (t0, anyio.current_time())
            trajectory.stop_reason = "answered"

    class Timed:
        name, model = "reference", None

        async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
            t0 = anyio.current_time()
            await ReferenceAgent().run(task, env, trajectory)
            spans["reference"] = (t0, anyio.current_time())

    record = anyio.run(lambda: run_episode(task, Slow(), protocol=_WithReference(Timed()), settings=SMALL))
    assert record.status == "ok" and record.reference is not None and record.reference.status == "ok"
    (a0, a1), (r0, r1) = spans["agent"], spans["reference"]
    assert r0 < a1 and a0 < r1  # the intervals intersect


@pytest.mark.parametrize("task_id", ["finance_easy_01", "office_medium_01", "travel_hard_01", "news_hard_01",
                                     "software_medium_01"])
def test_the_concurrent_reference_end_state_is_the_memoised_replays(task_id: str) -> None:
    task = TASKS[task_id]
    record = anyio.run(lambda: run_episode(task, NoopAgent(), protocol=LIVE))
    assert record.reference is not None and record.reference.status == "ok"
    memo = anyio.run(gold_changes, task, "selected")
    assert memo is not None
    assert record.score is not None and record.score.detail["end_state"]["source"] == "reference run"
    assert record.score.detail["end_state"]["gold"] == compare_end_states(memo, Counter()).gold
    assert record.reference.trajectory.final_answer == task.reference_answer


def test_the_record_keeps_answer_calls_and_end_state() -> None:
    task = TASKS["office_medium_01"]
    record = anyio.run(lambda: run_episode(task, NoopAgent(), protocol=LIVE))
    ref = record.reference
    assert ref is not None and ref.status == "ok" and ref.error is None
    assert ref.trajectory.agent == "reference" and ref.trajectory.final_answer == task.reference_answer
    calls = [(c.server, c.tool, c.arguments) for c in ref.trajectory.tool_calls]
    assert calls == [(c.server, c.tool, c.arguments) for s in task.gold for c in s.calls]
    assert ref.diff == ["excel: create workbook workbooks[/home/user/workspace/aapl-week.xlsx]"]
    assert record.score is not None
    assert record.score.detail["reference"]["plan"] == [[c.qualified for c in s.calls] for s in task.gold]
    assert record.score.detail["reference"]["answer"] == task.reference_answer
    assert record.score.detail["reference"]["error"] is None


def test_records_round_trip_through_the_store_and_resume(tmp_path: Path) -> None:
    tasks = [TASKS["finance_easy_01"], TASKS["office_medium_01"]]
    store = RunStore(tmp_path)
    ran = anyio.run(lambda: run_suite(tasks, NoopAgent(), store, protocol=LIVE, settings=SMALL))
    first = store.records()
    assert ran == 2 and all(r.reference is not None and r.reference.status == "ok" for r in first)
    assert first[1].reference is not None and first[1].reference.trajectory.tool_calls
    store.close()
    store = RunStore(tmp_path)  # a resumed run: nothing pending, every record as it was stored
    assert anyio.run(lambda: run_suite(tasks, NoopAgent(), store, protocol=LIVE, settings=SMALL)) == 0
    again = store.records()
    assert [r.model_dump() for r in again] == [r.model_dump() for r in first]
    store.close()
    # a record stored before reference runs existed still reads
    older = first[0].model_dump(mode="json")
    del older["reference"]
    assert EpisodeRecord.model_validate(older).reference is None


class _Raises:
    name, model = "reference", None

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        await ReferenceAgent().run(task.model_copy(update={"gold": task.gold[:1]}), env, trajectory)
        raise RuntimeError("the reference broke")


class _BadCall:
    name, model = "reference", None

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        trajectory.events.append(await env.call("excel", "no_such_tool", {}, round=0))
        trajectory.final_answer, trajectory.stop_reason = "?", "replayed"


class _NoSecondEnvironment(LiveMCP101Protocol):
    """The reference's environment fails to open (the agent's opens first)."""

    def __init__(self) -> None:
        self.opened = 0

    def environment(self, task: Task, tools: ToolPool, spec: PoolSpec) -> Environment:
        self.opened += 1
        if self.opened > 1:
            raise ValueError("no context left")
        return super().environment(task, tools, spec)


@pytest.mark.parametrize(("protocol", "error"), [
    (_WithReference(_Raises()), "RuntimeError: the reference broke"),
    (_WithReference(_BadCall()), "1 reference call(s) failed, first excel:no_such_tool"),
    (_NoSecondEnvironment(), "environment: ValueError: no context left"),
], ids=["raises", "failed-call", "environment"])
def test_a_failing_reference_is_recorded_and_the_episode_still_scored(protocol: LiveMCP101Protocol,
                                                                      error: str) -> None:
    task = TASKS["office_medium_01"]
    record = anyio.run(lambda: run_episode(task, ReferenceAgent(), protocol=protocol, settings=SMALL))
    assert record.status == "ok" and record.score is not None
    assert record.reference is not None and record.reference.status == "error"
    assert record.reference.error is not None and record.reference.error.startswith(error)
    # scored all the same, against the memoised gold replay, and it says so
    assert record.score.detail["result_score"] == 1.0 and record.score.detail["strict"]
    assert record.score.detail["end_state"]["source"] == "gold replay (the reference run failed)"
    assert record.score.detail["reference"]["error"] == record.reference.error
    summary = protocol.summarize(_config(), [task], [record])
    assert summary["n_reference_errors"] == 1


def test_a_failing_tested_agent_keeps_the_reference() -> None:
    class Broken:
        name, model = "broken", None

        async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
            raise RuntimeError("agent down")

    record = anyio.run(lambda: run_episode(TASKS["finance_easy_01"], Broken(), protocol=LIVE, settings=SMALL))
    assert record.status == "error" and record.error == "RuntimeError: agent down"
    assert record.reference is not None and record.reference.status == "ok"


def test_protocols_run_no_reference_by_default() -> None:
    persona = next(t for t in load_tasks("persona"))
    record = anyio.run(lambda: run_episode(persona, NoopAgent()))
    assert record.reference is None
    assert record.score is not None and record.score.detail["end_state"]["source"] == "gold replay"


class _Capture:
    """A judge endpoint that answers every request with one verdict and keeps the prompts."""

    name = "judge-model"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> object:
        from mcp_persona.llm.base import ChatResponse

        self.prompts.append(messages[-1]["content"])
        return ChatResponse(content='{"likert": 5, "feedback": "same"}')


class _OwnAnswer:
    name, model = "reference", None

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        await ReferenceAgent().run(task, env, trajectory)
        trajectory.final_answer = "THE REFERENCE RUN'S OWN ANSWER"


def test_likert_judges_see_the_reference_runs_answer_and_calls() -> None:
    task = TASKS["office_medium_01"]
    client = _Capture()
    judging = Judging.with_client(client)  # type: ignore[arg-type]
    record = anyio.run(lambda: run_episode(task, NoopAgent(), protocol=_WithReference(_OwnAnswer()),
                                           settings=SMALL, judging=judging))
    result, trajectory = (next(p for p in client.prompts if marker in p)
                          for marker in ("Reference answer", "Reference execution"))
    assert "THE REFERENCE RUN'S OWN ANSWER" in result and task.reference_answer not in result
    assert 'step 2: excel:create_workbook {"filepath": "/home/user/workspace/aapl-week.xlsx"}' in trajectory
    assert "result (ok):" in trajectory
    versions = {v["judge"]: v["prompt_version"] for v in record.verdicts}
    assert versions["likert_trajectory"] == "likert-trajectory/1+execution"
    assert record.score is not None and record.score.detail["result_source"] == "judge"


def _config() -> Any:
    from mcp_persona.runner import RunConfig

    return RunConfig(suite="livemcp101", agent="reference", model=None, protocol="livemcp101")
