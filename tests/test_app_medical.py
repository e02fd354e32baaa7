"""The medical app through the real MCP path: every tool's success path and its rejections."""

from __future__ import annotations

import re

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv

APP = get_app("medical")
H = AppHarness(APP, read_only=True)  # every medical tool is read-only
ok, rejected = H.ok, H.rejected
env = H.env_fixture()


def pmids(text: str) -> list[str]:
    return re.findall(r"^   PMID: (\d+)$", text, flags=re.M)


# -- the dataset -----------------------------------------------------------------------------------------
def test_context_is_the_fixed_dataset() -> None:
    assert APP.context_ids() == ["default"]
    assert APP.personalized is False and APP.category == "information"
    data = APP.load_context("default")
    assert len(data["articles"]) == 40 and len(data["trials"]) == 12
    for pmid, art in data["articles"].items():
        assert pmid.isdigit() and art["pmid"] == pmid
        assert art["abstract"].startswith(("Background:", "Objective:")), pmid
        assert art["mesh_terms"] and art["authors"]
    for trial in data["trials"].values():
        assert set(trial["related_pmids"]) <= set(data["articles"])


# -- search_pubmed ----------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_search_pubmed_ranks_and_formats(env: AppEnv) -> None:
    text = await ok(env, "search_pubmed", {"query": "walking blood pressure", "max_results": 3})
    assert text.startswith('**Medical Literature Search: "walking blood pressure"**\n\nFound 3 article(s)\n\n1. **')
    assert pmids(text) == ["38652201", "38977345", "40977001"]
    assert "   Journal: Journal of Urban Health & Activity\n   Publication Date: 2024-04-22\n" in text
    assert "   URL: https://pubmed.ncbi.nlm.nih.gov/38652201/" in text
    # abstracts are cut at 300 characters
    first = re.search(r"   Abstract: (.*)\n", text).group(1)  # type: ignore[union-attr]
    assert first.endswith("...") and len(first) == 303


@pytest.mark.anyio
async def test_search_pubmed_default_limit_and_dates(env: AppEnv) -> None:
    text = await ok(env, "search_pubmed", {"query": "walking"})
    assert "Found 10 article(s)" in text and len(pmids(text)) == 10
    text = await ok(env, "search_pubmed", {"query": "walking", "date_from": "2026", "date_to": "2026/12/31"})
    assert pmids(text) == ["41024418", "41102259", "41187702"]
    text = await ok(env, "search_pubmed", {"query": "sleep", "date_from": "2025/04", "date_to": "2025/07"})
    assert pmids(text) == ["40412655", "40231177"]


@pytest.mark.anyio
async def test_search_pubmed_author_and_no_hits(env: AppEnv) -> None:
    assert pmids(await ok(env, "search_pubmed", {"query": "Okafor"})) == ["38652201"]
    text = await ok(env, "search_pubmed", {"query": "quantum chromodynamics"})
    assert (
        text
        == 'No medical articles found for "quantum chromodynamics". Try different search terms or check the spelling.'
    )


@pytest.mark.anyio
async def test_search_pubmed_rejections(env: AppEnv) -> None:
    await rejected(env, "search_pubmed", {"query": 42}, "query: Input should be a valid string")
    await rejected(
        env, "search_pubmed", {}, "MCP error -32602: Invalid arguments for tool search_pubmed: query: Field required"
    )
    await rejected(
        env,
        "search_pubmed",
        {"query": "sleep", "max_results": 21},
        "max_results: Input should be less than or equal to 20",
    )
    await rejected(
        env,
        "search_pubmed",
        {"query": "sleep", "date_from": "2024-13-01"},
        "Error searching medical literature: Invalid date_from '2024-13-01'",
    )
    await rejected(
        env,
        "search_pubmed",
        {"query": "sleep", "date_from": "2025", "date_to": "2024"},
        "Error searching medical literature: date_from 2025 is after date_to 2024",
    )
    await rejected(env, "search_pubmed", {"query": "the of and"}, "has no searchable terms")
    await rejected(env, "search_pubmed", {"query": "sleep", "sort": "date"}, "sort: Extra inputs are not permitted")


