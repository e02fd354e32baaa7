"""MCP-Persona's Tables 3 and 7 in their layout: Acc of the single-server and cross-server task groups with the
overall Acc, SR-0.8 and Exec-Acc (Table 3); per-app subsets with the checkpoints a judge scored differently from
the reference labels (Table 7)."""

from __future__ import annotations

from mcp_persona.protocols.paper_tables import OVERALL, PaperColumn, PaperTable
from mcp_persona.protocols.persona.subsets import SUBSETS

GROUPS = (("Single-Server", (("Collaboration Platform", "collaboration"), ("Content Management", "content"),
                             ("Social Media", "social"), ("Email", "email"))),
          ("Cross-Server", (("Lark-Centric", "lark_centric"), ("Rednote-Centric", "rednote_centric"),
                            ("Hodgepodge", "hodgepodge"))))

PAPER_TABLES = (
    PaperTable(
        key="table3", title="Acc by task group; Acc, SR-0.8 and Exec-Acc overall", source="MCP-Persona, Table 3",
        breakdown="by_category",
        columns=(*(PaperColumn(label, "acc", group, band) for band, cells in GROUPS for label, group in cells),
                 PaperColumn("Acc", "acc", band="Overall"), PaperColumn("SR-0.8", "sr_0_8", band="Overall"),
                 PaperColumn("Exec-Acc", "exec_acc", band="Overall")),
        note="Acc scored by the rules, or with --judge by the judge as --judge-policy says (the paper's: an LLM "
             "judge on every checkpoint)"),
    PaperTable(
        key="table7", title="Checkpoints a judge scored differently, by per-app subset", source="MCP-Persona, Table 7",
        breakdown="by_subset", overall="subset_totals", group_rows=(*((s, s) for s in SUBSETS), (OVERALL, "Overall")),
        columns=(PaperColumn("Misaligned Ckpt", "misaligned", fmt="int"),
                 PaperColumn("Total Ckpt", "checkpoints", fmt="int"),
                 PaperColumn("Ratio (%)", "misaligned_ratio"), PaperColumn("Acc", "acc")),
        note="a run's misaligned checkpoints are those its LLM judge scored differently from the rules (– without "
             "a judge), its ratio their share of the checkpoints both scored; the paper held GPT-5's run's judge "
             "scores against human labels"),
)
