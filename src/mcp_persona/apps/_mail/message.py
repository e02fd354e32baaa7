"""A neutral view of one message, and what is derived from messages: snippets, subjects, threads,
attachment metadata.

Each app turns its stored message into a :class:`Mail` (its own field names, folders or labels)
and the shared helpers work on that view only.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Reply / forward prefixes mail clients add, English and Chinese (full-width colon too).
_PREFIX = re.compile(r"^\s*(?:re|fw|fwd|aw|答复|回复|转发)\s*(?:\[\d+\])?\s*[:：]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Mail:
    """What search, threading and listing need to know about a message.

    ``labels`` holds lowercased names the message can be found under (Gmail label names
    and system labels such as ``inbox``, or a 163 folder name); ``unread`` and ``starred``
    are its flags. Addresses are ``{"name", "address"}`` dicts.
    """

    id: str
    sender: dict[str, Any]
    to: tuple[dict[str, Any], ...]
    subject: str
    body: str
    date: int
    cc: tuple[dict[str, Any], ...] = ()
    bcc: tuple[dict[str, Any], ...] = ()
    labels: frozenset[str] = frozenset()
    unread: bool = False
    starred: bool = False
    attachments: tuple[dict[str, Any], ...] = ()
    thread_id: str | None = None
    extra_text: str = field(default="")  # e.g. an HTML part, searched like the body


def snippet(text: str, limit: int = 100) -> str:
    """The first ``limit`` characters of a body on one line, as a list view shows it."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def normalize_subject(subject: str) -> str:
    """A subject without its Re:/Fwd:/回复: prefixes, case-folded: what threads group on."""
    text = subject or ""
    while True:
        stripped = _PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    return " ".join(text.split()).casefold()


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` unless the subject already starts with a reply prefix."""
    return subject if re.match(r"^\s*re\s*[:：]", subject or "", re.IGNORECASE) else f"Re: {subject}"


def attachment_meta(filename: str, size: int, mime_type: str | None = None) -> dict[str, Any]:
    """An attachment's metadata: filename, MIME type (guessed from the name when not given), size."""
    guessed = mime_type or mimetypes.guess_type(filename, strict=False)[0] or "application/octet-stream"
    return {"filename": filename, "mimeType": guessed, "size": int(size)}


def thread_of(mails: Iterable[Mail], thread_id: str) -> list[Mail]:
    """The messages of one thread, oldest first."""
    return sorted((m for m in mails if m.thread_id == thread_id), key=lambda m: (m.date, m.id))


def newest_first(mails: Iterable[Mail]) -> list[Mail]:
    return sorted(mails, key=lambda m: (m.date, m.id), reverse=True)
