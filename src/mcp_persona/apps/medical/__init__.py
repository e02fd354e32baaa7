"""Medical: literature and trial search in the style of JamesANZ/medical-mcp.

The real server (the paper's "Medical" server) wraps PubMed E-utilities, FDA and
ClinicalTrials.gov and answers in markdown-flavoured text: a search lists
``N. **Title**`` blocks with ``Authors:``, ``Journal:``, ``Publication Date:``,
``PMID:``, an ``Abstract:`` cut at 300 characters with ``...`` and a PubMed URL; an
article lookup prints ``**Article Details for PMID: ...**`` with the full abstract
and a note on full-text availability in PMC; failures read ``Error <operation>:
<message>``. Those formats are kept, as are its quirks: ``max_results`` is 1-20
(default 10), search results show a truncated abstract (the full one needs
``get_article``), and an empty search is a normal answer ("No medical articles found
for ...").

Invented here: the tool names follow the task design (``search_pubmed``,
``get_article``, ``get_related_articles``, ``search_clinical_trials``; the real server
calls the first two ``search-medical-literature`` and ``get-article-details``), the
``date_from``/``date_to`` filter (PubMed ``mindate``/``maxdate`` syntax: ``YYYY``,
``YYYY/MM`` or ``YYYY/MM/DD``), MeSH terms in article details, related articles, and
the trial search (ClinicalTrials.gov v2 ``overallStatus`` values). Unlike the real
server, an unknown PMID is reported as an error result.

The data is a fixed corpus (``data/contexts/medical/default.json``): 40 invented
abstracts and 12 trials. Ranking is the shared BM25 of :mod:`mcp_persona.apps._corpus`
(title x3, MeSH terms x2, keywords x2, abstract and authors x1; a hit holds at least
half the query terms; ties newest first). Related articles share MeSH descriptors:
score = sum of ln(N / df) over the shared descriptors, study-design and age check
tags excluded; ties newest first, then by PMID.
"""

from mcp_persona.apps.medical.tools import APP

__all__ = ["APP"]
