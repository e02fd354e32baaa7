"""Context-generation helpers shared by the email apps' generators.

Both generators read message items from authentic corpora: one corpus per persona (its own
mail, with fixed dates) and a shared pool of service mail (newsletters, notices) whose
dates and read state are drawn. An item names people as ``"@<cast id>"`` (``"@me"`` for the
mailbox owner) or as a literal ``{"name", "address"}``; bodies may use ``{me}`` and
``{me_first}``. Each app decides which of a person's addresses it uses (personal or work).
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

from mcp_persona.apps._mail.message import attachment_meta
from mcp_persona.contextgen import Gen, Person

# Received mail lies between these (persona-local), before the task clock's "now" (2026-03-10 09:30).
WINDOW_START = (2026, 2, 20, 8, 0)
WINDOW_END = (2026, 3, 10, 9, 0)


@cache
def corpus_size(corpus: str) -> int:
    path = resources.files("mcp_persona") / "data" / "corpus" / "authentic" / f"{corpus}.json"
    return len(json.loads(path.read_text(encoding="utf-8")))


def all_items(gen: Gen, field: str, corpus: str) -> list[dict[str, Any]]:
    """Every item of an authentic corpus (a persona's own mail), through the Authentic method."""
    return gen.authentic(field, corpus, k=corpus_size(corpus))


def timestamp(gen: Gen, text: str) -> int:
    """Unix seconds of ``"YYYY-MM-DD HH:MM"`` in the persona's zone."""
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz).timestamp())


def drawn_timestamp(gen: Gen) -> int:
    """A time inside the mail window, on a 5-minute grid."""
    return int(gen.moment(gen.local(*WINDOW_START), gen.local(*WINDOW_END)).timestamp())


def person(gen: Gen, cast_id: str) -> Person:
    return gen.me if cast_id == "me" else gen.cast.people[cast_id]


def resolve(gen: Gen, spec: Any, *, me: dict[str, str], personal: bool) -> dict[str, str]:
    """An address spec of a corpus item -> {name, address}."""
    if isinstance(spec, dict):
        return {"name": spec.get("name", ""), "address": spec["address"]}
    if not (isinstance(spec, str) and spec.startswith("@")):
        raise ValueError(f"bad address spec {spec!r}: use '@<cast id>', '@me' or {{name, address}}")
    if spec == "@me":
        return dict(me)
    p = person(gen, spec[1:])
    return {"name": p.name, "address": p.personal_email if personal else p.email}


def given_name(gen: Gen) -> str:
    """What a service calls the persona: Chinese names are written family name first ("Chen Yu" -> "Yu")."""
    parts = gen.me.name.split(" ", 1)
    return parts[1] if gen.tz.key == "Asia/Shanghai" and len(parts) == 2 else gen.me.first_name


def fill(gen: Gen, text: str) -> str:
    """``{me}`` / ``{me_first}`` in a corpus text -> the persona's name / given name."""
    return text.replace("{me_first}", given_name(gen)).replace("{me}", gen.me.name)


def attachments(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [attachment_meta(a["filename"], a["size"], a.get("mimeType")) for a in item.get("attachments", [])]
