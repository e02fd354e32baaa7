"""The Gmail tools over the Gmail Context-Tree (see ``data/hierarchies/gmail.json``).

Messages are stored top-level by their 16-hex id with ``labelIds`` referencing label entities;
UNREAD is the message's ``unread`` flag (so that reading, a side effect, touches one field only)
and is put back into ``labelIds`` in every view. A thread is the set of messages sharing a
``threadId``, which is the id of the thread's first message.
"""

from __future__ import annotations

import re
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from mcp_persona.apps._mail import (
    AddressError,
    Mail,
    QueryError,
    format_address,
    format_addresses,
    normalize_subject,
    parse_query,
    parse_recipients,
    rfc5322,
    same_address,
    snippet,
    thread_of,
)
from mcp_persona.apps._mail.message import newest_first
from mcp_persona.apps._mail.search import MatchContext, matches
from mcp_persona.apps._normalize import StrictNote
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure
from mcp_persona.apps.paging import page
from mcp_persona.context_tree.ids import generate_id

# HTTP status -> (google.rpc status, errors[].reason) as the Gmail API reports them.
_STATUS = {
    400: ("INVALID_ARGUMENT", "invalidArgument"),
    403: ("PERMISSION_DENIED", "forbidden"),
    404: ("NOT_FOUND", "notFound"),
    409: ("ALREADY_EXISTS", "conflict"),
    500: ("INTERNAL", "backendError"),
}
_KIND_CODE = {"not_found": 404, "permission": 403, "internal": 500}
NOT_FOUND = "Requested entity was not found."


class GmailApp(App):
    """Gmail API resources as JSON; failures as Google API error objects."""

    def success_payload(self, tool: str, result: Any) -> Any:
        return result

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code if isinstance(failure.code, int) else _KIND_CODE.get(failure.kind, 400)
        status, reason = _STATUS.get(code, _STATUS[400])
        return {"error": {"code": code, "message": failure.message,
                          "errors": [{"message": failure.message, "domain": "global", "reason": reason}],
                          "status": status}}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return {"error": {
            "code": 400,
            "message": "Invalid JSON payload received. " + "; ".join(f"{v.field}: {v.message}" for v in violations),
            "errors": [{"message": v.message, "domain": "global", "reason": "invalidArgument", "location": v.field}
                       for v in violations],
            "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                         "fieldViolations": [{"field": v.field, "description": v.message} for v in violations]}],
        }}


APP = GmailApp(
    "gmail",
    title="Gmail",
    category="email",
    description="The user's Gmail (Google Workspace) mailbox: search, read, send and draft mail; manage labels "
                "and threads.",
    real_server="GongRzhe/Gmail-MCP-Server (interface modelled; no open server of the paper's hosted Gmail)",
    strict=[StrictNote("search_emails", "query", ("plural", "qualifier", "phrase"),
                       "Gmail search matches whole words as written (case aside): no stemming, so 'dashboards' "
                       "does not find 'dashboard', and every word of 'Shanghai, China' must be in the message")],
)

SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "SPAM", "TRASH", "STARRED", "IMPORTANT", "UNREAD",
                 "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES",
                 "CATEGORY_FORUMS")
_NOT_APPLICABLE = {"SENT", "DRAFT"}  # set by sending and drafting only
_ID = re.compile(r"^[0-9a-f]{16}$")
# The Gmail API reads after:/before: dates as midnight Pacific time (epoch seconds are exact).
SEARCH_TZ = ZoneInfo("America/Los_Angeles")


def _fail(code: int, message: str, kind: Any) -> ToolFailure:
    return ToolFailure(message, kind=kind, code=code)


# -- state helpers ---------------------------------------------------------------------------------
def _me(env: AppEnv) -> dict[str, str]:
    p = env.tree.data["profile"]
    return {"name": p.get("displayName", ""), "address": p["emailAddress"]}


def _message(env: AppEnv, message_id: str) -> dict[str, Any]:
    if not _ID.match(message_id):
        raise _fail(400, "Invalid id value", "type")
    msg = env.tree.top("message", message_id)
    if msg is None:
        raise _fail(404, NOT_FOUND, "not_found")
    return msg


def _labels(env: AppEnv) -> dict[str, dict[str, Any]]:
    return env.tree.data.get("labels") or {}


