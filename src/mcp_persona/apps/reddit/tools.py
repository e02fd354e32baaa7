"""The Reddit tools over the reddit Context-Tree (see ``data/hierarchies/reddit.json``).

Entities are stored under their bare base-36 ids; the tools speak Reddit fullnames, the id with
its type prefix: ``t1_`` comment, ``t2_`` account, ``t3_`` post, ``t5_`` subreddit. Times are unix
seconds (``created_utc``), rendered as floats as Reddit does.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import Field

from mcp_persona.apps._normalize import hits_per_term
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

KINDS = {"t1": "comment", "t2": "account", "t3": "post", "t4": "message", "t5": "subreddit", "t6": "award"}
TITLE_MAX = 300
SELFTEXT_MAX = 40000
COMMENT_MAX = 10000
_HTTP = {400: "Bad Request", 403: "Forbidden", 404: "Not Found"}
_FULLNAME = re.compile(r"^(t[1-6])_([0-9a-z]+)$")


class RedditApp(App):
    """The hosted (Composio-style) envelope: ``{"successful", "error", "data"}``; ``data`` holds Reddit's own
    JSON (listings, ``{"json": {"errors": [...], "data": ...}}`` bodies, HTTP error bodies)."""

    def success_payload(self, tool: str, result: Any) -> Any:
        return {"successful": True, "error": None, "data": result}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return {"successful": False, "error": failure.message, "data": failure.extra.get("body", {})}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "\n".join(f"- {v.field}: {v.message}" for v in violations)
        return {"successful": False, "error": f"Invalid request data provided\n{detail}", "data": {}}


APP = RedditApp(
    "reddit",
    title="Reddit",
    category="social",
    description="The user's Reddit account: subreddit listings, post and comment threads, search, posting, "
                "commenting, editing and deleting the user's own posts and comments, flair. Things are named by "
                "fullnames with type prefixes: t1_ comment, t2_ account, t3_ post, t5_ subreddit.",
    real_server="Composio Reddit toolkit (hosted)",
)


# -- errors -------------------------------------------------------------------------------------------
def api_error(errors: list[tuple[str, str, str]], kind: Any, hint: str = "") -> ToolFailure:
    """A Reddit API validation failure: ``{"json": {"errors": [[CODE, message, field], ...]}}``."""
    text = "; ".join(f"{code}: {message} (field: {field})" for code, message, field in errors)
    return ToolFailure(text + (f" — {hint}" if hint else ""), kind=kind,
                       body={"json": {"errors": [list(e) for e in errors]}})


def http_error(status: int, hint: str, kind: Any, reason: str | None = None) -> ToolFailure:
    body: dict[str, Any] = {"message": _HTTP[status], "error": status}
    if reason:
        body = {"reason": reason} | body
    return ToolFailure(f"{status} {_HTTP[status]}: {hint}", kind=kind, code=status, body=body)


def _fullname(value: str, allowed: tuple[str, ...], what: str) -> tuple[str, str]:
    """Split a fullname into (prefix, base-36 id); a bare id or another type is a 400."""
    m = _FULLNAME.match(value.strip())
    if not m:
        wanted = " or ".join(f"{p}_..." for p in allowed)
        raise http_error(400, f"{what} must be a Reddit fullname such as {allowed[0]}_1a2b3c4 ({wanted}); "
                              f"got {value!r}", "range")
    prefix, ident = m.groups()
    if prefix not in allowed:
        names = " or ".join(f"a {KINDS[p]} ({p}_)" for p in allowed)
        raise http_error(400, f"{what} must name {names}, but {value} is a {KINDS[prefix]}", "conflict")
    return prefix, ident


# -- lookups ------------------------------------------------------------------------------------------
def _me(env: AppEnv) -> dict[str, Any]:
    return env.tree.get(f"users[{env.tree.data['me']}]")


def _user(env: AppEnv, uid: str) -> dict[str, Any]:
    return env.tree.get(f"users[{uid}]")


def _find_subreddit(env: AppEnv, name: str) -> dict[str, Any] | None:
    probe = name.strip().lower()
    return next((s for s in env.tree.list("subreddits") if s["display_name"].lower() == probe), None)


def _readable(sr: dict[str, Any]) -> bool:
    return sr["subreddit_type"] != "private" or sr.get("user_is_subscriber") or sr.get("user_is_moderator")


def _subreddit_for_reading(env: AppEnv, name: str) -> dict[str, Any]:
    sr = _find_subreddit(env, name)
    if sr is None:
        hint = " (give the name without the r/ prefix)" if name.strip().lower().startswith(("r/", "/r/")) else ""
        raise http_error(404, f"there is no subreddit r/{name.strip()}{hint}", "not_found")
    if not _readable(sr):
        raise http_error(403, f"r/{sr['display_name']} is a private community and you are not a member",
                         "permission", reason="private")
    return sr


def _post(env: AppEnv, ident: str) -> dict[str, Any] | None:
    return env.tree.top("post", ident)


def _comment(env: AppEnv, ident: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(post, comment) for a comment id."""
    for post in env.tree.list("posts"):
        found = (post.get("comments") or {}).get(ident)
        if found is not None:
            return post, found
    return None


