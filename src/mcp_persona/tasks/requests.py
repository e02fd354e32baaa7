"""What an instruction asks for, and which of a task's checks covers each request.

A request is a sentence (or a part after a semicolon) that asks a question ("What time is it there?") or
tells the agent to do something ("Save it to notes.md", "tell me the total", "could you add ..."). A check
covers a request when the words of the instruction it names (``asks``) lie in it, else when it shares enough
content words with the request (its summary and the values it looks for against the request's words): a
reading aid for reviewers (``mcp-persona show``), which says how it matched, never a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.apps._corpus.search import STOPWORDS, stem
from mcp_persona.tasks.models import Task, checkpoints_of

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])|\n+|;\s+")
_ASKING = re.compile(
    r"^(?:(?:please|also|then|and|so|now|finally|first|next|after that|afterwards|oh|ok|okay|btw)[,\s]+)*"
    r"(?:tell|give|find|list|show|save|write|put|add|create|reply|respond|send|post|mark|move|delete|remove|"
    r"rename|update|schedule|book|draft|summari[sz]e|compare|check|look|work|convert|calculate|compute|make|"
    r"drop|set|pin|invite|share|note|record|email|message|let|can you|could you|would you|i need|i'd like|"
    r"i want|help|pick|choose|recommend|suggest|plan|get|fetch|search|use|keep|include|flag|archive|copy|"
    r"forward|translate|append|insert|fill|log|open|star|label|tag|assign|close|reopen|comment|upload|export|"
    r"download|build|generate|prepare|collect|gather|count|rank|sort|estimate|figure|grab|jot|block|reserve|"
    r"cancel|confirm|ping|notify|remind|answer|rsvp|accept|decline|join|leave|follow|like|react|mention|"
    r"buy|order|pay|transfer|split|go|do|read|find out|dig|pull|bump|push|turn|clear|clean)\b",
    re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
_VAGUE = frozenset({"please", "also", "then", "now", "just", "make", "made", "get", "got", "let", "new"})


@dataclass(frozen=True)
class CheckText:
    """One check of a task as text: its name (``checkpoint 2``, ``file report.docx``), what it asks for, the
    words of the instruction it names (``asks``), and the values it looks for."""

    name: str
    summary: str
    asks: str | None = None
    values: tuple[str, ...] = ()
    where: tuple[str, int] = ("checkpoints", 0)  # the spec's list and index the check sits at


@dataclass
class Request:
    text: str
    covered_by: list[tuple[CheckText, str]] = field(default_factory=list)  # (check, how it matched)


def requests(instruction: str) -> list[str]:
    """The instruction's sentences that ask a question or tell the agent to do something."""
    out = []
    for sentence in _SENTENCE.split(instruction.strip()):
        sentence = sentence.strip()
        if sentence and (sentence.rstrip(")\"' ").endswith("?") or _ASKING.search(sentence)
                         or re.search(r"\b(?:can|could|would) you\b|\blet me know\b", sentence, re.IGNORECASE)):
            out.append(sentence)
    return out


def checks_of(task: Task[Any]) -> list[CheckText]:
    """The task's checks as text: its checkpoints, then any other check lists its spec holds (file and state
    checks), each with a ``summary``."""
    out = []
    for i, cp in enumerate(checkpoints_of(task)):
        values = tuple(getattr(cp, "gt_value", ()) or ())
        out.append(CheckText(f"checkpoint {i}", cp.summary, cp.asks, values, ("checkpoints", i)))
    for name, value in task.spec:
        if name == "checkpoints" or not isinstance(value, list):
            continue
        for j, item in enumerate(value):
            summary = getattr(item, "summary", None)
            if isinstance(summary, str):
                values = tuple(str(v) for v in (getattr(item, "contains", None) or ()))
                out.append(CheckText(f"{name.removesuffix('s').replace('_', ' ')} {j}", summary,
                                     getattr(item, "asks", None), values, (name, j)))
    return out


def coverage(task: Task[Any]) -> tuple[list[Request], list[CheckText]]:
    """Each request with the checks that cover it, and the checks that cover none (see the module)."""
    asked = [Request(r) for r in requests(task.instruction)]
    idle: list[CheckText] = []
    for check in checks_of(task):
        matched = False
        for req in asked:
            how = _covers(check, req.text)
            if how:
                req.covered_by.append((check, how))
                matched = True
        if not matched:
            idle.append(check)
    return asked, idle


def _covers(check: CheckText, request: str) -> str | None:
    if check.asks:
        return "asks" if _squash(check.asks) in _squash(request) else None
    words = _content(request)
    shared = _content(check.summary) & words
    valued = [v for v in check.values if _content(v) and _content(v) <= words]
    if valued:
        return f"value {valued[0]!r} named in the request"
    if len(shared) >= 2 or (shared and 3 * len(shared) >= len(_content(check.summary))):
        return "words " + ", ".join(sorted(shared))
    return None


def likely_request(check: CheckText, asked: list[str]) -> str | None:
    """The request a check most likely traces to: the only one, else the one sharing the most content words
    with the check's summary and values when no other shares as many (None: undecided, for a person)."""
    if len(asked) == 1:
        return asked[0]
    words = _content(check.summary) | {w for v in check.values for w in _content(v)}
    shared = [len(words & _content(r)) for r in asked]
    if not shared or max(shared) == 0 or shared.count(max(shared)) > 1:
        return None
    return asked[shared.index(max(shared))]


def _content(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and w not in _VAGUE and len(w) > 1}


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def asks_problems(task: Task[Any]) -> list[str]:
    """Checks whose ``asks`` are not words of the instruction (what a check claims to trace to must be there)."""
    said = _squash(task.instruction)
    return [f"{c.name} asks {c.asks!r}, which the instruction does not say" for c in checks_of(task)
            if c.asks and _squash(c.asks) not in said]


@dataclass
class Traceability:
    """Over a suite: how many checks name the words they trace to, and the requests no check covers."""

    checks: int = 0
    traced: int = 0  # checks whose ``asks`` are set
    requests: int = 0
    open: list[tuple[str, str]] = field(default_factory=list)  # (task id, request) no check covers


def traceability(tasks: list[Task[Any]]) -> Traceability:
    out = Traceability()
    for task in tasks:
        asked, _ = coverage(task)
        checks = checks_of(task)
        if not checks:  # a suite scored by its calls alone (MCPAgentBench) has no check to trace
            continue
        out.checks += len(checks)
        out.traced += sum(1 for c in checks if c.asks)
        out.requests += len(asked)
        out.open += [(task.id, r.text) for r in asked if not r.covered_by]
    return out