def _label_names(env: AppEnv, msg: dict[str, Any]) -> frozenset[str]:
    labels = _labels(env)
    names = {labels[i]["name"].casefold() for i in msg.get("labelIds", []) if i in labels}
    return frozenset(names | {i.casefold() for i in msg.get("labelIds", [])})


def _label_ids(msg: dict[str, Any]) -> list[str]:
    return (["UNREAD"] if msg.get("unread") else []) + list(msg.get("labelIds", []))


def _mail(env: AppEnv, msg: dict[str, Any]) -> Mail:
    return Mail(
        id=msg["id"], thread_id=msg["threadId"], sender=msg["from"], to=tuple(msg.get("to", [])),
        cc=tuple(msg.get("cc", [])), bcc=tuple(msg.get("bcc", [])), subject=msg.get("subject", ""),
        body=msg.get("body", ""), extra_text=msg.get("htmlBody", ""), date=msg["date"],
        labels=_label_names(env, msg), unread=bool(msg.get("unread")), starred="STARRED" in msg.get("labelIds", []),
        attachments=tuple(msg.get("attachments", [])),
    )


def _headers(env: AppEnv, msg: dict[str, Any]) -> dict[str, str]:
    h = {"From": format_address(msg["from"]), "To": format_addresses(msg.get("to", []))}
    if msg.get("cc"):
        h["Cc"] = format_addresses(msg["cc"])
    if msg.get("bcc"):
        h["Bcc"] = format_addresses(msg["bcc"])
    h["Subject"] = msg.get("subject", "")
    h["Date"] = rfc5322(msg["date"], env.clock.tz)
    h["Message-ID"] = msg["messageIdHeader"]
    if msg.get("inReplyTo"):
        h["In-Reply-To"] = msg["inReplyTo"]
    return h


def _full(env: AppEnv, msg: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": msg["id"], "threadId": msg["threadId"], "labelIds": _label_ids(msg),
        "snippet": snippet(msg.get("body", "")), "internalDate": str(msg["date"] * 1000),
        "headers": _headers(env, msg), "body": msg.get("body", ""),
    }
    if msg.get("htmlBody"):
        view["htmlBody"] = msg["htmlBody"]
    view["attachments"] = [dict(a) for a in msg.get("attachments", [])]
    if msg.get("draftId"):
        view["draftId"] = msg["draftId"]
    return view


def _summary(env: AppEnv, msg: dict[str, Any]) -> dict[str, Any]:
    return {"id": msg["id"], "threadId": msg["threadId"], "labelIds": _label_ids(msg),
            "snippet": snippet(msg.get("body", "")), "from": format_address(msg["from"]),
            "to": format_addresses(msg.get("to", [])), "subject": msg.get("subject", ""),
            "date": rfc5322(msg["date"], env.clock.tz)}


def _mark_read(env: AppEnv, msg: dict[str, Any]) -> None:
    if msg.get("unread"):
        env.tree.update(f"messages[{msg['id']}]", {"unread": False})


# -- composing -------------------------------------------------------------------------------------
MimeType = Literal["text/plain", "text/html", "multipart/alternative"]
_TAG = re.compile(r"<[^>]+>")


def _recipients(values: list[str] | None, header: str) -> list[dict[str, str]]:
    try:
        return parse_recipients(values)
    except AddressError as exc:
        raise _fail(400, f"Invalid {header} header", "type") from exc


def _thread_for(env: AppEnv, thread_id: str | None, in_reply_to: str | None, subject: str) -> tuple[str | None, str]:
    """(the thread the new message joins or None for a new one, the In-Reply-To header or '')."""
    parent = None
    if in_reply_to is not None:
        probe = in_reply_to.strip()
        parent = next((m for m in env.tree.list("messages")
                       if m.get("messageIdHeader") == probe or m["id"] == probe), None)
        if parent is None:
            raise _fail(400, f"Invalid In-Reply-To header: no message with Message-ID {probe}", "not_found")
    if thread_id is None:
        return None, parent["messageIdHeader"] if parent else ""
    if not _ID.match(thread_id):
        raise _fail(400, "Invalid thread id value", "type")
    members = [m for m in env.tree.list("messages") if m["threadId"] == thread_id]
    if not members:
        raise _fail(404, NOT_FOUND, "not_found")
    if parent is not None and parent["threadId"] != thread_id:
        raise _fail(400, f"In-Reply-To message {parent['id']} is not in thread {thread_id}", "conflict")
    first = min(members, key=lambda m: (m["date"], m["id"]))
    # Gmail threads a message only when its Subject matches the thread's (Re:/Fwd: aside).
    joined = thread_id if normalize_subject(subject) == normalize_subject(first.get("subject", "")) else None
    return joined, parent["messageIdHeader"] if parent else ""


