"""Generate a persona's Gmail (Google Workspace) mailbox on their work address.

The persona's own mail (colleagues writing from their work addresses, vendors, notifications,
sent replies, a draft, spam and trash) comes from the authentic corpus ``gmail_<persona>`` with
fixed dates, labels and threads; a sample of service mail from ``gmail_services`` is added with
drawn dates and unread flags. Items sharing a ``thread`` key form one thread: its id is the
first message's id and each reply's In-Reply-To names the message before it. User labels are
the label names the items use, numbered Label_1.. in alphabetical order.
"""

from __future__ import annotations

from typing import Any

from mcp_persona.apps._mail import gen as mg
from mcp_persona.apps.gmail.tools import SYSTEM_LABELS
from mcp_persona.contextgen import Gen

SERVICE_SAMPLE = 6


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    me = {"name": gen.me.name, "address": gen.me.email}
    own = mg.all_items(gen, "message", f"gmail_{persona}")
    items: list[tuple[int, dict[str, Any], bool]] = [(mg.timestamp(gen, it["when"]), it, it["unread"]) for it in own]
    for item in gen.authentic("message", "gmail_services", k=SERVICE_SAMPLE):
        items.append((mg.drawn_timestamp(gen), item, gen.enumerate("message.unread", [True, False, False])))
    items.sort(key=lambda t: (t[0], t[1]["subject"]))

    user_names = sorted({n for _, item, _ in items for n in item["labels"] if n not in SYSTEM_LABELS}, key=str.casefold)
    labels: dict[str, dict[str, Any]] = {lid: {"id": lid, "name": lid, "type": "system"} for lid in SYSTEM_LABELS}
    label_id = {}
    for i, name in enumerate(user_names, 1):
        lid = f"Label_{i}"
        label_id[name] = lid
        labels[lid] = {"id": lid, "name": name, "type": "user", "messageListVisibility": "show",
                       "labelListVisibility": "labelShow"}

    messages: dict[str, dict[str, Any]] = {}
    threads: dict[str, tuple[str, str]] = {}  # thread key -> (threadId, Message-ID of the latest message)
    for ts, item, unread in items:
        mid = gen.new_id("message")
        sender = mg.resolve(gen, item.get("from", "@me"), me=me, personal=False)
        if sender["address"] == me["address"]:
            header = gen.random_id("message.messageIdHeader", "<CA+{alnum:32}@mail.gmail.com>")
        else:
            domain = sender["address"].rsplit("@", 1)[1]
            header = gen.random_id("message.messageIdHeader", "<{alnum:24}@" + domain + ">")
        msg: dict[str, Any] = {
            "id": mid,
            "threadId": mid,
            "labelIds": [label_id.get(n, n) for n in item["labels"]],
            "unread": unread,
            "from": sender,
            "to": [mg.resolve(gen, a, me=me, personal=False) for a in item.get("to", ["@me"])],
            "cc": [mg.resolve(gen, a, me=me, personal=False) for a in item.get("cc", [])],
            "bcc": [],
            "subject": mg.fill(gen, item["subject"]),
            "body": mg.fill(gen, item["body"]),
            "date": ts,
            "messageIdHeader": header,
            "attachments": [a | {"attachmentId": gen.random_id("message.attachmentId", "ANGjdJ{alnum:40}")}
                            for a in mg.attachments(item)],
        }
        key = item.get("thread")
        if key in threads:
            msg["threadId"], msg["inReplyTo"] = threads[key]
        if key:
            threads[key] = (msg["threadId"], header)
        if item.get("draft"):
            msg["draftId"] = gen.random_id("message.draftId", "r{digits:19}")
        messages[mid] = msg

    return {
        "context_id": persona,
        "description": f"{gen.me.name}'s Gmail (Google Workspace) mailbox at {me['address']}",
        "profile": {"emailAddress": me["address"], "displayName": gen.me.name},
        "labels": labels,
        "messages": messages,
    }