# -- get_article ------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_article_full_record(env: AppEnv) -> None:
    text = await ok(env, "get_article", {"pmid": "39011834"})
    assert text.startswith(
        "**Article Details for PMID: 39011834**\n\n**Title:** Neighbourhood walkability, green space"
    )
    assert "**Authors:** Xiaoyan Qiu, Daniel Forsythe, Jia-Hui Peng, Rafael Ortega" in text
    assert "**DOI:** 10.5555/ehpa.2024.11834" in text
    assert "**PMC ID:** PMC11203345\n**Full Text Available:** Yes" in text
    assert (
        "**MeSH Terms:** Walking; Residence Characteristics; Depression; Parks, Recreational; Urban Population" in text
    )
    assert "**Linked Clinical Trials:** NCT06234890" in text
    assert "17% lower odds of elevated depressive symptoms" in text  # the full abstract
    assert text.rstrip().endswith("**Note:** The full text is in PubMed Central; open the PMC URL above to read it.")
    text = await ok(env, "get_article", {"pmid": " 38009874 "})
    assert "**Note:** No free full text in PubMed Central" in text
    assert "Linked Clinical Trials" not in text


@pytest.mark.anyio
async def test_get_article_rejections(env: AppEnv) -> None:
    await rejected(env, "get_article", {"pmid": 39011834}, "pmid: Input should be a valid string")
    await rejected(env, "get_article", {}, "pmid: Field required")
    await rejected(
        env, "get_article", {"pmid": "PMID39011834"}, "Error fetching article details: Invalid PMID 'PMID39011834'"
    )
    await rejected(
        env, "get_article", {"pmid": "12345678"}, "Error fetching article details: No article found with PMID: 12345678"
    )


# -- get_related_articles ---------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_related_articles(env: AppEnv) -> None:
    text = await ok(env, "get_related_articles", {"pmid": "38214567", "max_results": 3})
    assert text.startswith("**Related Articles for PMID: 38214567**\n*Daily step counts and all-cause mortality")
    assert pmids(text) == ["39855501", "40977001", "40102256"]
    assert "   Shared MeSH Terms: Mortality; Exercise" in text
    text = await ok(env, "get_related_articles", {"pmid": "40231177"})
    assert pmids(text) == ["40977001", "39401566", "38977345", "38652201", "39067733"]  # ties: newest first
    assert text.count("Shared MeSH Terms: Blood Pressure; Hypertension") == 4


@pytest.mark.anyio
async def test_get_related_articles_rejections(env: AppEnv) -> None:
    await rejected(env, "get_related_articles", {"pmid": ["38214567"]}, "pmid: Input should be a valid string")
    await rejected(env, "get_related_articles", {"max_results": 3}, "pmid: Field required")
    await rejected(
        env,
        "get_related_articles",
        {"pmid": "38214567", "max_results": 0},
        "max_results: Input should be greater than or equal to 1",
    )
    await rejected(
        env,
        "get_related_articles",
        {"pmid": "99999999"},
        "Error fetching related articles: No article found with PMID: 99999999",
    )


# -- search_clinical_trials -------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_search_clinical_trials(env: AppEnv) -> None:
    text = await ok(env, "search_clinical_trials", {"condition": "hypertension", "status": "recruiting"})
    assert text.startswith('**Clinical Trials Search: "hypertension"** (status: RECRUITING)\n\nFound 2 trial(s)')
    assert re.findall(r"NCT ID: (NCT\d+)", text) == ["NCT06655310", "NCT05812345"]
    assert "   Enrollment: 600\n" in text and "   URL: https://clinicaltrials.gov/study/NCT05812345" in text
    text = await ok(env, "search_clinical_trials", {"condition": "type 2 diabetes"})
    assert re.findall(r"NCT ID: (NCT\d+)", text) == ["NCT05690021", "NCT05944560"]
    assert "Status: ACTIVE_NOT_RECRUITING" in text and "Related PMIDs: 37788123, 39745120" in text
    text = await ok(env, "search_clinical_trials", {"condition": "insomnia", "status": "RECRUITING"})
    assert text == 'No clinical trials found for "insomnia" (status: RECRUITING). Try a broader condition name.'


@pytest.mark.anyio
async def test_search_clinical_trials_rejections(env: AppEnv) -> None:
    await rejected(
        env, "search_clinical_trials", {"condition": ["asthma"]}, "condition: Input should be a valid string"
    )
    await rejected(env, "search_clinical_trials", {"status": "RECRUITING"}, "condition: Field required")
    await rejected(
        env,
        "search_clinical_trials",
        {"condition": "asthma", "status": "OPEN"},
        "Error searching clinical trials: Invalid status 'OPEN'",
    )
    await rejected(
        env, "search_clinical_trials", {"condition": "asthma", "max_results": 50}, "less than or equal to 20"
    )
    await rejected(
        env,
        "search_clinical_trials",
        {"condition": "???"},
        "Error searching clinical trials: condition '???' has no searchable terms",
    )
