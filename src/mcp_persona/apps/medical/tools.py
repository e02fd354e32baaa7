"""The medical literature tools over the medical Context-Tree (see ``data/hierarchies/medical.json``)."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps._corpus import Index, parse_day, query_terms
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

OPERATIONS = {
    "search_pubmed": "searching medical literature",
    "get_article": "fetching article details",
    "get_related_articles": "fetching related articles",
    "search_clinical_trials": "searching clinical trials",
}
TRIAL_STATUSES = (
    "NOT_YET_RECRUITING",
    "RECRUITING",
    "ENROLLING_BY_INVITATION",
    "ACTIVE_NOT_RECRUITING",
    "SUSPENDED",
    "TERMINATED",
    "COMPLETED",
    "WITHDRAWN",
    "UNKNOWN",
)
# MeSH check tags and study-design descriptors: they say how a study was done, not what it is about.
CHECK_TAGS = frozenset(
    {
        "Adult",
        "Aged",
        "Child",
        "Middle Aged",
        "Young Adult",
        "Students",
        "Cohort Studies",
        "Cross-Over Studies",
        "Meta-Analysis as Topic",
        "Network Meta-Analysis",
        "Randomized Controlled Trials as Topic",
        "Natural Experiment",
        "Risk Factors",
    }
)
ABSTRACT_PREVIEW = 300


class MedicalApp(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        operation = OPERATIONS.get(tool)
        return f"Error {operation}: {failure.message}" if operation else failure.message

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return f"MCP error -32602: Invalid arguments for tool {tool}: {detail}"


APP = MedicalApp(
    "medical",
    title="Medical literature (PubMed, ClinicalTrials.gov)",
    category="information",
    personalized=False,
    description="Search medical research articles (PubMed) and registered clinical trials.",
    real_server="JamesANZ/medical-mcp",
)

Query = Annotated[str, Field(min_length=1, max_length=500, description="Medical topic or condition to search for")]
MaxResults = Annotated[int, Field(ge=1, le=20, description="Maximum number of results to return (1-20)")]
Pmid = Annotated[str, Field(min_length=1, max_length=20, description="PubMed ID (PMID) of the article")]
DateBound = Annotated[
    str | None, Field(max_length=10, description="publication date bound: YYYY, YYYY/MM or YYYY/MM/DD (inclusive)")
]


# -- helpers ---------------------------------------------------------------------------------------
def _newest_first(items: list[dict[str, Any]], date_field: str, id_field: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda e: (e.get(date_field, ""), e[id_field]), reverse=True)


def _terms(text: str, what: str) -> list[str]:
    terms = query_terms(text)
    if not terms:
        raise ToolFailure(f"{what} {text!r} has no searchable terms (only stopwords or punctuation)", kind="conflict")
    return terms


def _bound(value: str | None, name: str, *, end: bool) -> date | None:
    if value is None:
        return None
    try:
        return parse_day(value, end=end)
    except ValueError as exc:
        raise ToolFailure(f"Invalid {name} {value!r}: use YYYY, YYYY/MM or YYYY/MM/DD", kind="range") from exc


def _article(env: AppEnv, pmid: str) -> dict[str, Any]:
    pmid = pmid.strip()
    if not pmid.isdigit():
        raise ToolFailure(f"Invalid PMID {pmid!r}: a PMID is a number such as 38214567", kind="range")
    art = env.tree.top("article", pmid)
    if art is None:
        raise ToolFailure(f"No article found with PMID: {pmid}", kind="not_found")
    return art


def _listing(index: int, art: dict[str, Any]) -> str:
    abstract = art["abstract"]
    preview = abstract[:ABSTRACT_PREVIEW] + ("..." if len(abstract) > ABSTRACT_PREVIEW else "")
    lines = [
        f"{index}. **{art['title']}**",
        f"   Authors: {', '.join(art['authors'])}",
        f"   Journal: {art['journal']}",
        f"   Publication Date: {art['publication_date']}",
        f"   PMID: {art['pmid']}",
    ]
    if art.get("pmc_id"):
        lines.append(f"   PMC ID: {art['pmc_id']} (Full text available)")
    lines.append(f"   Abstract: {preview}")
    lines.append(f"   URL: https://pubmed.ncbi.nlm.nih.gov/{art['pmid']}/")
    return "\n".join(lines) + "\n"


def related_articles(env: AppEnv, pmid: str) -> list[tuple[dict[str, Any], list[str]]]:
    """Articles sharing topical MeSH descriptors with ``pmid``, best first, with the shared terms."""
    source = _article(env, pmid)
    articles = env.tree.list("articles")
    df = Counter(t for a in articles for t in set(a.get("mesh_terms", [])))
    wanted = [t for t in source.get("mesh_terms", []) if t not in CHECK_TAGS]
    scored = []
    for art in _newest_first(articles, "publication_date", "pmid"):
        if art["pmid"] == source["pmid"]:
            continue
        shared = [t for t in wanted if t in art.get("mesh_terms", [])]
        if shared:
            score = sum(math.log(len(articles) / df[t]) for t in shared)
            scored.append((-round(score, 6), len(scored), art, shared))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [(art, shared) for _, _, art, shared in scored]


# -- tools -----------------------------------------------------------------------------------------
@APP.tool()
def search_pubmed(
    env: AppEnv,
    query: Query,
    max_results: MaxResults = 10,
    date_from: DateBound = None,
    date_to: DateBound = None,
) -> str:
    """Search for medical research articles in PubMed.

    Results are ranked by relevance (best match); each shows the first 300 characters of
    the abstract. Optional date_from/date_to limit the publication date (YYYY, YYYY/MM or
    YYYY/MM/DD, inclusive). Use get_article for the full record."""
    lo, hi = _bound(date_from, "date_from", end=False), _bound(date_to, "date_to", end=True)
    if lo and hi and lo > hi:
        raise ToolFailure(f"date_from {date_from} is after date_to {date_to}", kind="conflict")
    terms = _terms(query, "query")
    pool = []
    for art in _newest_first(env.tree.list("articles"), "publication_date", "pmid"):
        day = date.fromisoformat(art["publication_date"])
        if (lo is None or day >= lo) and (hi is None or day <= hi):
            pool.append(art)
    index = Index(
        (
            (
                a["pmid"],
                {
                    "title": a["title"],
                    "mesh": " ".join(a["mesh_terms"]),
                    "keywords": " ".join(a["keywords"]),
                    "abstract": a["abstract"],
                    "authors": " ".join(a["authors"]),
                },
            )
            for a in pool
        ),
        {"title": 3, "mesh": 2, "keywords": 2, "abstract": 1, "authors": 1},
    )
    hits = index.score_terms(terms)[:max_results]
    if not hits:
        return f'No medical articles found for "{query}". Try different search terms or check the spelling.'
    by_id = {a["pmid"]: a for a in pool}
    out = f'**Medical Literature Search: "{query}"**\n\nFound {len(hits)} article(s)\n\n'
    return out + "\n".join(_listing(i, by_id[h.key]) for i, h in enumerate(hits, 1))


@APP.tool()
def get_article(env: AppEnv, pmid: Pmid) -> str:
    """Get detailed information about a specific medical article by PMID: full abstract,
    authors, journal, DOI, MeSH terms, keywords and linked clinical trials."""
    art = _article(env, pmid)
    lines = [f"**Article Details for PMID: {art['pmid']}**", "", f"**Title:** {art['title']}", ""]
    lines += [f"**Authors:** {', '.join(art['authors'])}", ""]
    lines += [
        f"**Journal:** {art['journal']}",
        f"**Publication Date:** {art['publication_date']}",
        f"**Publication Type:** {art['publication_type']}",
        f"**DOI:** {art['doi']}",
    ]
    if art.get("pmc_id"):
        lines += [
            f"**PMC ID:** {art['pmc_id']}",
            "**Full Text Available:** Yes",
            f"**Full Text URL:** https://www.ncbi.nlm.nih.gov/pmc/articles/{art['pmc_id']}/",
        ]
    lines += ["", f"**MeSH Terms:** {'; '.join(art['mesh_terms'])}", f"**Keywords:** {'; '.join(art['keywords'])}"]
    trials = sorted(t["nct_id"] for t in env.tree.list("trials") if art["pmid"] in t.get("related_pmids", []))
    if trials:
        lines.append(f"**Linked Clinical Trials:** {', '.join(trials)}")
    lines += ["", "**Abstract:**", art["abstract"], ""]
    if art.get("pmc_id"):
        lines.append("**Note:** The full text is in PubMed Central; open the PMC URL above to read it.")
    else:
        lines.append(
            "**Note:** No free full text in PubMed Central; the complete article may need institutional "
            "access or a subscription."
        )
    return "\n".join(lines) + "\n"


@APP.tool()
def get_related_articles(env: AppEnv, pmid: Pmid, max_results: MaxResults = 5) -> str:
    """Find articles related to a PubMed article (PubMed "similar articles"): those sharing
    its topical MeSH descriptors, the rarer the shared descriptors the closer."""
    source = _article(env, pmid)
    related = related_articles(env, pmid)[:max_results]
    if not related:
        return f"No related articles found for PMID: {source['pmid']}"
    out = (
        f"**Related Articles for PMID: {source['pmid']}**\n*{source['title']}*\n\n"
        f"Found {len(related)} related article(s)\n\n"
    )
    blocks = []
    for i, (art, shared) in enumerate(related, 1):
        blocks.append(_listing(i, art).rstrip("\n") + f"\n   Shared MeSH Terms: {'; '.join(shared)}\n")
    return out + "\n".join(blocks)


@APP.tool()
def search_clinical_trials(
    env: AppEnv,
    condition: Annotated[
        str, Field(min_length=1, max_length=300, description="Condition or disease, e.g. 'hypertension'")
    ],
    status: Annotated[
        str | None,
        Field(max_length=40, description="Overall status filter: " + ", ".join(TRIAL_STATUSES) + " (case-insensitive)"),
    ] = None,
    max_results: MaxResults = 10,
) -> str:
    """Search registered clinical trials (ClinicalTrials.gov) by condition, optionally by
    overall status. Matches conditions, titles, interventions and summaries; newest first
    among equally relevant trials."""
    wanted = None
    if status is not None:
        wanted = status.strip().upper().replace(" ", "_").replace("-", "_")
        if wanted not in TRIAL_STATUSES:
            raise ToolFailure(f"Invalid status {status!r}: use one of {', '.join(TRIAL_STATUSES)}", kind="range")
    terms = _terms(condition, "condition")
    pool = [
        t
        for t in _newest_first(env.tree.list("trials"), "start_date", "nct_id")
        if wanted is None or t["overall_status"] == wanted
    ]
    index = Index(
        (
            (
                t["nct_id"],
                {
                    "conditions": " ".join(t["conditions"]),
                    "title": t["title"],
                    "interventions": " ".join(t["interventions"]),
                    "summary": t["brief_summary"],
                },
            )
            for t in pool
        ),
        {"conditions": 3, "title": 2, "interventions": 1, "summary": 1},
    )
    hits = index.score_terms(terms)[:max_results]
    label = f" (status: {wanted})" if wanted else ""
    if not hits:
        return f'No clinical trials found for "{condition}"{label}. Try a broader condition name.'
    by_id = {t["nct_id"]: t for t in pool}
    blocks = []
    for i, h in enumerate(hits, 1):
        t = by_id[h.key]
        blocks.append(
            "\n".join(
                [
                    f"{i}. **{t['title']}**",
                    f"   NCT ID: {t['nct_id']}",
                    f"   Status: {t['overall_status']}",
                    f"   Phase: {t['phase']}",
                    f"   Study Type: {t['study_type']}",
                    f"   Conditions: {', '.join(t['conditions'])}",
                    f"   Interventions: {'; '.join(t['interventions'])}",
                    f"   Sponsor: {t['sponsor']}",
                    f"   Locations: {'; '.join(t['locations'])}",
                    f"   Enrollment: {t['enrollment']}",
                    f"   Start Date: {t['start_date']} | Completion Date: {t['completion_date']}",
                    f"   Summary: {t['brief_summary']}",
                    f"   Related PMIDs: {', '.join(t['related_pmids']) or 'none'}",
                    f"   URL: https://clinicaltrials.gov/study/{t['nct_id']}",
                ]
            )
            + "\n"
        )
    return f'**Clinical Trials Search: "{condition}"**{label}\n\nFound {len(hits)} trial(s)\n\n' + "\n".join(blocks)
