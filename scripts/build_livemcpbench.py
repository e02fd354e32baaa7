"""Builds the livemcpbench suite: task files and their office input files.

Every answer is computed here from the library's shipped data (``data/livemcptool/datasets.json``)
under the suite's task clock, so it is deterministic; ``mcp-persona validate --suite livemcpbench``
then replays every gold plan against the servers. Run from the project root; it rewrites
``src/mcp_persona/data/tasks/livemcpbench/``.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotate_asks import annotate
from docx import Document
from openpyxl import Workbook
from suite_folder import clear

from mcp_persona.scoring.grounding import CARDINALS

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "mcp_persona" / "data"
OUT = DATA / "tasks" / "livemcpbench"
FILES = OUT / "files"  # where the office input files go (main() points it into the folder it writes)
CLOCK = {"now": "2026-05-01T10:00:00", "timezone": "UTC"}
W = "$WORKDIR"

DS: dict[str, Any] = json.loads((DATA / "livemcptool" / "datasets.json").read_text(encoding="utf-8"))


def rec(server: str, name: str) -> dict[str, Any]:
    return next(r for r in DS[server]["records"] if r["name"] == name or r.get("symbol") == name)


def num(x: float) -> str:
    """A value as an answer states it: at most two decimals, no trailing zeros."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def call(server: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"server": server, "tool": tool, "arguments": arguments}


def gt(summary: str, *values: str) -> dict[str, Any]:
    return {"type": "generic_search", "summary": summary, "gt_value": list(values)}


COMPANIES = {"AAPL": ["Apple"], "META": ["Meta", "Facebook"], "NVDA": ["Nvidia"], "TSLA": ["Tesla"],
             "MSFT": ["Microsoft"], "AMZN": ["Amazon"], "GOOGL": ["Google", "Alphabet"], "BABA": ["Alibaba"],
             "JPM": ["JPMorgan", "JP Morgan", "JPMorgan Chase"], "KO": ["Coca-Cola", "Coke"]}


def distinct_words(name: str, other: str, *more: str, plain: bool = False) -> list[str]:
    """The proper nouns of ``name`` (and of ``more``: its full title) that ``other`` lacks, by which an answer may
    call it ("the Barcelona flat"), and a leading "Ask HN" ("the Ask HN thread"); ``plain``: its other words of
    four letters or more too, as a story is called by the words of its title ("the devtools post")."""
    prefixes = ("Ask HN", "Show HN", "Launch HN")
    theirs = {w.lower() for w in re.findall(r"[\w'-]+", other)}
    out = [w for text in (name, *more) for w in re.findall(r"[\w'-]+", text)
           if len(w) >= 4 and (plain or w[0].isupper()) and w.lower() not in theirs and w not in ("Show", "Launch")
           and w.lower() not in COMMON]
    out += [p for p in prefixes if any(t.startswith(p) for t in (name, *more)) and p not in other]
    return list(dict.fromkeys(out))


# words that name nothing in particular: never an alias
COMMON = frozenset({"near", "with", "from", "about", "this", "that", "into", "over"})


def claimed(check: dict[str, Any], winner: str, rival: str | list[str], *, up: bool = True,
            aliases: dict[str, list[str]] | None = None, by_lead: bool = True) -> dict[str, Any]:
    """``check`` (the values compared) with the choice the comparison asks for: the answer must also put
    ``winner`` on top (or, not ``up``, at the bottom), not merely name both (mcp_persona.scoring.claims); the
    values ground the claim, so a guess without them fails. ``rival``: one, or every other candidate;
    ``aliases``: other names an answer may use."""
    rivals = [rival] if isinstance(rival, str) else list(rival)
    claim: dict[str, Any] = {"winner": winner, "rivals": rivals} | ({} if up else {"up": False}) | (
        {} if by_lead else {"by_lead": False})
    if aliases := {k: v for k, v in (aliases or {}).items() if v}:
        claim["aliases"] = aliases
    return check | {"claim": claim}


def about(check: dict[str, Any], names: list[str], others: list[str]) -> dict[str, Any]:
    """``check`` with its values bound to what they are about: the answer must state them beside one of ``names``
    (an item and the other names the data gives it), not beside a sibling's (``others``), so values swapped
    between items fail (mcp_persona.scoring.checkpoints.stated_about)."""
    return check | {"about": {"names": list(dict.fromkeys(names)), "others": list(dict.fromkeys(others))}}


