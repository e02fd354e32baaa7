"""Instagram: a professional account's profile, posts, comments and Direct messages.

The paper's release ships Instagram only as a simulated server; its tool names are kept:
``get_user_info``, ``get_user_media``, ``get_post_comments``, ``reply_to_comment``,
``list_all_conversations``, ``get_conversation``, ``list_all_messages``, ``send_text_message``.
Argument names are those of the paper's simulation (``post_id``, ``comment_id``, ``message``,
``recipient_id``, ``text``...); ``limit`` and the ``after`` paging cursor are added where the
Graph API pages a list.

Kept from the Instagram Graph API (facts, not code): the shapes -- objects as they are, lists as
``{"data": [...], "paging": {"cursors": {"before", "after"}, "next"}}``, nested edges such as
``replies: {"data": [...]}`` and ``participants: {"data": [{username, id}]}``; timestamps like
``2026-03-09T10:11:12+0000``; long digit ids for users, media and comments and opaque base64 ids for
conversations and messages; errors as ``{"error": {"message", "type", "code", "error_subcode",
"fbtrace_id"}}`` with ``(#100) ...`` OAuthException messages and the ``Unsupported get request.
Object with ID '...' does not exist ...`` GraphMethodException (code 100, subcode 33) for anything
missing or not yours. Rules kept: only your own profile and media can be read (another user's profile
only through the messaging User Profile API, with its other field names such as ``follower_count``
and ``is_user_follow_business``, and only for people who have a conversation with you); comments are
at most 300 characters, 4 hashtags and 1 URL and not all capitals; replies to a reply go to its
top-level comment; a post with comments turned off takes no replies; Direct messages may only be sent
within 24 hours of the user's last message (``(#10) This message is sent outside of allowed window.``,
subcode 2534022) and an unknown recipient is ``(#100) No matching user found`` (subcode 2534014);
``send_text_message`` answers ``{"recipient_id", "message_id"}``.

Invented: the exact wording of the comment-rule and empty/too-long-text errors and of validation
errors, the ``after`` cursor encoding, and that list tools return the usual fields without a
``fields`` parameter (the Graph API would return only ids).
"""

from mcp_persona.apps.instagram.tools import APP

__all__ = ["APP"]
