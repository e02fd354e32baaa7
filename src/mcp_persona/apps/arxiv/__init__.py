"""arXiv: paper search over a fixed index, mirroring blazickjp/arxiv-mcp-server.

Kept from the real server: ``search_papers`` with its arguments (``query``,
``max_results`` default 10 and silently capped at 50, ``start``, ``date_from``,
``date_to``, ``categories``, ``sort_by`` relevance|date) and its JSON answer
(``returned``, ``start``, ``papers`` [id, versioned_id, title, authors, abstract,
categories, published, url (the PDF), resource_uri ``arxiv://<id>``],
``total_results``, ``has_more``, ``next_start``: the agent must pass ``next_start``
back as ``start`` to page), as compact JSON (the real server indents it); the query language:
``ti:``, ``abs:``, ``au:``, ``cat:`` and ``all:`` field prefixes, quoted phrases, ``AND`` / ``OR`` /
``ANDNOT``, and unprefixed words searching title and abstract but not authors; the
category check by archive prefix ("Error: Invalid category provided. Please check
arXiv category names."); errors as ``Error: ...`` text; and arXiv ids as
``YYMM.NNNNN`` with optional ``vN``.

Simulator choices: unprefixed words rank by the shared BM25 (title x3, abstract x1,
idf over the whole index) and at least half of them must occur; prefixed clauses and
phrases are hard filters (a phrase must occur as consecutive words; ``au:`` matches
all its words within one author's name; ``cat:`` an exact category); ``OR`` is read
as ``AND``. Ties and ``sort_by=date`` order newest first. ``date_to`` defaults to the
task clock's today. Invented: ``get_paper {arxiv_id}`` (the real server has
``download_paper`` / ``read_paper {paper_id}`` over downloaded PDFs; here the record
itself), accepting ``2602.01234``, ``2602.01234v2``, ``arXiv:2602.01234`` or an
arxiv.org abs/pdf URL; ``list_categories {archive?}``; and error results for unknown
papers and contradictory dates. The index (``data/contexts/arxiv/default.json``) holds
40 invented papers and their 10 categories.
"""

from mcp_persona.apps.arxiv.tools import APP

__all__ = ["APP"]
