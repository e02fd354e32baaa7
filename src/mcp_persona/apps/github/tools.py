"""The code-host tools over the fixed repository snapshot (see ``data/hierarchies/github.json``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, matches, window
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "github",
    title="GitHub",
    category="information",
    personalized=False,
    description="Search and read public repositories, issues, pull requests, commits, releases and files; "
                "open issues and comment on them.",
    real_server="github/github-mcp-server",
)

Owner = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="Repository owner")
Repo = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="Repository name")
Page = Field(1, ge=1, le=100, description="Page number (1-based)")
PerPage = Field(30, ge=1, le=100, description="Results per page (1-100)")
LabelFilter = Field(None, description="Only issues carrying all these labels")
NewLabels = Field(None, max_length=10, description="Labels to apply")
Assignees = Field(None, max_length=10, description="Logins to assign")
_QUALIFIER = re.compile(r'(\w+):("[^"]*"|\S+)')


def _repo(env: AppEnv, owner: str, repo: str) -> dict[str, Any]:
    repos = collection(env, "repositories")
    key = next((k for k in repos if k.lower() == f"{owner}/{repo}".lower()), None)
    if key is None:
        raise ToolFailure(f"Not Found: repository {owner}/{repo} does not exist", kind="not_found")
    return repos[key]


def _repo_view(r: dict[str, Any]) -> dict[str, Any]:
    return {k: r[k] for k in ("full_name", "description", "language", "stargazers_count", "forks_count",
                              "open_issues_count", "topics", "license", "default_branch", "created_at",
                              "pushed_at", "html_url")}


def _issue_view(r: dict[str, Any], i: dict[str, Any], *, pr: bool = False) -> dict[str, Any]:
    out = {k: v for k, v in i.items() if k not in ("key", "comment_list")}
    kind = "pull" if pr else "issues"
    out["html_url"] = f"{r['html_url']}/{kind}/{i['number']}"
    out["repository"] = r["full_name"]
    if "comment_list" in i:
        out["comments"] = i["comments"] + len(i["comment_list"])
    return out


def _split(query: str) -> tuple[dict[str, list[str]], str]:
    quals: dict[str, list[str]] = {}
    for key, value in _QUALIFIER.findall(query):
        quals.setdefault(key.lower(), []).append(value.strip('"').lower())
    return quals, _QUALIFIER.sub(" ", query).strip()


def _pages(items: list[Any], page: int, per_page: int) -> dict[str, Any]:
    return {"total_count": len(items), "incomplete_results": False, "items": window(items, page, per_page)}


@APP.tool()
def search_repositories(env: AppEnv, query: str = Field(min_length=1, max_length=256, description=(
        "Search query: words matched in name, description and topics; qualifiers language:X, topic:X, "
        "user:X / org:X, stars:>N")),
        page: int = Page, perPage: int = PerPage) -> dict[str, Any]:
    """Search repositories, best match (then stars) first."""
    quals, text = _split(query)
    unknown = set(quals) - {"language", "topic", "user", "org", "stars", "in"}
    if unknown:
        raise fail(f"unsupported qualifier(s) in query: {', '.join(sorted(unknown))}")
    hits = []
    for r in collection(env, "repositories").values():
        if text and not matches(text, r["full_name"], r["description"], r["topics"]):
            continue
        if any(r["language"].lower() != v for v in quals.get("language", [])):
            continue
        if any(v not in r["topics"] for v in quals.get("topic", [])):
            continue
        if any(r["owner"].lower() != v for v in quals.get("user", []) + quals.get("org", [])):
            continue
        if not all(_compare(r["stargazers_count"], v) for v in quals.get("stars", [])):
            continue
        hits.append(r)
    hits.sort(key=lambda r: -r["stargazers_count"])
    return _pages([_repo_view(r) for r in hits], page, perPage)


def _compare(value: int, spec: str) -> bool:
    m = re.fullmatch(r"(>=|<=|>|<)?(\d+)", spec)
    if not m:
        raise fail(f"stars qualifier must look like >1000, <=50 or 300, got '{spec}'")
    op, n = m.group(1) or "=", int(m.group(2))
    return {"=": value == n, ">": value > n, "<": value < n, ">=": value >= n, "<=": value <= n}[op]


@APP.tool()
def search_issues(env: AppEnv, query: str = Field(min_length=1, max_length=256, description=(
        "Search query: words matched in title and body; qualifiers repo:owner/name, is:issue|pr, "
        "is:open|closed or state:open|closed, label:X, author:X")),
        sort: Literal["created", "comments", "updated"] | None = Field(None, description="Sort field"),
        order: Literal["asc", "desc"] = Field("desc", description="Sort order"),
        page: int = Page, perPage: int = PerPage) -> dict[str, Any]:
    """Search issues and pull requests across repositories."""
    quals, text = _split(query)
    unknown = set(quals) - {"repo", "is", "state", "label", "author", "type"}
    if unknown:
        raise fail(f"unsupported qualifier(s) in query: {', '.join(sorted(unknown))}")
    flags = set(quals.get("is", []) + quals.get("type", []))
    if {"issue", "pr"} <= flags or {"open", "closed"} <= flags:
        raise fail("contradictory qualifiers: an item cannot be both " + " and ".join(sorted(flags)), "conflict")
    states = set(quals.get("state", [])) | (flags & {"open", "closed"})
    if len(states) > 1:
        raise fail("contradictory state qualifiers", "conflict")
    hits = []
    for r in collection(env, "repositories").values():
        if quals.get("repo") and r["full_name"].lower() not in quals["repo"]:
            continue
        pools = [] if "pr" in flags else [(i, False) for i in r["issues"].values()]
        pools += [] if "issue" in flags else [(p, True) for p in r["pull_requests"].values()]
        for item, is_pr in pools:
            if text and not matches(text, item["title"], item["body"]):
                continue
            if states and item["state"] not in states:
                continue
            if any(v not in [lbl.lower() for lbl in item.get("labels", [])] for v in quals.get("label", [])):
                continue
            if any(item["user"].lower() != v for v in quals.get("author", [])):
                continue
            hits.append(_issue_view(r, item, pr=is_pr))
    key = {"created": "created_at", "comments": "comments", "updated": "created_at"}.get(sort or "", "created_at")
    hits.sort(key=lambda i: (i[key], i["number"]), reverse=order == "desc")
    return _pages(hits, page, perPage)


@APP.tool()
def search_code(env: AppEnv, query: str = Field(min_length=1, max_length=256, description=(
        "Words to find in file contents; qualifiers repo:owner/name, path:X")),
        page: int = Page, perPage: int = PerPage) -> dict[str, Any]:
    """Search file contents on the default branches."""
    quals, text = _split(query)
    if not text:
        raise fail("query needs at least one search word besides qualifiers")
    hits = []
    for r in collection(env, "repositories").values():
        if quals.get("repo") and r["full_name"].lower() not in quals["repo"]:
            continue
        for f in r["files"].values():
            if quals.get("path") and not any(p in f["path"].lower() for p in quals["path"]):
                continue
            if matches(text, f["content"]):
                hits.append({"name": f["path"].rsplit("/", 1)[-1], "path": f["path"], "repository": r["full_name"],
                             "html_url": f"{r['html_url']}/blob/{r['default_branch']}/{f['path']}"})
    return _pages(hits, page, perPage)


@APP.tool()
def list_issues(env: AppEnv, owner: str = Owner, repo: str = Repo,
                state: Literal["open", "closed", "all"] = Field("open", description="Filter by state"),
                labels: list[str] | None = LabelFilter,
                sort: Literal["created", "updated", "comments"] = Field("created", description="Sort field"),
                direction: Literal["asc", "desc"] = Field("desc", description="Sort direction"),
                since: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}(T[\d:]+Z?)?$",
                                          description="Only issues created at or after this ISO 8601 time"),
                page: int = Page, perPage: int = PerPage) -> list[dict[str, Any]]:
    """List a repository's issues (pull requests are listed by list_pull_requests)."""
    r = _repo(env, owner, repo)
    out = [i for i in r["issues"].values() if state == "all" or i["state"] == state]
    if labels:
        out = [i for i in out if all(lbl in i["labels"] for lbl in labels)]
    if since:
        out = [i for i in out if i["created_at"] >= since]
    key = "comments" if sort == "comments" else "created_at"
    out.sort(key=lambda i: (i[key], i["number"]), reverse=direction == "desc")
    return window([_issue_view(r, i) for i in out], page, perPage)


