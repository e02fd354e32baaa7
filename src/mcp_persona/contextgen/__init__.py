"""Context-Tree content generation (paper §3.2, Table 2).

Each app's user contexts are generated from its hierarchy by a small, seeded
generator (``apps/<app>/contextgen.py``, a ``generate(persona, gen)`` function).
Every field value comes from one of the four methods, all on :class:`Gen`:

* **Enumerate** — :meth:`Gen.enumerate`: constrained sampling from a fixed set.
* **Free-Form** — :meth:`Gen.free_form`: written text from a shipped pool
  (``data/corpus/free_form/<pool>.json``), with ``{slot}`` templates filled.
* **Random** — :meth:`Gen.random_id` / :meth:`Gen.new_id`: ids and formats from
  per-field generators (the hierarchy's id formats).
* **Authentic** — :meth:`Gen.authentic`: realistic posts, notes and messages
  (``data/corpus/authentic/<corpus>.json``), sanitized: no real personal data.

Cross-entity links (members, attendees, followers, mentions) are drawn with
:meth:`Gen.link` from entities already generated. People come from the shared
cast (``data/cast.json``): the same coworker has one name, email and phone in
every app. Generation is seeded per (app, persona), so it is reproducible; the
output is committed under ``data/contexts/<app>/`` and
``mcp-persona contexts --check`` proves it still regenerates byte for byte.
"""

from mcp_persona.contextgen.cast import Cast, Person, Persona, load_cast
from mcp_persona.contextgen.gen import Gen, MethodLog
from mcp_persona.contextgen.pipeline import check_app, generate_app, generated_apps

__all__ = [
    "Cast",
    "Gen",
    "MethodLog",
    "Person",
    "Persona",
    "check_app",
    "generate_app",
    "generated_apps",
    "load_cast",
]