def per_item(noun: str, items: list[tuple[str, float, list[str]]], winner: str | None = None, asks: str = "",
             **claim: Any) -> list[dict[str, Any]]:
    """One check per item (name, value, its other names): its value stated beside it (:func:`about`); with
    ``winner``, the winner's check also carries the comparison's claim (:func:`claimed`, with ``claim``'s
    keyword arguments), every item's other names its aliases, and ``asks`` (the instruction's words it checks)."""
    out = []
    for name, value, aliases in items:
        others = [n for o, _, more in items if o != name for n in (o, *more)]
        check = about(gt(f"{name}'s {noun}", num(value)), [name, *aliases], others)
        if name == winner:
            check = claimed(check | {"summary": f"{name}'s {noun}, {name} named as the answer"}, winner,
                            [o for o, _, _ in items if o != winner],
                            aliases={o: list(dict.fromkeys(more)) for o, _, more in items}, **claim)
            check |= {"asks": asks} if asks else {}
        out.append(check)
    return out


# the other names an answer may give a coin or an asset (the data's symbol is one)
COINS = {"BTC": ["Bitcoin"], "ETH": ["Ethereum", "Ether"], "SOL": ["Solana"], "DOGE": ["Dogecoin"],
         "BNB": ["Binance Coin"], "XRP": ["Ripple"]}
ASSETS = {"Crude oil": ["oil", "crude"]}
# how an answer says a price is a night's, not the stay's
NIGHTLY = ["per night", "a night", "/night", "/ night", "nightly", "each night", "every night", "per-night",
           "one night", "1 night", "night rate", "for a night"]
MONTHLY = ["per month", "a month", "/month", "/ month", "monthly", "each month", "every month", "per-month",
           "/mo", "one month", "1 month", "for a month", "month rate"]


def computed(summary: str, value: str, expression: str) -> dict[str, Any]:
    """A GT value the agent works out: grounded by the numbers of ``expression`` (fetched, or stated in the
    instruction), not by a calculator's output."""
    return gt(summary, value) | {"derived": {value: expression}}


def task(tid: str, domain: str, instruction: str, steps: list[list[dict[str, Any]]], answer: str,
         key_points: list[str], *, checks: list[dict[str, Any]] = (), files: list[dict[str, Any]] = (),
         states: list[dict[str, Any]] = (), inputs: list[str] = (), difficulty: str = "medium") -> dict[str, Any]:
    servers = sorted({c["server"] for s in steps for c in s})
    return {"id": tid, "suite": "livemcpbench", "instruction": instruction,
            "servers": [{"server": s, "context_id": "default"} for s in servers], "clock": CLOCK,
            "gold": [{"calls": s} for s in steps], "reference_answer": answer,
            "spec": {"category": domain, "checkpoints": list(checks), "file_checks": list(files),
                     "state_checks": list(states), "input_files": list(inputs), "key_points": key_points,
                     "difficulty": difficulty}}


# -- office ------------------------------------------------------------------------------------------
REGIONS = ["North", "South", "East", "West", "Central"]
ITEMS = ["Laptops", "Monitors", "Keyboards", "Headsets", "Webcams", "Docks"]


def sheet_rows(i: int) -> tuple[str, list[list[Any]]]:
    rng = random.Random(1000 + i)
    col = rng.choice(["Q1", "Q2", "Q3", "Q4"])
    rows = [["Region", col]] + [[r, round(rng.uniform(50, 500), 1)] for r in REGIONS[: 3 + i % 3]]
    return col, rows


def write_xlsx(name: str, sheet: str, rows: list[list[Any]]) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = sheet
    for r in rows:
        ws.append(r)
    wb.save(FILES / name)


def read_sheet(name: str, sheet: str) -> dict[str, Any]:
    return call("excel", "excel_read_sheet", fileAbsolutePath=f"{W}/{name}", sheetName=sheet)