def _compose(
    env: AppEnv, *, to: list[str], subject: str, body: str, cc: list[str] | None, bcc: list[str] | None,
    htmlBody: str | None, mimeType: MimeType, threadId: str | None, inReplyTo: str | None, draft: bool,
) -> dict[str, Any]:
    rcpt_to = _recipients(to, "To")
    rcpt_cc, rcpt_bcc = _recipients(cc, "Cc"), _recipients(bcc, "Bcc")
    if not draft and not (rcpt_to or rcpt_cc or rcpt_bcc):
        raise _fail(400, "Recipient address required", "missing")
    if mimeType == "multipart/alternative" and not htmlBody:
        raise _fail(400, "htmlBody is required when mimeType is multipart/alternative", "missing")
    text, html = body, htmlBody
    if mimeType == "text/html":
        text, html = " ".join(_TAG.sub(" ", body).split()), body
    joined, reply_header = _thread_for(env, threadId, inReplyTo, subject)
    me = _me(env)
    msg_id = env.tree.new_id("message")
    to_me = any(same_address(a["address"], me["address"]) for a in rcpt_to + rcpt_cc + rcpt_bcc)
    labels = ["DRAFT"] if draft else (["SENT", "INBOX"] if to_me else ["SENT"])
    entity: dict[str, Any] = {
        "threadId": joined or msg_id, "labelIds": labels, "unread": bool(to_me and not draft),
        "from": me, "to": rcpt_to, "cc": rcpt_cc, "bcc": rcpt_bcc, "subject": subject, "body": text,
        "date": env.now(), "messageIdHeader": generate_id("<CA+{alnum:32}@mail.gmail.com>", env.tree.rng),
        "attachments": [],
    }
    if html:
        entity["htmlBody"] = html
    if reply_header:
        entity["inReplyTo"] = reply_header
    if draft:
        entity["draftId"] = generate_id("r{digits:19}", env.tree.rng)
    return env.tree.create("messages", entity, entity_id=msg_id)


_TO_DOC = "List of recipient email addresses ('a@b.com' or 'Name <a@b.com>')"
_THREAD_DOC = ("Thread ID to reply to: the reply joins the thread when its subject matches the thread's "
               "(a Re: prefix is fine)")
_REPLY_DOC = "Message-ID header (or Gmail id) of the email being replied to"
_MIME_DOC = ("Email content type: text/plain (default), text/html (body is HTML) or multipart/alternative "
             "(body is the text part, htmlBody the HTML part)")
_MIME_FIELD = Field("text/plain", description=_MIME_DOC)


@APP.tool(mutates=True)
def send_email(
    env: AppEnv,
    to: list[str] = Field(description=_TO_DOC),  # noqa: B008
    subject: str = Field(description="Email subject"),
    body: str = Field(description="Email body content (plain text, or HTML when mimeType is text/html)"),
    htmlBody: str | None = Field(None, description="HTML version of the email body"),
    mimeType: MimeType = _MIME_FIELD,
    cc: list[str] | None = Field(None, description="List of CC recipients"),  # noqa: B008
    bcc: list[str] | None = Field(None, description="List of BCC recipients"),  # noqa: B008
    threadId: str | None = Field(None, description=_THREAD_DOC),
    inReplyTo: str | None = Field(None, description=_REPLY_DOC),
) -> dict[str, Any]:
    """Sends a new email. To reply within a thread, pass the thread's threadId and the replied message's
    Message-ID header as inReplyTo, and keep the subject (Re: ...)."""
    msg = _compose(env, to=to, subject=subject, body=body, cc=cc, bcc=bcc, htmlBody=htmlBody, mimeType=mimeType,
                   threadId=threadId, inReplyTo=inReplyTo, draft=False)
    return {"id": msg["id"], "threadId": msg["threadId"], "labelIds": _label_ids(msg)}


