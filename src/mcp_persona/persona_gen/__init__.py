"""Persona-Gen (paper §3.3): generate personalized tasks with your own model, for people to review.

The stages, one module each:

1. :mod:`~mcp_persona.persona_gen.graph` — the tool dependency graph (inputs from schemas, outputs
   observed by running safe calls; see :mod:`~mcp_persona.persona_gen.fields` and
   :mod:`~mcp_persona.persona_gen.observe`);
2. :mod:`~mcp_persona.persona_gen.sample` — tool-chain sampling under the five constraints;
3. :mod:`~mcp_persona.persona_gen.prototype` — a model writes an instruction template (S_proto);
4. :mod:`~mcp_persona.persona_gen.enrich` — placeholders filled from the user contexts and the gold
   chain run (S_inst); :mod:`~mcp_persona.persona_gen.checkpoints` reads the checkpoints off it;
5. :mod:`~mcp_persona.persona_gen.fuzzify` — implicit context cut out, distractor facts added (S_fuzz);
6. :mod:`~mcp_persona.persona_gen.review` — the review file and the validated import.

:func:`~mcp_persona.persona_gen.pipeline.generate` runs 1-5; ``mcp-persona gen`` is the command line.
Nothing here runs or writes anything at import time.
"""

from mcp_persona.persona_gen.enrich import Draft, EnrichError, enrich
from mcp_persona.persona_gen.fuzzify import Fuzzed, fuzzify
from mcp_persona.persona_gen.graph import Edge, ToolGraph, ToolNode, build_graph, load_graph
from mcp_persona.persona_gen.pipeline import Candidate, GenStats, generate, make_candidate
from mcp_persona.persona_gen.prototype import Prototype, PrototypeError, parse_prototype, prototype
from mcp_persona.persona_gen.review import ImportReport, import_review, read_review, write_review
from mcp_persona.persona_gen.sample import Chain, llm_realism, plausible, sample_chains

__all__ = [
    "Candidate",
    "Chain",
    "Draft",
    "Edge",
    "EnrichError",
    "Fuzzed",
    "GenStats",
    "ImportReport",
    "Prototype",
    "PrototypeError",
    "ToolGraph",
    "ToolNode",
    "build_graph",
    "enrich",
    "fuzzify",
    "generate",
    "import_review",
    "llm_realism",
    "load_graph",
    "make_candidate",
    "parse_prototype",
    "plausible",
    "prototype",
    "read_review",
    "sample_chains",
    "write_review",
]
