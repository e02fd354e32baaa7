"""Context generation (paper §3.2) for every app that has a generator, whoever wrote it.

The apps are discovered with ``generated_apps()``, so a new generator is covered as soon as it exists: its
committed contexts must regenerate byte for byte, every context must be a valid Context-Tree that the app
loads and serves, generation must be reproducible and depend on the persona, and the shared cast must stay
coherent across apps (a coworker has one email on Lark and everywhere else).
"""

from __future__ import annotations

import importlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

import anyio
import pytest
from mcp import Client

from mcp_persona.apps import get_app
from mcp_persona.context_tree.validate import check_state
from mcp_persona.contextgen import Gen, check_app, generate_app, generated_apps, load_cast
from mcp_persona.contextgen.pipeline import render

APPS = generated_apps()
CAST = load_cast()
PERSONAS = list(CAST.personas)
METHODS = {"enumerate", "free_form", "random", "authentic"}


@cache
def generated(app: str) -> dict[str, dict[str, Any]]:
    return generate_app(app)


@cache
def method_log(app: str) -> dict[str, Counter[str]]:
    logs: dict[str, Counter[str]] = {}
    generate_app(app, logs)
    return logs


def prefix(app: str) -> str:
    return getattr(importlib.import_module(f"mcp_persona.apps.{app}.contextgen"), "CONTEXT_PREFIX", "")


def persona_of(app: str, context_id: str) -> str:
    persona = context_id.removeprefix(prefix(app))
    assert persona in CAST.personas, f"{app}: context {context_id!r} is not named after a persona"
    return persona


def test_the_generated_apps_include_the_curated_ones_with_a_prefix() -> None:
    assert {"lark", "notion", "obsidian"} <= set(APPS)
    for app in ("lark", "obsidian"):
        assert prefix(app) == "gen_"
        curated = set(get_app(app).context_ids()) - set(generated(app))
        assert set(PERSONAS) <= curated, f"{app}: the hand-curated contexts must stay"


# -- reproducibility ------------------------------------------------------------------------------------
@pytest.mark.parametrize("app", APPS)
def test_committed_contexts_regenerate_byte_for_byte(app: str) -> None:
    assert check_app(app) == []
    assert sorted(generated(app)) == sorted(prefix(app) + p for p in PERSONAS)


@pytest.mark.parametrize("app", APPS)
def test_generation_is_deterministic(app: str) -> None:
    first, second = generate_app(app), generate_app(app)
    assert {k: render(v) for k, v in first.items()} == {k: render(v) for k, v in second.items()}


@pytest.mark.parametrize("app", APPS)
def test_generation_depends_on_the_persona(app: str) -> None:
    """Same random stream, different persona: the content must differ (not only the seeds)."""
    module = importlib.import_module(f"mcp_persona.apps.{app}.contextgen")
    hierarchy = get_app(app).hierarchy
    out = {}
    for persona in PERSONAS:
        gen = Gen(app, persona, CAST, hierarchy)
        gen.rng = random.Random("one stream for every persona")
        data = module.generate(persona, gen)
        out[persona] = json.dumps({k: v for k, v in data.items() if k not in ("context_id", "description")},
                                  sort_keys=True, ensure_ascii=False)
    assert len(set(out.values())) == len(PERSONAS), f"{app}: two personas got the same context"


@pytest.mark.parametrize("app", APPS)
def test_contexts_hold_only_their_own_persona(app: str) -> None:
    for cid, data in generated(app).items():
        persona = persona_of(app, cid)
        text = json.dumps(data, ensure_ascii=False)
        strangers = [CAST.me(p).name for p in PERSONAS
                     if p != persona and CAST.personas[p].person not in CAST.personas[persona].circle]
        assert [s for s in strangers if s in text] == [], f"{app}/{cid} mentions another persona"


# -- validity -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("app", APPS)
def test_every_generated_context_is_valid_and_loads(app: str) -> None:
    a = get_app(app)
    for cid, data in generated(app).items():
        assert check_state(a.hierarchy, data) == [], f"{app}/{cid}"
        assert cid in a.context_ids()
        assert a.load_context(cid) == data
        assert data.get("context_id", cid) == cid


