"""Fuzz every tool of every app through the real MCP path, from the tool's own input schema.

For each (app, tool) pair, on the app's first context at 2026-03-10 09:30 Asia/Shanghai:

* (a) type mismatches, (b) missing/unknown keys, (c) out-of-range values are rejected:
  an error result whose text is specific (not empty, not the generic "internal error",
  naming the offending field when the app's validation envelope carries field names),
  with the state unchanged;
* (d) valid arguments holding ids that name nothing never crash the simulator, and a
  rejection leaves the state unchanged;
* valid-shaped arguments of any kind never crash it either, with the same rule.

The strategies come from ``tests/fuzz_schema.py``; ids known to the context (harvested from
its state) are mixed into id-like fields so that calls also get past the first lookup. Each
test function builds one server and swaps in a fresh env after any call that changed the state.
Examples per class and tool: 25, fewer as apps are added (see ``EXAMPLES``), or
``FUZZ_EXAMPLES``; runs are derandomized unless ``FUZZ_RANDOM=1`` (then every run explores
anew; a failure prints its falsifying example). The number of calls made is shown in the
terminal summary.
"""

from __future__ import annotations

import os
import pickle
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime
from functools import cache
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from mcp_persona.apps import app_names as persona_app_names
from mcp_persona.apps import get_app as persona_app
from mcp_persona.apps.base import App, AppEnv, AppServer, FieldViolation
from mcp_persona.clock import TaskClock
from mcp_persona.context_tree.tree import canonical_hash

from fuzz_schema import INVALID_CLASSES, Invalid, SchemaFuzzer, dictionary_words, harvest_ids  # isort: skip

CLOCK = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Shanghai")

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

CALLS: Counter[str] = Counter()  # calls made, by class and by app
OUTCOMES: Counter[str] = Counter()  # class:accepted / class:rejected
PAIRS_RUN: set[tuple[str, str]] = set()
_STARTED = time.perf_counter()


LIVEMCPTOOL = "livemcptool/"  # the simulated servers of the LiveMCPTool library, fuzzed under this prefix


def app_names() -> list[str]:
    from mcp_persona.livemcptool import server_names

    return persona_app_names() + [LIVEMCPTOOL + n for n in server_names("simulated")]


def get_app(name: str) -> App:
    if name.startswith(LIVEMCPTOOL):
        from mcp_persona.livemcptool.engine import simulated_app

        return simulated_app(name.removeprefix(LIVEMCPTOOL))
    return persona_app(name)


# -- what to fuzz: computed at collection time ---------------------------------------------------------
def _collect() -> tuple[list[tuple[str, str]], dict[str, str]]:
    pairs: list[tuple[str, str]] = []
    broken: dict[str, str] = {}
    for name in app_names():
        try:
            app = get_app(name)
            tools = app.tool_names
        except Exception as exc:  # an app that does not import is reported by test_app_loads
            broken[name] = f"{type(exc).__name__}: {exc}"
            continue
        pairs += [(name, tool) for tool in tools]
    return pairs, broken


PAIRS, BROKEN = _collect()
PAIR_IDS = [f"{a}.{t}" for a, t in PAIRS]


def _admitted(classes: tuple[str, ...]) -> list[Any]:
    """The (app, tool, class) cases whose input schema gives the class room: a test is generated only for
    what can be fuzzed (a tool with no id-like field has no class (d); one with no bounds no class (c))."""
    cases = []
    for app_name, tool in PAIRS:
        sdk_tool = next(t for t in get_app(app_name).sdk_tools if t.name == tool)
        fuzzer = SchemaFuzzer(sdk_tool.parameters)
        cases += [pytest.param(app_name, tool, cls, id=f"{cls}-{app_name}.{tool}")
                  for cls in classes if fuzzer.admits(cls)]
    return cases

# 25 examples per class and tool while that keeps the file near a minute of CPU (~6,000 examples per
# class in all), fewer (never under 10) as apps are added; FUZZ_EXAMPLES sets it outright.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or max(10, min(25, 6000 // max(1, len(PAIRS)))))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=os.environ.get("FUZZ_RANDOM", "") in ("", "0"),
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                           HealthCheck.large_base_example],
)