def _issue(r: dict[str, Any], number: int) -> dict[str, Any]:
    issue = r["issues"].get(str(number))
    if issue is None:
        where = "a pull request" if str(number) in r["pull_requests"] else "not found"
        raise ToolFailure(f"Not Found: issue #{number} in {r['full_name']} is {where}", kind="not_found")
    return issue


@APP.tool()
def get_issue(env: AppEnv, owner: str = Owner, repo: str = Repo,
              issue_number: int = Field(ge=1, description="The issue number")) -> dict[str, Any]:
    """Details of one issue."""
    r = _repo(env, owner, repo)
    return _issue_view(r, _issue(r, issue_number))


@APP.tool()
def get_issue_comments(env: AppEnv, owner: str = Owner, repo: str = Repo,
                       issue_number: int = Field(ge=1, description="The issue number")) -> list[dict[str, Any]]:
    """Comments added to an issue here (older comments are counted in the issue's ``comments``)."""
    r = _repo(env, owner, repo)
    return list(_issue(r, issue_number)["comment_list"].values())


@APP.tool()
def list_pull_requests(env: AppEnv, owner: str = Owner, repo: str = Repo,
                       state: Literal["open", "closed", "all"] = Field("open", description="Filter by state"),
                       page: int = Page, perPage: int = PerPage) -> list[dict[str, Any]]:
    """List a repository's pull requests, newest first."""
    r = _repo(env, owner, repo)
    out = sorted((p for p in r["pull_requests"].values() if state == "all" or p["state"] == state),
                 key=lambda p: p["number"], reverse=True)
    return window([_issue_view(r, p, pr=True) for p in out], page, perPage)


