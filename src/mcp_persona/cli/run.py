"""``mcp-persona run``: run an agent on a suite and score it."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import sys
import threading
import time
from collections.abc import Sequence
from datetime import datetime
from enum import Enum, StrEnum
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import anyio
import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from mcp_persona.cli.common import (
    EXIT_ENDPOINT,
    EXIT_EPISODE_ERRORS,
    PanelCommand,
    console,
    err,
    error_line,
    fail,
    load_suite,
    with_protocol_options,
)
from mcp_persona.store import EpisodeRecord


class AgentKind(StrEnum):
    reference = "reference"
    noop = "noop"
    model = "model"
    copilot = "copilot"
    external = "external"


AGENT_HELP = ("reference: replays each task's gold calls (the ceiling, 100); noop: answers without a call "
              "(the floor); model: the built-in agent loop, --model calling the task's tools; copilot: "
              "LiveMCPBench's agent, --model finding tools with route and calling them with execute; "
              "external: your own agent, the command --agent-cmd, over MCP")


class JudgePolicy(StrEnum):
    complement = "complement"
    replace = "replace"


class ToolsKind(StrEnum):
    selected = "selected"
    all = "all"


class ApiLimits(StrEnum):
    auto = "auto"
    openai = "openai"
    anthropic = "anthropic"
    compatible = "compatible"
    none = "none"


# run's options in panels of its help, in this order (the protocols' own options come last)
RUN_PANELS = ("The agent and its model", "Which tasks, how often", "Where the run goes", "Model settings",
              "Requests, limits and where episodes run", "Prices (for a model the price database lacks)", "Judge")
AgentOpt, TaskOpt, OutOpt, SettingOpt, RequestOpt, PriceOpt, JudgeOpt = (
    partial(typer.Option, rich_help_panel=panel) for panel in RUN_PANELS)


class RunCommand(PanelCommand):
    panel_order = RUN_PANELS


@with_protocol_options
def run(
    ctx: typer.Context,
    suite: Annotated[str, TaskOpt(help="a bundled suite name or a task file/folder")] = "persona",
    agent: Annotated[AgentKind, AgentOpt(help=AGENT_HELP)] = AgentKind.reference,
    model: Annotated[str | None, AgentOpt(
        help="'local', 'openai:NAME' or 'anthropic:NAME' (needed by --agent model and copilot)")] = None,
    base_url: Annotated[str | None, AgentOpt(help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[str | None, AgentOpt(
        help="environment variable with the API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")] = None,
    tools: Annotated[ToolsKind, TaskOpt(
        help="the task's servers, or every server of the suite (the paper's 'all tools')")] = ToolsKind.selected,
    max_rounds: Annotated[int | None, TaskOpt(
        min=1, max=200, help="agent rounds per episode (default: the suite's protocol's, 20; livemcp101: 30)")] = None,
    only: Annotated[str | None, TaskOpt("--tasks", help="only task ids matching these glob patterns (a,b*)")] = (
        None),
    limit: Annotated[int | None, TaskOpt(min=1, help="run only the first N tasks")] = None,
    sample: Annotated[int | None, TaskOpt(
        min=1, help="run a seeded sample of N tasks drawn across categories")] = None,
    sample_seed: Annotated[int, TaskOpt(help="the seed of --sample")] = 0,
    concurrency: Annotated[int, RequestOpt(min=1, max=64, help="episodes run at once")] = 1,
    max_requests: Annotated[int | None, RequestOpt(
        min=1, max=256, help="model requests in flight to the agent's endpoint (default: --concurrency)")] = None,
    judge_max_requests: Annotated[int | None, JudgeOpt(
        min=1, max=256, help="requests in flight to the judge's endpoint, apart from the agent's "
                             "(default: --concurrency)")] = None,
    run_dir: Annotated[Path | None, OutOpt(
        help="where the run store and summary go (default: runs/SUITE-LABEL-or-AGENT-TIME)")] = None,
    label: Annotated[str | None, OutOpt(
        help="a name for the run, shown in its summary, the report, the leaderboard and compare")] = None,
    resume: Annotated[bool, OutOpt(help="finish the run in --run-dir")] = False,
    context_distractors: Annotated[int, TaskOpt(min=0, max=50, help="extra unrelated paragraphs per task")] = 0,
    skills: Annotated[str, TaskOpt(help="'none', 'bundled' (each app's guide) or a skill document FILE")] = "none",
    trials: Annotated[int, TaskOpt(min=1, max=32, help="repeated trials per task (pass@k, pass^k)")] = 1,
    judge: Annotated[str, JudgeOpt(help="'rules' (deterministic, offline) or a judge model 'provider:model'")] = (
        "rules"),
    judge_policy: Annotated[JudgePolicy, JudgeOpt(
        help="complement: the judge decides what rules cannot; replace: the judge scores every checkpoint")] = (
        JudgePolicy.complement),
    judge_base_url: Annotated[str | None, JudgeOpt(help="endpoint of the judge model")] = None,
    judge_api_key_env: Annotated[str | None, JudgeOpt(help="environment variable with the judge's key")] = None,
    allow_self_judge: Annotated[bool, JudgeOpt(help="let the agent's own model judge it")] = False,
    temperature: Annotated[float | None, SettingOpt(
        help="sampling temperature (default: 0 on OpenAI-compatible chat models, the provider's otherwise)")] = None,
    top_p: Annotated[float | None, SettingOpt(help="nucleus sampling (default: the provider's)")] = None,
    max_tokens: Annotated[int | None, SettingOpt(
        help="most tokens per answer, reasoning included (default 4096; local 256)")] = None,
    seed: Annotated[int | None, SettingOpt(help="sampling seed, where the API has one (not Anthropic)")] = None,
    reasoning_effort: Annotated[str | None, SettingOpt(
        help="reasoning models: OpenAI none|minimal|low|medium|high|xhigh; Anthropic low|medium|high|xhigh|max")] = (
        None),
    thinking_budget: Annotated[int | None, SettingOpt(
        help="Anthropic extended thinking: budget_tokens (>= 1024, below --max-tokens)")] = None,
    price_in: Annotated[float | None, PriceOpt(
        min=0.0, help="the model's input price in USD per million tokens, with --price-out: for a self-hosted "
                      "model or one the price database lacks")] = None,
    price_out: Annotated[float | None, PriceOpt(
        min=0.0, help="the model's output price in USD per million tokens (reasoning included)")] = None,
    price_cached_in: Annotated[float | None, PriceOpt(
        min=0.0, help="the model's price of cached input tokens (default: --price-in)")] = None,
    judge_price_in: Annotated[float | None, JudgeOpt(
        min=0.0, help="the judge model's input price in USD per million tokens, with --judge-price-out")] = None,
    judge_price_out: Annotated[float | None, JudgeOpt(
        min=0.0, help="the judge model's output price in USD per million tokens")] = None,
    api_limits: Annotated[ApiLimits, RequestOpt(
        help="request limits to hold requests to: auto (by provider and URL), openai (128 tools; for gateways "
             "that forward to OpenAI), anthropic, compatible (vLLM, Ollama: no tool maximum), none")] = (
        ApiLimits.auto),
    request_timeout: Annotated[float, RequestOpt(min=1.0, help="seconds per model request attempt")] = 180.0,
    max_attempts: Annotated[int, RequestOpt(
        min=1, max=20, help="attempts per model request (retries of rate limits, 5xx, timeouts)")] = 5,
    max_consecutive_errors: Annotated[int, RequestOpt(
        min=0, help="stop the run when this many episodes in a row fail on the model endpoint the same way "
                    "(0: never)")] = 3,
    embeddings_url: Annotated[str | None, AgentOpt(
        help="copilot: route with an OpenAI-compatible embeddings endpoint instead of BM25 (as the paper)")] = None,
    embeddings_model: Annotated[str, AgentOpt(help="copilot: the embedding model at --embeddings-url")] = "",
    executor: Annotated[str, RequestOpt(
        help="where episodes run: local (this process) or ray (the Ray cluster at --ray-address)")] = "local",
    ray_address: Annotated[str | None, RequestOpt(
        help="the Ray cluster to join (host:port, or 'auto' for the one on this machine; default: start one)")] = (
        None),
    preflight_check: Annotated[bool, RequestOpt(
        "--preflight/--no-preflight", help="one small request to each endpoint before the first episode")] = True,
    one_call_per_turn: Annotated[bool, AgentOpt(
        help="reference agent only: issue each parallel gold step one call per turn (a TEFS check)")] = False,
    agent_cmd: Annotated[str | None, AgentOpt(
        help="--agent external: the command that plays an episode over MCP (see 'Evaluate your agent')")] = None,
    agent_timeout: Annotated[float, AgentOpt(
        min=1.0, help="--agent external: seconds the command may take per episode")] = 600.0,
    protocol_options: dict[str, Any] | None = None,
) -> None:
    """Run an agent on a suite, score every episode, and write DIR/summary.json."""
    from mcp_persona.protocols import all_options

    given = dict(protocol_options or {})
    if (os.sep in suite or suite.endswith(".json")) and Path(suite).exists():
        suite = str(Path(suite).resolve())  # stored so: --resume from any folder finds the same tasks
    flags = dict(locals())  # the parameters alone: nothing else is bound yet
    for name in ("ctx", "protocol_options", "given", "all_options"):
        del flags[name]
    flags |= {o.name: given.get(o.name) for o in all_options()}  # each protocol option as its own flag
    if resume and run_dir is not None and (merged := stored_flags(ctx, flags, run_dir)) != flags:
        return run(ctx, **merged)  # the flags not given now are the stored run's
    from mcp_persona.agents.recipe import AgentRecipe
    from mcp_persona.agents.skills import Skills, SkillsError
    from mcp_persona.judges.config import check_self_judge, judge_spec
    from mcp_persona.llm import ModelError, ModelSettings, PriceOverride, RetryPolicy, make_client
    from mcp_persona.llm.pricing import pricing_record
    from mcp_persona.protocols import suite_protocol
    from mcp_persona.report.summary import build_summary, print_summary, write_summary
    from mcp_persona.runner import CircuitBreaker, Judging, RunConfig, RunStopped, pending, run_suite
    from mcp_persona.store import RunStoreError, open_run
    from mcp_persona.tasks import TaskFileError

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
    if embeddings_url is not None and agent is not AgentKind.copilot:
        raise fail("--embeddings-url changes the copilot's retrieval; use it with --agent copilot")
    if executor not in ("local", "ray"):
        raise fail(f"--executor {executor!r}: use local or ray")
    if executor == "ray" and judge.strip().lower() != "rules":
        raise fail("--executor ray runs rule-scored episodes; a judge model runs with --executor local")
    if ray_address is not None and executor != "ray":
        raise fail("--ray-address is for --executor ray")
    for opt in all_options():
        if opt.needs_judge and opt.name in given and judge.strip().lower() == "rules":
            raise fail(f"{opt.flag} says what decides with a judge's verdict; give --judge PROVIDER:MODEL too")
    if one_call_per_turn and agent is not AgentKind.reference:
        raise fail("--one-call-per-turn is an option of --agent reference")
    if (agent is AgentKind.external) != (agent_cmd is not None):
        raise fail("--agent external needs --agent-cmd" if agent is AgentKind.external
                   else "--agent-cmd is the command of --agent external")
    tasks = load_suite(suite, only)
    try:
        protocol = suite_protocol(suite)
        settings = protocol.settings(given)
        max_rounds = max_rounds or protocol.max_rounds
    except (TaskFileError, ValueError) as exc:
        raise fail(f"{exc} (suite {suite!r})") from exc
    unused = [flag for flag, name, given in (("--skills", "skills", skills != "none"),
                                             ("--context-distractors", "context_distractors", context_distractors > 0))
              if given and name not in protocol.honours]
    if unused:
        raise fail(f"{' and '.join(unused)} would change nothing the {protocol.name} protocol tells the agent "
                   "(its prompts do not carry them); leave them out for this suite")
    if why := protocol.tools_problem(tools.value):
        raise fail(why)
    if agent is AgentKind.copilot and protocol.route_library is None:
        raise fail(f"--agent copilot routes over a tool library; the {protocol.name} protocol has none "
                   "(use --suite livemcpbench)")
    if limit is not None and sample is not None:
        raise fail("--limit takes the first N tasks and --sample a seeded sample of N: give one of them")
    if limit is not None:
        tasks = tasks[:limit]
    if sample is not None:
        tasks = sample_tasks(tasks, sample, sample_seed)
    unmakeable = [f"  task {t.id}: {p}" for t in tasks for p in protocol.gold_problems(t)]
    if unmakeable:
        more = f"\n  ... and {len(unmakeable) - 8} more" if len(unmakeable) > 8 else ""
        raise fail(f"{suite}: gold calls no agent can make (fix the task file; 'mcp-persona validate --suite "
                   f"{suite}' checks the rest):\n" + "\n".join(unmakeable[:8]) + more)
    try:
        run_skills = Skills(skills)
    except SkillsError as exc:
        raise fail(str(exc)) from exc
    if not takes_model and skills != "none":
        raise fail("--skills only changes what a model agent is told; use it with --agent model")
    model_settings = ModelSettings(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                   reasoning_effort=reasoning_effort, thinking_budget=thinking_budget)
    if not takes_model and model_settings.to_dict():
        raise fail(f"--{next(iter(model_settings.to_dict())).replace('_', '-')} is a model setting; use it with "
                   "--agent model or copilot")
    try:
        price = PriceOverride.from_flags(price_in, price_out, price_cached_in)
        judge_price = PriceOverride.from_flags(judge_price_in, judge_price_out, flag="--judge-price")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    if price is not None and not takes_model:
        raise fail("--price-in/--price-out price a model's calls; use them with --agent model or copilot")
    if judge_price is not None and judge.strip().lower() == "rules":
        raise fail("--judge-price-in/--judge-price-out price a judge model's calls; give --judge PROVIDER:MODEL too")
    retry = RetryPolicy(max_attempts=max_attempts, timeout_s=request_timeout)
    recipe = AgentRecipe(agent.value, model=model, base_url=base_url, api_key_env=api_key_env,
                         api_limits=api_limits.value, settings=model_settings.to_dict(), max_rounds=max_rounds,
                         skills=skills, one_call_per_turn=one_call_per_turn, max_requests=max_requests or concurrency,
                         request_timeout=request_timeout, max_attempts=max_attempts,
                         price=price.to_dict() if price else None,
                         embeddings=json.dumps({"base_url": embeddings_url, "model": embeddings_model})
                         if embeddings_url else "", agent_cmd=agent_cmd or "", agent_timeout=agent_timeout)
    try:
        runner_agent = recipe.build()
    except (ValueError, ModelError) as exc:
        raise fail(str(exc)) from exc
    client = getattr(runner_agent, "client", None)
    if agent is AgentKind.model:
        check_pool_limits(client, protocol, tasks, settings, tools.value)
    judging = None
    try:
        spec = judge_spec(judge)
        if spec is not None:
            check_self_judge(runner_agent.model, spec, allow=allow_self_judge)
            judge_client = make_client(spec, base_url=judge_base_url, api_key_env=judge_api_key_env, retry=retry,
                                       max_concurrency=judge_max_requests or concurrency, scope="judge",
                                       price=judge_price)
            check_self_judge(runner_agent.model, judge_client.name, allow=allow_self_judge)
            judging = Judging.with_client(judge_client, judge_policy.value)
    except (ValueError, ModelError) as exc:  # SelfJudgeError is a ValueError
        raise fail(str(exc)) from exc
    if preflight_check:
        endpoints = [(c, role) for c, role in ((client, "agent"), (judging.client if judging else None,
                                                                   "judge")) if c is not None]
        check_endpoints(endpoints)
    suite_name = Path(suite).stem if os.sep in suite or suite.endswith(".json") else suite
    config = RunConfig(suite=suite_name, agent=agent.value, model=runner_agent.model, tools=tools.value,
                       max_rounds=max_rounds, context_distractors=context_distractors, skills=skills,
                       trials=trials, judge=judge, judge_policy=judge_policy.value, protocol=protocol.name,
                       protocol_options=settings, model_settings=model_settings.to_dict(),
                       flags=plain_flags(flags), label=label.strip() if label and label.strip() else None,
                       pricing={role: pricing_record(p) for role, p, used in (
                           ("agent", price, takes_model), ("judge", judge_price, judging is not None)) if used})
    if run_dir is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")  # names the folder only; never enters scoring
        who = re.sub(r"[^A-Za-z0-9._+-]+", "_", config.label).strip("_") if config.label else agent.value
        run_dir = Path("runs") / f"{suite_name}-{who or agent.value}-{stamp}"
        n = 1
        while run_dir.exists():  # two runs started within one second
            n += 1
            run_dir = Path("runs") / f"{suite_name}-{who or agent.value}-{stamp}-{n}"
    try:
        store = open_run(run_dir, config.to_dict(), resume=resume, tasks=tasks)
    except RunStoreError as exc:
        raise fail(str(exc)) from exc
    breaker = CircuitBreaker(max_consecutive_errors) if max_consecutive_errors and takes_model else None
    stopped: str | None = None
    finish = resume_command(run_dir)
    interrupted: int | None = None
    with Progress(TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True) as progress:
        status = LiveStatus(progress, progress.add_task("", total=len(pending(tasks, store, trials))),
                            plain=not err.is_terminal, measured=agent is not AgentKind.external)
        try:
            remote = ray_episodes(ray_address, recipe, protocol.name, settings, tools.value,
                                  context_distractors) if executor == "ray" else None
            with terminate_as_interrupt() as caught:
                anyio.run(lambda: run_suite(tasks, runner_agent, store, tools=tools.value, concurrency=concurrency,
                                            context_distractors=context_distractors, skills=run_skills,
                                            trials=trials,
                                            judging=judging, protocol=protocol, settings=settings,
                                            on_start=status.started, on_done=status.finished, breaker=breaker,
                                            executor=remote))
                if caught.requested:  # the interrupt was raised where Python drops it (a finalizer)
                    raise KeyboardInterrupt
        except RunStopped as exc:
            stopped = str(exc)
        except KeyboardInterrupt:
            interrupted = caught.exit_code
    if interrupted is not None:
        saved = len(store.finished())
        store.close()
        err.print(f"interrupted: {saved} of {len(tasks) * trials} episodes are saved in {escape(str(run_dir))}; "
                  f"finish the run with:\n  {escape(resume_command(run_dir, bare=True))}", soft_wrap=True)
        raise typer.Exit(interrupted)
    summary = build_summary(config, tasks, store.records())
    store.close()
    path = write_summary(run_dir, summary)
    if stopped is not None:
        error_line(f"run stopped: {stopped}")
        err.print(f"{summary['n_episodes']} of {len(tasks) * trials} episodes are stored; once the endpoint works, "
                  f"finish with:\n  {escape(finish)}", soft_wrap=True)
        raise typer.Exit(EXIT_ENDPOINT)
    errors = summary["errors"]
    if summary["n_scored"]:
        print_summary(summary, console)
        if summary["cost"]["pricing"]:  # a run with a model to price
            console.print(cost_line(summary["cost"]), highlight=False, soft_wrap=True)
    console.print(f"run store: {run_dir / 'run.sqlite'}\nsummary: {path}")
    if model == "local":
        console.print("The bundled local model (SmolLM2, 135M parameters) is expected to score about 0: it shows "
                      "the whole loop runs offline, not what a capable model does.")
    console.print(f"look at it: mcp-persona report {shlex.quote(str(run_dir))} --html "
                  f"{shlex.quote(str(run_dir / 'report.html'))}", soft_wrap=True)
    if errors["n"]:
        classes = ", ".join(f"{k} {v}" for k, v in errors["by_class"].items())
        lead = "no episode was scored" if not summary["n_scored"] else "the scores count them as failures"
        error_line(f"{errors['n']} of {summary['n_episodes']} episodes errored ({classes}); {lead}")
        for cls, message in errors["first"].items():
            err.print(f"  {cls}: {escape(message)}", soft_wrap=True)
        err.print(f"each episode's whole error is kept in {escape(str(run_dir / 'run.sqlite'))}; write them out "
                  f"with: mcp-persona export {escape(shlex.quote(str(run_dir)))}", soft_wrap=True)
        err.print(f"errored episodes are run again by:\n  {escape(finish)}", soft_wrap=True)
        raise typer.Exit(EXIT_EPISODE_ERRORS)


def check_pool_limits(client: Any, protocol: Any, tasks: Sequence[Any], settings: dict[str, Any],
                      tools: str) -> None:
    """Refuse, before anything is sent, a run whose tool pools the client's API takes no request of."""
    limits = getattr(client, "limits", None)
    if limits is None or limits.max_tools is None:
        return
    over: list[tuple[str, int]] = []
    for task in tasks:
        try:
            count = protocol.tool_count(protocol.pool(task, settings, tools))
        except (KeyError, ValueError) as exc:
            raise fail(str(exc)) from exc
        if count > limits.max_tools:
            over.append((task.id, count))
    if not over:
        return
    most = max(n for _, n in over)
    if protocol.route_library is not None:
        way = ("the paper's agent is the copilot, which reaches the library through two tools: "
               "use --agent copilot")
    elif tools == "all":
        way = "use --tools selected, or a provider without that limit (Anthropic, a vLLM --base-url)"
    else:
        way = "lower --tool-budget or --pool-size, or use a provider without that limit"
    raise fail(f"{len(over)} of {len(tasks)} tasks would offer the model up to {most} tools a request; "
               f"{limits.api} takes at most {limits.max_tools} ({way}; --api-limits none if your endpoint "
               "accepts more)")