def office() -> list[dict[str, Any]]:
    out = []
    for i in range(6):  # total of a column, answered
        col, rows = sheet_rows(i)
        name, sheet = f"sales_{i + 1}.xlsx", "Sales"
        write_xlsx(name, sheet, rows)
        total = sum(r[1] for r in rows[1:])
        expr = "+".join(str(r[1]) for r in rows[1:])
        out.append(task(
            f"office_sum_{i + 1}", "office",
            f"What is the total of the {col} column in the Sales sheet of {name} in my working folder?",
            [[read_sheet(name, sheet)], [call("calculator", "calculate", expression=expr)]],
            f"The {col} total is {num(total)}.",
            [f"Read the Sales sheet of the spreadsheet {name}",
             f"Calculate the total of the {col} column: {num(total)}"],
            checks=[computed(f"the {col} total", num(total), expr)], inputs=[name], difficulty="easy"))
    for i in range(6):  # total written back into the workbook
        col, rows = sheet_rows(10 + i)
        name, sheet = f"budget_{i + 1}.xlsx", "Budget"
        write_xlsx(name, sheet, rows)
        total = sum(r[1] for r in rows[1:])
        cell = f"B{len(rows) + 1}"
        expr = "+".join(str(r[1]) for r in rows[1:])
        out.append(task(
            f"office_total_cell_{i + 1}", "office",
            f"In {name}, sheet Budget, put the total of the {col} column in cell {cell} (just below the last "
            f"region) and tell me the total.",
            [[read_sheet(name, sheet)], [call("calculator", "calculate", expression=expr)],
             [call("excel", "excel_write_to_sheet", fileAbsolutePath=f"{W}/{name}", sheetName=sheet,
                   newSheet=False, range=f"{cell}:{cell}", values=[[total]])]],
            f"The {col} total is {num(total)}; I wrote it to {cell}.",
            [f"Read the Budget sheet of the spreadsheet {name}", f"Calculate the total of the {col} column: "
             f"{num(total)}", f"Write the total into cell {cell} of the Budget sheet"],
            checks=[computed(f"the {col} total", num(total), expr)],
            files=[{"path": name, "summary": f"{cell} holds the total", "cells": {f"{sheet}!{cell}": total}}],
            inputs=[name]))
    for i in range(5):  # Word report from a workbook
        col, rows = sheet_rows(20 + i)
        name, sheet, report = f"regional_{i + 1}.xlsx", "Sales", f"summary_{i + 1}.docx"
        write_xlsx(name, sheet, rows)
        best = max(rows[1:], key=lambda r: r[1])
        others = [r[0] for r in rows[1:] if r[0] != best[0]]
        title = f"{col} regional summary"
        out.append(task(
            f"office_docx_report_{i + 1}", "office",
            f"Read the {sheet} sheet of {name} and write a Word document {report} in my working folder with the "
            f"heading '{title}' and a paragraph naming the region with the highest {col} figure and that figure.",
            [[read_sheet(name, sheet)],
             [call("word-document-server", "create_document", filename=f"{W}/{report}", title=title)],
             [call("word-document-server", "add_heading", filename=f"{W}/{report}", text=title, level=1)],
             [call("word-document-server", "add_paragraph", filename=f"{W}/{report}",
                   text=f"{best[0]} had the highest {col} figure: {num(best[1])}.")]],
            f"{report} is written: {best[0]} leads with {num(best[1])}.",
            [f"Read the spreadsheet {name}: {best[0]} has the highest {col} figure ({num(best[1])})",
             f"Create the Word document {report} with the heading '{title}'",
             "Add a paragraph to the document naming the region and its figure"],
            # the region is a choice: the answer and the document must both put it on top, and the document
            # must give its figure in the same paragraph (not a region named and the whole table pasted below)
            checks=[claimed(gt("the leading region and its figure", best[0], num(best[1])), best[0], others)],
            files=[{"path": report, "summary": "the report names the leading region with its figure",
                    "contains": [title], "together": [[best[0], num(best[1])]],
                    "claim": {"winner": best[0], "rivals": others}}],
            inputs=[name]))
    for i in range(5):  # PowerPoint deck, one slide per region
        col, rows = sheet_rows(30 + i)
        name, sheet, deck = f"review_{i + 1}.xlsx", "Sales", f"review_{i + 1}.pptx"
        write_xlsx(name, sheet, rows)
        regions = [r[0] for r in rows[1:]]
        steps = [[read_sheet(name, sheet)], [call("ppt", "create_presentation", id="deck")]]
        steps += [[call("ppt", "add_slide", layout_index=5, title=f"{r}: {num(v)}", presentation_id="deck")]
                  for r, v in rows[1:]]
        steps.append([call("ppt", "save_presentation", file_path=f"{W}/{deck}", presentation_id="deck")])
        out.append(task(
            f"office_pptx_deck_{i + 1}", "office",
            f"Make a PowerPoint deck {deck} in my working folder from the {sheet} sheet of {name}: one slide per "
            f"region, each titled with the region name and its {col} figure.",
            steps, f"{deck} has {len(regions)} slides, one per region.",
            [f"Read the {len(regions)} regions of the spreadsheet {name}",
             f"Create a PowerPoint presentation with one slide per region, titled with the region and its {col} "
             "figure", f"Save the presentation as {deck}"],
            files=[{"path": deck, "summary": "one slide per region with its figure", "min_slides": len(regions),
                    "contains": [], "together": [[r, num(v)] for r, v in rows[1:]]}],
            inputs=[name], difficulty="hard"))
    for i in range(4):  # a figure from a Word memo
        rng = random.Random(2000 + i)
        amount = rng.randrange(12, 95) * 1000
        team = ["Design", "Platform", "Support", "Research"][i]
        name = f"memo_{i + 1}.docx"
        doc = Document()
        doc.add_heading(f"{team} team memo", 1)
        doc.add_paragraph("Thanks to everyone for the quarterly planning meeting.")
        doc.add_paragraph(f"The approved budget for the {team} team next quarter is {amount} USD.")
        doc.save(FILES / name)
        out.append(task(
            f"office_docx_read_{i + 1}", "office",
            f"What budget does {name} in my working folder say was approved for the {team} team? Also tell me "
            f"what it comes to per month over a quarter of 3 months.",
            [[call("word-document-server", "get_document_text", filename=f"{W}/{name}")],
             [call("calculator", "calculate", expression=f"{amount}/3")]],
            f"{amount} USD approved, {num(amount / 3)} USD per month.",
            [f"Read the text of the Word document {name}: the approved budget is {amount} USD",
             f"Calculate the monthly figure {amount} / 3 = {num(amount / 3)} USD"],
            # the monthly figure is said to be a month's, so the two figures swapped fail
            checks=[gt("the approved budget", str(amount)),
                    computed("the monthly figure", num(amount / 3), f"{amount}/3")
                    | {"beside": {num(amount / 3): [MONTHLY]}, "apart": [str(amount)], "asks": "per month"}],
            inputs=[name], difficulty="easy"))
    # filter a CSV with the file system; the files are named by month, so no file name holds a digit an answer's
    # row count could be read from ("expensive_3.csv has 4 rows")
    for i, month in enumerate(["jan", "feb", "mar", "apr", "may"]):
        rng = random.Random(3000 + i)
        rows = [["item", "price"]] + [[it, rng.randrange(40, 320)] for it in ITEMS]
        thr = sorted(r[1] for r in rows[1:])[[2, 3, 1, 2, 3][i]]  # some rows kept, some dropped
        name, dest = f"orders_{month}.csv", f"expensive_{month}.csv"
        with (FILES / name).open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
        keep = [r for r in rows[1:] if r[1] > thr]
        drop = [r for r in rows[1:] if r[1] <= thr]
        content = "item,price\n" + "".join(f"{a},{b}\n" for a, b in keep)
        n = str(len(keep))
        word = CARDINALS[len(keep)]
        # the count is asked for, not the items' names (the file check reads those); it is grounded by the kept
        # rows' prices, which the read showed: one for each
        count = "+".join(f"{b}/{b}" for _, b in keep)
        out.append(task(
            f"office_csv_filter_{i + 1}", "office",
            f"Copy the rows of {name} whose price is above {thr} into a new file {dest} (same columns, "
            f"header included) in my working folder, and tell me how many rows it has, not counting the header.",
            [[call("filesystem", "read_file", path=f"{W}/{name}")],
             [call("filesystem", "write_file", path=f"{W}/{dest}", content=content)]],
            f"{dest} has {n} rows besides the header: {', '.join(r[0] for r in keep)}.",
            [f"Read the CSV file {name}", f"Keep only the rows priced above {thr}",
             f"Write the kept rows with the header to the new file {dest}",
             f"Say how many rows the new file has, not counting the header: {n}"],
            checks=[gt("the number of rows kept", n) | {"alternatives": {n: [word]},
                                                        "derived": {n: count, word: count}}],
            files=[{"path": dest, "summary": "the expensive rows and none other",
                    "contains": [r[0] for r in keep], "absent": [r[0] for r in drop]}],
            inputs=[name]))
    return out


