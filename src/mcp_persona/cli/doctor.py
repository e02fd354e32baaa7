"""``mcp-persona doctor``: is a model endpoint fit for a benchmark run? Checked before a sweep, in seconds.

Each check is one small request (or a look at what the endpoint reports), in the order a run needs them:

* **answers**: a plain request gets an answer; when not, the cause in one line (connection refused, a key
  refused, an unknown model, no answer in time) and what to check;
* **tool calls**: a request that obviously needs a tool gets a structured tool call, not one written as
  text in the answer (what vLLM without a tool-call parser, or a model without tool support, sends);
* **arguments**: the call's arguments are a JSON object that holds to the tool's schema;
* **parallel calls**: two independent lookups asked for at once come as two calls in one turn (a warning
  only: a run works without, but parallel-aware scores such as MCPAgentBench's TEFS count it);
* **context window**: the largest first request of each suite (tool definitions and prompts, estimated as
  the runs estimate them, plus the answer's reserved tokens) fits the window the endpoint reports (vLLM's
  ``max_model_len`` in ``/models``), else the one the price database lists, else a probe of that size.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

import anyio
import typer
from rich.markup import escape

from mcp_persona.cli.common import EXIT_ENDPOINT, console, fail

Status = Literal["pass", "warn", "fail", "skip"]

WEATHER_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city: temperature and conditions.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "the city's name"}},
                   "required": ["city"], "additionalProperties": False}}}
SYSTEM = "You are an assistant with tools. When a tool can answer, call it instead of answering from memory."
PLAIN = "Reply with the single word OK."
ONE_CALL = "What is the weather in Paris right now? Use the get_weather tool."
TWO_CALLS = ("What is the weather in Paris and in Tokyo right now? Call get_weather for both cities at once, "
             "in this one turn: the two lookups do not depend on each other.")

# A tool call written into the answer's text: the tags chat templates use, or the call's own JSON.
_TEXT_CALL = re.compile(r"<\|?tool_call\|?>|\[TOOL_CALLS\]|<function[=>]|<\|python_tag\|>"
                        r"|\"name\"\s*:\s*\"get_weather\"|get_weather\s*\(", re.IGNORECASE)
PARSER_FIX = ("the server returned tool calls as text: for vLLM start it with --enable-auto-tool-choice "
              "--tool-call-parser <parser> (hermes for Qwen, llama3_json for Llama 3, mistral for Mistral); "
              "for Ollama use a model with tool support")
# What vLLM answers a request with tools when it was started without a tool-call parser
_NO_PARSER = re.compile(r"tool.choice|tool-call-parser|enable-auto-tool-choice", re.IGNORECASE)
WINDOW_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length")


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""
    required: bool = True


def tool_calls_as_text(content: str | None) -> bool:
    """Whether an answer's text holds a tool call the server did not turn into a structured one."""
    return bool(content and _TEXT_CALL.search(content))


