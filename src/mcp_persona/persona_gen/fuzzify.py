"""Fuzzification and context decoupling (paper §3.3, S_fuzz = F(S_inst \\ C_imp)).

What a person would not say leaves the instruction: ids and paths the chain itself returns are cut
(the entity's name stays) and listed as *implicit context*; a phone number or email the chain needs
to resolve someone moves to the necessary context (a person knows it, but would not type it into the
request), as does any other value the chain needs and cannot find. *Unnecessary context* gets a few
true but irrelevant facts about the persona, drawn from the same contexts.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from mcp_persona.apps import get_app
from mcp_persona.persona_gen.enrich import Draft
from mcp_persona.persona_gen.entities import ENTITY_KINDS, Entity, catalog, kind_of
from mcp_persona.persona_gen.prototype import VALUE_TYPES
from mcp_persona.scoring.normalize import appears_in

_ID_LIKE = re.compile(r"^(?=\S*[0-9])(?=\S*[A-Za-z])\S{6,}$|^\S+@\S+$|^\+?\d[\d ]{6,}$|^\S+/\S*$|\.md$")
_HANDLES = {"phone": ("mobile", "phone number"), "email_address": ("email", "email address")}


@dataclass
class Fuzzed:
    instruction: str
    necessary_context: dict[str, str] = field(default_factory=dict)
    implicit_context: list[str] = field(default_factory=list)
    unnecessary_context: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the reviewer


def id_like(value: str) -> bool:
    return bool(_ID_LIKE.search(value.strip()))


def fuzzify(draft: Draft, *, keep: list[str] | None = None, distractors: int = 3, seed: int = 0) -> Fuzzed:
    """``keep``: values that must not be stated (the search checkpoints' GT values)."""
    out = Fuzzed(draft.instruction)
    found = {u.value: (u, draft.steps[u.step].tool) for s in draft.steps for u in s.uses
             if u.source == "found" and u.step is not None}
    owner = {v: b.entity for b in draft.bindings.values() if b.entity for v, _ in b.entity.slots.values()}
    people = [b.entity for b in draft.bindings.values() if b.entity and "person" in kind_of(b.entity.type)]
    for name, kind in draft.prototype.placeholders.items():
        value = draft.values.get(name, "")
        if kind in _HANDLES:
            person = next((p for p in people if p.slot(_HANDLES[kind][0]) == value), None)
            label = f"{person.display if person else 'the person'}'s {_HANDLES[kind][1]}"
            out.instruction = _cut(out.instruction, value, "")
            out.necessary_context[label] = value
            resolver = next((s.tool for s in draft.steps for u in s.uses if u.value == value), None)
            if resolver:
                who = person.display if person else "the person"
                out.implicit_context.append(f"{who}'s user id, resolved from the {_HANDLES[kind][1]} with {resolver}")
        elif kind not in VALUE_TYPES and kind != "text" and name not in draft.bindings:  # an id placeholder
            ent = owner.get(value)
            if value in found or value in (keep or []):
                out.instruction = _cut(out.instruction, value, _mention(ent, out.instruction))
                tool = found[value][1] if value in found else "the tools"
                out.implicit_context.append(f"the {kind} of {_name(ent)} ({value}), returned by {tool}")
            else:
                out.notes.append(f"kept {kind} {value} in the instruction: no step of the chain returns it")
    for value, (use, tool) in found.items():  # ids the model wrote into the template literally
        if id_like(value) and value in out.instruction:
            out.instruction = _cut(out.instruction, value, _mention(owner.get(value), out.instruction))
        if not any(value in x for x in out.implicit_context):
            out.implicit_context.append(f"the {use.link} of {_name(owner.get(value))} ({value}), returned by {tool}")
    for s in draft.steps:  # values the chain needs but cannot find: stated as necessary context
        for u in s.uses:
            if u.source == "given" and not appears_in(u.value, out.instruction) \
                    and u.value not in out.necessary_context.values():
                ent = draft.entity_of(u.binding) if u.binding else owner.get(u.value)
                label = f"{ent.display}'s {u.link.replace('_', ' ')}" if ent else f"the {u.link.replace('_', ' ')}"
                out.necessary_context[label] = u.value
                out.notes.append(f"{label} must be given: no step of the chain returns it")
    if draft.day is not None and any(k == "date" for k in draft.prototype.placeholders.values()):
        out.implicit_context.append(f"the date meant is {draft.day.isoformat()} ({draft.clock.timezone})")
    out.instruction = _tidy(out.instruction)
    out.unnecessary_context = distractor_facts(draft, n=distractors, avoid=keep or [], seed=seed)
    return out


def _name(ent: Entity | None) -> str:
    return f"'{ent.display}'" if ent else "the target"


def _mention(ent: Entity | None, text: str) -> str:
    """What replaces a cut id: the entity's name, unless the text already names it."""
    if ent is None or appears_in(ent.display, text):
        return ""
    return f"'{ent.display}'" if " " in ent.display else ent.display


_MARK = "\x00"
_LABEL = (r"(?:(?:the|his|her|their|its)\s+)?(?:phone(?:\s+number)?|mobile(?:\s+number)?|number|e-?mail(?:\s+address)?|"
          r"(?:\w+[ _])?id|(?:file\s*)?path|address)")
_NOUN_LABEL = r"(?:(?:\w+[ _])?id|(?:file\s*)?path|(?:phone\s+)?number)"  # never a verb ("email Zhao")
_AROUND = [  # a label left next to a cut value: "(phone +86...)", "whose email is x@y", "chat id oc_..."
    re.compile(r"\s*\(\s*(?:" + _LABEL + r")?\s*(?:is|:|=|#)?\s*" + _MARK + r"\s*\)", re.IGNORECASE),
    re.compile(r",\s*" + _LABEL + r"\s*(?:is|:|=)?\s*" + _MARK + r"\s*,?", re.IGNORECASE),
    re.compile(r",?\s*(?:whose|with|at|on|via|using|by)\s+" + _LABEL + r"\s*(?:is|of|:|=)?\s*" + _MARK, re.IGNORECASE),
    re.compile(r"\s*\b" + _NOUN_LABEL + r"\s*(?:is|:|=|#)?\s*" + _MARK, re.IGNORECASE),
    re.compile(r"\s+(?:at|via|on|using)\s+" + _MARK + r"(?=\s*(?:[,.;:!?)]|$))", re.IGNORECASE),
]


def _cut(text: str, value: str, replacement: str) -> str:
    """``text`` without ``value`` and the label that announced it; ``replacement`` (a name) takes its place."""
    if not value or value not in text:
        return text
    text = text.replace(value, _MARK)
    for rx in _AROUND:
        text = rx.sub(f" {replacement}" if replacement else "", text)
    return text.replace(_MARK, replacement)


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)|''|\"\"|``", "", text)
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;:])(?=[.!?])", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def distractor_facts(draft: Draft, *, n: int = 3, avoid: list[str] | None = None, seed: int = 0) -> list[str]:
    """True facts about the persona that the task does not need."""
    used = {b.entity.id for b in draft.bindings.values() if b.entity}
    used |= {u.value for s in draft.steps for u in s.uses}
    pool: list[str] = []
    for sc in draft.servers:
        for ent in catalog(sc.server, sc.context_id):
            if ent.id in used or appears_in(ent.display, draft.instruction):
                continue
            fact = _fact(ent, draft)
            if fact and not any(appears_in(a, fact) for a in (avoid or [])):
                pool.append(fact)
    pool = sorted(set(pool))
    random.Random(seed).shuffle(pool)
    return pool[:n]


def _fact(ent: Entity, draft: Draft) -> str | None:
    kinds = kind_of(ent.type)
    if not kinds or ent.type not in [t for k in kinds for t in ENTITY_KINDS[k][:2]]:
        return None  # attendees, members...: people already listed as people
    title = get_app(ent.server).title
    if "person" in kinds:
        role = ent.fields.get("job_title") or ent.fields.get("department") or ent.fields.get("title")
        return f"{ent.display} is one of your contacts" + (f" ({role})." if isinstance(role, str) and role else ".")
    if "event" in kinds:
        start = ent.start(draft.clock.timezone)
        if start is None:
            return None
        verb = "had" if start < draft.clock.current() else "have"
        return f"You {verb} '{ent.display}' on {start:%A, %B} {start.day}."
    if "chat" in kinds:
        return f"You are in the '{ent.display}' {ent.type} on {title}."
    if "note" in kinds and ent.server == "obsidian":
        return f"Your vault has a note called '{ent.display}'."
    if "message" in kinds or "comment" in kinds or len(ent.display) > 60:
        return None
    article = "an" if ent.type[:1] in "aeiou" else "a"
    return f"Your {title} has {article} {ent.type} called '{ent.display}'."
