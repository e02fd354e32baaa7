"""Reports over finished runs: a self-contained HTML page, a Markdown summary, figures and run comparisons.

``load`` reads run folders; ``html``, ``markdown`` and ``plots`` render them;
``compare`` diffs two runs task by task. (``mcp_persona.reports`` is the summary a
run writes when it ends; this package reads runs back afterwards.)
"""

from mcp_persona.report.compare import Comparison, compare_runs
from mcp_persona.report.load import Episode, Run, RunLoadError, load_run, load_runs

__all__ = ["Comparison", "Episode", "Run", "RunLoadError", "compare_runs", "load_run", "load_runs"]