# -- the other domains ------------------------------------------------------------------------------
def pair_tasks(domain: str, prefix: str, pairs: list[tuple[str, str]], lookup: Callable[[str], dict[str, Any]],
               server: str, noun: str, question: Callable[[str, str], str]) -> list[dict[str, Any]]:
    """Two lookups, then the difference: which is higher and by how much."""
    out = []
    for i, (a, b) in enumerate(pairs):
        va, vb = rec(server, a)["value"], rec(server, b)["value"]
        hi = a if va >= vb else b
        diff = abs(va - vb)
        expr = f"{max(va, vb)}-{min(va, vb)}"
        out.append(task(
            f"{prefix}_{i + 1}", domain, question(a, b),
            [[lookup(a), lookup(b)], [call("calculator", "calculate", expression=expr)]],
            f"{a}: {num(va)}, {b}: {num(vb)}; {hi} is higher by {num(diff)}.",
            [f"Look up the {noun} of {a}: {num(va)}", f"Look up the {noun} of {b}: {num(vb)}",
             f"Calculate the difference: {hi} is higher by {num(diff)}"],
            checks=[*per_item(noun, [(a, va, COMPANIES.get(a, [])), (b, vb, COMPANIES.get(b, []))], hi),
                    computed("the difference", num(diff), expr)]))
    return out


