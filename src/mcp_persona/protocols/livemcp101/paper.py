"""LiveMCP-101's Table 1 in its layout: TSR and ARS overall and per difficulty tier, with the tokens and tool
calls per task the paper plots beside them (Figure 4b; it prints no numbers for those)."""

from __future__ import annotations

from mcp_persona.protocols.paper_tables import OVERALL, PaperColumn, PaperTable

TIERS = (("Overall", OVERALL), ("Easy", "easy"), ("Medium", "medium"), ("Hard", "hard"))

PAPER_TABLES = (
    PaperTable(
        key="table1", title="TSR and ARS overall and by difficulty", source="LiveMCP-101, Table 1",
        breakdown="by_difficulty",
        columns=(*(PaperColumn(metric.upper(), metric, group, band)
                   for band, group in TIERS for metric in ("tsr", "ars")),
                 PaperColumn("Tokens in/task", "avg_input_tokens", fmt="num", decimals=0),
                 PaperColumn("Tokens out/task", "avg_output_tokens", fmt="num", decimals=0),
                 PaperColumn("Tool calls/task", "avg_tool_calls", fmt="num", decimals=1)),
        note="TSR: share of episodes whose result scores 1; ARS: mean result score (the judge's with --judge, "
             "else the rules' stand-in); the paper plots tokens and tool calls (Figure 4b) but prints no numbers"),
)
