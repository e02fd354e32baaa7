"""Build ``src/mcp_persona/data/livemcptool/datasets.json``: the records each simulated server serves.

Each server has a theme written here (what its records are and a few of them by name); the
remaining fields are drawn from a seeded generator, so the file is the same on every run. Dates
spread from November 2025 to April 2026: a task clock before a record's date does not see it.
"""

from __future__ import annotations

import json
import random
import re
from datetime import date, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/mcp_persona/data/livemcptool/datasets.json"

WEB = ["Quantum error correction milestone", "City marathon route announced", "Open-source LLM release notes",
       "Electric bus fleet expansion", "Rainy season travel advisory", "Museum reopening weekend",
       "Semiconductor export figures", "Coffee price outlook", "High-speed rail timetable change",
       "Local library coding club"]
THEMES: dict[str, tuple[str, list[str]]] = {
    "bing-cn-mcp": ("page", WEB), "duckduckgo-search": ("page", WEB), "fetch": ("page", WEB),
    "npx_fetch": ("page", WEB), "sitemap": ("page", WEB), "playwright": ("page", WEB), "puppeteer": ("page", WEB),
    "MetaTagGenie": ("page", WEB), "whois": ("domain", ["example.com", "openai.com", "python.org", "wikipedia.org",
                                                        "github.com", "mozilla.org", "apache.org", "gnu.org"]),
    "yahoo-finance": ("quote", ["AAPL Apple", "MSFT Microsoft", "NVDA Nvidia", "TSLA Tesla", "AMZN Amazon",
                                "GOOGL Alphabet", "META Meta", "BABA Alibaba", "JPM JPMorgan", "KO Coca-Cola"]),
    "yfmcp": ("quote", ["AAPL Apple", "MSFT Microsoft", "NVDA Nvidia", "TSLA Tesla", "AMD AMD", "INTC Intel"]),
    "investor": ("quote", ["SPY S&P 500 ETF", "QQQ Nasdaq 100 ETF", "AAPL Apple", "NVDA Nvidia", "BRK-B Berkshire"]),
    "kospi-kosdaq": ("stock", ["005930 Samsung Electronics", "000660 SK hynix", "035420 NAVER", "035720 Kakao",
                               "005380 Hyundai Motor", "051910 LG Chem"]),
    "Asset_Price_MCP": ("asset", ["XAU Gold", "XAG Silver", "BTC Bitcoin", "ETH Ethereum", "WTI Crude oil"]),
    "exchange-rate-mcp": ("rate", ["USD US dollar", "EUR Euro", "CNY Chinese yuan", "JPY Japanese yen",
                                   "GBP British pound", "KRW Korean won"]),
    "mcp-crypto-price": ("coin", ["BTC Bitcoin", "ETH Ethereum", "SOL Solana", "BNB BNB", "XRP XRP", "DOGE Dogecoin"]),
    "web3-research-mcp": ("token", ["BTC Bitcoin", "ETH Ethereum", "ARB Arbitrum", "OP Optimism", "LINK Chainlink"]),
    "npm-sentinel-mcp": ("package", ["react", "lodash", "express", "zod", "vite", "axios", "typescript", "next"]),
    "maven-deps-server": ("artifact", ["org.springframework:spring-core", "com.google.guava:guava",
                                       "junit:junit", "org.slf4j:slf4j-api",
                                       "com.fasterxml.jackson.core:jackson-databind"]),
    "mcp-github-trending": ("repository", ["astral-sh/uv", "ollama/ollama", "microsoft/vscode", "vercel/next.js",
                                           "rust-lang/rust", "pytorch/pytorch"]),
    "Context7": ("library", ["/vercel/next.js", "/facebook/react", "/pydantic/pydantic", "/tiangolo/fastapi",
                             "/pandas-dev/pandas"]),
    "mcp-deepwiki": ("wiki", ["vercel/next.js", "facebook/react", "pytorch/pytorch", "astral-sh/ruff"]),
    "Ant Design Components": ("component", ["Button", "Table", "Form", "Modal", "DatePicker", "Select"]),
    "shadcn-ui-server": ("component", ["button", "card", "dialog", "dropdown-menu", "input", "tabs"]),
    "magicuidesign_mcp": ("component", ["marquee", "animated-beam", "bento-grid", "globe", "shimmer-button"]),
    "hugeicons": ("icon", ["home-01", "search-01", "user", "settings-02", "calendar-03", "mail-01", "star"]),
    "docker-mcp": ("container", ["web nginx", "db postgres", "cache redis", "queue rabbitmq"]),
    "mermaid-validator": ("diagram", ["flowchart", "sequence", "gantt", "class diagram"]),
    "coin-flip": ("problem", ["two-sum Two Sum", "add-two-numbers Add Two Numbers", "lru-cache LRU Cache",
                              "merge-intervals Merge Intervals", "valid-parentheses Valid Parentheses"]),
    "opgg-mcp": ("champion", ["Ahri", "Lee Sin", "Jinx", "Thresh", "Yasuo", "Lux", "Garen"]),
    "wuwa-mcp": ("character", ["Jiyan", "Yinlin", "Jinhsi", "Changli", "Calcharo", "Verina"]),
    "ygocdb": ("card", ["Blue-Eyes White Dragon", "Dark Magician", "Ash Blossom & Joyous Spring",
                        "Pot of Greed", "Red-Eyes Black Dragon"]),
    "Bazi": ("chart", ["Jia Zi", "Yi Chou", "Bing Yin", "Ding Mao", "Wu Chen"]),
    "chess": ("game", ["Ruy Lopez", "Sicilian Defence", "Queen's Gambit", "King's Indian", "French Defence"]),
    "random-number": ("draw", ["dice", "lottery", "shuffle", "coin"]),
    "howtocook-mcp": ("recipe", ["Kung Pao Chicken", "Mapo Tofu", "Tomato Egg Stir-fry", "Braised Pork Belly",
                                 "Hot and Sour Soup", "Steamed Fish", "Dumplings"]),
    "biomcp": ("article", ["BRAF V600E melanoma trial", "EGFR lung cancer variant", "TP53 mutation review",
                           "KRAS G12C inhibitor study", "BRCA1 screening cohort"]),
    "met-museum": ("object", ["Washington Crossing the Delaware", "The Great Wave", "Wheat Field with Cypresses",
                              "Armor of Henry II", "Temple of Dendur", "Bridge over a Pond of Water Lilies"]),
    "trends-hub": ("topic", ["Weibo hot search", "Zhihu hot list", "Bilibili popular", "Douyin trending",
                             "36Kr news", "Toutiao headlines"]),
    "hackernews": ("story", ["Show HN: a tiny database", "Ask HN: remote work", "Rust 2.0 roadmap",
                             "SQLite internals", "Launch HN: devtools startup"]),
    "wikipedia": ("article", ["Great Wall of China", "Alan Turing", "Photosynthesis", "Mount Everest",
                              "Python (programming language)", "Beijing", "Marie Curie"]),
    "datagov": ("dataset", ["Electric Vehicle Population", "Crime Data from 2020", "Consumer Complaint Database",
                            "Air Quality Index", "National Student Loan Data"]),
    "youtube-transcript": ("video", ["dQw4w9WgXcQ intro to MCP", "abc123XYZ00 cooking basics",
                                     "kJQP7kiw5Fk travel vlog"]),
    "osm-mcp-server": ("place", ["Eiffel Tower", "Central Park", "Tiananmen Square", "Shibuya Crossing",
                                 "Brandenburg Gate", "Sydney Opera House"]),
    "airbnb": ("listing", ["Loft near Central Park", "Hutong courtyard Beijing", "Seaside flat Barcelona",
                           "Tokyo capsule studio", "Paris Montmartre apartment"]),
    "12306-mcp": ("train", ["G1 Beijing South-Shanghai Hongqiao", "G7 Beijing South-Shanghai Hongqiao",
                            "D301 Beijing-Shanghai", "G13 Beijing South-Shanghai Hongqiao",
                            "G101 Beijing South-Shanghai"]),
    "weather": ("forecast", ["Beijing", "Shanghai", "New York", "London", "Tokyo", "Paris"]),
    "arxiv-mcp-server": ("paper", ["2401.00001 Attention sinks", "2402.01234 Tool-using agents",
                                   "2403.05678 Diffusion transformers", "2404.09876 Retrieval augmentation"]),
    "mcp-simple-arxiv": ("paper", ["2401.00001 Attention sinks", "2402.01234 Tool-using agents",
                                   "2405.11111 Mixture of experts"]),
    "searxng": ("document", ["report.pdf", "notes.docx", "slides.html", "data.txt"]),
    "pdf-reader-mcp": ("document", ["report.pdf", "invoice.pdf", "paper.pdf"]),
    "text-editor": ("file", ["notes.txt", "todo.md", "config.ini"]),
    "desktop-commander": ("file", ["notes.txt", "script.py", "data.csv", "README.md"]),
    "image-extractor": ("image", ["photo.png", "chart.jpg", "diagram.png"]),
    "painter": ("canvas", ["canvas-a", "canvas-b"]),
    "mcp-server-chart": ("chart", ["sales by month", "population by country", "market share"]),
    "mindmap": ("mindmap", ["project plan", "study notes"]),
    "okppt": ("slide", ["quarterly review", "product launch"]),
    "taskmanager": ("task", ["write report", "book flights", "review pull request", "plan sprint"]),
    "basic-memory": ("note", ["meeting notes", "reading list", "project ideas", "travel checklist"]),
    "music-analysis": ("track", ["bach-prelude.wav", "jazz-loop.mp3", "pop-chorus.wav"]),
}
# 12306: the stations (telecode, Chinese and English name, city) and each train's stops (telecode, the
# departure time, the day it is reached counting from the departure day, km from the origin). A train's
# record value is its second-class fare over the whole route; a part of the route costs its share by km.
# A city's first station is its main one (what get-station-code-of-citys answers).
RAIL_STATIONS = [
    ("BJP", "北京", "Beijing", "北京", "Beijing"), ("VNP", "北京南", "Beijing South", "北京", "Beijing"),
    ("BXP", "北京西", "Beijing West", "北京", "Beijing"), ("TJP", "天津", "Tianjin", "天津", "Tianjin"),
    ("TIP", "天津南", "Tianjin South", "天津", "Tianjin"), ("JGK", "济南西", "Jinan West", "济南", "Jinan"),
    ("UUH", "徐州东", "Xuzhou East", "徐州", "Xuzhou"), ("NJH", "南京", "Nanjing", "南京", "Nanjing"),
    ("NKH", "南京南", "Nanjing South", "南京", "Nanjing"), ("SHH", "上海", "Shanghai", "上海", "Shanghai"),
    ("AOH", "上海虹桥", "Shanghai Hongqiao", "上海", "Shanghai"),
    ("IZQ", "广州南", "Guangzhou South", "广州", "Guangzhou"),
]
RAIL_STOPS = {
    "G1": [("VNP", "07:00", 0, 0), ("JGK", "08:22", 0, 406), ("NKH", "10:00", 0, 1023), ("AOH", "11:29", 0, 1318)],
    "G7": [("VNP", "09:00", 0, 0), ("TIP", "09:31", 0, 122), ("JGK", "10:33", 0, 406), ("NKH", "12:11", 0, 1023),
           ("AOH", "13:18", 0, 1318)],
    "D301": [("BJP", "19:26", 0, 0), ("TJP", "20:21", 0, 137), ("NJH", "04:58", 1, 1157),
             ("SHH", "07:50", 1, 1463)],
    "G13": [("VNP", "11:00", 0, 0), ("JGK", "12:25", 0, 406), ("UUH", "13:31", 0, 692), ("NKH", "14:44", 0, 1023),
            ("AOH", "15:58", 0, 1318)],
    "G101": [("VNP", "06:20", 0, 0), ("TIP", "06:52", 0, 122), ("JGK", "07:56", 0, 406), ("NKH", "10:10", 0, 1023),
             ("SHH", "11:40", 0, 1307)],
}
RAIL_FUXING = {"G1", "G7", "G13"}  # trains run with Fuxing sets (trainFilterFlags F)


