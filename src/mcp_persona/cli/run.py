"""``mcp-persona run``: run an agent on a suite and score it."""

from __future__ import annotations

import os
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from mcp_persona.cli.common import console, err, fail, load_suite
from mcp_persona.store import EpisodeRecord


class AgentKind(StrEnum):
    reference = "reference"
    noop = "noop"
    model = "model"
    copilot = "copilot"


class JudgePolicy(StrEnum):
    complement = "complement"
    replace = "replace"


class ToolsKind(StrEnum):
    selected = "selected"
    all = "all"

def run(
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "persona",
    agent: Annotated[AgentKind, typer.Option(help="reference replays gold; noop is the floor")] = AgentKind.reference,
    model: Annotated[str | None, typer.Option(
        help="'local', 'openai:NAME' or 'anthropic:NAME' (needed by --agent model)")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[str | None, typer.Option(
        help="environment variable with the API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")] = None,
    tools: Annotated[ToolsKind, typer.Option(help="the task's servers, or every server")] = ToolsKind.selected,
    max_rounds: Annotated[int | None, typer.Option(
        min=1, max=200, help="agent rounds per episode (default: the suite's protocol's, 20; livemcp101: 30)")] = None,
    only: Annotated[str | None, typer.Option("--tasks", help="only task ids matching these glob patterns (a,b*)")] = (
        None),
    limit: Annotated[int | None, typer.Option(min=1, help="run only the first N tasks")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="episodes run at once")] = 1,
    max_requests: Annotated[int | None, typer.Option(
        min=1, max=256, help="model requests in flight to the agent's endpoint (default: --concurrency)")] = None,
    judge_max_requests: Annotated[int | None, typer.Option(
        min=1, max=256, help="requests in flight to the judge's endpoint, apart from the agent's "
                             "(default: --concurrency)")] = None,
    run_dir: Annotated[Path | None, typer.Option(help="where the run store and summary go")] = None,
    resume: Annotated[bool, typer.Option(help="finish the run in --run-dir")] = False,
    context_distractors: Annotated[int, typer.Option(min=0, max=50, help="extra unrelated paragraphs per task")] = 0,
    skills: Annotated[str, typer.Option(help="'none', 'bundled' (each app's guide) or a skill document FILE")] = "none",
    trials: Annotated[int, typer.Option(min=1, max=32, help="repeated trials per task (pass@k, pass^k)")] = 1,
    judge: Annotated[str, typer.Option(help="'rules' (deterministic, offline) or a judge model 'provider:model'")] = (
        "rules"),
    judge_policy: Annotated[JudgePolicy, typer.Option(
        help="complement: the judge decides what rules cannot; replace: the judge scores every checkpoint")] = (
        JudgePolicy.complement),
    judge_base_url: Annotated[str | None, typer.Option(help="endpoint of the judge model")] = None,
    judge_api_key_env: Annotated[str | None, typer.Option(help="environment variable with the judge's key")] = None,
    allow_self_judge: Annotated[bool, typer.Option(help="let the agent's own model judge it")] = False,
    candidates: Annotated[int | None, typer.Option(
        help="mcpagentbench: size K of the candidate tool list (10, 20, 30 or 40; default 20)")] = None,
    distractors: Annotated[str | None, typer.Option(
        help="mcpagentbench: how distractors are drawn, 'uniform' or 'confusable' (default uniform)")] = None,
    pool_size: Annotated[int | None, typer.Option(
        help="livemcp101: servers per task pool, the task's own plus seeded others (default 15)")] = None,
    one_call_per_turn: Annotated[bool, typer.Option(
        help="reference agent only: issue each parallel gold step one call per turn (a TEFS check)")] = False,
) -> None:
    """Run an agent on a suite, score every episode, and write DIR/summary.json."""
    from mcp_persona.agents import CopilotAgent, ModelAgent, NoopAgent, ReferenceAgent
    from mcp_persona.agents.skills import Skills, SkillsError
    from mcp_persona.judges.config import check_self_judge, judge_spec
    from mcp_persona.llm import ModelError, make_client
    from mcp_persona.protocols import get_protocol
    from mcp_persona.report.summary import build_summary, print_summary, write_summary
    from mcp_persona.runner import Judging, RunConfig, pending, run_suite
    from mcp_persona.store import RunStore, RunStoreError
    from mcp_persona.tasks import TaskFileError, suite_info

    takes_model = agent in (AgentKind.model, AgentKind.copilot)
    if takes_model and not model:
        raise fail(f"--agent {agent.value} needs --model (e.g. --model local or --model openai:gpt-4o-mini)")
    if not takes_model and model:
        raise fail(f"--model is only used with --agent model (got --agent {agent.value})")
    if max_requests is not None and agent is not AgentKind.model:
        raise fail("--max-requests limits a model agent's requests; use it with --agent model")
    if judge_max_requests is not None and judge.strip().lower() == "rules":
        raise fail("--judge-max-requests limits a judge model's requests; use it with --judge PROVIDER:MODEL")
    if resume and run_dir is None:
        raise fail("--resume needs the --run-dir of the run to finish")
    if one_call_per_turn and agent is not AgentKind.reference:
        raise fail("--one-call-per-turn is an option of --agent reference")
    tasks = load_suite(suite, only)
    try:
        protocol = get_protocol(suite_info(suite).protocol)
        given = {k: v for k, v in {"candidates": candidates, "distractors": distractors,
                                   "pool_size": pool_size}.items() if v is not None}
        settings = protocol.settings(given)
        max_rounds = max_rounds or protocol.max_rounds
    except (TaskFileError, ValueError) as exc:
        raise fail(f"{exc} (suite {suite!r})") from exc
    if agent is AgentKind.copilot and protocol.route_library is None:
        raise fail(f"--agent copilot routes over a tool library; the {protocol.name} protocol has none "
                   "(use --suite livemcpbench)")
    if limit is not None:
        tasks = tasks[:limit]
    try:
        skill_set = Skills(skills)
    except SkillsError as exc:
        raise fail(str(exc)) from exc
    if not takes_model and skills != "none":
        raise fail("--skills only changes what a model agent is told; use it with --agent model")
    if takes_model:
        kind = CopilotAgent if agent is AgentKind.copilot else ModelAgent
        try:
            client = make_client(model or "", base_url=base_url, api_key_env=api_key_env,
                                 max_concurrency=max_requests or concurrency)
            runner_agent = kind(client, max_rounds=max_rounds, skills=skill_set)
        except (ValueError, ModelError) as exc:
            raise fail(str(exc)) from exc
    else:
        runner_agent = (ReferenceAgent(one_call_per_turn=one_call_per_turn) if agent is AgentKind.reference
                        else NoopAgent())
    judging = None
    try:
        spec = judge_spec(judge)
        if spec is not None:
            check_self_judge(runner_agent.model, spec, allow=allow_self_judge)
            judge_client = make_client(spec, base_url=judge_base_url, api_key_env=judge_api_key_env,
                                       max_concurrency=judge_max_requests or concurrency, scope="judge")
            check_self_judge(runner_agent.model, judge_client.name, allow=allow_self_judge)
            judging = Judging.with_client(judge_client, judge_policy.value)
    except (ValueError, ModelError) as exc:  # SelfJudgeError is a ValueError
        raise fail(str(exc)) from exc
    suite_name = Path(suite).stem if os.sep in suite or suite.endswith(".json") else suite
    config = RunConfig(suite=suite_name, agent=agent.value, model=runner_agent.model, tools=tools.value,
                       max_rounds=max_rounds, context_distractors=context_distractors, skills=skills,
                       trials=trials, judge=judge, judge_policy=judge_policy.value, protocol=protocol.name,
                       protocol_options=settings)
    if run_dir is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")  # names the folder only; never enters scoring
        run_dir = Path("runs") / f"{suite_name}-{agent.value}-{stamp}"
    store = RunStore(run_dir)
    try:
        store.begin(config.to_dict(), resume=resume)
    except RunStoreError as exc:
        raise fail(str(exc)) from exc
    with Progress(TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True) as progress:
        status = LiveStatus(progress, progress.add_task("", total=len(pending(tasks, store, trials))))
        anyio.run(lambda: run_suite(tasks, runner_agent, store, tools=tools.value, concurrency=concurrency,
                                    context_distractors=context_distractors, trials=trials, judging=judging,
                                    protocol=protocol, settings=settings, on_start=status.started,
                                    on_done=status.finished))
    summary = build_summary(config, tasks, store.records())
    store.close()
    path = write_summary(run_dir, summary)
    print_summary(summary, console)
    console.print(f"run store: {run_dir / 'run.sqlite'}\nsummary: {path}")


class LiveStatus:
    """The status line under the progress bar: episodes running and failed, tokens and cost so far."""

    def __init__(self, progress: Progress, bar: TaskID) -> None:
        self.progress, self.bar = progress, bar
        self.running = self.failed = self.tokens_in = self.tokens_out = 0
        self.cost: float | None = 0.0

    def started(self, _task: object, _epoch: int) -> None:
        self.running += 1
        self._show()

    def finished(self, record: EpisodeRecord) -> None:
        self.running -= 1
        self.failed += record.status == "error"
        usage, cost = record.trajectory.usage, record.trajectory.cost_usd
        self.tokens_in += usage.input_tokens
        self.tokens_out += usage.output_tokens
        if record.trajectory.model_calls:
            self.cost = None if self.cost is None or cost is None else self.cost + cost
        self.progress.advance(self.bar)
        self._show()

    def _show(self) -> None:
        cost = "cost n/a" if self.cost is None else f"${self.cost:.4f}"
        self.progress.update(self.bar, description=(
            f"running {self.running} · failed {self.failed} · tokens {self.tokens_in:,}/{self.tokens_out:,} · {cost}"))


def register(app: typer.Typer) -> None:
    app.command()(run)
