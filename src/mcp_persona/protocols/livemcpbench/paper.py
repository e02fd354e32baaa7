"""LiveMCPBench's Table 2 (task success by domain) beside its Table 3 (the efficiency of the runs)."""

from __future__ import annotations

from mcp_persona.protocols.paper_tables import PaperColumn, PaperTable

# the paper's column order
DOMAINS = (("Office", "office"), ("Leisure", "leisure"), ("Travel", "travel"), ("Lifestyle", "lifestyle"),
           ("Finance", "finance"), ("Shopping", "shopping"))

PAPER_TABLES = (
    PaperTable(key="table2", title="Task success rate by domain", source="LiveMCPBench, Table 2",
               breakdown="by_domain",
               columns=(*(PaperColumn(label, "success_rate", group) for label, group in DOMAINS),
                        PaperColumn("Overall (%)", "success_rate")),
               note="success as the run decided it (with --judge: as --success says; the paper's judge was "
                    "DeepSeek-V3 with the key points)"),
    PaperTable(key="table3", title="Efficiency", source="LiveMCPBench, Table 3", breakdown="by_domain",
               columns=(PaperColumn("Steps", "avg_steps", fmt="num"), PaperColumn("Tools", "avg_tools", fmt="num"),
                        PaperColumn("Execute", "avg_execute", fmt="num"), PaperColumn("Route", "avg_route", fmt="num"),
                        PaperColumn("Overall (%)", "success_rate")),
               note="per task: dialogue turns, distinct tools used, tool executions and retrievals (route calls)"),
)