def check_endpoints(endpoints: Sequence[tuple[Any, str]]) -> None:
    """The preflight request to each endpoint; the first that fails stops the run (exit 4) with its cause."""
    from mcp_persona.llm.preflight import PreflightError, preflight

    async def check() -> None:
        for client, role in endpoints:
            await preflight(client, role=role, with_tools=role == "agent")

    try:
        anyio.run(check)
    except PreflightError as exc:
        error_line(str(exc))
        raise typer.Exit(EXIT_ENDPOINT) from exc


def stored_flags(ctx: typer.Context, flags: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """``flags`` with every one not given on this command line taken from the run stored in ``run_dir`` (so
    ``--resume --run-dir DIR`` alone finishes a run as it was started); ``flags`` as they are when the folder
    holds no run made with stored flags."""
    from mcp_persona.store import read_config

    stored = (read_config(run_dir) or {}).get("flags")
    if not isinstance(stored, dict):
        return flags
    merged = dict(flags)
    for name, value in stored.items():
        if name not in flags or name in ("resume", "run_dir"):
            continue
        source = ctx.get_parameter_source(name)  # by name: typer may carry a click of its own
        if source is None or source.name in ("DEFAULT", "DEFAULT_MAP"):
            current = flags[name]
            merged[name] = type(current)(value) if isinstance(current, Enum) and value is not None else value
    return merged


def cost_line(cost: dict[str, Any]) -> str:
    """The run's cost in one line: in all and per task with where the prices came from, or why it is unknown."""
    sources = ", ".join(f"{role} {p['source']}" for role, p in (cost.get("pricing") or {}).items())
    if cost["usd"] is None:
        return "cost unknown: " + "; ".join(cost["unknown_because"] or ["no model call was priced"])
    return f"cost ${cost['usd']:.4f} (${cost['per_task_usd']:.4f} per task) · prices: {sources or '-'}"


def plain_flags(flags: dict[str, Any]) -> dict[str, Any]:
    """The command's flags as JSON values, for the store (``--resume`` alone reuses them)."""
    return {k: v.value if isinstance(v, Enum) else str(v) if isinstance(v, Path) else v
            for k, v in flags.items() if k not in ("resume", "run_dir")}


def sample_tasks(tasks: Sequence[Any], n: int, seed: int = 0) -> list[Any]:
    """A seeded sample of ``n`` tasks spread over the categories: a category at a time, in turn, each giving
    its next task of a seeded shuffle; the sample keeps the suite's order."""
    by_category: dict[str, list[Any]] = {}
    for task in tasks:
        by_category.setdefault(task.spec.category, []).append(task)
    rng = random.Random(seed)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_category.items())]
    rng.shuffle(queues)
    chosen: set[str] = set()
    while len(chosen) < min(n, len(tasks)):
        for queue in queues:
            if queue and len(chosen) < n:
                chosen.add(queue.pop().id)
    return [t for t in tasks if t.id in chosen]