def rail(records: list[dict]) -> dict[str, object]:
    for r in records:
        r["stops"] = [{"station": code, "time": t, "day": day, "km": km}
                      for code, t, day, km in RAIL_STOPS[r["symbol"]]]
        r["fuxing"] = r["symbol"] in RAIL_FUXING
    return {"stations": [{"code": c, "name": zh, "name_en": en, "city": city, "city_en": city_en}
                         for c, zh, en, city, city_en in RAIL_STATIONS]}


WORDS = ["review", "guide", "update", "analysis", "report", "summary", "overview", "history", "latest", "popular"]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_NOT_FACETS = re.compile(r"sort|order|format|theme|lang|unit|mode|type_of_output|style|interval|period|direction",
                         re.IGNORECASE)


def enum_facets(server: dict) -> dict[str, list[str]]:
    """The string enums of a server's tools that describe a record (not how to sort or print it)."""
    out: dict[str, list[str]] = {}
    for tool in server["tools"]:
        for prop, node in (tool["input_schema"].get("properties") or {}).items():
            values = node.get("enum") or (node.get("items") or {}).get("enum")
            if values and all(isinstance(v, str) for v in values) and not _NOT_FACETS.search(prop):
                out.setdefault(prop, list(values))
    return out


def main() -> None:
    catalogue = json.loads((OUT.parent / "catalogue.json").read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    for server in catalogue["servers"]:
        if server["kind"] != "simulated":
            continue
        name = server["name"]
        entity, items = THEMES.get(name, ("record", [f"{name} item {i}" for i in range(1, 6)]))
        rng = random.Random(f"livemcptool/{name}")
        prefix = (slug(name).replace("-", "")[:6] or "rec")
        facets = enum_facets(server)
        records = []
        for i, item in enumerate(items, 1):
            head, _, rest = item.partition(" ")
            symbol = head if rest and (head.isupper() or head[:1].isdigit() or "-" in head) else ""
            title = rest if symbol else item
            day = date(2025, 11, 1) + timedelta(days=rng.randrange(0, 180))
            tags = rng.sample(WORDS, 2)
            record = {"id": f"{prefix}-{i:03d}", "name": title, "date": day.isoformat(),
                      "value": round(rng.uniform(1, 1000), 2), "url": f"https://{prefix}.example/{slug(item)}",
                      "tags": tags,
                      "summary": f"{title}: a {entity} ({', '.join(tags)}), listed {day:%d %B %Y}."}
            if symbol:
                record["symbol"] = symbol
            if facets:  # what the server's enum filters (a category, a kind) select records by
                record["facets"] = {prop: rng.choice(values) for prop, values in sorted(facets.items())}
            records.append(record)
        out[name] = {"entity": entity, "prefix": prefix, "records": records}
        if name == "12306-mcp":
            out[name] |= rail(records)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(out)} servers, {sum(len(v['records']) for v in out.values())} records -> {OUT}")


if __name__ == "__main__":
    main()
