"""The bundled skill documents (``data/skills/<app>.md``, paper §4.4 / Table 5).

Each app has one operational guide that ``--skills bundled`` appends to the system prompt. The
checks here keep the guides honest: one per app and nothing else, every tool name they quote
exists in that app (and most of the app's tools are covered), their size stays within bounds,
and they never carry ids or people from the bundled contexts (a guide must work for any user's
account and must not leak answers).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

import mcp_persona
from mcp_persona.agents.skills import Skills, bundled_skill
from mcp_persona.apps import app_names, get_app

DATA = Path(mcp_persona.__file__).parent / "data"
# Guides are written for the platform's own apps; a protocol's private tool library (MCPAgentBench's
# single-purpose tools) has none, as that protocol tells the agent nothing beyond the request.
GUIDED = [a for a in app_names() if get_app(a).library is None]
SKILLS = DATA / "skills"
CONTEXTS = DATA / "contexts"

MIN_WORDS, MAX_WORDS = 200, 700
MIN_TOOL_COVERAGE = 0.8  # "most" of an app's tools are named in its guide

_SPAN = re.compile(r"`([^`\n]+)`")
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

# Id-like strings, as the bundled contexts spell them. Whatever one of these finds in a context
# must not occur in any guide.
_B = r"(?<![A-Za-z0-9_-])"  # no id character before ...
_E = r"(?![A-Za-z0-9_-])"  # ... or after
ID_PATTERNS = [
    re.compile(_B + r"(?:ou|oc|om|on|cli)_[0-9a-f]{8,}" + _E),  # Lark open/chat/message ids
    re.compile(_B + r"t[1-6]_[0-9a-z]{4,}" + _E),  # Reddit fullnames
    re.compile(_B + r"[0-9a-f]{16}" + _E),  # Gmail message / thread ids
    re.compile(_B + r"[0-9a-f]{24}" + _E),  # Rednote note / user / comment ids
    re.compile(_B + r"[0-9a-f]{32}" + _E),
    re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),  # Notion, WeCom keys
    re.compile(_B + r"(?=[A-Z0-9]*[0-9])[A-Z][A-Z0-9]{7,}" + _E),  # Slack C/D/G/U ids, Amap B0 POI ids
    re.compile(r"(?<![0-9.])-?[0-9]{8,}(?:\.[0-9]+)?(?![0-9])"),  # snowflakes, chat ids, UIDs, phones, timestamps
    re.compile(r"(?<![0-9.])[0-9]{4}\.[0-9]{4,5}(?:v[0-9]+)?(?![0-9])"),  # arXiv ids
    re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),  # e-mail addresses
    re.compile(_B + r"(?:dr|ent|rel|audio|user|n)[_-][0-9a-f]{6,}" + _E),  # research, memory, audio, news ids
    # any long token mixing letters and digits: xsec tokens, Instagram and Telegram ids, file names ...
    re.compile(_B + r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{10,}" + _E),
]


def _words(text: str) -> int:
    return len(text.split())


@cache
def _text(app: str) -> str:
    return (SKILLS / f"{app}.md").read_text(encoding="utf-8")


@cache
def _all_tools() -> dict[str, frozenset[str]]:
    """tool name -> the apps that have it."""
    owners: dict[str, set[str]] = {}
    for name in app_names():
        for tool in get_app(name).tool_names:
            owners.setdefault(tool, set()).add(name)
    return {t: frozenset(a) for t, a in owners.items()}


def _tool_prefixes(tools: list[str]) -> set[str]:
    """Name prefixes (up to the first '_' or '-') that at least two of the app's tools share:
    a backticked name with one of them claims to be a tool of the app."""
    counts: dict[str, int] = {}
    for tool in tools:
        m = re.match(r"[A-Za-z]+[_-]", tool)
        if m:
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    return {p for p, n in counts.items() if n >= 2}


@cache
def _schema_names(app: str) -> frozenset[str]:
    """Every property name in the input schemas of the app's tools (nested objects included)."""
    names: set[str] = set()
    stack: list[object] = [t.parameters for t in get_app(app).sdk_tools]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            props = cur.get("properties")
            if isinstance(props, dict):
                names.update(props)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return frozenset(names)


def _spans(text: str) -> list[str]:
    return _SPAN.findall(text)


@cache
def _context_ids() -> frozenset[str]:
    found: set[str] = set()
    for path in sorted(CONTEXTS.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        # the raw JSON and its decoded strings (escapes such as \u4e0a or \/ resolved)
        strings = [text, *_strings(json.loads(text))]
        for s in strings:
            for pattern in ID_PATTERNS:
                found.update(pattern.findall(s))
    return frozenset(found)


def _strings(node: object) -> list[str]:
    out: list[str] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, str):
            out.append(cur)
        elif isinstance(cur, dict):
            out.extend(str(k) for k in cur)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return out