@APP.tool()
def get_pull_request(env: AppEnv, owner: str = Owner, repo: str = Repo,
                     pullNumber: int = Field(ge=1, description="The pull request number")) -> dict[str, Any]:
    """Details of one pull request (merged, additions, deletions, changed files)."""
    r = _repo(env, owner, repo)
    pr = r["pull_requests"].get(str(pullNumber))
    if pr is None:
        raise ToolFailure(f"Not Found: pull request #{pullNumber} in {r['full_name']}", kind="not_found")
    return _issue_view(r, pr, pr=True)


@APP.tool()
def list_commits(env: AppEnv, owner: str = Owner, repo: str = Repo,
                 sha: str | None = Field(None, min_length=1, description="Branch name (only the default branch "
                                                                          "is in the snapshot)"),
                 author: str | None = Field(None, min_length=1, description="Only commits by this login"),
                 page: int = Page, perPage: int = PerPage) -> list[dict[str, Any]]:
    """Recent commits of a branch, newest first."""
    r = _repo(env, owner, repo)
    if sha is not None and sha != r["default_branch"]:
        raise ToolFailure(f"Not Found: branch '{sha}' in {r['full_name']} (the snapshot has "
                          f"'{r['default_branch']}')", kind="not_found")
    out = sorted(r["commits"].values(), key=lambda c: c["date"], reverse=True)
    if author:
        out = [c for c in out if c["author"].lower() == author.lower()]
    return window([{"sha": c["sha"], "commit": {"message": c["message"], "author": {"name": c["author"],
                                                                                      "date": c["date"]}},
                    "author": {"login": c["author"]}, "html_url": f"{r['html_url']}/commit/{c['sha']}"}
                   for c in out], page, perPage)