def finance() -> list[dict[str, Any]]:
    out = pair_tasks(
        "finance", "finance_stock_gap",
        [("AAPL", "META"), ("NVDA", "TSLA"), ("MSFT", "AMZN"), ("GOOGL", "BABA"), ("JPM", "KO")],
        lambda s: call("yahoo-finance", "get_current_stock_price", symbol=s), "yahoo-finance", "share price",
        lambda a, b: f"Which trades higher right now, {a} or {b}, and by how much per share?")
    for i, (coins, qty) in enumerate([(("BTC", "ETH"), (2, 5)), (("SOL", "DOGE"), (10, 40)), (("BNB", "XRP"), (3, 7)),
                                      (("ETH", "SOL"), (4, 6)), (("BTC", "XRP"), (1, 12))]):
        prices = [rec("mcp-crypto-price", c)["value"] for c in coins]
        total = sum(q * p for q, p in zip(qty, prices, strict=True))
        expr = "+".join(f"{q}*{p}" for q, p in zip(qty, prices, strict=True))
        out.append(task(
            f"finance_crypto_basket_{i + 1}", "finance",
            f"I hold {qty[0]} {coins[0]} and {qty[1]} {coins[1]}. Look up their current prices and tell me what "
            f"my holdings are worth in total.",
            [[call("mcp-crypto-price", "get-crypto-price", symbol=c) for c in coins],
             [call("calculator", "calculate", expression=expr)]],
            f"{coins[0]} {num(prices[0])}, {coins[1]} {num(prices[1])}; total {num(total)}.",
            [f"Look up the current crypto price of {coins[0]}: {num(prices[0])}",
             f"Look up the current crypto price of {coins[1]}: {num(prices[1])}",
             f"Calculate the total value of the holdings: {num(total)}"],
            checks=[*per_item("price", [(c, p, COINS.get(c, [])) for c, p in zip(coins, prices, strict=True)]),
                    computed("the total", num(total), expr)]))
    for i, (a, b) in enumerate([("005930", "000660"), ("035420", "035720"), ("005380", "051910"),
                                ("005930", "005380")]):
        va, vb = rec("kospi-kosdaq", a)["value"], rec("kospi-kosdaq", b)["value"]
        names = rec("kospi-kosdaq", a)["name"], rec("kospi-kosdaq", b)["name"]
        total = va + vb
        out.append(task(
            f"finance_kospi_cap_{i + 1}", "finance",
            f"Get the market capitalisation of the Korean tickers {a} and {b} for April 2026 and tell me their "
            f"combined market cap.",
            [[call("kospi-kosdaq", "get_stock_market_cap", ticker=t, fromdate="20260401", todate="20260430")
              for t in (a, b)], [call("calculator", "calculate", expression=f"{va}+{vb}")]],
            f"{names[0]} {num(va)}, {names[1]} {num(vb)}; combined {num(total)}.",
            [f"Get the market cap of the Korean ticker {a} ({names[0]}): {num(va)}",
             f"Get the market cap of the Korean ticker {b} ({names[1]}): {num(vb)}",
             f"Calculate the combined market cap: {num(total)}"],
            checks=[*per_item("market cap", [(t, v, [n, n.split()[0]])  # "Samsung" for Samsung Electronics
                                             for t, v, n in ((a, va, names[0]), (b, vb, names[1]))]),
                    computed("the combined cap", num(total), f"{va}+{vb}")]))
    return out


def lifestyle() -> list[dict[str, Any]]:
    out = pair_tasks(
        "lifestyle", "lifestyle_weather_pair",
        [("Beijing", "Shanghai"), ("London", "Paris"), ("Tokyo", "New York"), ("Paris", "Beijing"),
         ("Shanghai", "London")],
        lambda c: call("weather", "get_weather_by_city", city=c), "weather", "forecast index",
        lambda a, b: f"Compare today's forecast index for {a} and {b}: which is higher, and by how much?")
    for i, (a, b) in enumerate([("Kung Pao Chicken", "Mapo Tofu"), ("Tomato Egg Stir-fry", "Braised Pork Belly"),
                                ("Hot and Sour Soup", "Steamed Fish"), ("Dumplings", "Kung Pao Chicken"),
                                ("Mapo Tofu", "Steamed Fish")]):
        va, vb = rec("howtocook-mcp", a)["value"], rec("howtocook-mcp", b)["value"]
        out.append(task(
            f"lifestyle_recipe_calories_{i + 1}", "lifestyle",
            f"I'm cooking {a} and {b} tonight. Look both recipes up and tell me the calories of each and "
            f"the total.",
            [[call("howtocook-mcp", "mcp_howtocook_getRecipeById", query=n) for n in (a, b)],
             [call("calculator", "calculate", expression=f"{va}+{vb}")]],
            f"{a} {num(va)}, {b} {num(vb)}; total {num(va + vb)}.",
            [f"Look up the recipe {a} and its calories: {num(va)}", f"Look up the recipe {b} and its calories: "
             f"{num(vb)}", f"Calculate the total calories: {num(va + vb)}"],
            checks=[*per_item("calories", [(a, va, distinct_words(a, b)), (b, vb, distinct_words(b, a))]),
                    computed("the total", num(va + vb), f"{va}+{vb}")]))
    for i, city in enumerate(["Tokyo", "London", "New York", "Beijing", "Paris"]):
        v = rec("weather", city)["value"]
        dest = f"weather_{city.lower().replace(' ', '_')}.txt"
        out.append(task(
            f"lifestyle_weather_note_{i + 1}", "lifestyle",
            f"Check the forecast index for {city} and save it in a text file {dest} in my working folder "
            f"(one line: the city and the index).",
            [[call("weather", "get_weather_by_city", city=city)],
             [call("filesystem", "write_file", path=f"{W}/{dest}", content=f"{city}: {num(v)}\n")]],
            f"{city}'s forecast index is {num(v)}; saved to {dest}.",
            [f"Look up the weather forecast index for {city}: {num(v)}",
             f"Write the city and its index to the text file {dest}"],
            checks=[gt("the index", num(v))],
            files=[{"path": dest, "summary": "the note holds the city and its index", "contains": [city, num(v)]}],
            difficulty="easy"))
    return out