@APP.tool(mutates=True)
def draft_email(
    env: AppEnv,
    to: list[str] = Field(description=_TO_DOC),  # noqa: B008
    subject: str = Field(description="Email subject"),
    body: str = Field(description="Email body content (plain text, or HTML when mimeType is text/html)"),
    htmlBody: str | None = Field(None, description="HTML version of the email body"),
    mimeType: MimeType = _MIME_FIELD,
    cc: list[str] | None = Field(None, description="List of CC recipients"),  # noqa: B008
    bcc: list[str] | None = Field(None, description="List of BCC recipients"),  # noqa: B008
    threadId: str | None = Field(None, description=_THREAD_DOC),
    inReplyTo: str | None = Field(None, description=_REPLY_DOC),
) -> dict[str, Any]:
    """Creates a draft email without sending it (label DRAFT). Returns the draft id and its message."""
    msg = _compose(env, to=to, subject=subject, body=body, cc=cc, bcc=bcc, htmlBody=htmlBody, mimeType=mimeType,
                   threadId=threadId, inReplyTo=inReplyTo, draft=True)
    return {"id": msg["draftId"], "message": {"id": msg["id"], "threadId": msg["threadId"],
                                              "labelIds": _label_ids(msg)}}


# -- reading ---------------------------------------------------------------------------------------
_MSG_ID_DOC = "ID of the email message (16 hex characters, from search_emails)"


@APP.tool()
def read_email(env: AppEnv, messageId: str = Field(description=_MSG_ID_DOC)) -> dict[str, Any]:
    """Retrieves the content of a specific email: headers, body, labels and attachment information. Reading
    an unread email marks it as read."""
    msg = _message(env, messageId)
    _mark_read(env, msg)
    return _full(env, msg)


@APP.tool()
def get_thread(env: AppEnv, threadId: str = Field(description="ID of the thread (the threadId of a message)")) \
        -> dict[str, Any]:
    """Retrieves every message of a conversation thread, oldest first; unread ones are marked as read."""
    if not _ID.match(threadId):
        raise _fail(400, "Invalid id value", "type")
    members = [m for m in env.tree.list("messages") if m["threadId"] == threadId]
    if not members:
        raise _fail(404, NOT_FOUND, "not_found")
    by_id = {m["id"]: m for m in members}
    ordered = [by_id[m.id] for m in thread_of((_mail(env, m) for m in members), threadId)]
    for m in ordered:
        _mark_read(env, m)
    return {"id": threadId, "messages": [_full(env, m) for m in ordered]}


@APP.tool()
def search_emails(
    env: AppEnv,
    query: str = Field(description="Gmail search query (e.g. 'from:example@gmail.com', 'is:unread', "
                                   "'label:work after:2026/03/01 has:attachment')"),
    maxResults: int = Field(10, ge=1, le=500, description="Maximum number of results to return (default 10)"),
    pageToken: str | None = Field(None, description="nextPageToken of a previous search, for the next page"),
) -> dict[str, Any]:
    """Searches for emails using Gmail search syntax (from:, to:, subject:, label:, is:unread, in:sent,
    after:YYYY/MM/DD, before:, newer_than:3d, has:attachment, OR, -term). Newest first; spam and trash only
    with in:spam / in:trash / in:anywhere. Dates in after:/before: are read as midnight US Pacific time, as
    the Gmail API does; pass unix seconds for exact times."""
    try:
        q = parse_query(query)
    except QueryError as exc:
        raise _fail(400, f"Invalid query: {exc}", "range") from exc
    scoped = q.mentions("in", {"spam", "trash", "anywhere"}) or q.mentions("label", {"spam", "trash"})
    ctx = MatchContext(me=_me(env)["address"], tz=SEARCH_TZ, now=env.clock.timestamp())
    mails = [_mail(env, m) for m in env.tree.list("messages")
             if scoped or not {"SPAM", "TRASH"} & set(m.get("labelIds", []))]
    hits = [m.id for m in newest_first(mails) if matches(q, m, ctx)]
    ids, _, token = page(hits, maxResults, pageToken)
    out: dict[str, Any] = {}
    if ids:
        out["messages"] = [_summary(env, env.tree.data["messages"][i]) for i in ids]
    if token:
        out["nextPageToken"] = token
    out["resultSizeEstimate"] = len(hits)
    return out