class terminate_as_interrupt:
    """SIGTERM handled as Ctrl-C (a run stops the same way and says how to finish it); ``exit_code`` is the
    shell's code for the signal that stopped it (130 SIGINT, 143 SIGTERM).

    Both handlers are set here, whatever the process inherited: a job started in the background by a
    non-interactive shell (``cmd &`` in a script, as schedulers and CI start one) inherits SIGINT *ignored*,
    and then neither Python's Ctrl-C nor the event loop's cancellation would ever run. SIGTERM sets the exit
    code and raises the same interrupt, through the event loop's SIGINT handler when one is in force (its
    episodes are cancelled cleanly), else as KeyboardInterrupt in the main thread."""

    def __init__(self) -> None:
        self.exit_code = 130
        self.requested = False  # a signal came: checked where an interrupt raised in a finalizer would be lost
        self._previous: dict[int, Any] = {}

    def _on_term(self, signum: int, frame: Any) -> None:
        self.exit_code = 143
        self.requested = True
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)  # the event loop's (cancels the run), or Python's (raises)
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> terminate_as_interrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = {signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
                              signal.SIGTERM: signal.signal(signal.SIGTERM, self._on_term)}
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous = {}


def ray_episodes(address: str | None, recipe: Any, protocol: str, settings: dict[str, Any], tools: str,
                 context_distractors: int) -> Any:
    """The Ray executor's episode function (the cluster joined once per process)."""
    from mcp_persona.ray_executor import RayExecutor, RayUnavailable

    try:
        return RayExecutor(address, recipe, protocol, settings, tools, context_distractors).episode
    except RayUnavailable as exc:
        raise fail(str(exc)) from exc


