"""Generate a persona's 163 mailbox: the configured account, 163's folders, and personal mail.

Each persona's own mail (bills, bookings, family, friends; sent mail, a draft, trash and spam)
comes from the authentic corpus ``email163_<persona>`` with fixed dates; a sample of service
mail (newsletters, notices) in the persona's language is added from ``email163_services_<lang>``
with drawn dates and read flags. Friends and colleagues write from their personal addresses.
UIDs ascend with the date, from a drawn base, with small gaps (mail that was expunged).
"""

from __future__ import annotations

from typing import Any

from mcp_persona.apps._mail import gen as mg
from mcp_persona.apps.email163.tools import DRAFTS, JUNK, SENT, TRASH, server_settings
from mcp_persona.contextgen import Gen

SYSTEM_FOLDERS = [("INBOX", None), ("草稿箱", DRAFTS), ("已发送", SENT), ("已删除", TRASH), ("垃圾邮件", JUNK)]
SERVICE_SAMPLE = 7


def mailbox_address(gen: Gen) -> str:
    me = gen.me
    return me.personal_email if me.personal_email.endswith("@163.com") else f"{me.handle}@163.com"


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    address = mailbox_address(gen)
    me = {"name": gen.me.name, "address": address}
    lang = "zh" if gen.tz.key == "Asia/Shanghai" else "en"

    items: list[tuple[int, dict[str, Any], bool, bool]] = []
    for item in mg.all_items(gen, "message", f"email163_{persona}"):
        items.append((mg.timestamp(gen, item["when"]), item, item["seen"], item.get("flagged", False)))
    for item in gen.authentic("message", f"email163_services_{lang}", k=SERVICE_SAMPLE):
        seen = item["folder"] != "垃圾邮件" and gen.enumerate("message.seen", [True, True, False])
        items.append((mg.drawn_timestamp(gen), item, seen, False))
    items.sort(key=lambda t: (t[0], t[1]["subject"]))

    folders = {name: {"name": name, "special_use": flag} for name, flag in SYSTEM_FOLDERS}
    for _, item, _, _ in items:
        folders.setdefault(item["folder"], {"name": item["folder"], "special_use": None})

    uid = int(gen.random_id("account.uidnext", "1{digits:3}"))
    messages: dict[str, dict[str, Any]] = {}
    for ts, item, seen, flagged in items:
        uid += gen.enumerate("message.uid_gap", [1, 1, 1, 2, 4])
        sender = mg.resolve(gen, item.get("from", "@me"), me=me, personal=True)
        domain = sender["address"].rsplit("@", 1)[1]
        msg: dict[str, Any] = {
            "uid": str(uid),
            "folder": item["folder"],
            "from": sender,
            "to": [mg.resolve(gen, a, me=me, personal=True) for a in item.get("to", ["@me"])],
            "cc": [mg.resolve(gen, a, me=me, personal=True) for a in item.get("cc", [])],
            "bcc": [],
            "subject": mg.fill(gen, item["subject"]),
            "text": mg.fill(gen, item["text"]),
            "date": ts,
            "seen": seen,
            "flagged": flagged,
            "attachments": mg.attachments(item),
            "message_id": gen.random_id("message.message_id", "<{alnum:20}@" + domain + ">"),
        }
        messages[msg["uid"]] = msg

    account = {
        "email": address,
        "display_name": gen.me.name,
        "auth_code": gen.random_id("account.auth_code", "{upper:16}"),
        "provider": "163",
        "configured": True,
        **server_settings("163"),
        "uidnext": uid + 1,
    }
    return {
        "context_id": persona,
        "description": f"{gen.me.name}'s personal 163 mailbox ({address}), configured in the email server",
        "accounts": {address: account},
        "folders": folders,
        "messages": messages,
    }