def spellings(name: str) -> str | dict[str, list[str]]:
    """A dish's name as a note may write it: "Tomato Egg Stir-fry" or "Tomato Egg Stir Fry"."""
    return {"$in": [name, name.replace("-", " ")]} if "-" in name else name


def lifestyle_notes() -> list[dict[str, Any]]:
    """Two recipes' calories, then a note in the user's notes app (a state check on the simulated server)."""
    out = []
    for i, (a, b) in enumerate([("Mapo Tofu", "Dumplings"), ("Steamed Fish", "Tomato Egg Stir-fry"),
                                ("Braised Pork Belly", "Hot and Sour Soup"), ("Kung Pao Chicken", "Steamed Fish"),
                                ("Dumplings", "Hot and Sour Soup")]):
        va, vb = rec("howtocook-mcp", a)["value"], rec("howtocook-mcp", b)["value"]
        total = num(va + vb)
        title = f"Dinner plan {i + 1}"
        out.append(task(
            f"lifestyle_dinner_note_{i + 1}", "lifestyle",
            f"Plan dinner with {a} and {b}: look up both recipes' calories, then save a note titled '{title}' "
            f"in my notes (folder 'meals') naming both dishes and the total calories.",
            [[call("howtocook-mcp", "mcp_howtocook_getRecipeById", query=n) for n in (a, b)],
             [call("calculator", "calculate", expression=f"{va}+{vb}")],
             [call("basic-memory", "write_note", title=title, folder="meals",
                   content=f"{a} and {b}: {total} calories in total.")]],
            f"Saved '{title}': {a} and {b}, {total} calories.",
            [f"Look up the recipe {a} and its calories: {num(va)}",
             f"Look up the recipe {b} and its calories: {num(vb)}",
             f"Calculate the total calories: {total}", f"Write a note titled '{title}' with both dishes and the total"],
            checks=[computed("the total calories", total, f"{va}+{vb}")],
            states=[{"server": "basic-memory", "tool": "write_note", "summary": "the note, in the folder 'meals', "
                     "names both dishes and the total", "contains": [title, spellings(a), spellings(b), total],
                     "fields": {"folder": {"$in": ["meals", "meals/", "/meals", "/meals/"]}}}]))
    return out


