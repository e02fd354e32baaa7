"""Obsidian: the notes of a vault, mirroring MarkusPfundstein/mcp-obsidian.

The real server wraps the Obsidian Local REST API plugin; the tools keep its names
(``obsidian_*``), its flat argument names (``filepath``, ``dirpath``, ``query``,
``context_length``, ``operation``/``target_type``/``target``/``content``, ``confirm``,
``period``, ``limit``, ``include_content``, ``days``, ``tag``) and its responses:
listings, search hits and metadata as JSON (compact; the real server indents it), write confirmations
as plain sentences ("Successfully patched content in ..."), and failures as
``Caught Exception. Error: Error <errorCode>: <message>`` with the REST API's codes
(40400 not found, 40021 path traversal, 40510 directory given for a file, 40060
period not enabled, 40461 periodic note missing, 40070 bad query, 40080 patch
failed, 40005 bad frontmatter, 50020 file operation failed). Argument validation
failures read ``Input validation error: ...``.

Kept quirks: obsidian_get_file_contents returns the note as a JSON *string*;
obsidian_batch_get_file_contents reports an unreadable file inline and still returns
the others; obsidian_append_content creates a missing file; heading targets are
'::'-joined paths, and a bare heading name is accepted only when unique (else
"Ambiguous heading ..."); appending or prepending text a section already contains
fails with content-already-preexists-in-target; patching a frontmatter field that
does not exist fails (the server cannot create it) and rewrites the whole
frontmatter block; the simple search matches every word case-insensitively in
markdown notes only, sorted by ascending score (strict like Obsidian's: a word matches as written, so
"dates" does not find "date", declared as the app's strict note); 'glob' treats only '*' as a
wildcard and lets it cross folders; tags come from a frontmatter ``tags`` list
plus inline #tags. Where upstream is broken the tool does what it promises: the
recent-periodic-notes endpoint does not exist in the REST API, so here it lists the
existing notes of the period, newest first; recent changes mirror the Dataview
query's ``{"filename", "result": {"file.mtime"}}`` rows. Simulator choices: a heading
append lands right after the section's last non-blank line (before the blank line
that separates it from the next heading) and always starts and ends on a line
boundary; only append/prepend refuse content the target already holds (replace
does not); a frontmatter patch reads ``content`` as JSON when it parses (so "42",
"true", '["a"]' are typed values) and appending a scalar to a list adds one item;
JSON output keeps non-ASCII characters readable; ``mtime``/``ctime`` come from the
task clock, never the wall clock.
"""

from mcp_persona.apps.obsidian.tools import APP

__all__ = ["APP"]