@APP.tool()
def get_commit(env: AppEnv, owner: str = Owner, repo: str = Repo,
               sha: str = Field(min_length=7, max_length=40, pattern=r"^[0-9a-f]+$",
                                description="Commit SHA (full or at least 7 characters)")) -> dict[str, Any]:
    """One commit with its stats."""
    r = _repo(env, owner, repo)
    found = [c for k, c in r["commits"].items() if k.startswith(sha)]
    if len(found) != 1:
        raise ToolFailure(f"No commit found for SHA: {sha}" if not found else f"SHA {sha} is ambiguous",
                          kind="not_found" if not found else "conflict")
    c = found[0]
    return {"sha": c["sha"], "commit": {"message": c["message"], "author": {"name": c["author"], "date": c["date"]}},
            "stats": {"additions": c["additions"], "deletions": c["deletions"],
                      "total": c["additions"] + c["deletions"]}}


@APP.tool()
def list_releases(env: AppEnv, owner: str = Owner, repo: str = Repo) -> list[dict[str, Any]]:
    """A repository's releases, newest first."""
    r = _repo(env, owner, repo)
    return sorted(r["releases"].values(), key=lambda x: x["published_at"], reverse=True)


@APP.tool()
def get_file_contents(env: AppEnv, owner: str = Owner, repo: str = Repo,
                      path: str = Field(min_length=1, max_length=300, description="File path in the repository"),
                      ref: str | None = Field(None, min_length=1, description="Branch (default branch only)")
                      ) -> dict[str, Any]:
    """The text of a file on the default branch."""
    r = _repo(env, owner, repo)
    if ref is not None and ref != r["default_branch"]:
        raise ToolFailure(f"Not Found: ref '{ref}'", kind="not_found")
    f = r["files"].get(path.lstrip("/"))
    if f is None:
        raise ToolFailure(f"Not Found: {path} in {r['full_name']} (files: {', '.join(sorted(r['files']))})",
                          kind="not_found")
    return {"type": "file", "path": f["path"], "size": len(f["content"].encode()), "content": f["content"]}


@APP.tool(mutates=True)
def create_issue(env: AppEnv, owner: str = Owner, repo: str = Repo,
                 title: str = Field(min_length=1, max_length=256, description="Issue title"),
                 body: str | None = Field(None, max_length=65536, description="Issue body (Markdown)"),
                 labels: list[str] | None = NewLabels,
                 assignees: list[str] | None = Assignees
                 ) -> dict[str, Any]:
    """Open a new issue in a repository."""
    r = _repo(env, owner, repo)
    if not title.strip():
        raise fail("title must not be blank")
    number = max(int(n) for n in [*r["issues"], *r["pull_requests"], "0"]) + 1
    created = datetime.fromtimestamp(env.now(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    issue = {"key": str(number), "number": number, "title": title.strip(), "state": "open",
             "labels": sorted(set(labels or [])), "user": "you", "comments": 0, "created_at": created,
             "closed_at": None, "body": body or "", "assignees": sorted(set(assignees or [])), "comment_list": {}}
    path = f'repositories["{r["full_name"]}"]'
    env.tree.create(f"{path}.issues", issue)
    env.tree.update(path, {"open_issues_count": r["open_issues_count"] + 1})
    return _issue_view(r, issue)


@APP.tool(mutates=True)
def add_issue_comment(env: AppEnv, owner: str = Owner, repo: str = Repo,
                      issue_number: int = Field(ge=1, description="The issue number"),
                      body: str = Field(min_length=1, max_length=65536, description="Comment text (Markdown)")
                      ) -> dict[str, Any]:
    """Add a comment to an issue."""
    r = _repo(env, owner, repo)
    issue = _issue(r, issue_number)
    if issue["state"] == "closed" and "locked" in issue.get("labels", []):
        raise fail("issue is locked", "permission")
    if not body.strip():
        raise fail("body must not be blank")
    cid = str(4_000_000_000 + len(issue["comment_list"]) + issue_number * 100)
    created = datetime.fromtimestamp(env.now(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    comment = {"id": cid, "user": "you", "body": body, "created_at": created}
    env.tree.create(f'repositories["{r["full_name"]}"].issues["{issue_number}"].comment_list', comment)
    return {**comment, "html_url": f"{r['html_url']}/issues/{issue_number}#issuecomment-{cid}"}