def leisure() -> list[dict[str, Any]]:
    out = pair_tasks(
        "leisure", "leisure_wuwa_pair",
        [("Jiyan", "Yinlin"), ("Jinhsi", "Changli"), ("Calcharo", "Verina"), ("Yinlin", "Jinhsi"),
         ("Changli", "Calcharo")],
        lambda n: call("wuwa-mcp", "get_character_info", character_name=n), "wuwa-mcp", "tier rating",
        lambda a, b: f"In Wuthering Waves, which character has the higher tier rating, {a} or {b}, and by how much?")
    for i, name in enumerate(["Dark Magician", "Pot of Greed", "Ash Blossom & Joyous Spring", "White Dragon",
                              "Black Dragon"]):
        r = rec("ygocdb", name)
        out.append(task(
            f"leisure_ygo_card_{i + 1}", "leisure",
            f"Find the Yu-Gi-Oh! card named '{name}' and tell me its card id and its market price.",
            [[call("ygocdb", "search_cards", query=name)],
             [call("ygocdb", "get_card_by_id", id={"$ref": "0.0:results.0.id"})]],
            f"{name}: id {r['id']}, price {num(r['value'])}.",
            [f"Search the Yu-Gi-Oh! cards for '{name}'",
             f"Get the card by its id {r['id']}: its price is {num(r['value'])}"],
            # the id is the card's own: stated beside its name, not beside another card's name or id
            checks=[about(gt("the card's id", r["id"]), [name, *([f"{r['symbol']} {name}"] if r.get("symbol") else [])],
                          [n for c in DS["ygocdb"]["records"] if c["id"] != r["id"] for n in (c["name"], c["id"])]),
                    gt("the card's price", num(r["value"]))]))
    stories = DS["hackernews"]["records"]
    for i, (x, y) in enumerate([("tiny database", "remote work"), ("Rust 2.0 roadmap", "SQLite internals"),
                                ("devtools startup", "tiny database"), ("SQLite internals", "remote work")]):
        rx, ry = (next(r for r in stories if t.lower() in r["name"].lower()) for t in (x, y))
        top = rx if rx["value"] >= ry["value"] else ry
        diff = abs(rx["value"] - ry["value"])
        expr = f"{max(rx['value'], ry['value'])}-{min(rx['value'], ry['value'])}"
        titles = [r["name"] for r in (rx, ry) if r["name"].lower() not in (x.lower(), y.lower())]  # not given
        out.append(task(
            f"leisure_hn_points_{i + 1}", "leisure",
            f"On Hacker News, which story got more points: the one about '{x}' or the one about '{y}'? "
            f"Give both titles with their points and the gap.",
            [[call("hackernews", "search", query=x), call("hackernews", "search", query=y)],
             [call("calculator", "calculate", expression=expr)]],
            f"'{rx['name']}' {num(rx['value'])}, '{ry['name']}' {num(ry['value'])}; '{top['name']}' leads by "
            f"{num(diff)}.",
            [f"Search Hacker News stories for '{x}': {num(rx['value'])} points",
             f"Search Hacker News stories for '{y}': {num(ry['value'])} points",
             f"Calculate the gap: '{top['name']}' leads by {num(diff)}"],
            # each story's points beside it (by its title, the words searched, or a word of its own); the
            # titles asked for (those the instruction does not give); the higher named by a comparison, not by
            # which story the answer names first
            checks=[*([gt("the stories' titles", *titles)
                       | {"alternatives": {t: titled(t) for t in titles if titled(t)}}] if titles else []),
                    *per_item("points", [(x, rx["value"], [rx["name"], *distinct_words(x, ry["name"], rx["name"],
                                                                                        plain=True)]),
                                         (y, ry["value"], [ry["name"], *distinct_words(y, rx["name"], ry["name"],
                                                                                        plain=True)])],
                              x if top is rx else y, by_lead=False),
                    computed("the gap", num(diff), expr)]))
    return out


def titled(title: str) -> list[str]:
    """A title as an answer may punctuate it: "Ask HN - remote work" for "Ask HN: remote work"."""
    return [title.replace(": ", sep) for sep in (" - ", " – ", " — ")] if ": " in title else []


def travel() -> list[dict[str, Any]]:
    out = []
    for i, (kw, nights) in enumerate([("Central Park", 3), ("Hutong", 2), ("Barcelona", 4), ("Tokyo", 5),
                                      ("Montmartre", 2), ("Barcelona", 7)]):
        r = next(x for x in DS["airbnb"]["records"] if kw.lower() in x["name"].lower())
        total = r["value"] * nights
        out.append(task(
            f"travel_airbnb_stay_{i + 1}", "travel",
            f"Find the Airbnb listing '{r['name']}' and tell me its nightly price and what {nights} nights "
            f"there would cost.",
            [[call("airbnb", "airbnb_search", location=kw)],
             [call("airbnb", "airbnb_listing_details", id={"$ref": "0.0:results.0.id"})],
             [call("calculator", "calculate", expression=f"{r['value']}*{nights}")]],
            f"{num(r['value'])} per night; {nights} nights cost {num(total)}.",
            [f"Search Airbnb listings for '{kw}'",
             f"Get the details of the listing '{r['name']}': {num(r['value'])} per night",
             f"Calculate the cost of {nights} nights: {num(total)}"],
            # the nightly price is said to be a night's, so a nightly price and a total swapped fail
            checks=[gt("the nightly price", num(r["value"]))
                    | {"beside": {num(r["value"]): [NIGHTLY]}, "apart": [num(total)]},
                    computed("the stay's total", num(total), f"{r['value']}*{nights}")]))
    for i, (a, b) in enumerate([("G1", "G7"), ("D301", "G1"), ("G13", "G101"), ("G7", "G101"), ("D301", "G13"),
                                ("G1", "G101")]):
        va, vb = rec("12306-mcp", a)["value"], rec("12306-mcp", b)["value"]
        cheap = a if va <= vb else b
        expr = f"{max(va, vb)}-{min(va, vb)}"
        # what a model does: the cities' station codes, then the day's trains between them (with fares)
        out.append(task(
            f"travel_train_fare_{i + 1}", "travel",
            f"For a train trip from Beijing to Shanghai on 2026-05-08, which train has the lower second-class "
            f"fare, {a} or {b}? Give both fares and the saving.",
            [[call("12306-mcp", "get-station-code-of-citys", citys="Beijing|Shanghai")],
             [call("12306-mcp", "get-tickets", date="2026-05-08",
                   fromStation={"$ref": "0.0:Beijing.station_code"}, toStation={"$ref": "0.0:Shanghai.station_code"})],
             [call("calculator", "calculate", expression=expr)]],
            f"{a} {num(va)}, {b} {num(vb)}: {cheap} is cheaper by {num(abs(va - vb))}.",
            ["Look up the station codes of Beijing and Shanghai",
             f"Find the trains from Beijing to Shanghai on 2026-05-08 and their fares: {a} {num(va)}, {b} {num(vb)}",
             f"Calculate the saving: {cheap} is cheaper by {num(abs(va - vb))}"],
            checks=[*per_item("fare", [(a, va, []), (b, vb, [])], cheap, up=False),
                    computed("the saving", num(abs(va - vb)), expr)]))
    return out