@pytest.mark.parametrize("app", APPS)
def test_every_generated_context_serves_its_argument_free_tools(app: str) -> None:
    """The app starts on each generated context, and its tools without required arguments answer without a
    simulator crash (a rejection is fine). Each context gets a fresh episode."""
    a = get_app(app)
    free = [t.name for t in a.sdk_tools if not t.parameters.get("required")]

    async def run(cid: str) -> list[str]:
        env = a.env(cid)
        async with Client(a.server(env)) as client:
            listed = await client.list_tools()
            assert sorted(t.name for t in listed.tools) == sorted(a.tool_names)
            for name in free:
                await client.call_tool(name, {})
        return env.internal_errors

    for cid in generated(app):
        assert anyio.run(run, cid) == [], f"{app}/{cid}"


# -- the four methods -----------------------------------------------------------------------------------
def test_every_generator_logs_its_methods() -> None:
    for app in APPS:
        logs = method_log(app)
        assert sorted(logs) == sorted(generated(app)), app
        for cid, log in logs.items():
            assert sum(log.values()) > 0, f"{app}/{cid} logged no generation method"
            assert all(key.rsplit("/", 1)[1] in METHODS | {"link"} for key in log), f"{app}/{cid}: {log}"


def test_the_four_methods_are_all_used() -> None:
    used = {key.rsplit("/", 1)[1] for app in APPS for log in method_log(app).values() for key in log}
    assert used >= METHODS


# -- the shared cast across apps --------------------------------------------------------------------------
NAME_KEYS = ("name", "display_name", "real_name", "full_name")
EMAIL_KEYS = ("email", "address", "emailAddress", "email_address", "mail")
_FRONTMATTER_EMAIL = re.compile(r"^email:\s*(\S+@\S+)\s*$", re.M)
_HEADING = re.compile(r"^#\s+(.+?)\s*$", re.M)
_NAME_LINE = re.compile(r"^name:\s*(.+?)\s*$", re.M)


def person_records(node: Any) -> Iterator[tuple[str, str]]:
    """(name, email) pairs a context states: records with a name and an email field, and markdown notes with
    an ``email:`` frontmatter line under a name (``name:`` line or first ``# heading``)."""
    if isinstance(node, dict):
        name = next((node[k] for k in NAME_KEYS if isinstance(node.get(k), str)), None)
        email = next((node[k] for k in EMAIL_KEYS if isinstance(node.get(k), str) and "@" in node[k]), None)
        if name is not None and email is not None:
            yield name, email
        for value in node.values():
            yield from person_records(value)
    elif isinstance(node, list):
        for value in node:
            yield from person_records(value)
    elif isinstance(node, str) and "email:" in node:
        emails = _FRONTMATTER_EMAIL.findall(node)
        named = _NAME_LINE.search(node) or _HEADING.search(node)
        if len(emails) == 1 and named:
            yield named.group(1), emails[0]


def lark_emails(persona: str) -> dict[str, str]:
    data = generated("lark")[prefix("lark") + persona]
    return {u["name"]: u["email"] for u in data["users"].values()}


@pytest.mark.parametrize("persona", PERSONAS)
def test_lark_directory_is_the_cast(persona: str) -> None:
    people = [CAST.me(persona), *CAST.circle(persona)]
    assert lark_emails(persona) == {p.name: p.email for p in people}


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_coworker_has_one_email_in_every_app(persona: str) -> None:
    """Coworkers only: the persona's own accounts may differ per service (a 163 mailbox has a 163 address)."""
    coworkers = {p.name for p in CAST.circle(persona)}
    on_lark = {name: email for name, email in lark_emails(persona).items() if name in coworkers}
    personal = {p.name: p.personal_email for p in CAST.circle(persona)}
    checked: Counter[str] = Counter()
    for app in APPS:
        if app == "lark":
            continue
        cid = prefix(app) + persona
        for name, email in person_records(generated(app)[cid]):
            if name not in on_lark:
                continue
            assert email.lower() in (on_lark[name].lower(), personal[name].lower()), (
                f"{app}/{cid}: {name} has email {email}, on Lark {on_lark[name]}")
            checked[app] += 1
    assert sum(checked.values()) > 0, "no other generated app states a coworker's email"
    assert checked["notion"] >= 4  # the workspace members
    assert checked["obsidian"] >= 3  # the people notes
