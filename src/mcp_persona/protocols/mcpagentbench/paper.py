"""MCPAgentBench's Tables 1 and 2 in their layout: TFS and TEFS by domain (daily, professional) and task type,
each the mean over the run's trials (the paper's avg@4).

A run's cells are its TFS and TEFS by the paper's own rules (``tfs_paper`` / ``tefs_paper``, see
:mod:`.scoring`), the rules the published rows beside them were counted by; this platform's stricter rule
(``tfs`` / ``tefs``) would put a run's cells below the published ones for reasons of counting alone."""

from __future__ import annotations

from mcp_persona.protocols.paper_tables import PaperColumn, PaperTable

DOMAINS = (("Daily", "daily"), ("Professional", "professional"))
TYPES = (("Single", "single"), ("Dual Serial", "dual_serial"), ("Dual Parallel", "dual_parallel"),
         ("Multi", "multi"))


def _by_category(metric: str) -> tuple[PaperColumn, ...]:
    return tuple(PaperColumn(label, metric, f"{domain}/{kind}", band)
                 for band, domain in DOMAINS for label, kind in TYPES)


_NOTE = ("a run's cell is its score by the paper's rule (its checker's, as the published rows were counted) over "
         "every trial of the cell's tasks, each weighted by its gold calls: the mean of the trials' scores, avg@k; "
         "that rule compares its 24 name-only tools by name alone (any arguments pass), so it is not this "
         "platform's headline, the outcome rule (TFS-outcome), which checks every tool's arguments")

PAPER_TABLES = (
    PaperTable(key="table1", title="TFS avg@k by task category", source="MCPAgentBench, Table 1",
               breakdown="by_domain_type", columns=_by_category("tfs_paper"), note=_NOTE, trials_label=True),
    PaperTable(key="table2", title="TEFS avg@k by task category", source="MCPAgentBench, Table 2",
               breakdown="by_domain_type", columns=_by_category("tefs_paper"), note=_NOTE, trials_label=True),
)