def shopping() -> list[dict[str, Any]]:
    out = []
    for i, (a, qa, b, qb) in enumerate([("Gold", 2, "Silver", 10), ("Silver", 4, "Crude oil", 1),
                                        ("Gold", 1, "Crude oil", 3), ("Bitcoin", 1, "Gold", 2),
                                        ("Ethereum", 5, "Silver", 3)]):
        pa, pb = rec("Asset_Price_MCP", a)["value"], rec("Asset_Price_MCP", b)["value"]
        total = qa * pa + qb * pb
        expr = f"{qa}*{pa}+{qb}*{pb}"
        out.append(task(
            f"shopping_asset_basket_{i + 1}", "shopping",
            f"I want to buy {qa} units of {a} and {qb} units of {b}. Check the current asset prices and tell me "
            f"the total cost.",
            [[call("Asset_Price_MCP", "get_asset_price")],
             [call("calculator", "calculate", expression=expr)]],
            f"{a} {num(pa)}, {b} {num(pb)}; total {num(total)}.",
            [f"Look up the current asset prices: {a} {num(pa)}, {b} {num(pb)}",
             f"Calculate the total cost: {num(total)}"],
            checks=[*per_item("price", [(n, p, [rec("Asset_Price_MCP", n)["symbol"], *ASSETS.get(n, [])])
                                        for n, p in ((a, pa), (b, pb))]),
                    computed("the total", num(total), expr)]))
    for i, (a, b) in enumerate([("Seaside flat Barcelona", "Tokyo capsule studio"),
                                ("Loft near Central Park", "Paris Montmartre apartment"),
                                ("Hutong courtyard Beijing", "Seaside flat Barcelona"),
                                ("Tokyo capsule studio", "Loft near Central Park")]):
        va, vb = rec("airbnb", a)["value"], rec("airbnb", b)["value"]
        cheap, price = (a, va) if va <= vb else (b, vb)
        out.append(task(
            f"shopping_cheaper_stay_{i + 1}", "shopping",
            f"Which Airbnb listing is cheaper per night: '{a}' or '{b}'? Give both prices.",
            [[call("airbnb", "airbnb_search", location=a), call("airbnb", "airbnb_search", location=b)]],
            f"{a} {num(va)}, {b} {num(vb)}: {cheap} is cheaper.",
            [f"Search Airbnb listings for '{a}': {num(va)} per night",
             f"Search Airbnb listings for '{b}': {num(vb)} per night", f"Say that '{cheap}' is cheaper ({num(price)})"],
            checks=per_item("nightly price", [(a, va, distinct_words(a, b)), (b, vb, distinct_words(b, a))], cheap,
                            "cheaper per night", up=False),
            difficulty="easy"))
    return out


def main(out: Path = OUT) -> None:
    global FILES
    clear(out, "livemcpbench")
    FILES = out / "files"
    FILES.mkdir(parents=True)
    (out / "suite.json").write_text(json.dumps(
        {"protocol": "livemcpbench",
         "description": "LiveMCPBench-style everyday tasks in six domains over the whole LiveMCPTool library"},
        indent=2) + "\n", encoding="utf-8")
    groups = {"office": office(), "lifestyle": lifestyle() + lifestyle_notes(), "leisure": leisure(),
              "finance": finance(), "travel": travel(), "shopping": shopping()}
    for domain, tasks in groups.items():
        (out / f"{domain}.json").write_text(json.dumps(tasks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{domain}: {len(tasks)} tasks")
    _, traced, left = annotate("livemcpbench", write=True, folder=out)  # each check's request, where it is sure
    print(f"asks written for {traced} checks; {len(left)} checks of several-request instructions left to trace")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write the livemcpbench suite's task files and input files.")
    parser.add_argument("out", nargs="?", type=Path, default=OUT, help="folder to write (default: the bundled suite)")
    main(parser.parse_args().out)
