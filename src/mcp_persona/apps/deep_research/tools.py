"""The deep research tools over the deep_research Context-Tree (see ``data/hierarchies/deep_research.json``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_persona.apps._corpus import best_sentence, query_terms, rank_pages
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

SOURCES_PER_STEP = 3
MAX_STEPS = 5
QUESTION_MATCH = 1 / 3  # share of the question's terms a source must contain
MAX_SEARCH_KEYWORDS = 5
MAX_PLANNING_ROUNDS = 5
RESULTS_PER_KEYWORD = 5
FINANCE_TAGS = frozenset({"finance", "fintech", "payments", "exchange rates", "bnpl", "paylater", "economy"})


class DeepResearchApp(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return {"error": failure.message, "kind": failure.kind}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return {
            "error": f"invalid arguments for {tool}",
            "details": [{"field": v.field, "message": v.message} for v in violations],
        }


APP = DeepResearchApp(
    "deep_research",
    title="Deep research",
    category="information",
    personalized=False,
    description="Multi-round web research: plan searches, read sources step by step and compile a cited report.",
    real_server="baranwang/mcp-deep-research",
)

ResearchId = Annotated[str, Field(min_length=1, max_length=64, description="id returned by start_research (dr_...)")]


# -- helpers ---------------------------------------------------------------------------------------
def _question_terms(question: str) -> list[str]:
    terms = query_terms(question)
    if not terms:
        raise ToolFailure(f"question {question!r} has no searchable words", kind="conflict")
    return terms


def candidates(env: AppEnv, terms: list[str]) -> list[dict[str, Any]]:
    """The sources for a question, best first."""
    return rank_pages(env.tree.list("pages"), terms, min_should_match=QUESTION_MATCH)


def _session(env: AppEnv, research_id: str) -> dict[str, Any]:
    session = env.tree.top("research", research_id.strip())
    if session is None:
        raise ToolFailure(
            f"research session {research_id!r} not found; call list_research to see the sessions", kind="not_found"
        )
    return session


def _summary(s: dict[str, Any]) -> dict[str, Any]:
    return {
        "research_id": s["research_id"],
        "question": s["question"],
        "status": s["status"],
        "steps_completed": s["steps_completed"],
        "max_steps": s["max_steps"],
        "sources": len(s["sources"]),
        "created_at": s["created_at"],
        "updated_at": s["updated_at"],
    }


# -- session tools ---------------------------------------------------------------------------------
@APP.tool(mutates=True)
def start_research(
    env: AppEnv,
    question: Annotated[str, Field(min_length=3, max_length=500, description="The research question")],
    max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS, description="Research steps to run (1-5, default 3)")] = 3,
) -> dict[str, Any]:
    """Start a research session on a question. Returns a research_id; then call research_step with it (each step
    reads the next 3 most relevant sources) and get_report for the cited findings."""
    terms = _question_terms(question)
    found = candidates(env, terms)
    if not found:
        raise ToolFailure("no sources match this question; rephrase it with more specific words", kind="not_found")
    now = env.now()
    session = env.tree.create(
        "research",
        {
            "question": question.strip(),
            "search_terms": terms,
            "status": "in_progress",
            "max_steps": max_steps,
            "sources_per_step": SOURCES_PER_STEP,
            "steps_completed": 0,
            "sources": [],
            "notes": [],
            "created_at": now,
            "updated_at": now,
        },
    )
    return {
        "research_id": session["research_id"],
        "question": session["question"],
        "status": "in_progress",
        "search_terms": terms,
        "candidate_sources": len(found),
        "max_steps": max_steps,
        "sources_per_step": SOURCES_PER_STEP,
        "next": "call research_step with this research_id",
    }


@APP.tool(mutates=True)
def research_step(env: AppEnv, research_id: ResearchId) -> dict[str, Any]:
    """Run the next step of a research session: read the next most relevant sources not read yet and record one
    finding from each. The session completes after its last step or when no unread source is left."""
    session = _session(env, research_id)
    if session["status"] == "completed":
        raise ToolFailure(
            f"research {session['research_id']} is already completed "
            f"({session['steps_completed']}/{session['max_steps']} steps); call get_report",
            kind="conflict",
        )
    read = set(session["sources"])
    unread = [p for p in candidates(env, session["search_terms"]) if p["url"] not in read]
    batch = unread[: session["sources_per_step"]]
    step = session["steps_completed"] + 1
    sources = [*session["sources"]]
    notes = [*session["notes"]]
    new = []
    for page in batch:
        sources.append(page["url"])
        note = {
            "step": step,
            "source": len(sources),
            "url": page["url"],
            "title": page["title"],
            "finding": best_sentence(page["content"], session["search_terms"]),
        }
        notes.append(note)
        new.append(note)
    done = step >= session["max_steps"] or len(unread) <= len(batch)
    env.tree.update(
        f"research[{session['research_id']}]",
        {
            "sources": sources,
            "notes": notes,
            "steps_completed": step,
            "status": "completed" if done else "in_progress",
            "updated_at": env.now(),
        },
    )
    return {
        "research_id": session["research_id"],
        "step": step,
        "status": "completed" if done else "in_progress",
        "new_sources": [{k: n[k] for k in ("source", "url", "title", "finding")} for n in new],
        "total_sources": len(sources),
        "remaining_steps": 0 if done else session["max_steps"] - step,
    }


@APP.tool()
def get_report(
    env: AppEnv,
    research_id: ResearchId,
    format: Annotated[Literal["markdown", "json"], Field(description="markdown (default) or json")] = "markdown",
) -> Any:
    """Compile the report of a research session: its findings with numbered citations and the list of sources.
    A session still in progress gives an interim report."""
    session = _session(env, research_id)
    if not session["sources"]:
        raise ToolFailure(
            f"research {session['research_id']} has no sources yet; call research_step first", kind="conflict"
        )
    pages = env.tree.data.get("pages", {})
    sources = [
        {
            "source": i,
            "url": url,
            "title": pages[url]["title"],
            "site": pages[url]["site"],
            "published": pages[url].get("published"),
        }
        for i, url in enumerate(session["sources"], 1)
    ]
    findings = [{"finding": n["finding"], "source": n["source"]} for n in session["notes"]]
    if format == "json":
        return {**_summary(session), "findings": findings, "citations": sources}
    lines = [
        f"# Research report: {session['question']}",
        "",
        f"Research ID: {session['research_id']} · Status: {session['status']} · "
        f"Steps: {session['steps_completed']}/{session['max_steps']} · Sources: {len(sources)}",
    ]
    if session["status"] != "completed":
        left = session["max_steps"] - session["steps_completed"]
        lines.append(f"Interim report: {left} step(s) remaining.")
    lines += ["", "## Key findings"]
    lines += [f"{i}. {f['finding']} [{f['source']}]" for i, f in enumerate(findings, 1)]
    lines += ["", "## Sources"]
    lines += [
        f"[{s['source']}] {s['title']} — {s['url']} ({s['site']}, {s['published'] or 'undated'})" for s in sources
    ]
    return "\n".join(lines)


@APP.tool()
def list_research(
    env: AppEnv,
    status: Annotated[
        Literal["in_progress", "completed"] | None, Field(description="only sessions in this status")
    ] = None,
) -> dict[str, Any]:
    """List the research sessions of this episode, oldest first."""
    sessions = sorted(env.tree.list("research"), key=lambda s: (s["created_at"], s["research_id"]))
    rows = [_summary(s) for s in sessions if status is None or s["status"] == status]
    return {"research": rows, "total": len(rows)}


# -- the real server's single tool -----------------------------------------------------------------
def _local_time(env: AppEnv) -> str:
    """The task clock's "now" as JavaScript's Date.toLocaleString('en-US') prints it."""
    cur = env.clock.current()
    hour = cur.hour % 12 or 12
    return (
        f"{cur.month}/{cur.day}/{cur.year}, {hour}:{cur.minute:02d}:{cur.second:02d} {'AM' if cur.hour < 12 else 'PM'}"
    )


def _search(env: AppEnv, keyword: str, topic: str) -> str:
    pages = env.tree.list("pages")
    if topic == "news":
        pages = [p for p in pages if p["kind"] == "news"]
    elif topic == "finance":
        pages = [p for p in pages if FINANCE_TAGS & set(p.get("tags", []))]
    hits = rank_pages(pages, query_terms(keyword))[:RESULTS_PER_KEYWORD]
    out = f"## Search Results for `{keyword}`\n"
    for i, page in enumerate(hits, 1):
        out += f"### Reference {i}:\nTitle: {page['title']}\nContent: {page['description']}\n"
    return out


def _prompt(question: str, known: str, rounds: int, now: str) -> str:
    return f"""# Your role
