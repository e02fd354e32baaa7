"""The arXiv tools over the arxiv Context-Tree (see ``data/hierarchies/arxiv.json``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_persona.apps._corpus import Index, parse_day, tokenize
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json

MAX_RESULTS = 50
# arXiv archives: a category filter must start with one of these.
VALID_ARCHIVES = frozenset(
    {
        "cs",
        "econ",
        "eess",
        "math",
        "physics",
        "q-bio",
        "q-fin",
        "stat",
        "astro-ph",
        "cond-mat",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math-ph",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "quant-ph",
    }
)
_CLAUSE = re.compile(r'(?:(ti|abs|au|cat|all):)?(?:"([^"]*)"?|(\S+))', re.IGNORECASE)
_ID = re.compile(
    r"^(?:arxiv:|https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/)?(\d{4}\.\d{4,5})(?:v(\d+))?(?:\.pdf)?$", re.IGNORECASE
)


class ArxivApp(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return f"Error: {failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return "Input validation error: " + "; ".join(f"{v.field}: {v.message}" for v in violations)

    def render(self, payload: Any) -> str:
        return payload if isinstance(payload, str) else compact_json(payload)


APP = ArxivApp(
    "arxiv",
    title="arXiv",
    category="information",
    personalized=False,
    description="Search arXiv papers by query, category and date, and read their records.",
    real_server="blazickjp/arxiv-mcp-server",
)


# -- the query language ----------------------------------------------------------------------------
@dataclass
class Query:
    soft: list[str] = field(default_factory=list)  # unprefixed words: ranked, half must match
    scoring: list[str] = field(default_factory=list)  # every text term (soft + phrases + ti:/abs:)
    clauses: list[tuple[str, list[str] | str, bool]] = field(default_factory=list)  # (field, terms|code, negated)


def parse_query(text: str) -> Query:
    q = Query()
    negate = False
    for m in _CLAUSE.finditer(text):
        fld = (m.group(1) or "").lower()
        phrase, word = m.group(2), m.group(3)
        if not fld and word in ("AND", "OR"):
            continue
        if not fld and word == "ANDNOT":
            negate = True
            continue
        if fld == "cat":
            q.clauses.append(("cat", (phrase if phrase is not None else word or "").strip().lower(), negate))
            negate = False
            continue
        terms = tokenize(phrase if phrase is not None else word or "")
        if not terms:
            negate = False
            continue
        if fld == "au":
            q.clauses.append(("au", terms, negate))
        elif negate:
            q.clauses.append((fld or "all", terms, True))
        elif fld in ("ti", "abs") or phrase is not None:
            q.clauses.append((fld or "all", terms, False))
            q.scoring += terms
        else:
            q.soft += terms
            q.scoring += terms
        negate = False
    q.soft = list(dict.fromkeys(q.soft))
    q.scoring = list(dict.fromkeys(q.scoring))
    return q


def _contains(tokens: list[str], terms: list[str]) -> bool:
    """``terms`` occur in ``tokens`` as a consecutive run."""
    n = len(terms)
    return any(tokens[i : i + n] == terms for i in range(len(tokens) - n + 1))


def _passes(paper: dict[str, Any], clauses: list[tuple[str, Any, bool]], toks: dict[str, list[str]]) -> bool:
    for fld, terms, negated in clauses:
        if fld == "cat":
            hit = terms in (c.lower() for c in paper["categories"])
        elif fld == "au":
            hit = any(set(terms) <= set(tokenize(a)) for a in paper["authors"])
        elif fld == "ti":
            hit = _contains(toks["title"], terms)
        elif fld == "abs":
            hit = _contains(toks["abstract"], terms)
        else:
            hit = _contains(toks["title"], terms) or _contains(toks["abstract"], terms)
        if hit == negated:
            return False
    return True


def _day(value: str | None, name: str, *, end: bool) -> date | None:
    if value is None:
        return None
    try:
        return parse_day(value, end=end)
    except ValueError as exc:
        raise ToolFailure(f"Invalid date format. Use YYYY-MM-DD format: {name}={value!r}", kind="range") from exc


def _listing(p: dict[str, Any]) -> dict[str, Any]:
    vid = f"{p['arxiv_id']}v{p['version']}"
    return {
        "id": p["arxiv_id"],
        "versioned_id": vid,
        "title": p["title"],
        "authors": p["authors"],
        "abstract": p["abstract"],
        "categories": p["categories"],
        "published": p["published"],
        "url": f"http://arxiv.org/pdf/{vid}",
        "resource_uri": f"arxiv://{p['arxiv_id']}",
    }


# -- tools -----------------------------------------------------------------------------------------
@APP.tool()
def search_papers(
    env: AppEnv,
    query: Annotated[
        str,
        Field(
            max_length=1000,
            description=(
                "arXiv query. Unprefixed words search title and abstract (not authors); field prefixes ti:, abs:, au:, "
                "cat:, all:; quoted phrases; AND / OR / ANDNOT."
            ),
        ),
    ],
    max_results: Annotated[int, Field(ge=1, description="Maximum results to return (default 10, max 50).")] = 10,
    start: Annotated[
        int,
        Field(
            ge=0,
            description=("Zero-based offset (default 0). Pass next_start from a previous response for the next page."),
        ),
    ] = 0,
    date_from: Annotated[str | None, Field(max_length=20, description="Inclusive start date (YYYY-MM-DD).")] = None,
    date_to: Annotated[str | None, Field(max_length=20, description="Inclusive end date (YYYY-MM-DD).")] = None,
    categories: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=40)]] | None,
        Field(max_length=20, description="arXiv category filters, e.g. ['cs.CL', 'cs.AI'] (any of them)."),
    ] = None,
    sort_by: Annotated[
        Literal["relevance", "date"], Field(description=("'relevance' (default) or 'date' (newest first)."))
    ] = "relevance",
) -> dict[str, Any]:
    """Search arXiv papers by query, with optional categories, date range, sort order and pagination. The response
    has total_results, returned, has_more and next_start."""
    max_results = min(max_results, MAX_RESULTS)
    if categories and any(c.split(".")[0].lower() not in VALID_ARCHIVES for c in categories):
        raise ToolFailure("Invalid category provided. Please check arXiv category names.", kind="range")
    lo = _day(date_from, "date_from", end=False)
    hi = _day(date_to, "date_to", end=True) or env.clock.today()
    if lo and lo > hi:
        raise ToolFailure(f"date_from {date_from} is after date_to {date_to or hi.isoformat()}", kind="conflict")
    q = parse_query(query)
    if not q.scoring and not q.clauses and not categories:
        raise ToolFailure("No search criteria provided", kind="conflict")

    papers = sorted(env.tree.list("papers"), key=lambda p: (p["published"], p["arxiv_id"]), reverse=True)
    index = Index(
        ((p["arxiv_id"], {"title": p["title"], "abstract": p["abstract"]}) for p in papers), {"title": 3, "abstract": 1}
    )
    scores = index.scores(q.scoring)
    soft_scores = index.scores(q.soft) if q.soft else None
    need = max(1, math.ceil(len(q.soft) * 0.5)) if q.soft else 0
    wanted_cats = {c.lower() for c in categories or []}
    hits = []
    for pos, p in enumerate(papers):
        day = date.fromisoformat(p["published"][:10])
        if (lo and day < lo) or day > hi:
            continue
        if wanted_cats and not wanted_cats & {c.lower() for c in p["categories"]}:
            continue
        if soft_scores is not None and soft_scores[pos][1] < need:
            continue
        toks = {"title": tokenize(p["title"]), "abstract": tokenize(p["abstract"])}
        if not _passes(p, q.clauses, toks):
            continue
        hits.append((-round(scores[pos][0], 6) if sort_by == "relevance" else 0.0, pos, p))
    hits.sort(key=lambda h: (h[0], h[1]))
    page = [_listing(p) for _, _, p in hits[start : start + max_results]]
    has_more = len(hits) > start + len(page)
    return {
        "returned": len(page),
        "start": start,
        "papers": page,
        "total_results": len(hits),
        "has_more": has_more,
        "next_start": start + len(page) if has_more else None,
    }


@APP.tool()
def get_paper(
    env: AppEnv,
    arxiv_id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=100,
            description=("arXiv id, e.g. '2602.01234', '2602.01234v2', 'arXiv:2602.01234' or an arxiv.org abs/pdf URL"),
        ),
    ],
) -> dict[str, Any]:
    """Get the full record of one arXiv paper: title, authors, abstract, categories, dates, versions, comment and
    links."""
    m = _ID.match(arxiv_id.strip())
    if not m:
        raise ToolFailure(
            f"Invalid arXiv ID format: {arxiv_id!r}. Use an id such as 2602.01234 or 2602.01234v2", kind="range"
        )
    pid, version = m.group(1), int(m.group(2)) if m.group(2) else None
    paper = env.tree.top("paper", pid)
    if paper is None:
        raise ToolFailure(f"Paper {pid} not found on arXiv", kind="not_found")
    if version is not None and not 1 <= version <= paper["version"]:
        raise ToolFailure(f"Paper {pid} has {paper['version']} version(s); v{version} does not exist", kind="conflict")
    version = version or paper["version"]
    vid = f"{pid}v{version}"
    out = {
        "id": pid,
        "versioned_id": vid,
        "latest_version": f"v{paper['version']}",
        "title": paper["title"],
        "authors": paper["authors"],
        "abstract": paper["abstract"],
        "primary_category": paper["primary_category"],
        "categories": paper["categories"],
        "published": paper["published"],
        "updated": paper["updated"],
        "comment": paper.get("comment"),
        "journal_ref": paper.get("journal_ref"),
        "abs_url": f"https://arxiv.org/abs/{vid}",
        "url": f"http://arxiv.org/pdf/{vid}",
        "resource_uri": f"arxiv://{pid}",
    }
    return out


@APP.tool()
def list_categories(
    env: AppEnv,
    archive: Annotated[
        str | None,
        Field(pattern=r"^[A-Za-z-]{2,12}$", description=("only the categories of this archive, e.g. 'cs' or 'stat'")),
    ] = None,
) -> dict[str, Any]:
    """List the arXiv categories of the index with how many papers each holds (any listing / primary)."""
    cats = sorted(env.tree.list("categories"), key=lambda c: c["code"])
    if archive is not None:
        archives = sorted({c["archive"] for c in cats})
        if archive.lower() not in archives:
            raise ToolFailure(
                f"Unknown archive {archive!r}. Archives in this index: {', '.join(archives)}", kind="not_found"
            )
        cats = [c for c in cats if c["archive"] == archive.lower()]
    papers = env.tree.list("papers")
    rows = [
        {
            "code": c["code"],
            "name": c["name"],
            "archive": c["archive"],
            "description": c["description"],
            "papers": sum(c["code"] in p["categories"] for p in papers),
            "primary_papers": sum(p["primary_category"] == c["code"] for p in papers),
        }
        for c in cats
    ]
    return {"categories": rows, "total": len(rows)}