def _sr_of(env: AppEnv, post: dict[str, Any]) -> dict[str, Any]:
    return env.tree.get(f"subreddits[{post['subreddit_id']}]")


def _visible_post(env: AppEnv, ident: str, fullname: str) -> dict[str, Any]:
    post = _post(env, ident)
    if post is None or not _readable(_sr_of(env, post)):
        raise http_error(404, f"no post with fullname {fullname}", "not_found")
    return post


def _visible_comment(env: AppEnv, ident: str, fullname: str) -> tuple[dict[str, Any], dict[str, Any]]:
    found = _comment(env, ident)
    if found is None or not _readable(_sr_of(env, found[0])):
        raise http_error(404, f"no comment with fullname {fullname}", "not_found")
    return found


# -- rendering ----------------------------------------------------------------------------------------
def _slug(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 50:
            break
        slug = f"{slug}_{word}" if slug else word
    return slug or "_"


def _permalink(sr: dict[str, Any], post: dict[str, Any]) -> str:
    return f"/r/{sr['display_name']}/comments/{post['id']}/{_slug(post['title'])}/"


def listing(children: list[dict[str, Any]], after: str | None = None, dist: bool = True) -> dict[str, Any]:
    return {"kind": "Listing", "data": {"after": after, "dist": len(children) if dist else None, "modhash": "",
                                        "geo_filter": "", "children": children, "before": None}}


def _edited(value: Any) -> Any:
    return float(value) if value else False


def _post_data(env: AppEnv, post: dict[str, Any]) -> dict[str, Any]:
    sr = _sr_of(env, post)
    deleted = bool(post.get("deleted"))
    author = _user(env, post["author_id"])
    permalink = _permalink(sr, post)
    created = float(post["created_utc"])
    return {
        "subreddit": sr["display_name"],
        "selftext": "[deleted]" if deleted and post["is_self"] else post.get("selftext", ""),
        "author_fullname": None if deleted else f"t2_{author['id']}",
        "saved": False,
        "title": post["title"],
        "subreddit_name_prefixed": f"r/{sr['display_name']}",
        "name": f"t3_{post['id']}",
        "upvote_ratio": post["upvote_ratio"],
        "ups": post["score"],
        "downs": 0,
        "score": post["score"],
        "link_flair_text": post.get("link_flair_text"),
        "link_flair_template_id": post.get("link_flair_template_id"),
        "link_flair_type": "text",
        "is_self": post["is_self"],
        "created": created,
        "created_utc": created,
        "domain": f"self.{sr['display_name']}" if post["is_self"] else post["domain"],
        "url": f"https://www.reddit.com{permalink}" if post["is_self"] else post["url"],
        "permalink": permalink,
        "id": post["id"],
        "author": "[deleted]" if deleted else author["name"],
        "num_comments": len(post.get("comments") or {}),
        "subreddit_id": f"t5_{sr['id']}",
        "subreddit_type": sr["subreddit_type"],
        "locked": post.get("locked", False),
        "archived": post.get("archived", False),
        "stickied": post.get("stickied", False),
        "over_18": post.get("over_18", False),
        "spoiler": post.get("spoiler", False),
        "edited": _edited(post.get("edited")),
        "likes": None,
        "distinguished": post.get("distinguished"),
        "removed_by_category": "deleted" if deleted else None,
    }


def _comment_data(env: AppEnv, post: dict[str, Any], c: dict[str, Any], depth: int,
                  replies: Any = "") -> dict[str, Any]:
    sr = _sr_of(env, post)
    deleted = bool(c.get("deleted"))
    author = _user(env, c["author_id"])
    parent = c.get("parent_comment_id")
    created = float(c["created_utc"])
    return {
        "subreddit_id": f"t5_{sr['id']}",
        "subreddit": sr["display_name"],
        "link_id": f"t3_{post['id']}",
        "parent_id": f"t1_{parent}" if parent else f"t3_{post['id']}",
        "id": c["id"],
        "name": f"t1_{c['id']}",
        "author": "[deleted]" if deleted else author["name"],
        "author_fullname": None if deleted else f"t2_{author['id']}",
        "body": "[deleted]" if deleted else c["body"],
        "score": c["score"],
        "ups": c["score"],
        "created": created,
        "created_utc": created,
        "edited": _edited(c.get("edited")),
        "permalink": f"{_permalink(sr, post)}{c['id']}/",
        "is_submitter": not deleted and c["author_id"] == post["author_id"],
        "stickied": c.get("stickied", False),
        "distinguished": c.get("distinguished"),
        "depth": depth,
        "replies": replies,
        "locked": False,
        "archived": post.get("archived", False),
        "saved": False,
        "collapsed": False,
        "controversiality": 0,
    }


def _confidence(c: dict[str, Any]) -> tuple[Any, ...]:
    return (not c.get("stickied", False), -c["score"], c["created_utc"], c["id"])


def _tree(env: AppEnv, post: dict[str, Any], parent: str | None, depth: int) -> list[dict[str, Any]]:
    comments = [c for c in (post.get("comments") or {}).values() if c.get("parent_comment_id") == parent]
    out = []
    for c in sorted(comments, key=_confidence):
        kids = _tree(env, post, c["id"], depth + 1)
        replies = listing(kids, dist=False) if kids else ""
        out.append({"kind": "t1", "data": _comment_data(env, post, c, depth, replies)})
    return out


def _thing(env: AppEnv, post: dict[str, Any], comment: dict[str, Any] | None = None) -> dict[str, Any]:
    if comment is None:
        return {"kind": "t3", "data": _post_data(env, post)}
    depth = 0
    parent = comment.get("parent_comment_id")
    while parent:
        depth += 1
        parent = post["comments"][parent].get("parent_comment_id")
    return {"kind": "t1", "data": _comment_data(env, post, comment, depth)}


def _hot(post: dict[str, Any]) -> float:
    score = post["score"]
    order = math.log10(max(abs(score), 1))
    sign = (score > 0) - (score < 0)
    return round(sign * order + (post["created_utc"] - 1134028003) / 45000, 7)


def _listable(env: AppEnv, post: dict[str, Any]) -> bool:
    return not post.get("deleted") and not post.get("removed")


# -- reading ------------------------------------------------------------------------------------------
_SUBREDDIT_DOC = "The name of the subreddit, without the 'r/' prefix (e.g. 'MachineLearning')."


@APP.tool()
def retrieve_reddit_post(
    env: AppEnv,
    subreddit: str = Field(min_length=1, description=_SUBREDDIT_DOC),
    sort: Literal["hot", "new", "top", "rising"] = Field("hot", description="Listing order: hot (default), new, "
                                                                             "top (all time) or rising."),
    limit: int = Field(5, ge=1, le=100, description="Maximum number of posts to return (1-100, default 5)."),
    after: str | None = Field(None, description="Pagination cursor: the fullname (t3_...) in data.after of the "
                                                "previous page."),
) -> dict[str, Any]:
    """Retrieves posts from a subreddit as a Reddit Listing: posts are at data.children[].data (kind t3); page
    with the data.after cursor. No date filter: compare created_utc (unix seconds, UTC) yourself. In 'hot' the
    subreddit's stickied posts come first."""
    sr = _subreddit_for_reading(env, subreddit)
    posts = [p for p in env.tree.list("posts", {"subreddit_id": sr["id"]}) if _listable(env, p)]
    now = env.clock.timestamp()
    if sort == "hot":
        posts.sort(key=lambda p: (not p.get("stickied", False), -_hot(p), p["id"]))
    elif sort == "new":
        posts.sort(key=lambda p: (-p["created_utc"], p["id"]))
    elif sort == "top":
        posts.sort(key=lambda p: (-p["score"], p["id"]))
    else:
        posts = [p for p in posts if now - p["created_utc"] <= 2 * 86400]
        posts.sort(key=lambda p: (-p["score"] / ((now - p["created_utc"]) / 3600 + 2), p["id"]))
    start = 0
    if after:
        _, ident = _fullname(after, ("t3",), "after")
        ids = [p["id"] for p in posts]
        if ident not in ids:
            return listing([])  # Reddit answers an unknown cursor with an empty page
        start = ids.index(ident) + 1
    page = posts[start:start + limit]
    more = start + limit < len(posts)
    return listing([_thing(env, p) for p in page], f"t3_{page[-1]['id']}" if page and more else None)


@APP.tool()
def retrieve_post_comments(
    env: AppEnv,
    article: str = Field(min_length=1, description="Base-36 ID of the post (e.g. 'q5u7q5'), as in its URL, WITHOUT "
                                                   "the 't3_' prefix."),
) -> dict[str, Any]:
    """Retrieves a post and all its comments. data.listings is Reddit's two-element array: listings[0] holds the
    post (kind t3), listings[1] the comment tree (kind t1) with the text at each data.body and nested replies
    under each comment's data.replies ('' when there are none). Deleted comments read '[deleted]'; use parent_id
    to follow the conversation."""
    raw = article.strip()
    if _FULLNAME.match(raw):
        kind = KINDS[raw[:2]]
        raise http_error(404, f"article is the bare base-36 post id without a prefix: use {raw[3:]!r}, not {raw!r}"
                              + ("" if kind == "post" else f" ({raw} is a {kind}, not a post)"), "range")
    post = _visible_post(env, raw, f"t3_{raw}")
    return {"listings": [listing([_thing(env, post)], dist=False), listing(_tree(env, post, None, 0), dist=False)]}


@APP.tool()
def retrieve_specific_comment(
    env: AppEnv,
    id: str = Field(min_length=1, description="Fullname of the comment or post to retrieve (e.g. 't1_c123456', "
                                              "'t3_x56789')."),
) -> dict[str, Any]:
    """Retrieves a single comment or post by its fullname; returns only that item (data.things[0]), not the
    surrounding thread (use retrieve_post_comments for that)."""
    prefix, ident = _fullname(id, ("t1", "t3"), "id")
    if prefix == "t3":
        return {"things": [_thing(env, _visible_post(env, ident, id))]}
    post, comment = _visible_comment(env, ident, id)
    return {"things": [_thing(env, post, comment)]}


_OPERATOR = re.compile(r"^(subreddit|author|flair):(.+)$", re.IGNORECASE)


@APP.tool()
def search_across_subreddits(
    env: AppEnv,
    search_query: str = Field(min_length=1, description="The search query. Every word must occur in the post title "
                                                        "or text (any case, singular or plural; words such as "
                                                        "'the' or 'in' are ignored); operators subreddit:NAME, "
                                                        "author:NAME and flair:TEXT narrow the search."),
    sort: Literal["relevance", "hot", "top", "new", "comments"] = Field("relevance", description=(
        "relevance (default), hot, top (highest score), new (newest first) or comments (most comments).")),
    limit: int = Field(5, ge=1, le=100, description="Maximum number of results (1-100, default 5)."),
    restrict_sr: bool = Field(True, description="Confine the search to posts in subreddits (default true)."),
) -> dict[str, Any]:
    """Searches posts across the subreddits the user can read. Results are at data.search_results.data.children
    (kind t3); an empty children list is a valid no-results answer. No time filter: compare created_utc."""
    words: list[str] = []
    filters: dict[str, str] = {}
    for token in search_query.split():
        m = _OPERATOR.match(token)
        if m:
            filters[m.group(1).lower()] = m.group(2).strip('"').lower()
        else:
            words.append(token.strip('"').lower())
    if not words and not filters:
        raise http_error(400, "search_query has no words to search for", "range")
    hits: list[tuple[int, dict[str, Any]]] = []
    for post in env.tree.list("posts"):
        sr = _sr_of(env, post)
        if not _listable(env, post) or not _readable(sr):
            continue
        if "subreddit" in filters and sr["display_name"].lower() != filters["subreddit"].removeprefix("r/"):
            continue
        if "author" in filters and _user(env, post["author_id"])["name"].lower() != filters["author"].removeprefix(
                "u/"):
            continue
        if "flair" in filters and filters["flair"] not in (post.get("link_flair_text") or "").lower():
            continue
        query = " ".join(words)
        in_title, in_body = hits_per_term(query, post["title"]), hits_per_term(query, post.get("selftext", ""))
        if not all(in_title[t] or in_body[t] for t in in_title):
            continue
        hits.append((sum(2 * in_title[t] + in_body[t] for t in in_title), post))
    order = {
        "relevance": lambda h: (-h[0], -h[1]["score"], h[1]["id"]),
        "hot": lambda h: (-_hot(h[1]), h[1]["id"]),
        "top": lambda h: (-h[1]["score"], h[1]["id"]),
        "new": lambda h: (-h[1]["created_utc"], h[1]["id"]),
        "comments": lambda h: (-len(h[1].get("comments") or {}), h[1]["id"]),
    }[sort]
    hits.sort(key=order)
    page = [p for _, p in hits[:limit]]
    after = f"t3_{page[-1]['id']}" if len(hits) > limit else None
    return {"search_results": listing([_thing(env, p) for p in page], after)}


@APP.tool()
def get_user_flair(
    env: AppEnv,
    subreddit: str = Field(min_length=1, description=_SUBREDDIT_DOC),
) -> dict[str, Any]:
    """Fetches the flair of a subreddit for the user: data.current is the user's own flair there ({} when none);
    data.choices are the subreddit's post flair templates, whose flair_template_id is the flair_id that
    create_reddit_post accepts. flair ids belong to one subreddit and cannot be reused in another."""
    sr = _subreddit_for_reading(env, subreddit)
    current = sr.get("user_flair") or {}
    shown = {}
    if current:
        shown = {"flair_css_class": current.get("css_class"), "flair_template_id": current.get("template_id"),
                 "flair_text": current["text"], "flair_position": "right"}
    mod = bool(sr.get("user_is_moderator"))
    flairs = sorted((sr.get("flairs") or {}).values(), key=lambda f: f.get("position", 0))
    choices = [{"flair_css_class": f.get("css_class"), "flair_template_id": f["id"],
                "flair_text_editable": f.get("text_editable", False), "flair_position": "right",
                "flair_text": f["text"]} for f in flairs if mod or not f.get("mod_only")]
    return {"current": shown, "choices": choices}


@APP.tool()
def get_reddit_user_about(
    env: AppEnv,
    username: str = Field(min_length=1, description="The username, without the 'u/' prefix."),
) -> dict[str, Any]:
    """Retrieves a Reddit account's public profile: karma, age, flags. The account's fullname is t2_<id>."""
    probe = username.strip().lower()
    user = next((u for u in env.tree.list("users") if u["name"].lower() == probe), None)
    if user is None:
        hint = " (give the name without the u/ prefix)" if probe.startswith(("u/", "/u/")) else ""
        raise http_error(404, f"there is no user u/{username.strip()}{hint}", "not_found")
    if user.get("is_suspended"):
        return {"kind": "t2", "data": {"name": user["name"], "is_suspended": True}}
    created = float(user["created_utc"])
    return {"kind": "t2", "data": {
        "is_employee": False,
        "icon_img": user["icon_img"],
        "name": user["name"],
        "id": user["id"],
        "created": created,
        "created_utc": created,
        "link_karma": user["link_karma"],
        "comment_karma": user["comment_karma"],
        "total_karma": user["link_karma"] + user["comment_karma"],
        "is_gold": user.get("is_gold", False),
        "is_mod": user.get("is_mod", False),
        "verified": user.get("verified", True),
        "has_verified_email": user.get("has_verified_email", True),
    }}


# -- writing ------------------------------------------------------------------------------------------
def _check_text(text: str, limit: int, field: str, errors: list[tuple[str, str, str]], *,
                required: bool = True) -> None:
    if required and not text.strip():
        errors.append(("NO_TEXT", "we need something here", field))
    elif len(text) > limit:
        errors.append(("TOO_LONG", f"this is too long (max: {limit})", field))


@APP.tool(mutates=True)
def create_reddit_post(
    env: AppEnv,
    subreddit: str = Field(min_length=1, description="The name of the subreddit (without the 'r/' prefix) where "
                                                     "the post will be submitted."),
    title: str = Field(description="The title of the post. Must be 300 characters or less."),
    kind: Literal["self", "link"] = Field(description="'self' for a text post or 'link' for a post that links to an "
                                                      "external URL."),
    text: str | None = Field(None, description="The markdown text of a 'self' post. Required if kind is 'self'."),
    url: str | None = Field(None, description="The URL of a 'link' post. Required if kind is 'link'."),
    flair_id: str | None = Field(None, description="The post flair template to apply; get_user_flair lists the "
                                                   "subreddit's flair_template_id values. Some subreddits require "
                                                   "one."),
) -> dict[str, Any]:
    """Creates a new text or link post in an existing subreddit, optionally with a post flair, and publishes it
    immediately. Returns Reddit's submit answer: json.data.{id, name (t3_...), url}."""
    sr = _find_subreddit(env, subreddit)
    if sr is None:
        raise api_error([("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr")], "not_found",
                        f"no subreddit named {subreddit!r}" + (" (give the name without r/)"
                                                              if subreddit.lower().startswith("r/") else ""))
    if sr["subreddit_type"] == "private" and not (sr.get("user_is_subscriber") or sr.get("user_is_moderator")):
        raise api_error([("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")], "permission",
                        f"r/{sr['display_name']} is private")
    if sr["subreddit_type"] == "restricted" and not (sr.get("user_is_contributor") or sr.get("user_is_moderator")):
        raise api_error([("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")], "permission",
                        f"only approved users may post in r/{sr['display_name']}")
    errors: list[tuple[str, str, str]] = []
    _check_text(title, TITLE_MAX, "title", errors)
    domain = None
    if kind == "self":
        if sr["submission_type"] == "link":
            errors.append(("NO_SELFS", "that subreddit doesn't allow text posts", "sr"))
        if url is not None:
            errors.append(("INVALID_OPTION", "that option is not valid: a self post takes text, not url", "url"))
        _check_text(text or "", SELFTEXT_MAX, "text", errors)
    else:
        if sr["submission_type"] == "self":
            errors.append(("NO_LINKS", "that subreddit only allows text posts", "sr"))
        if text is not None:
            errors.append(("INVALID_OPTION", "that option is not valid: a link post takes url, not text", "text"))
        parsed = urlparse((url or "").strip())
        if not (url or "").strip():
            errors.append(("NO_URL", "a url is required", "url"))
        elif parsed.scheme not in ("http", "https") or "." not in parsed.netloc:
            errors.append(("BAD_URL", "you should check that url", "url"))
        else:
            domain = parsed.netloc.lower().removeprefix("www.")
            same = [p for p in env.tree.list("posts", {"subreddit_id": sr["id"]})
                    if not p.get("deleted") and p.get("url") == url.strip()]
            if same:
                errors.append(("ALREADY_SUB", "that link has already been submitted", "url"))
    flair = None
    if flair_id:
        flair = (sr.get("flairs") or {}).get(flair_id)
        if flair is None or (flair.get("mod_only") and not sr.get("user_is_moderator")):
            errors.append(("BAD_FLAIR_TEMPLATE_ID", f"that flair template doesn't exist in r/{sr['display_name']}",
                           "flair_id"))
    elif sr.get("link_flair_required"):
        errors.append(("SUBMIT_VALIDATION_FLAIR_REQUIRED", "Your post must contain post flair.", "flair"))
    if errors:
        raise api_error(errors, "range" if all(e[0] in ("NO_TEXT", "TOO_LONG", "NO_URL", "BAD_URL") for e in errors)
                        else "conflict")
    fields: dict[str, Any] = {
        "author_id": env.tree.data["me"], "subreddit_id": sr["id"], "title": title, "is_self": kind == "self",
        "created_utc": env.now(), "score": 1, "upvote_ratio": 1.0, "locked": False, "archived": False,
        "stickied": False, "over_18": False, "spoiler": False, "deleted": False, "edited": False,
    }
    if kind == "self":
        fields["selftext"] = text
    else:
        fields |= {"url": url.strip() if url else "", "domain": domain}
    if flair is not None:
        fields |= {"link_flair_template_id": flair["id"], "link_flair_text": flair["text"]}
    post = env.tree.create("posts", fields)
    return {"json": {"errors": [], "data": {"url": f"https://www.reddit.com{_permalink(sr, post)}",
                                            "drafts_count": 0, "id": post["id"], "name": f"t3_{post['id']}"}}}


def _commentable(env: AppEnv, post: dict[str, Any]) -> None:
    sr = _sr_of(env, post)
    if post.get("deleted"):
        raise api_error([("DELETED_LINK", "the link you are commenting on has been deleted", "parent")], "conflict")
    if post.get("locked") and not sr.get("user_is_moderator"):
        raise api_error([("THREAD_LOCKED", "Comments are locked.", "parent")], "conflict")
    if post.get("archived"):
        raise api_error([("TOO_OLD", "that's a piece of history now; it's too late to reply to it", "parent")],
                        "conflict")


@APP.tool(mutates=True)
def post_reddit_comment(
    env: AppEnv,
    text: str = Field(description="The raw Markdown text of the comment."),
    thing_id: str = Field(min_length=1, description="Fullname of the parent: a post ('t3_10omtdx') for a top-level "
                                                    "comment or a comment ('t1_h2g9w8l') for a reply."),
) -> dict[str, Any]:
    """Posts a comment replying to a post (t3_) or to another comment (t1_). Fails on locked, archived or deleted
    threads. Returns Reddit's answer with the new comment at json.data.things[0] (its fullname in data.name)."""
    prefix, ident = _fullname(thing_id, ("t3", "t1"), "thing_id")
    parent = None
    if prefix == "t3":
        post = _visible_post(env, ident, thing_id)
    else:
        post, parent = _visible_comment(env, ident, thing_id)
        if parent.get("deleted"):
            raise api_error([("DELETED_COMMENT", "that comment has been deleted", "parent")], "conflict")
    _commentable(env, post)
    errors: list[tuple[str, str, str]] = []
    _check_text(text, COMMENT_MAX, "text", errors)
    if errors:
        raise api_error(errors, "range")
    fields: dict[str, Any] = {"author_id": env.tree.data["me"], "body": text, "created_utc": env.now(), "score": 1,
                              "edited": False, "deleted": False, "stickied": False}
    if parent is not None:
        fields["parent_comment_id"] = parent["id"]
    created = env.tree.create(f"posts[{post['id']}].comments", fields)
    return {"json": {"errors": [], "data": {"things": [_thing(env, post, created)]}}}


def _own(env: AppEnv, thing: dict[str, Any], fullname: str, action: str) -> None:
    if thing["author_id"] != env.tree.data["me"]:
        author = _user(env, thing["author_id"])["name"]
        raise http_error(403, f"only the author can {action} {fullname} (it was written by u/{author})",
                         "permission")


@APP.tool(mutates=True)
def edit_reddit_comment_or_post(
    env: AppEnv,
    text: str = Field(description="The new raw markdown text for the body of the comment or self post."),
    thing_id: str = Field(min_length=1, description="Fullname of the comment (t1_...) or self post (t3_...) to "
                                                    "edit."),
) -> dict[str, Any]:
    """Edits the body text of the user's own comment or self post; titles and link posts cannot be edited.
    Returns the edited thing at json.data.things[0]."""
    prefix, ident = _fullname(thing_id, ("t1", "t3"), "thing_id")
    errors: list[tuple[str, str, str]] = []
    if prefix == "t3":
        post = _visible_post(env, ident, thing_id)
        _own(env, post, thing_id, "edit")
        if post.get("deleted"):
            raise api_error([("DELETED_THING", "that element has been deleted", "thing_id")], "conflict")
        if not post["is_self"]:
            raise api_error([("NO_CHANGE_KIND", "can't change post type", "thing_id")], "conflict",
                            f"{thing_id} is a link post: it has no text body to edit")
        _check_text(text, SELFTEXT_MAX, "text", errors, required=False)
        if errors:
            raise api_error(errors, "range")
        env.tree.update(f"posts[{ident}]", {"selftext": text, "edited": env.now()})
        return {"json": {"errors": [], "data": {"things": [_thing(env, post)]}}}
    post, comment = _visible_comment(env, ident, thing_id)
    _own(env, comment, thing_id, "edit")
    if comment.get("deleted"):
        raise api_error([("DELETED_COMMENT", "that comment has been deleted", "thing_id")], "conflict")
    _check_text(text, COMMENT_MAX, "text", errors)
    if errors:
        raise api_error(errors, "range")
    env.tree.update(f"posts[{post['id']}].comments[{ident}]", {"body": text, "edited": env.now()})
    return {"json": {"errors": [], "data": {"things": [_thing(env, post, comment)]}}}


@APP.tool(mutates=True)
def delete_reddit_comment(
    env: AppEnv,
    id: str = Field(min_length=1, description="The fullname of the comment to delete; starts with 't1_' (e.g. "
                                              "'t1_c0s4w1c')."),
) -> dict[str, Any]:
    """Deletes one of the user's own comments, permanently. Its replies stay; it then reads '[deleted]'."""
    _, ident = _fullname(id, ("t1",), "id")
    post, comment = _visible_comment(env, ident, id)
    _own(env, comment, id, "delete")
    if comment.get("deleted"):
        raise api_error([("DELETED_COMMENT", "that comment has been deleted", "id")], "conflict")
    env.tree.update(f"posts[{post['id']}].comments[{ident}]", {"deleted": True, "body": "[deleted]"})
    return {}


@APP.tool(mutates=True)
def delete_reddit_post(
    env: AppEnv,
    id: str = Field(min_length=1, description="The fullname of the post to delete; starts with 't3_' followed by "
                                              "the post's base-36 id."),
) -> dict[str, Any]:
    """Deletes one of the user's own posts, permanently. It leaves the listings and search; its comment page
    stays with the post shown as '[deleted]'."""
    _, ident = _fullname(id, ("t3",), "id")
    post = _visible_post(env, ident, id)
    _own(env, post, id, "delete")
    if post.get("deleted"):
        raise api_error([("DELETED_THING", "that element has been deleted", "id")], "conflict")
    changes: dict[str, Any] = {"deleted": True}
    if post["is_self"]:
        changes["selftext"] = "[deleted]"
    env.tree.update(f"posts[{ident}]", changes)
    return {}