# -- labels on messages ----------------------------------------------------------------------------
def _check_label_ids(env: AppEnv, add: list[str], remove: list[str]) -> None:
    if not add and not remove:
        raise _fail(400, "No label add or removes specified", "missing")
    labels = _labels(env)
    for lid in [*add, *remove]:
        if lid not in labels or lid in _NOT_APPLICABLE:
            raise _fail(400, f"Invalid label: {lid}", "not_found" if lid not in labels else "conflict")
    both = sorted(set(add) & set(remove))
    if both:
        raise _fail(400, f"Label {both[0]} cannot be both added and removed", "conflict")


def _relabel(env: AppEnv, msg: dict[str, Any], add: list[str], remove: list[str]) -> None:
    changes: dict[str, Any] = {}
    if "UNREAD" in add and not msg.get("unread"):
        changes["unread"] = True
    if "UNREAD" in remove and msg.get("unread"):
        changes["unread"] = False
    current = list(msg.get("labelIds", []))
    updated = [lid for lid in current if lid not in remove]
    updated += [lid for lid in dict.fromkeys(add) if lid != "UNREAD" and lid not in updated]
    if updated != current:
        changes["labelIds"] = updated
    if changes:
        env.tree.update(f"messages[{msg['id']}]", changes)


_ADD_DOC = "Label IDs to add (e.g. STARRED, IMPORTANT, UNREAD, INBOX, Label_3; see list_email_labels)"
_REMOVE_DOC = "Label IDs to remove (remove INBOX to archive, UNREAD to mark as read)"


@APP.tool(mutates=True)
def modify_email(
    env: AppEnv,
    messageId: str = Field(description=_MSG_ID_DOC),
    addLabelIds: list[str] | None = Field(None, description=_ADD_DOC),  # noqa: B008
    removeLabelIds: list[str] | None = Field(None, description=_REMOVE_DOC),  # noqa: B008
) -> dict[str, Any]:
    """Adds or removes labels of an email: star, archive, mark read/unread, move to a label. Labels are
    given by ID, not by name."""
    add, remove = list(addLabelIds or []), list(removeLabelIds or [])
    msg = _message(env, messageId)
    _check_label_ids(env, add, remove)
    _relabel(env, msg, add, remove)
    return {"id": msg["id"], "threadId": msg["threadId"], "labelIds": _label_ids(msg)}