@pytest.mark.parametrize("app_name", app_names())
def test_app_loads(app_name: str) -> None:
    assert app_name not in BROKEN, f"{app_name} does not load: {BROKEN[app_name]}"


@cache
def _context(app_name: str) -> str | None:
    ids = get_app(app_name).context_ids()
    return ids[0] if ids else None


@cache
def _known_ids(app_name: str) -> dict[str, list[str]]:
    context = _context(app_name)
    return harvest_ids(get_app(app_name).env(context, clock=CLOCK).tree.data) if context else {}


@cache
def _fuzzer(app_name: str, tool: str) -> SchemaFuzzer:
    app = get_app(app_name)
    sdk_tool = next(t for t in app.sdk_tools if t.name == tool)
    known = _known_ids(app_name)
    words = dictionary_words(sdk_tool.description or "", *_descriptions(sdk_tool.parameters))
    return SchemaFuzzer(sdk_tool.parameters, known_ids=known, dictionary=words)


def _descriptions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "description" and isinstance(v, str):
                yield v
            else:
                yield from _descriptions(v)
    elif isinstance(node, list):
        for v in node:
            yield from _descriptions(v)


@cache
def _envelope_names_fields(app_name: str, tool: str, violation: str) -> bool:
    """Whether this app's validation envelope names the offending field for this kind of violation
    (an app that mirrors zod's wording, say, names a missing key but not a mistyped one)."""
    app = get_app(app_name)
    probe = "zz_probe_field"
    payload = app.validation_payload(tool, [FieldViolation(probe, violation, "probe")])  # type: ignore[arg-type]
    return probe in app.render(payload)


# -- one server per test function ----------------------------------------------------------------------
class Harness:
    """An app server over a fresh env, called through an in-process MCP client on a portal thread."""

    def __init__(self, app: App, context: str, stack: ExitStack) -> None:
        self.app = app
        self.context = context
        self.server: AppServer = app.server(app.env(context, clock=CLOCK))  # the app's own server class
        portal = stack.enter_context(start_blocking_portal())
        self._client = stack.enter_context(portal.wrap_async_context_manager(Client(self.server)))
        self._portal = portal
        self._snapshot = self._pickle()
        self.dirty = False

    @property
    def env(self) -> AppEnv:
        return self.server.env

    def fresh(self) -> None:
        self.server.env = self.app.env(self.context, clock=CLOCK)
        self._snapshot = self._pickle()
        self.dirty = False

    def _pickle(self) -> bytes:
        return pickle.dumps(self.env.tree.data, protocol=pickle.HIGHEST_PROTOCOL)

    def call(self, tool: str, args: dict[str, Any], cls: str) -> tuple[Any, str, bool]:
        """(result, its text, whether ``env.tree.hash()`` is the same after the call as before).

        The state is compared as pickled bytes first (equal bytes mean equal data, and pickling is
        several times cheaper than the canonical hash); only when they differ are the hashes compared,
        which also forgives a key order that a rollback changed."""
        if self.dirty:
            self.fresh()
        before = self._snapshot
        CALLS[cls] += 1
        CALLS[f"app:{self.app.name}"] += 1
        self.dirty = True  # until the call is known to have left the state alone
        result = self._portal.call(self._client.call_tool, tool, args)
        after = self._pickle()
        same = after == before or canonical_hash(pickle.loads(before)) == self.env.tree.hash()
        self._snapshot = after
        OUTCOMES[f"{cls}:{'rejected' if result.is_error else 'accepted'}"] += 1
        if result.is_error and same and not self.env.internal_errors:
            self.dirty = False
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        return result, text, same


def _run(app_name: str, tool: str, cls: str, strategy: st.SearchStrategy[Any] | None,
         check: Callable[[Harness, Any], None]) -> None:
    context = _context(app_name)
    assert context is not None, f"{app_name} has no context to fuzz on"
    assert strategy is not None, f"the input schema of {tool} leaves no room for class {cls}"
    PAIRS_RUN.add((app_name, tool))
    failure: BaseException | None = None
    with ExitStack() as stack:
        harness = Harness(get_app(app_name), context, stack)

        @SETTINGS
        @given(strategy)
        def fuzz(example: Any) -> None:
            check(harness, example)

        try:
            fuzz()
        except BaseException as exc:  # raised once the client is closed, not wrapped in its task group's
            failure = exc
    if failure is not None:
        raise failure


