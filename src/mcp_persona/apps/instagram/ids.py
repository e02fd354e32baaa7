"""Instagram Messaging ids: opaque base64 strings that decode to ``ig_...:IGMessageThread:...`` or
``...:IGMessage:...`` records, as the Graph API hands them out."""

from __future__ import annotations

import base64

_THREAD = "ig_d:1:IGMessageThread:"
_ITEM = "ig_item:1:IGMessage:"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode().rstrip("=")


def conversation_id(owner: str, digits: str) -> str:
    return _b64(f"{_THREAD}{owner}:{digits}")


def message_id(owner: str, digits: str) -> str:
    return _b64(f"{_ITEM}{owner}:{digits}")
