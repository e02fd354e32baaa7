"""Gmail: the user's Google Workspace mailbox. No open server of the paper's hosted Gmail exists,
so the interface is designed after the Gmail API and the popular GongRzhe/Gmail-MCP-Server.

Tools (names and arguments as in GongRzhe's server): ``send_email`` and ``draft_email`` {to[],
subject, body, htmlBody?, mimeType?, cc?, bcc?, threadId?, inReplyTo?}, ``read_email
{messageId}``, ``search_emails {query, maxResults?}`` (Gmail search syntax), ``modify_email
{messageId, addLabelIds?, removeLabelIds?}``, ``batch_modify_emails {messageIds, addLabelIds?,
removeLabelIds?, batchSize?}``, ``delete_email {messageId}``, ``list_email_labels``,
``create_label {name, messageListVisibility?, labelListVisibility?}``, ``update_label {id,
name?, ...}``. Invented: ``get_thread {threadId}`` (threads.get), the ``pageToken`` of
search_emails, and the JSON shapes of the results (GongRzhe answers in prose): Gmail API
resources — ``{id, threadId, labelIds}`` for sends and modifies, drafts.create's ``{id,
message}``, ``{messages, nextPageToken, resultSizeEstimate}`` for searches (each hit with
snippet, from, to, subject, date), and a flattened message view (headers, body, attachments).
Failures are Google API errors: ``{"error": {"code": 404, "message": "Requested entity was not
found.", "errors": [...], "status": "NOT_FOUND"}}``, 400 INVALID_ARGUMENT for "Invalid id
value", "Invalid label: X", "Invalid To header", "No label add or removes specified",
"Recipient address required", 409 "Label name exists or conflicts"; bad arguments are 400s
with google.rpc.BadRequest fieldViolations.

Kept quirks: ids are 16 hex characters, and a thread's id is its first message's id; labels are
passed by ID (INBOX, STARRED, UNREAD, Label_N), never by name, so list_email_labels comes
first; archiving is removing INBOX, marking read is removing UNREAD; a reply joins a thread only
when threadId is given and its subject matches the thread's; delete_email is permanent (Trash
is the TRASH label); search excludes spam and trash unless asked and reads after:/before:
dates as midnight US Pacific time (epoch seconds are exact), as the Gmail API documents; mail
sent to oneself also lands in INBOX, unread. Reading a message (read_email, get_thread) marks it
read: a read side effect kept as the message's ``unread`` flag and listed in the hierarchy's
``ignore_changes`` (views put UNREAD back into labelIds). Dates are RFC 5322 in the task
clock's zone; internalDate is unix milliseconds as a string.

Strict like the real service: search matches Gmail's words as written (case aside): "dashboards"
does not find "dashboard"; the shared normalisation (:mod:`mcp_persona.apps._normalize`) is not
applied here, and ids are exact.
"""

from mcp_persona.apps.gmail.tools import APP

__all__ = ["APP"]
