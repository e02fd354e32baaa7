"""Context7: up-to-date library documentation, mirroring upstash/context7 (MCP server v1.0.x).

Kept from the real server: the two tools ``resolve-library-id {libraryName}`` and
``get-library-docs {context7CompatibleLibraryID, topic?, tokens?}`` with their
hyphenated names and camel-case arguments; the plain-text answers (the "Available
Libraries (top matches)" preamble, then per library ``- Title:``, ``- Context7-
compatible library ID:``, ``- Description:``, ``- Code Snippets:``, ``- Trust Score:``,
``- Versions:`` blocks separated by ``----------``; docs as ``TITLE:`` /
``DESCRIPTION:`` / ``SOURCE:`` / ``LANGUAGE:`` / ``CODE:`` snippets separated by a
40-dash rule); ids with or without the leading slash, and ``/org/project/<version>``
for a listed version; ``tokens`` given as a number or numeric string, default 5000,
and any value below 1000 silently raised to 1000; the 404 text "The library you are
trying to access does not exist. Please try with a different library ID."; argument
errors as the TypeScript SDK's ``MCP error -32602: Invalid arguments for tool ...``.

Simulator choices (the real ranking runs on Context7's servers): a library matches a
name when the name equals its title or an alias (after dropping case and
punctuation), or contains / is contained in one, or shares words with its title,
aliases or description (BM25 of :mod:`mcp_persona.apps._corpus`); order: exact,
then partial, then word matches, each by trust score and id. ``topic`` keeps the
snippets whose title, topics, description or code hold any topic word, best first
(BM25: title x3, topics x3, description and code x1); when none does, all snippets
come in catalog order. Snippets are added whole while the running estimate of
tokens (characters / 4) stays within the budget, and at least one is always returned.
Invented: an unmatched name, a missing library and an unknown version are error
results (the real server answers them as ordinary text), and ``tokens`` above 100000
is rejected. The catalog is fixed (``data/contexts/context7/default.json``): 16
libraries and their snippets written for the project.
"""

from mcp_persona.apps.context7.tools import APP

__all__ = ["APP"]