@cache
def _cast_names() -> frozenset[str]:
    """Names, e-mails and phone numbers of the shared cast, and their organizations."""
    cast = json.loads((DATA / "cast.json").read_text(encoding="utf-8"))
    out: set[str] = set()
    for person in cast["people"].values():
        for key in ("name", "email", "mobile", "organization"):
            value = person.get(key)
            if isinstance(value, str) and len(value) >= 4:
                out.add(value)
    return frozenset(out)


# -- one guide per app ---------------------------------------------------------------------------------
def test_every_app_has_a_skill_file() -> None:
    missing = [a for a in GUIDED if not (SKILLS / f"{a}.md").is_file()]
    assert not missing, f"apps without a skill document: {missing}"


def test_no_skill_file_without_an_app() -> None:
    stray = sorted(p.name for p in SKILLS.iterdir() if p.suffix == ".md" and p.stem not in GUIDED)
    assert not stray, f"skill documents for unknown apps: {stray}"


@pytest.mark.parametrize("app", GUIDED)
def test_skill_file_shape(app: str) -> None:
    text = _text(app)
    assert text.startswith("# "), f"{app}.md should open with a '# ' title"
    assert text.endswith("\n") and "\t" not in text
    words = _words(text)
    assert MIN_WORDS <= words <= MAX_WORDS, f"{app}.md has {words} words (want {MIN_WORDS}-{MAX_WORDS})"


# -- tool names ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("app", GUIDED)
def test_backticked_tool_names_exist(app: str) -> None:
    own = set(get_app(app).tool_names)
    owners = _all_tools()
    prefixes = _tool_prefixes(sorted(own))
    wrong: set[str] = set()
    for span in _spans(_text(app)):
        idents = _IDENT.findall(span)
        # a tool of another app, anywhere in a code span
        wrong.update(i for i in idents if i in owners and i not in own)
        # a name that looks like one of this app's tools but is neither a tool nor an argument
        lead = _IDENT.match(span)
        if (
            lead
            and lead.group(0) not in own | _schema_names(app)
            and any(lead.group(0).startswith(p) for p in prefixes)
        ):
            wrong.add(lead.group(0))
    assert not wrong, f"{app}.md names tools that {app} does not have: {sorted(wrong)}"


@pytest.mark.parametrize("app", GUIDED)
def test_skill_covers_most_tools(app: str) -> None:
    tools = get_app(app).tool_names
    named = {i for span in _spans(_text(app)) for i in _IDENT.findall(span)}
    covered = [t for t in tools if t in named]
    missing = sorted(set(tools) - set(covered))
    assert len(covered) >= MIN_TOOL_COVERAGE * len(tools), f"{app}.md leaves out tools: {missing}"


# -- no leaks ------------------------------------------------------------------------------------------
def test_context_id_scan_finds_ids() -> None:
    """The scan itself works: the bundled contexts are full of ids of every family."""
    ids = _context_ids()
    assert len(ids) > 1000
    for pattern in ID_PATTERNS[:4] + ID_PATTERNS[5:9]:
        assert any(pattern.fullmatch(i) for i in ids), pattern.pattern


@pytest.mark.parametrize("app", GUIDED)
def test_no_context_ids_in_skill(app: str) -> None:
    text = _text(app)
    mentioned = {m for pattern in ID_PATTERNS for m in pattern.findall(text)}
    leaked = sorted(mentioned & _context_ids())
    assert not leaked, f"{app}.md contains ids from the bundled contexts: {leaked}"


@pytest.mark.parametrize("app", GUIDED)
def test_no_cast_people_in_skill(app: str) -> None:
    low = _text(app).lower()
    named = sorted(n for n in _cast_names() if re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", low))
    assert not named, f"{app}.md names people or organizations of the bundled cast: {named}"


# -- the agents get them ---------------------------------------------------------------------------------
def test_bundled_skills_for_servers() -> None:
    skills = Skills("bundled")
    for app in GUIDED:
        assert skills.for_servers([app]) == _text(app)
        assert bundled_skill(app) == _text(app)
    pool = ["lark", "rednote", "gmail", "weather"]
    joined = skills.for_servers(pool)
    assert joined == "\n\n".join(_text(a) for a in pool)
    assert skills.for_servers(["no_such_server", "slack"]) == _text("slack")
    assert skills.for_servers(["no_such_server"]) is None
    assert Skills("none").for_servers(pool) is None
