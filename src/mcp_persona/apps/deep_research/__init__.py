"""Deep research: multi-step research over a fixed local web.

The paper's Deep-research server is baranwang/mcp-deep-research: one stateless tool,
``deep-research {question, reference?, keywords? (at most 5), topic (general | news |
finance, default general), rounds (default 1)}``, which runs a web search (Tavily, 5
results) per keyword and answers with a planning prompt: the question, the round out
of at most 5, the current time, the "known information" (the reference plus
``## Search Results for `<keyword>``` blocks of ``### Reference i:`` / ``Title:`` /
``Content:``) and instructions to either list new keywords or answer. That tool is
kept with that interface and layout (the prompt prose is the simulator's own; the
time is the task clock's, in the JavaScript ``toLocaleString`` style; ``news``
searches news pages only, ``finance`` pages tagged with a finance topic).

Added for the task design (invented, in the same spirit): a stateful session API.
``start_research {question, max_steps? (1-5, default 3)}`` creates a research
session (an entity ``research[dr_...]`` in the tree) and plans it; each
``research_step {research_id}`` reads the next 3 best sources for the question not
yet read and records, per source, its most relevant sentence as a finding; the
session completes after ``max_steps`` steps or when the sources run out;
``get_report {research_id, format?}`` compiles the findings with numbered citations
(markdown or JSON); ``list_research {status?}`` lists the sessions. Sources are
ranked with the shared web ranking of :mod:`mcp_persona.apps._corpus.web`, except that
a page needs only a third of the question's terms. Every write is timestamped with
``env.now()``; nothing reads the wall clock.
"""

from mcp_persona.apps.deep_research.tools import APP

__all__ = ["APP"]