def _messages(prompt: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _endpoint_failure(name: str, exc: Exception) -> Check:
    from mcp_persona.llm.preflight import fix_for

    message = str(exc)
    if _NO_PARSER.search(message):
        return Check(name, "fail", _one_line(message), PARSER_FIX)
    return Check(name, "fail", _one_line(message), fix_for(exc) if hasattr(exc, "category") else "")


def check_tool_call(resp: Any) -> Check:
    calls = resp.tool_calls
    if calls:
        names = sorted({c.name for c in calls})
        if names != ["get_weather"]:
            return Check("tool calls", "fail", f"called {', '.join(map(repr, names))}, not the offered get_weather",
                         "the server may be rewriting tool names; check its tool-call parser")
        return Check("tool calls", "pass", f"{len(calls)} structured call(s) to get_weather")
    if tool_calls_as_text(resp.content):
        return Check("tool calls", "fail", f"a tool call in the answer's text: {_one_line(resp.content or '', 120)}",
                     PARSER_FIX)
    return Check("tool calls", "fail", f"answered without calling the tool: {_one_line(resp.content or '', 120)!r}",
                 "use a model trained for tool calling")


def check_arguments(calls: Sequence[Any]) -> Check:
    import jsonschema

    schema = WEATHER_TOOL["function"]["parameters"]
    for call in calls:
        try:
            args = json.loads(call.arguments or "")
        except json.JSONDecodeError as exc:
            return Check("arguments", "fail", f"not JSON: {_one_line(call.arguments or '(empty)', 120)} ({exc.msg})",
                         "the server's tool-call parser does not match the model (vLLM: --tool-call-parser)")
        try:
            jsonschema.validate(args, schema)
        except jsonschema.ValidationError as exc:
            return Check("arguments", "fail", f"{json.dumps(args)} breaks the schema: {exc.message}",
                         "a model that follows tool schemas (or vLLM's --guided-decoding-backend for tools)")
    return Check("arguments", "pass", "; ".join(c.arguments for c in calls))


def check_parallel(resp: Any) -> Check:
    n = len(resp.tool_calls)
    if n >= 2:
        return Check("parallel calls", "pass", f"{n} calls in one turn", required=False)
    if n == 0 and tool_calls_as_text(resp.content):
        return Check("parallel calls", "fail", "tool calls in the answer's text", PARSER_FIX)
    return Check("parallel calls", "warn", f"{n} call(s) where two independent ones were asked for at once",
                 "runs work, one call a turn; scores that reward parallel calls (MCPAgentBench's TEFS) count it; "
                 "for vLLM check that the --tool-call-parser supports parallel calls", required=False)


# --- the context window -------------------------------------------------------------------------------------------


MEASURE_BUDGET_S = 15.0  # per suite: every task where opening its environment is quick, the most tools first


@dataclass(frozen=True)
class LargestRequest:
    task_id: str
    tokens: int
    measured: int  # tasks measured
    tasks: int  # tasks in the suite


@cache
def largest_first_request(suite: str, budget_s: float = MEASURE_BUDGET_S) -> LargestRequest:
    """The largest first request of ``suite`` at its defaults, in estimated tokens: the system and user
    prompts and the tool definitions a model agent sends (the copilot's, where the suite's agent is the
    copilot), estimated as runs estimate them. Tasks are measured most tools first until ``budget_s`` is
    spent (at least one): every task of a suite whose environments open quickly."""
    from mcp_persona.agents import CopilotAgent, ModelAgent
    from mcp_persona.agents.tool_schema import estimate_tokens, spec_chars
    from mcp_persona.llm.base import wire_json
    from mcp_persona.protocols import load_tasks, suite_protocol

    protocol = suite_protocol(suite)
    settings = protocol.settings({})
    pools = [(protocol.pool(task, settings, "selected"), task) for task in load_tasks(suite)]
    pools.sort(key=lambda pt: -protocol.tool_count(pt[0]))
    agent = (CopilotAgent if protocol.route_library is not None else ModelAgent)(_NoClient())

    async def measure() -> LargestRequest:
        best, measured, start = ("", 0), 0, time.perf_counter()
        for spec, task in pools:
            if measured and time.perf_counter() - start > budget_s:
                break
            async with protocol.environment(task, "selected", spec) as env:
                tools = agent.tool_specs(env)
                # what the runner hands the agent, with the agent's own additions (the copilot's note)
                given = protocol.system_prompt(task, env, None)
                messages = [{"role": "system", "content": agent.system_prompt(given, env)},
                            {"role": "user", "content": protocol.user_prompt(task)}]
                tokens = estimate_tokens(len(wire_json(messages)) + spec_chars(tools))
            best, measured = max(best, (task.id, tokens), key=lambda b: b[1]), measured + 1
        return LargestRequest(best[0], best[1], measured, len(pools))

    return anyio.run(measure)


class _NoClient:
    """The agent measured above only builds its prompts and tools: it never calls a model."""

    name = "none"


def reported_window(client: Any, api_key: str | None) -> tuple[int | None, str]:
    """(context window in tokens, where it was read) or (None, why not): the endpoint's ``/models`` entry of
    the model (vLLM's ``max_model_len``, OpenRouter's ``context_length``), else the price database's."""
    import urllib.request

    from mcp_persona.llm.pricing import find_price, pricing_version

    base_url = getattr(client, "base_url", None)
    if base_url:
        request = urllib.request.Request(base_url.rstrip("/") + "/models",
                                         headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
        try:
            with urllib.request.urlopen(request, timeout=10.0) as r:
                entries = json.loads(r.read()).get("data")
        except (OSError, ValueError, AttributeError):  # no listing (HTTPError is an OSError): the next source
            entries = None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("id") == client.model:
                for key in WINDOW_KEYS:
                    if isinstance(entry.get(key), int) and entry[key] > 0:
                        return entry[key], f"the endpoint's /models ({key})"
    found = find_price(client.name, base_url)
    if found is not None and found[1].context_window:
        return int(found[1].context_window), pricing_version()
    return None, "not reported"


async def probe_window(client: Any, tokens: int) -> Check:
    """A request of about ``tokens`` tokens, to read the limit from the refusal (when no window is reported)."""
    from mcp_persona.agents.tool_schema import CHARS_PER_TOKEN
    from mcp_persona.llm.base import ModelError

    filler = ("lorem ipsum dolor sit amet " * (int(tokens * CHARS_PER_TOKEN) // 27 + 1))
    try:
        await client.complete([{"role": "user", "content": filler + "\nReply with the single word OK."}], [])
    except ModelError as exc:
        return Check("context window", "fail", f"a request of ~{tokens:,} tokens was refused: {_one_line(str(exc))}",
                     "serve the model with a longer context (vLLM: --max-model-len; Ollama: OLLAMA_CONTEXT_LENGTH) "
                     "or lower --max-tokens")
    return Check("context window", "pass", f"not reported; a request of ~{tokens:,} tokens was accepted (Ollama "
                                           "may cut a long prompt silently: set OLLAMA_CONTEXT_LENGTH)")


def window_checks(client: Any, largest: dict[str, LargestRequest], window: int | None, source: str) -> list[Check]:
    """One check per suite: its largest first request and the answer's tokens within ``window``."""
    answer = client.settings.answer_tokens
    checks = []
    for suite, big in largest.items():
        prompt = big.tokens
        need = prompt + answer
        of = (f"the largest of all {big.tasks} tasks" if big.measured == big.tasks else
              f"the largest of the {big.measured} of its {big.tasks} tasks measured in the time allowed")
        detail = (f"the largest first request of {suite} (task {big.task_id}, {of}) is about {prompt:,} tokens, "
                  f"and {answer:,} are kept for the answer")
        name = f"context window for {suite}"
        if window is None:
            checks.append(Check(name, "warn", f"{detail}; the endpoint does not report its window", required=False))
        elif need <= window:
            checks.append(Check(name, "pass", f"{detail}: {need:,} fit the {window:,}-token window ({source})"))
        else:
            fix = (f"lower --max-tokens to {window - prompt:,} or less, or serve a longer context"
                   if prompt < window else "serve the model with a longer context (vLLM: --max-model-len "
                                           f"{need:,} or more) or use a model with a larger window")
            checks.append(Check(name, "fail", f"{detail}: {need:,} exceed the {window:,}-token window ({source})",
                                fix))
    return checks


# --- the command ----------------------------------------------------------------------------------------------------


async def diagnose(client: Any, suites: Sequence[str], api_key: str | None) -> list[Check]:
    from mcp_persona.llm.base import ModelError

    start = time.perf_counter()
    try:
        await client.complete(_messages(PLAIN), [])
    except ModelError as exc:
        skipped = ("tool calls", "arguments", "parallel calls", "context window")
        return [_endpoint_failure("answers", exc),
                *(Check(n, "skip", "the endpoint does not answer", required=False) for n in skipped)]
    checks = [Check("answers", "pass", f"in {time.perf_counter() - start:.1f} s")]
    try:
        one = await client.complete(_messages(ONE_CALL), [WEATHER_TOOL])
    except ModelError as exc:
        checks += [_endpoint_failure("tool calls", exc), Check("arguments", "skip", "no tool call", required=False)]
    else:
        checks.append(check_tool_call(one))
        checks.append(check_arguments(one.tool_calls) if one.tool_calls
                      else Check("arguments", "skip", "no tool call", required=False))
    try:
        two = await client.complete(_messages(TWO_CALLS), [WEATHER_TOOL])
    except ModelError as exc:
        checks.append(_endpoint_failure("parallel calls", exc))
    else:
        checks.append(check_parallel(two))
    if suites:
        # measured in a worker thread: opening a task's environment runs an event loop of its own
        largest = {s: await anyio.to_thread.run_sync(largest_first_request, s) for s in suites}
        window, source = await anyio.to_thread.run_sync(reported_window, client, api_key)
        if window is None:
            need = max(big.tokens for big in largest.values()) + client.settings.answer_tokens
            probe = await probe_window(client, need)
            checks.append(probe)
            if probe.status == "pass":
                window, source = need, "probed"
        checks += window_checks(client, largest, window, source)
    return checks


STYLE = {"pass": "green", "warn": "yellow", "fail": "red", "skip": "dim"}


def doctor(
    model: Annotated[str, typer.Option(help="the endpoint's model: 'openai:NAME' or 'anthropic:NAME'")],
    base_url: Annotated[str | None, typer.Option(help="an OpenAI-compatible endpoint (vLLM, Ollama, a gateway)")] = (
        None),
    api_key_env: Annotated[str | None, typer.Option(
        help="environment variable with the API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")] = None,
    suite: Annotated[list[str] | None, typer.Option(
        help="suites whose largest request must fit the context window (repeatable; default: every bundled "
             "suite)")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="the answer tokens a run reserves (default 4096)")] = None,
    request_timeout: Annotated[float, typer.Option(min=1.0, help="seconds per request")] = 30.0,
) -> None:
    """Check that a model endpoint can serve a run: it answers, calls tools as structured calls (in
    parallel), with valid arguments, and its context window holds each suite's largest request. Exits 4 when
    a required check fails."""
    from mcp_persona.llm import DEFAULT_KEY_ENV, ModelError, RetryPolicy, make_client, parse_spec
    from mcp_persona.tasks.loader import bundled_suites

    try:
        provider, _ = parse_spec(model)
        if provider == "local":
            raise ValueError("the local model runs in this process: there is no endpoint to check")
        client = make_client(model, base_url=base_url, api_key_env=api_key_env, max_tokens=max_tokens,
                             retry=RetryPolicy(max_attempts=2, base_delay_s=0.5, max_delay_s=1.0,
                                               timeout_s=request_timeout, max_retry_after_s=5.0),
                             api_limits="none")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    except ModelError as exc:  # no key: the endpoint cannot be asked at all
        raise fail(str(exc)) from exc
    known = bundled_suites()
    suites = list(dict.fromkeys(suite)) if suite else known
    unknown = [s for s in suites if s not in known]
    if unknown:
        raise fail(f"--suite {unknown[0]!r} is not a bundled suite (known: {', '.join(known)})")
    api_key = os.environ.get(api_key_env or DEFAULT_KEY_ENV[provider])
    checks = anyio.run(diagnose, client, suites, api_key)
    from mcp_persona.report.fit import indented

    console.print(f"{escape(client.name)} at {escape(base_url or 'the provider')}:", highlight=False)
    for c in checks:  # a sentence each, never a table's folded cells
        indented(console, f"{c.status.upper():<4}  {c.name}: {c.detail}", indent=0, hang=6,
                 lead=(4, STYLE[c.status]))
        if c.fix and c.status != "pass":
            indented(console, f"to fix: {c.fix}", indent=6)
    failed = [c for c in checks if c.status == "fail" and c.required]
    if failed:
        raise typer.Exit(EXIT_ENDPOINT)
    console.print("the endpoint can serve a run", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