@APP.tool(mutates=True)
def batch_modify_emails(
    env: AppEnv,
    messageIds: list[str] = Field(min_length=1, max_length=1000, description="IDs of the messages to modify"),  # noqa: B008
    addLabelIds: list[str] | None = Field(None, description=_ADD_DOC),  # noqa: B008
    removeLabelIds: list[str] | None = Field(None, description=_REMOVE_DOC),  # noqa: B008
    batchSize: int = Field(50, ge=1, le=1000, description="Number of messages per batch (default 50)"),
) -> dict[str, Any]:
    """Adds or removes labels of several emails at once. Every ID must exist, or nothing is changed."""
    add, remove = list(addLabelIds or []), list(removeLabelIds or [])
    ids = list(dict.fromkeys(messageIds))
    msgs = [_message(env, i) for i in ids]
    _check_label_ids(env, add, remove)
    for msg in msgs:
        _relabel(env, msg, add, remove)
    return {"messageIds": ids, "modifiedCount": len(ids), "batches": -(-len(ids) // batchSize)}


@APP.tool(mutates=True)
def delete_email(env: AppEnv, messageId: str = Field(description=_MSG_ID_DOC)) -> dict[str, Any]:
    """Permanently deletes an email (it does not go to Trash and cannot be recovered). To trash it instead,
    add the TRASH label with modify_email."""
    msg = _message(env, messageId)
    env.tree.delete(f"messages[{msg['id']}]")
    return {"id": msg["id"], "threadId": msg["threadId"], "deleted": True}


# -- labels ----------------------------------------------------------------------------------------
def _label_view(env: AppEnv, label: dict[str, Any]) -> dict[str, Any]:
    lid = label["id"]
    msgs = env.tree.list("messages")
    if lid == "UNREAD":
        tagged = [m for m in msgs if m.get("unread")]
    else:
        tagged = [m for m in msgs if lid in m.get("labelIds", [])]
    view = {"id": lid, **{k: v for k, v in label.items() if k != "id"}}
    view["messagesTotal"] = len(tagged)
    view["messagesUnread"] = sum(1 for m in tagged if m.get("unread"))
    return view


@APP.tool()
def list_email_labels(env: AppEnv) -> dict[str, Any]:
    """Retrieves all available Gmail labels, system and user, with their IDs and message counts."""
    labels = list(_labels(env).values())
    order = {name: i for i, name in enumerate(SYSTEM_LABELS)}
    system = sorted((lb for lb in labels if lb.get("type") == "system"), key=lambda lb: order.get(lb["id"], 99))
    user = sorted((lb for lb in labels if lb.get("type") != "system"), key=lambda lb: lb["name"].casefold())
    return {"labels": [_label_view(env, lb) for lb in system + user]}


def _check_name(env: AppEnv, name: str, *, own_id: str | None = None) -> str:
    clean = name.strip()
    if not clean or "//" in clean or clean.startswith("/") or clean.endswith("/"):
        raise _fail(400, "Invalid label name", "range")
    key = clean.casefold()
    for lb in _labels(env).values():
        if lb["id"] != own_id and (lb["name"].casefold() == key or lb["id"].casefold() == key):
            raise _fail(409, "Label name exists or conflicts", "conflict")
    return clean


MessageListVisibility = Literal["show", "hide"]
LabelListVisibility = Literal["labelShow", "labelShowIfUnread", "labelHide"]
_MLV_DOC = "Whether to show the label in the message list: show or hide"
_LLV_DOC = "Visibility of the label in the label list: labelShow, labelShowIfUnread or labelHide"
_MLV_FIELD = Field("show", description=_MLV_DOC)
_LLV_FIELD = Field("labelShow", description=_LLV_DOC)
_MLV_OPTIONAL = Field(None, description=_MLV_DOC)
_LLV_OPTIONAL = Field(None, description=_LLV_DOC)


@APP.tool(mutates=True)
def create_label(
    env: AppEnv,
    name: str = Field(min_length=1, max_length=225, description="Name for the new label ('Parent/Child' nests it)"),
    messageListVisibility: MessageListVisibility = _MLV_FIELD,
    labelListVisibility: LabelListVisibility = _LLV_FIELD,
) -> dict[str, Any]:
    """Creates a new Gmail label. Returns it with its ID (Label_N), which modify_email takes."""
    clean = _check_name(env, name)
    numbers = [int(lid[6:]) for lid in _labels(env) if lid.startswith("Label_") and lid[6:].isdigit()]
    label = env.tree.create("labels", {
        "name": clean, "type": "user", "messageListVisibility": messageListVisibility,
        "labelListVisibility": labelListVisibility,
    }, entity_id=f"Label_{max(numbers, default=0) + 1}")
    return _label_view(env, label)


@APP.tool(mutates=True)
def update_label(
    env: AppEnv,
    id: str = Field(min_length=1, description="ID of the label to update (Label_N)"),
    name: str | None = Field(None, min_length=1, max_length=225, description="New name for the label"),
    messageListVisibility: MessageListVisibility | None = _MLV_OPTIONAL,
    labelListVisibility: LabelListVisibility | None = _LLV_OPTIONAL,
) -> dict[str, Any]:
    """Updates (renames, or changes the visibility of) a user label. System labels cannot be changed."""
    label = env.tree.top("label", id)
    if label is None:
        raise _fail(404, NOT_FOUND, "not_found")
    if label.get("type") == "system":
        raise _fail(400, f"Invalid update request: {id} is a system label", "permission")
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = _check_name(env, name, own_id=id)
    if messageListVisibility is not None:
        changes["messageListVisibility"] = messageListVisibility
    if labelListVisibility is not None:
        changes["labelListVisibility"] = labelListVisibility
    if not changes:
        raise _fail(400, "No label fields to update", "missing")
    env.tree.update(f"labels[{id}]", changes)
    return _label_view(env, label)
