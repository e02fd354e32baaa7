"""Instruction prototyping: a model writes an instruction template for a tool chain (paper §3.3, S_proto).

The model sees the chain's tool docs and how each tool feeds the next, and answers with one JSON
object: the template, with typed placeholders in braces (``{contact_name}``, ``{chat_name}``,
``{date}``), the type of each placeholder, and the literal wording of every free-text placeholder.
The answer is parsed strictly; a malformed one is sent back once with the reason, and a second
malformed answer rejects the chain (:class:`PrototypeError`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.llm.base import ChatClient
from mcp_persona.persona_gen.entities import ENTITY_KINDS, KIND_DOCS
from mcp_persona.persona_gen.graph import ToolGraph
from mcp_persona.persona_gen.sample import Chain

VALUE_TYPES: dict[str, str] = {
    "date": "a day relative to today (filled like 'tomorrow (Wednesday, March 11)')",
    "time": "a time of day (filled like '15:00')",
    "text": "words the user dictates: a message body, an event or note title, a note line, a search term; "
            "give its exact wording in \"texts\"",
    "phone": "the phone number of the person named by a person placeholder",
    "email_address": "the email address of the person named by a person placeholder",
}
_ID_TYPE = re.compile(r"^(?:[a-z][a-z0-9]*_)+id$|^filepath$|^dirpath$")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_BRACES = re.compile(r"\{([^{}]*)\}")

SYSTEM_PROMPT = """You write task templates for MCP-Persona, a benchmark of assistant agents that act in a \
person's own apps (calendar, chat, notes, mail, social media).

You get a chain of tool calls, in order, with each tool's documentation and which earlier output feeds \
which input. Write ONE request that this person could type to their assistant and that needs exactly this \
chain to fulfil: every tool is needed, in this order, and nothing else.

Rules:
- Speak as the user, in the first person, naturally: "Send Song Ke's team the poster link", not API talk.
- Replace every specific thing by a typed placeholder in braces: people, chats, events, notes, dates, \
times, and the exact words to send or write. Do not invent names, ids or dates yourself.
- The request must name what the chain acts on (the person, the chat, the note...), so the task has one \
right answer; ids are found by the tools, never asked from the user.
- One to three sentences.

Placeholder types:
{types}
- an id type such as user_id, chat_id, event_id, or filepath: the raw identifier (use sparingly; they are \
removed later, as a person would not say them).

Answer with one JSON object and nothing else:
{{"template": "<the request with {{placeholders}}>",
 "placeholders": {{"<name>": "<type>", ...}},
 "texts": {{"<name of each text placeholder>": "<its exact words>"}}}}

Example: {{"template": "Tell the {{chat_name}} group that {{message_text}}.", \
"placeholders": {{"chat_name": "chat", "message_text": "text"}}, \
"texts": {{"message_text": "the poster files are in the shared folder"}}}}"""


class PrototypeError(ValueError):
    """The model's answer was malformed twice: the chain is rejected."""


@dataclass(frozen=True)
class Prototype:
    template: str
    placeholders: dict[str, str]  # name -> type
    texts: dict[str, str] = field(default_factory=dict)  # text placeholder -> its words

    def to_json(self) -> dict[str, Any]:
        return {"template": self.template, "placeholders": self.placeholders, "texts": self.texts}


def known_type(kind: str) -> bool:
    return kind in ENTITY_KINDS or kind in VALUE_TYPES or bool(_ID_TYPE.match(kind))


def system_prompt() -> str:
    kinds = {**KIND_DOCS, **VALUE_TYPES}
    return SYSTEM_PROMPT.replace("{types}", "\n".join(f"- {k}: {v}" for k, v in kinds.items()))


def describe_chain(graph: ToolGraph, chain: Chain) -> str:
    lines = []
    for i, key in enumerate(chain.tools):
        node = graph.nodes[key]
        needs = sorted({f.path.rsplit(".", 1)[-1].removesuffix("[]") for f in node.inputs if f.required})
        lines.append(f"{i + 1}. [{node.server}] {node.tool}{' (changes data)' if node.mutates else ''}: "
                     f"{node.description[:300]}")
        if needs:
            lines.append(f"   required inputs: {', '.join(needs)}")
        for f in chain.feeds_into(i):
            what = "text" if f.kind == "text" else f.link.name
            lines.append(f"   gets its {f.link.in_path} ({what}) from step {f.src + 1}'s {f.link.out_path}")
    return "\n".join(lines)


def parse_prototype(text: str) -> Prototype:
    """The prototype in a model answer, or :class:`PrototypeError` saying what is wrong."""
    body = text.strip()
    fence = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.DOTALL)
    if fence:
        body = fence.group(1)
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as exc:
        raise PrototypeError(f"not one JSON object ({exc.msg})") from exc
    if not isinstance(obj, dict) or set(obj) - {"template", "placeholders", "texts"}:
        raise PrototypeError("expected an object with keys template, placeholders, texts")
    template, placeholders, texts = obj.get("template"), obj.get("placeholders"), obj.get("texts", {})
    if not isinstance(template, str) or not template.strip() or len(template) > 800:
        raise PrototypeError("template must be a non-empty string (at most 800 characters)")
    if not isinstance(placeholders, dict) or not placeholders:
        raise PrototypeError("placeholders must be a non-empty object of name -> type")
    if not isinstance(texts, dict) or not all(isinstance(v, str) and v.strip() for v in texts.values()):
        raise PrototypeError("texts must map each text placeholder to non-empty words")
    for name, kind in placeholders.items():
        if not _NAME.match(str(name)):
            raise PrototypeError(f"bad placeholder name {name!r}: lower_snake_case")
        if not isinstance(kind, str) or not known_type(kind):
            raise PrototypeError(f"placeholder {name!r} has unknown type {kind!r}")
    used = _BRACES.findall(template)
    if any(not _NAME.match(u) for u in used) or not template.count("{") == template.count("}") == len(used):
        raise PrototypeError("the template has a brace that is not a {placeholder}")
    if set(used) != set(placeholders):
        missing, unused = sorted(set(used) - set(placeholders)), sorted(set(placeholders) - set(used))
        raise PrototypeError(f"placeholders and template disagree (undeclared: {missing}, unused: {unused})")
    text_names = {n for n, k in placeholders.items() if k == "text"}
    if set(texts) != text_names:
        raise PrototypeError(f"texts must give exactly the text placeholders {sorted(text_names)}")
    return Prototype(template.strip(), {str(k): str(v) for k, v in placeholders.items()},
                     {str(k): v.strip() for k, v in texts.items()})


async def prototype(client: ChatClient, graph: ToolGraph, chain: Chain, *, retries: int = 1) -> Prototype:
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt()},
                                      {"role": "user", "content": "Tool chain:\n" + describe_chain(graph, chain)}]
    reason = ""
    for _ in range(retries + 1):
        answer = (await client.complete(messages, [])).content or ""
        try:
            return parse_prototype(answer)
        except PrototypeError as exc:
            reason = str(exc)
            messages += [{"role": "assistant", "content": answer},
                         {"role": "user", "content": f"That answer is invalid: {reason}. "
                                                     "Answer again with only the JSON object."}]
    raise PrototypeError(f"malformed prototype after {retries + 1} answers: {reason}")