You research questions on the web: you work out what information is missing, plan focused searches, and write \
accurate, well-organised answers from what the searches return.

# Question
{question}

# Where things stand
Search round: {rounds}
Maximum search rounds: {MAX_PLANNING_ROUNDS}
Current time: {now}

# Information gathered so far
{known or "Nothing has been gathered yet."}

# What to do
1. Judge whether the information gathered so far answers the question, and note what is missing or unverified.
2. If something is missing, write 1 to {MAX_SEARCH_KEYWORDS} new search keywords. Each keyword must be a complete, \
self-contained phrase (a subject and what you want to know about it), without pronouns, and must not overlap with \
the others.
3. To search again, call this tool with the gathered information as `reference`, the new `keywords`, and `rounds` \
set to {rounds + 1}.
4. If the information is sufficient, answer the question directly.

# Output
- To keep searching: output only the keywords, one per line, and nothing else.
- To answer: give a clear, structured answer, cite the references you used, and flag anything uncertain.

# Limits
- This is round {rounds} of {MAX_PLANNING_ROUNDS}; once the limit is reached you must answer with what you have.
- Keywords must be specific and unambiguous; do not output anything unrelated to the search plan."""


@APP.tool(name="deep-research")
def deep_research(
    env: AppEnv,
    question: Annotated[str, Field(min_length=1, max_length=1000, description="The user's question")],
    reference: Annotated[
        str | None, Field(max_length=50_000, description=("Material gathered in earlier rounds, passed back verbatim"))
    ] = None,
    keywords: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
        Field(
            max_length=MAX_SEARCH_KEYWORDS,
            description=(
                f"Search keywords, 1~{MAX_SEARCH_KEYWORDS}. Each keyword must be a complete phrase with a "
                "subject, avoid "
                "pronouns and references, be worth searching on its own, not overlap with the other keywords, and be "
                "directly relevant to the question"
            ),
        ),
    ] = None,
    topic: Annotated[
        Literal["general", "news", "finance"],
        Field(description="What to search: general (default), news or finance pages"),
    ] = "general",
    rounds: Annotated[int, Field(ge=1, description="Which search round this call is (default 1)")] = 1,
) -> str:
    """Multi-round deep web research: searches each keyword on the chosen topic and returns everything gathered so
    far with instructions for the next round (search again with new keywords, or answer)."""
    if rounds > 1 and not (reference or "").strip() and not keywords:
        raise ToolFailure(
            f"rounds is {rounds} but neither reference nor keywords were given: a later round builds "
            "on the information of the earlier ones",
            kind="conflict",
        )
    known = reference or ""
    if keywords:
        known += "\n".join(_search(env, kw, topic) for kw in keywords)
    return _prompt(question, known, rounds, _local_time(env))
