"""Reports of runs: the summary a run writes when it ends, and what reads finished runs back.

``summary`` builds ``summary.json`` and the results table at the end of a run; ``load`` reads run folders;
``html``, ``markdown`` and ``plots`` render them (a self-contained HTML page, a Markdown summary, figures);
``compare`` diffs two runs task by task.
"""

from mcp_persona.report.compare import Comparison, compare_runs
from mcp_persona.report.load import Episode, Run, RunLoadError, load_run, load_runs

__all__ = ["Comparison", "Episode", "Run", "RunLoadError", "compare_runs", "load_run", "load_runs"]