def resume_command(run_dir: Path, *, bare: bool = False) -> str:
    """This very command line, made to finish the run in ``run_dir``; ``bare``: only ``--resume --run-dir``
    (the store holds the rest)."""
    if bare:
        return f"mcp-persona run --resume --run-dir {shlex.quote(str(run_dir))}"
    args = list(sys.argv[1:])
    if "--resume" not in args:
        args.append("--resume")
    if not any(a == "--run-dir" or a.startswith("--run-dir=") for a in args):
        args += ["--run-dir", str(run_dir)]
    return "mcp-persona " + " ".join(shlex.quote(a) for a in args)


class LiveStatus:
    """The status line under the progress bar: episodes running and failed, tokens and cost so far. Outside
    a terminal (a pipe, nohup, CI) the bar shows nothing, so ``plain`` prints the status as a line of its own
    every few episodes."""

    def __init__(self, progress: Progress, bar: TaskID, *, plain: bool = False, measured: bool = True) -> None:
        self.progress, self.bar = progress, bar
        self.measured = measured  # False: the agent's model calls are its own (external): tokens and cost unknown
        self.running = self.failed = self.tokens_in = self.tokens_out = self.done = 0
        self.cost: float | None = 0.0
        self.plain = plain
        self.total = int(progress.tasks[0].total or 0) if progress.tasks else 0
        self.every = max(1, min(10, self.total // 20))
        self.start = time.monotonic()

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
        self.done += 1
        self._show()
        if self.plain and (self.done % self.every == 0 or self.done == self.total):
            err.print(f"episodes {self.done}/{self.total} · {time.monotonic() - self.start:.0f} s · "
                      f"{self._text()}", soft_wrap=True, highlight=False)

    def _text(self) -> str:
        if not self.measured:
            return f"running {self.running} · failed {self.failed} · tokens unknown · cost unknown"
        cost = "cost unknown" if self.cost is None else f"${self.cost:.4f}"
        return (f"running {self.running} · failed {self.failed} · tokens in/out {self.tokens_in:,}/"
                f"{self.tokens_out:,} · {cost}")

    def _show(self) -> None:
        self.progress.update(self.bar, description=self._text())


def register(app: typer.Typer) -> None:
    app.command(cls=RunCommand)(run)