def _crash_note(env: AppEnv) -> str:
    return f"simulator crashed: {env.internal_errors}"


# -- (a)-(c): invalid arguments are rejected specifically, leaving the state alone -----------------------
def _check_invalid(app_name: str, tool: str, cls: str) -> Callable[[Harness, Invalid], None]:
    def check(h: Harness, inv: Invalid) -> None:
        result, text, same = h.call(tool, inv.args, cls)
        assert not h.env.internal_errors, _crash_note(h.env)
        assert result.is_error, f"accepted invalid arguments ({inv.detail}): {text[:300]}"
        assert text.strip(), f"empty error text for {inv.detail}"
        assert "internal error" not in text.lower(), f"generic error for {inv.detail}: {text[:300]}"
        if _envelope_names_fields(app_name, tool, inv.violation):
            assert inv.field in text, f"error does not name {inv.field!r} ({inv.detail}): {text[:300]}"
        assert same, f"rejected call changed the state ({inv.detail})"

    return check


@pytest.mark.parametrize(("app_name", "tool", "cls"), _admitted(INVALID_CLASSES))
def test_invalid_arguments_rejected(app_name: str, tool: str, cls: str) -> None:
    strategy = _fuzzer(app_name, tool).invalid(cls) if _context(app_name) else None  # type: ignore[arg-type]
    _run(app_name, tool, cls, strategy, _check_invalid(app_name, tool, cls))


# -- (d) and valid-shaped arguments: never a crash; a rejection leaves the state alone ---------------------
def _check_no_crash(tool: str, cls: str) -> Callable[[Harness, dict[str, Any]], None]:
    def check(h: Harness, args: dict[str, Any]) -> None:
        result, text, same = h.call(tool, args, cls)
        assert not h.env.internal_errors, _crash_note(h.env)
        if result.is_error:
            assert text.strip(), "empty error text"
            assert same, f"rejected call changed the state: {text[:300]}"

    return check


@pytest.mark.parametrize(("app_name", "tool", "cls"), _admitted(("semantic",)))
def test_unknown_ids_never_crash(app_name: str, tool: str, cls: str) -> None:
    strategy = _fuzzer(app_name, tool).semantic_arguments() if _context(app_name) else None
    _run(app_name, tool, "semantic", strategy, _check_no_crash(tool, "semantic"))


@pytest.mark.parametrize(("app_name", "tool"), PAIRS, ids=PAIR_IDS)
def test_valid_shaped_arguments_never_crash(app_name: str, tool: str) -> None:
    strategy = _fuzzer(app_name, tool).valid_arguments() if _context(app_name) else None
    _run(app_name, tool, "valid", strategy, _check_no_crash(tool, "valid"))


# -- the count ---------------------------------------------------------------------------------------------
class _Summary:
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not CALLS:
            return
        total = sum(v for k, v in CALLS.items() if not k.startswith("app:"))
        by_class = ", ".join(f"{k}={v}" for k, v in sorted(CALLS.items()) if not k.startswith("app:"))
        by_app = ", ".join(f"{k[4:]}={v}" for k, v in sorted(CALLS.items()) if k.startswith("app:"))
        accepted = ", ".join(f"{k}={v}" for k, v in sorted(OUTCOMES.items()))
        terminalreporter.write_sep("-", "tool fuzzing")
        terminalreporter.write_line(
            f"fuzzed {total} calls over {len(PAIRS_RUN)} (app, tool) pairs of {len(PAIRS)} "
            f"in {time.perf_counter() - _STARTED:.1f}s")
        terminalreporter.write_line(f"by class: {by_class}")
        terminalreporter.write_line(f"by app: {by_app}")
        terminalreporter.write_line(f"outcomes: {accepted}")


@pytest.fixture(scope="session", autouse=True)
def _fuzz_summary(request: pytest.FixtureRequest) -> Iterator[None]:
    summary = _Summary()
    request.config.pluginmanager.register(summary, "fuzz-tools-summary")
    yield
