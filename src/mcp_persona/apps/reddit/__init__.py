"""Reddit: the user's Reddit account, mirroring the hosted (Composio) Reddit toolkit.

Tools keep the hosted tool names (lower-cased, without the ``REDDIT_`` prefix) and argument names:
create_reddit_post {subreddit, title, kind self|link, text or url, flair_id}, post_reddit_comment
{text, thing_id}, retrieve_post_comments {article}, retrieve_reddit_post {subreddit, sort, limit,
after}, retrieve_specific_comment {id}, search_across_subreddits {search_query, sort, limit,
restrict_sr}, delete_reddit_comment / delete_reddit_post {id}, edit_reddit_comment_or_post {text,
thing_id}, get_user_flair {subreddit} and get_reddit_user_about {username}.

Response style: the hosted envelope ``{"successful": bool, "error": str|null, "data": ...}`` with
Reddit's own JSON in ``data``: listings ``{"kind": "Listing", "data": {"after", "dist", "children":
[{"kind": "t3", "data": {...}}], ...}}`` (posts directly for retrieve_reddit_post, under
``search_results`` for search, ``listings`` = [post listing, comment tree] for retrieve_post_comments,
``things`` for retrieve_specific_comment), write answers as Reddit's ``{"json": {"errors": [], "data":
{...}}}``, deletes as ``{}``. Failures carry Reddit's error bodies in ``data``: API errors as ``{"json":
{"errors": [["SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"]]}}`` (with the real codes and
messages: SUBREDDIT_NOTALLOWED, NO_SELFS, NO_LINKS, NO_TEXT, TOO_LONG, NO_URL, BAD_URL, ALREADY_SUB,
THREAD_LOCKED, TOO_OLD, DELETED_COMMENT, DELETED_LINK, DELETED_THING, INVALID_OPTION,
SUBMIT_VALIDATION_FLAIR_REQUIRED, BAD_FLAIR_TEMPLATE_ID, NO_CHANGE_KIND; several errors of one submit
are reported together), HTTP errors as ``{"message": "Forbidden", "error": 403}`` (``"reason":
"private"`` for a private community), 404 Not Found and 400 Bad Request; the ``error`` string says
what went wrong. Schema violations read ``Invalid request data provided\\n- <field>: <message>``.

Kept quirks: typed fullnames: t1_ comment, t2_ account, t3_ post, t5_ subreddit. A fullname of the
wrong type is a semantic error (a t1_ given to delete_reddit_post, a t3_ to delete_reddit_comment,
a t5_ as a comment parent, an ``after`` cursor that is not a t3_), a bare id where a fullname is
needed is rejected, and retrieve_post_comments wants the bare base-36 article id WITHOUT ``t3_``;
only the author may edit or delete (403), only self posts and comments can be edited, titles never;
deleted things read "[deleted]" and leave listings and search but keep their comment pages; locked
threads take no comments (THREAD_LOCKED), archived ones (months old) neither (TOO_OLD); some
subreddits require post flair, only allow text or link posts, are restricted (only approved users post)
or private (403 for non-members); flair_ids belong to one subreddit and mod-only flairs are refused;
subreddit and user names are case-insensitive and given without r/ or u/; listings default to 5 items
(the hosted default) and page with the ``data.after`` cursor; an unknown cursor gives an empty page.

Simulator choices: get_reddit_user_about is one of the hosted toolkit's tools added to the ten of the
paper; unknown fullnames are 404s (Reddit's /api/info would return an empty listing); 'top' is all-time
and 'rising' means the last two days ranked by score per hour; search matches every query word in
title or text (operators subreddit:, author:, flair:) over the subreddits the user can read, restrict_sr
is accepted and has no effect; get_user_flair returns the user's own flair in ``current`` and the post
flair templates (for create_reddit_post's flair_id) in ``choices``; votes, karma changes, awards and
messages are not simulated; the error strings' wording is invented, the codes and bodies are Reddit's.
"""

from mcp_persona.apps.reddit.tools import APP

__all__ = ["APP"]
