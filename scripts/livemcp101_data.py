"""Write the fixed datasets of the public-data servers (hierarchies and ``default`` contexts).

Run once; the JSON files it writes are the source of truth (the servers validate them on load).
Everything is seeded: running it again reproduces the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from datetime import date, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data"


def hid(*parts: object, n: int = 12, alphabet: str = "0123456789abcdef") -> str:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:n])


def write(app: str, description: str, entities: dict, context: dict) -> None:
    (DATA / "hierarchies" / f"{app}.json").write_text(
        json.dumps(
            {"app": app, "description": description, "entities": entities, "ignore_changes": []},
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    folder = DATA / "contexts" / app
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "default.json").write_text(
        json.dumps({"context_id": "default", "description": description, **context}, indent=1, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )


def ent(collection: str, id_field: str, description: str, parent: str | None = None, **refs: str) -> dict:
    out = {
        "collection": collection,
        "parent": parent,
        "id_field": id_field,
        "id_format": None,
        "description": description,
    }
    if refs:
        out["references"] = refs
    return out


def business_days(start: date, end: date) -> list[date]:
    out, d = [], start
    while d <= end:
        if d.weekday() < 5:
            out.append(d)
        d += timedelta(days=1)
    return out


# -- github ------------------------------------------------------------------------------------------
REPOS = [
    # full_name, description, language, stars, forks, topics, license, created
    (
        "pallets/flask",
        "The Python micro framework for building web applications.",
        "Python",
        69120,
        16380,
        ["python", "flask", "wsgi", "web-framework"],
        "BSD-3-Clause",
        "2010-04-06",
    ),
    (
        "psf/requests",
        "A simple, yet elegant, HTTP library.",
        "Python",
        52870,
        9420,
        ["python", "http", "client", "requests"],
        "Apache-2.0",
        "2011-02-13",
    ),
    (
        "tiangolo/fastapi",
        "FastAPI framework, high performance, easy to learn, fast to code, ready for production",
        "Python",
        81240,
        6910,
        ["python", "api", "async", "openapi", "web-framework"],
        "MIT",
        "2018-12-08",
    ),
    (
        "encode/httpx",
        "A next generation HTTP client for Python.",
        "Python",
        13950,
        880,
        ["python", "http", "asyncio", "client"],
        "BSD-3-Clause",
        "2019-04-04",
    ),
    (
        "modelcontextprotocol/python-sdk",
        "The official Python SDK for Model Context Protocol servers and clients",
        "Python",
        18460,
        2470,
        ["mcp", "python", "llm", "sdk"],
        "MIT",
        "2024-09-24",
    ),
    (
        "modelcontextprotocol/typescript-sdk",
        "The official TypeScript SDK for Model Context Protocol servers and clients",
        "TypeScript",
        9870,
        1210,
        ["mcp", "typescript", "llm", "sdk"],
        "MIT",
        "2024-09-24",
    ),
    (
        "vercel/next.js",
        "The React Framework",
        "JavaScript",
        133400,
        28900,
        ["react", "nextjs", "web-framework", "ssr"],
        "MIT",
        "2016-10-05",
    ),
    (
        "denoland/deno",
        "A modern runtime for JavaScript and TypeScript.",
        "Rust",
        103200,
        5610,
        ["javascript", "typescript", "runtime", "rust"],
        "MIT",
        "2018-05-15",
    ),
    (
        "astral-sh/ruff",
        "An extremely fast Python linter and code formatter, written in Rust.",
        "Rust",
        41230,
        1420,
        ["python", "linter", "formatter", "rust"],
        "MIT",
        "2022-08-09",
    ),
    (
        "pola-rs/polars",
        "Dataframes powered by a multithreaded, vectorized query engine, written in Rust",
        "Rust",
        35610,
        2280,
        ["dataframe", "rust", "python", "arrow"],
        "MIT",
        "2020-05-13",
    ),
    (
        "huggingface/transformers",
        "State-of-the-art Machine Learning for PyTorch, TensorFlow, and JAX.",
        "Python",
        149800,
        30100,
        ["nlp", "machine-learning", "pytorch", "llm"],
        "Apache-2.0",
        "2018-10-29",
    ),
    (
        "ollama/ollama",
        "Get up and running with large language models locally.",
        "Go",
        152300,
        13100,
        ["llm", "go", "local", "llama"],
        "MIT",
        "2023-06-26",
    ),
]
USERS = [
    "octocat",
    "mira-dev",
    "jkowalski",
    "lin-yue",
    "sam-ortiz",
    "priya-r",
    "tobiasw",
    "hana-k",
    "dgarcia",
    "nils-e",
]
ISSUE_TITLES = [
    ("Memory leak when streaming large responses", ["bug", "performance"]),
    ("Support for Python 3.14", ["enhancement"]),
    ("Docs: example for async context managers is outdated", ["documentation", "good first issue"]),
    ("Timeout parameter ignored on redirects", ["bug"]),
    ("Add type hints to the public API", ["enhancement", "typing"]),
    ("Flaky test on Windows CI", ["ci", "bug"]),
    ("Proposal: plugin hooks for request lifecycle", ["enhancement", "discussion"]),
    ("Crash with non-UTF-8 headers", ["bug", "good first issue"]),
]
PR_TITLES = [
    "Fix streaming buffer growth",
    "Add 3.14 to the CI matrix",
    "Refresh async docs examples",
    "Honour timeout across redirects",
    "Type the session API",
]
COMMIT_MSGS = [
    "Fix typo in README",
    "Bump version to {v}",
    "Refactor connection pool",
    "Add regression test for #{n}",
    "Update CI workflow",
    "Improve error message for invalid URL",
    "Drop support for Python 3.8",
    "Merge pull request #{n} from {u}/patch-1",
]


def github() -> None:
    rng = random.Random(101)
    repos, issues_all = {}, {}
    for ri, (full, desc, lang, stars, forks, topics, lic, created) in enumerate(REPOS):
        owner, name = full.split("/")
        issues, prs, commits, releases = {}, {}, {}, {}
        n = 100 + ri * 37
        for k, (title, labels) in enumerate(rng.sample(ISSUE_TITLES, 5)):
            num = n + k * 3
            state = "closed" if k % 3 == 2 else "open"
            opened = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 60))
            issues[str(num)] = {
                "key": str(num),
                "number": num,
                "title": title,
                "state": state,
                "labels": labels,
                "user": rng.choice(USERS),
                "comments": rng.randrange(0, 25),
                "created_at": f"{opened}T{rng.randrange(8, 20):02d}:{rng.randrange(60):02d}:00Z",
                "closed_at": (
                    f"{opened + timedelta(days=rng.randrange(1, 9))}T12:00:00Z" if state == "closed" else None
                ),
                "body": f"{title}. Seen on {full} with the latest release; steps to reproduce and logs below.",
                "assignees": [],
                "comment_list": {},
            }
        for k, title in enumerate(rng.sample(PR_TITLES, 3)):
            num = n + 20 + k
            state = ["open", "closed", "closed"][k]
            merged = state == "closed" and k == 1
            opened = date(2026, 2, 1) + timedelta(days=rng.randrange(0, 35))
            prs[str(num)] = {
                "key": str(num),
                "number": num,
                "title": title,
                "state": state,
                "merged": merged,
                "user": rng.choice(USERS),
                "head": f"{rng.choice(USERS)}:fix-{num}",
                "base": "main",
                "created_at": f"{opened}T10:{rng.randrange(60):02d}:00Z",
                "merged_at": f"{opened + timedelta(days=2)}T16:00:00Z" if merged else None,
                "additions": rng.randrange(5, 400),
                "deletions": rng.randrange(0, 150),
                "changed_files": rng.randrange(1, 12),
                "comments": rng.randrange(0, 15),
                "body": f"{title}. Closes #{n + k * 3}.",
            }
        day = date(2026, 3, 9)
        for k in range(8):
            day -= timedelta(days=rng.randrange(0, 4))
            sha = hashlib.sha1(f"{full}|commit|{k}".encode()).hexdigest()
            msg = rng.choice(COMMIT_MSGS).format(
                v=f"{rng.randrange(1, 4)}.{rng.randrange(0, 12)}.{k}", n=n + k, u=rng.choice(USERS)
            )
            commits[sha] = {
                "sha": sha,
                "message": msg,
                "author": rng.choice(USERS),
                "date": f"{day}T{rng.randrange(7, 22):02d}:{rng.randrange(60):02d}:00Z",
                "additions": rng.randrange(1, 300),
                "deletions": rng.randrange(0, 120),
            }
        for k in range(3):
            tag = f"v{1 + ri % 3}.{8 - k}.{rng.randrange(0, 5)}"
            pub = date(2026, 3, 1) - timedelta(days=30 * k + rng.randrange(0, 20))
            releases[tag] = {
                "tag_name": tag,
                "name": f"{name} {tag}",
                "published_at": f"{pub}T09:00:00Z",
                "prerelease": False,
                "body": f"Bug fixes and improvements in {tag}.",
            }
        files = {
            "README.md": {
                "path": "README.md",
                "content": f"# {name}\n\n{desc}\n\n## Installation\n\nSee the documentation. License: {lic}.\n",
            },
            "LICENSE": {"path": "LICENSE", "content": f"{lic} License\n\nCopyright (c) {created[:4]} {owner}\n"},
        }
        pushed = max(c["date"] for c in commits.values())
        repos[full] = {
            "full_name": full,
            "owner": owner,
            "name": name,
            "description": desc,
            "language": lang,
            "stargazers_count": stars,
            "forks_count": forks,
            "watchers_count": stars // 30,
            "open_issues_count": sum(1 for i in issues.values() if i["state"] == "open"),
            "topics": topics,
            "license": lic,
            "default_branch": "main",
            "created_at": f"{created}T00:00:00Z",
            "pushed_at": pushed,
            "html_url": f"https://github.com/{full}",
            "issues": issues,
            "pull_requests": prs,
            "commits": commits,
            "releases": releases,
            "files": files,
        }
        issues_all.update(issues)
    write(
        "github",
        "A fixed snapshot of public repositories on a code host: repositories with their issues "
        "(and comments), pull requests, recent commits, releases and a few files. Issues and comments can be "
        "created; the rest is read-only.",
        {
            "repository": ent(
                "repositories", "full_name", "owner/name, description, language, stars, forks, topics, license, dates"
            ),
            "issue": ent(
                "issues",
                "key",
                "an issue keyed by its number as text: title, state, labels, "
                "user, comments, created_at, closed_at, body",
                parent="repository",
            ),
            "comment": ent("comment_list", "id", "an issue comment: id, user, body, created_at", parent="issue"),
            "pull_request": ent(
                "pull_requests", "key", "a pull request keyed by its number as text", parent="repository"
            ),
            "commit": ent("commits", "sha", "a commit: sha, message, author, date", parent="repository"),
            "release": ent("releases", "tag_name", "a release: tag_name, name, published_at", parent="repository"),
            "file": ent("files", "path", "a file on the default branch: path, content", parent="repository"),
        },
        {"repositories": repos},
    )


# -- youtube -----------------------------------------------------------------------------------------
CHANNELS = [
    ("UCtechlens", "TechLens", "Consumer tech reviews and explainers", 2_480_000, "US"),
    ("UCcodewithmira", "Code with Mira", "Python and web development tutorials", 860_000, "US"),
    ("UCtravelbites", "Travel Bites", "Food-first travel guides", 1_320_000, "GB"),
    ("UCkitchenlab", "Kitchen Lab", "Recipes tested like experiments", 3_150_000, "US"),
    ("UCmathmoments", "Math Moments", "Short visual proofs and puzzles", 1_040_000, "GB"),
    ("UCmarketminute", "Market Minute", "Daily markets recap in ten minutes", 540_000, "US"),
    ("UCtokyowalks", "Tokyo Walks", "Quiet 4K walks through Japanese cities", 720_000, "JP"),
]
VIDEOS = [
    ("UCtechlens", "Best Noise Cancelling Headphones 2026", "tech", ["headphones", "review", "audio"]),
    ("UCtechlens", "Foldable Phones Two Years Later: Worth It?", "tech", ["phones", "review"]),
    ("UCtechlens", "I Tried Every Mechanical Keyboard Switch", "tech", ["keyboard", "review"]),
    ("UCtechlens", "Mini PC vs Laptop for Home Office", "tech", ["pc", "office", "review"]),
    ("UCcodewithmira", "FastAPI Tutorial for Beginners - Full Course", "education", ["python", "fastapi", "tutorial"]),
    ("UCcodewithmira", "Python Async Explained in 15 Minutes", "education", ["python", "asyncio", "tutorial"]),
    ("UCcodewithmira", "Build an MCP Server in Python", "education", ["python", "mcp", "llm", "tutorial"]),
    ("UCcodewithmira", "Polars vs Pandas: Which Should You Learn?", "education", ["python", "polars", "pandas"]),
    ("UCtravelbites", "48 Hours in Tokyo: Where Locals Eat", "travel", ["tokyo", "japan", "food", "travel"]),
    ("UCtravelbites", "Singapore Hawker Centres Ranked", "travel", ["singapore", "food", "travel"]),
    ("UCtravelbites", "London on a Budget: 3-Day Itinerary", "travel", ["london", "budget", "travel"]),
    ("UCtravelbites", "Seoul Street Food Night Tour", "travel", ["seoul", "korea", "food", "travel"]),
    ("UCkitchenlab", "The Perfect Sourdough, Tested 20 Ways", "food", ["baking", "sourdough", "recipe"]),
    ("UCkitchenlab", "Ramen at Home: Tonkotsu in 6 Hours", "food", ["ramen", "recipe", "japan"]),
    ("UCkitchenlab", "Cheap Weeknight Dinners Under $5", "food", ["budget", "recipe", "dinner"]),
    ("UCmathmoments", "Why the Monty Hall Answer Is 2/3", "education", ["probability", "math", "puzzle"]),
    ("UCmathmoments", "Visual Proof of the Pythagorean Theorem", "education", ["geometry", "math", "proof"]),
    ("UCmathmoments", "Compound Interest, Visualised", "education", ["finance", "math", "interest"]),
    ("UCmarketminute", "Chip Stocks Rally: What Happened This Week", "news", ["stocks", "semiconductors", "markets"]),
    ("UCmarketminute", "Yen Hits New Low: Explained", "news", ["currency", "yen", "markets"]),
    ("UCmarketminute", "Index Funds vs ETFs in 2026", "news", ["investing", "etf", "markets"]),
    ("UCtokyowalks", "Shibuya at Night in the Rain - 4K Walk", "travel", ["tokyo", "walk", "4k", "japan"]),
    ("UCtokyowalks", "Kyoto Early Morning Walk - Fushimi Inari", "travel", ["kyoto", "walk", "4k", "japan"]),
    ("UCtokyowalks", "Asakusa to Ueno Walking Tour", "travel", ["tokyo", "walk", "japan"]),
]


def youtube() -> None:
    rng = random.Random(202)
    channels, videos = {}, {}
    for cid, title, desc, subs, country in CHANNELS:
        channels[cid] = {
            "id": cid,
            "title": title,
            "description": desc,
            "subscriberCount": subs,
            "country": country,
            "publishedAt": f"{2012 + len(cid) % 9}-0{1 + len(title) % 9}-15T00:00:00Z",
        }
    for cid, title, cat, tags in VIDEOS:
        vid = hid("yt", title, n=11, alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        views = rng.randrange(40_000, 4_000_000)
        pub = date(2026, 3, 9) - timedelta(days=rng.randrange(1, 200))
        mins, secs = rng.randrange(4, 70), rng.randrange(60)
        videos[vid] = {
            "id": vid,
            "channelId": cid,
            "title": title,
            "category": cat,
            "tags": tags,
            "publishedAt": f"{pub}T{rng.randrange(10, 20)}:00:00Z",
            "duration": f"PT{mins}M{secs}S",
            "durationSeconds": mins * 60 + secs,
            "viewCount": views,
            "likeCount": views // rng.randrange(18, 60),
            "commentCount": views // rng.randrange(300, 900),
            "description": f"{title}. New videos every week from {channels[cid]['title']}.",
            "trendingRank": {"US": None, "GB": None, "JP": None},
        }
    ranked = sorted(videos.values(), key=lambda v: -v["viewCount"])
    for region in ("US", "GB", "JP"):
        pool = [v for v in ranked if region == "US" or channels[v["channelId"]]["country"] in (region, "US")]
        for i, v in enumerate(pool[:10]):
            v["trendingRank"][region] = i + 1
    for c in channels.values():
        mine = [v for v in videos.values() if v["channelId"] == c["id"]]
        c["videoCount"] = len(mine) * 41 + 7
        c["viewCount"] = sum(v["viewCount"] for v in mine) * 23
    write(
        "youtube_data",
        "A fixed sample of a video platform: channels and their videos with statistics, "
        "and the trending chart per region. Read-only.",
        {
            "channel": ent(
                "channels", "id", "a channel: title, description, subscriberCount, videoCount, viewCount, country"
            ),
            "video": ent(
                "videos",
                "id",
                "a video: channelId, title, tags, publishedAt, duration, statistics, trendingRank per region",
                channelId="channel",
            ),
        },
        {"channels": channels, "videos": videos},
    )


# -- tmdb ----------------------------------------------------------------------------------------------
MOVIES = [
    # title, year, genres, runtime, rating, votes, budget M, revenue M, director, cast
    (
        "Dune: Part Two",
        2024,
        ["Science Fiction", "Adventure"],
        167,
        8.1,
        6210,
        190,
        714.8,
        "Denis Villeneuve",
        ["Timothée Chalamet", "Zendaya", "Rebecca Ferguson", "Austin Butler"],
    ),
    (
        "Oppenheimer",
        2023,
        ["Drama", "History"],
        181,
        8.1,
        9870,
        100,
        975.8,
        "Christopher Nolan",
        ["Cillian Murphy", "Emily Blunt", "Matt Damon", "Robert Downey Jr."],
    ),
    (
        "Past Lives",
        2023,
        ["Drama", "Romance"],
        106,
        7.8,
        1820,
        12,
        42.2,
        "Celine Song",
        ["Greta Lee", "Teo Yoo", "John Magaro"],
    ),
    (
        "Inside Out 2",
        2024,
        ["Animation", "Family", "Comedy"],
        96,
        7.6,
        5120,
        200,
        1699.0,
        "Kelsey Mann",
        ["Amy Poehler", "Maya Hawke", "Phyllis Smith"],
    ),
    (
        "The Zone of Interest",
        2023,
        ["Drama", "History", "War"],
        105,
        7.1,
        1650,
        15,
        52.7,
        "Jonathan Glazer",
        ["Christian Friedel", "Sandra Hüller"],
    ),
    (
        "Godzilla Minus One",
        2023,
        ["Science Fiction", "Horror", "Action"],
        125,
        7.7,
        2390,
        15,
        115.9,
        "Takashi Yamazaki",
        ["Ryunosuke Kamiki", "Minami Hamabe"],
    ),
    (
        "Anatomy of a Fall",
        2023,
        ["Crime", "Drama", "Mystery"],
        152,
        7.7,
        2240,
        6.2,
        35.8,
        "Justine Triet",
        ["Sandra Hüller", "Swann Arlaud", "Milo Machado-Graner"],
    ),
    (
        "Furiosa: A Mad Max Saga",
        2024,
        ["Action", "Adventure", "Science Fiction"],
        149,
        7.5,
        3410,
        168,
        174.3,
        "George Miller",
        ["Anya Taylor-Joy", "Chris Hemsworth", "Tom Burke"],
    ),
    (
        "Wicked",
        2024,
        ["Fantasy", "Romance", "Drama"],
        160,
        7.3,
        2010,
        150,
        756.5,
        "Jon M. Chu",
        ["Cynthia Erivo", "Ariana Grande", "Jonathan Bailey"],
    ),
    (
        "The Wild Robot",
        2024,
        ["Animation", "Science Fiction", "Family"],
        102,
        8.3,
        3980,
        78,
        333.9,
        "Chris Sanders",
        ["Lupita Nyong'o", "Pedro Pascal", "Kit Connor"],
    ),
    (
        "Conclave",
        2024,
        ["Drama", "Mystery", "Thriller"],
        120,
        7.2,
        1740,
        20,
        116.0,
        "Edward Berger",
        ["Ralph Fiennes", "Stanley Tucci", "Isabella Rossellini"],
    ),
    ("Perfect Days", 2023, ["Drama"], 124, 7.9, 1100, 4, 24.1, "Wim Wenders", ["Koji Yakusho", "Tokio Emoto"]),
    (
        "Interstellar",
        2014,
        ["Adventure", "Drama", "Science Fiction"],
        169,
        8.4,
        36000,
        165,
        701.7,
        "Christopher Nolan",
        ["Matthew McConaughey", "Anne Hathaway", "Jessica Chastain"],
    ),
    (
        "Arrival",
        2016,
        ["Drama", "Science Fiction", "Mystery"],
        116,
        7.6,
        18200,
        47,
        203.4,
        "Denis Villeneuve",
        ["Amy Adams", "Jeremy Renner", "Forest Whitaker"],
    ),
    (
        "Spirited Away",
        2001,
        ["Animation", "Family", "Fantasy"],
        125,
        8.5,
        16900,
        19,
        395.6,
        "Hayao Miyazaki",
        ["Rumi Hiiragi", "Miyu Irino", "Mari Natsuki"],
    ),
    (
        "The Boy and the Heron",
        2023,
        ["Animation", "Adventure", "Fantasy"],
        124,
        7.4,
        2050,
        50,
        294.2,
        "Hayao Miyazaki",
        ["Soma Santoki", "Masaki Suda", "Aimyon"],
    ),
    (
        "Sinners",
        2025,
        ["Horror", "Drama", "Thriller"],
        137,
        7.6,
        2600,
        90,
        366.2,
        "Ryan Coogler",
        ["Michael B. Jordan", "Hailee Steinfeld", "Miles Caton"],
    ),
    (
        "Mission: Impossible - The Final Reckoning",
        2025,
        ["Action", "Adventure", "Thriller"],
        170,
        7.2,
        1900,
        400,
        598.8,
        "Christopher McQuarrie",
        ["Tom Cruise", "Hayley Atwell", "Ving Rhames"],
    ),
    (
        "Superman",
        2025,
        ["Action", "Science Fiction", "Adventure"],
        129,
        7.4,
        2800,
        225,
        616.7,
        "James Gunn",
        ["David Corenswet", "Rachel Brosnahan", "Nicholas Hoult"],
    ),
    (
        "F1",
        2025,
        ["Action", "Drama"],
        155,
        7.8,
        2300,
        300,
        629.0,
        "Joseph Kosinski",
        ["Brad Pitt", "Damson Idris", "Kerry Condon"],
    ),
]


RELEASED = {  # first wide release
    "Dune: Part Two": "2024-03-01",
    "Oppenheimer": "2023-07-21",
    "Past Lives": "2023-06-02",
    "Inside Out 2": "2024-06-14",
    "The Zone of Interest": "2023-12-15",
    "Godzilla Minus One": "2023-11-03",
    "Anatomy of a Fall": "2023-08-23",
    "Furiosa: A Mad Max Saga": "2024-05-24",
    "Wicked": "2024-11-22",
    "The Wild Robot": "2024-09-27",
    "Conclave": "2024-10-25",
    "Perfect Days": "2023-12-22",
    "Interstellar": "2014-11-07",
    "Arrival": "2016-11-11",
    "Spirited Away": "2001-07-20",
    "The Boy and the Heron": "2023-07-14",
    "Sinners": "2025-04-18",
    "Mission: Impossible - The Final Reckoning": "2025-05-23",
    "Superman": "2025-07-11",
    "F1": "2025-06-27",
}


def tmdb() -> None:
    rng = random.Random(303)
    movies, people = {}, {}
    for k, (title, year, genres, runtime, rating, votes, budget, revenue, director, cast) in enumerate(MOVIES):
        mid = str(900000 + k * 1373 + rng.randrange(100))
        for name in [director, *cast]:
            people.setdefault(name, {"id": str(1_000_000 + len(people) * 17), "name": name, "movie_ids": []})
            people[name]["movie_ids"].append(mid)
        popularity = round(rng.uniform(20, 300) * (2 if year >= 2024 else 1), 3)
        movies[mid] = {
            "id": mid,
            "title": title,
            "release_date": RELEASED[title],
            "genres": genres,
            "runtime": runtime,
            "vote_average": rating,
            "vote_count": votes,
            "popularity": popularity,
            "budget": int(budget * 1_000_000),
            "revenue": int(revenue * 1_000_000),
            "original_language": "ja" if director in ("Hayao Miyazaki", "Takashi Yamazaki") else "en",
            "overview": f"{title} ({year}), directed by {director}.",
            "director": people[director]["id"],
            "cast": [
                {"person_id": people[n]["id"], "order": i, "character": f"Role {i + 1}"} for i, n in enumerate(cast)
            ],
            "now_playing": year >= 2025,
        }
    persons = {p["id"]: {"id": p["id"], "name": p["name"], "known_for": p["movie_ids"]} for p in people.values()}
    write(
        "tmdb",
        "A fixed movie database: movies (genres, runtime, ratings, budget, revenue, popularity, credits) "
        "and people. Read-only.",
        {
            "movie": ent(
                "movies",
                "id",
                "a movie: title, release_date, genres, runtime, vote_average, "
                "vote_count, popularity, budget, revenue, director (person id), cast",
            ),
            "person": ent("people", "id", "a person: name, known_for (movie ids)"),
        },
        {"movies": movies, "people": persons},
    )


# -- places: google maps and airbnb share the cities ---------------------------------------------------
CITIES = {
    "tokyo": ("Tokyo", "Japan", "Asia/Tokyo", 35.6812, 139.7671, "JPY"),
    "london": ("London", "United Kingdom", "Europe/London", 51.5074, -0.1278, "GBP"),
    "singapore": ("Singapore", "Singapore", "Asia/Singapore", 1.2903, 103.8519, "SGD"),
    "seoul": ("Seoul", "South Korea", "Asia/Seoul", 37.5665, 126.9780, "KRW"),
    "hong_kong": ("Hong Kong", "Hong Kong", "Asia/Hong_Kong", 22.2800, 114.1588, "HKD"),
}
PLACES = [
    # city, name, types, lat, lng, rating, reviews, price_level, address
    (
        "tokyo",
        "Tokyo Station",
        ["train_station", "transit_station"],
        35.6812,
        139.7671,
        4.3,
        51230,
        None,
        "1 Chome Marunouchi, Chiyoda City, Tokyo 100-0005, Japan",
    ),
    (
        "tokyo",
        "Senso-ji",
        ["tourist_attraction", "place_of_worship"],
        35.7148,
        139.7967,
        4.5,
        88410,
        None,
        "2 Chome-3-1 Asakusa, Taito City, Tokyo 111-0032, Japan",
    ),
    (
        "tokyo",
        "Tokyo Skytree",
        ["tourist_attraction"],
        35.7101,
        139.8107,
        4.4,
        67120,
        None,
        "1 Chome-1-2 Oshiage, Sumida City, Tokyo 131-0045, Japan",
    ),
    (
        "tokyo",
        "Meiji Jingu",
        ["tourist_attraction", "place_of_worship"],
        35.6764,
        139.6993,
        4.6,
        45200,
        None,
        "1-1 Yoyogikamizonocho, Shibuya City, Tokyo 151-8557, Japan",
    ),
    (
        "tokyo",
        "teamLab Planets",
        ["tourist_attraction", "museum"],
        35.6491,
        139.7898,
        4.6,
        30980,
        None,
        "6 Chome-1-16 Toyosu, Koto City, Tokyo 135-0061, Japan",
    ),
    (
        "tokyo",
        "Ichiran Shibuya",
        ["restaurant"],
        35.6610,
        139.7004,
        4.3,
        12400,
        2,
        "1 Chome-22-7 Jinnan, Shibuya City, Tokyo 150-0041, Japan",
    ),
    (
        "tokyo",
        "Sushi Dai Toyosu",
        ["restaurant"],
        35.6455,
        139.7853,
        4.5,
        3870,
        3,
        "6 Chome-5-1 Toyosu, Koto City, Tokyo 135-0061, Japan",
    ),
    (
        "tokyo",
        "Haneda Airport",
        ["airport"],
        35.5494,
        139.7798,
        4.4,
        60110,
        None,
        "Hanedakuko, Ota City, Tokyo 144-0041, Japan",
    ),
    (
        "london",
        "British Museum",
        ["museum", "tourist_attraction"],
        51.5194,
        -0.1270,
        4.7,
        142300,
        None,
        "Great Russell St, London WC1B 3DG, UK",
    ),
    ("london", "Tower of London", ["tourist_attraction"], 51.5081, -0.0759, 4.6, 98700, None, "London EC3N 4AB, UK"),
    (
        "london",
        "King's Cross Station",
        ["train_station", "transit_station"],
        51.5320,
        -0.1233,
        4.2,
        40100,
        None,
        "Euston Rd., London N1 9AL, UK",
    ),
    (
        "london",
        "Borough Market",
        ["food", "tourist_attraction"],
        51.5055,
        -0.0910,
        4.6,
        61200,
        2,
        "8 Southwark St, London SE1 1TL, UK",
    ),
    (
        "london",
        "Dishoom Covent Garden",
        ["restaurant"],
        51.5124,
        -0.1268,
        4.7,
        21900,
        2,
        "12 Upper St Martin's Ln, London WC2H 9FB, UK",
    ),
    (
        "london",
        "Tate Modern",
        ["museum", "tourist_attraction"],
        51.5076,
        -0.0994,
        4.6,
        71300,
        None,
        "Bankside, London SE1 9TG, UK",
    ),
    ("london", "Heathrow Airport", ["airport"], 51.4700, -0.4543, 4.0, 88000, None, "Longford TW6, UK"),
    (
        "singapore",
        "Gardens by the Bay",
        ["tourist_attraction", "park"],
        1.2816,
        103.8636,
        4.7,
        151200,
        None,
        "18 Marina Gardens Dr, Singapore 018953",
    ),
    (
        "singapore",
        "Maxwell Food Centre",
        ["food", "restaurant"],
        1.2803,
        103.8448,
        4.4,
        16800,
        1,
        "1 Kadayanallur St, Singapore 069184",
    ),
    (
        "singapore",
        "Lau Pa Sat",
        ["food", "restaurant"],
        1.2807,
        103.8504,
        4.3,
        31100,
        1,
        "18 Raffles Quay, Singapore 048582",
    ),
    (
        "singapore",
        "Singapore Botanic Gardens",
        ["park", "tourist_attraction"],
        1.3138,
        103.8159,
        4.6,
        62300,
        None,
        "1 Cluny Rd, Singapore 259569",
    ),
    (
        "singapore",
        "Marina Bay Sands SkyPark",
        ["tourist_attraction"],
        1.2834,
        103.8607,
        4.5,
        20900,
        None,
        "10 Bayfront Ave, Singapore 018956",
    ),
    ("singapore", "Changi Airport", ["airport"], 1.3644, 103.9915, 4.6, 91000, None, "Airport Blvd., Singapore"),
    (
        "seoul",
        "Gyeongbokgung Palace",
        ["tourist_attraction"],
        37.5796,
        126.9770,
        4.6,
        70300,
        None,
        "161 Sajik-ro, Jongno District, Seoul, South Korea",
    ),
    (
        "seoul",
        "N Seoul Tower",
        ["tourist_attraction"],
        37.5512,
        126.9882,
        4.4,
        58800,
        None,
        "105 Namsangongwon-gil, Yongsan District, Seoul, South Korea",
    ),
    (
        "seoul",
        "Gwangjang Market",
        ["food", "tourist_attraction"],
        37.5700,
        126.9996,
        4.3,
        31900,
        1,
        "88 Changgyeonggung-ro, Jongno District, Seoul, South Korea",
    ),
    (
        "seoul",
        "Bukchon Hanok Village",
        ["tourist_attraction"],
        37.5826,
        126.9831,
        4.4,
        27400,
        None,
        "37 Gyedong-gil, Jongno District, Seoul, South Korea",
    ),
    (
        "seoul",
        "Seoul Station",
        ["train_station", "transit_station"],
        37.5547,
        126.9707,
        4.1,
        22000,
        None,
        "405 Hangang-daero, Yongsan District, Seoul, South Korea",
    ),
    (
        "hong_kong",
        "Victoria Peak",
        ["tourist_attraction"],
        22.2759,
        114.1455,
        4.5,
        51200,
        None,
        "Victoria Peak, Hong Kong",
    ),
    (
        "hong_kong",
        "Tim Ho Wan Sham Shui Po",
        ["restaurant"],
        22.3305,
        114.1626,
        4.1,
        9800,
        1,
        "9-11 Fuk Wing St, Sham Shui Po, Hong Kong",
    ),
    (
        "hong_kong",
        "Star Ferry Pier Tsim Sha Tsui",
        ["transit_station", "tourist_attraction"],
        22.2936,
        114.1686,
        4.5,
        18700,
        None,
        "Star Ferry Pier, Tsim Sha Tsui, Hong Kong",
    ),
    (
        "hong_kong",
        "M+ Museum",
        ["museum", "tourist_attraction"],
        22.3016,
        114.1596,
        4.5,
        12900,
        None,
        "38 Museum Dr, West Kowloon Cultural District, Hong Kong",
    ),
]


def google_maps() -> None:
    rng = random.Random(404)
    places = {}
    for city, name, types, lat, lng, rating, reviews, price, address in PLACES:
        pid = "ChIJ" + hid(
            "place", name, n=23, alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
        )
        opens = (
            "00:00-24:00"
            if "airport" in types or "train_station" in types
            else f"{rng.choice(['09', '10', '11'])}:00-{rng.choice(['17', '18', '21', '22'])}:00"
        )
        places[pid] = {
            "place_id": pid,
            "name": name,
            "city": city,
            "types": types,
            "lat": lat,
            "lng": lng,
            "rating": rating,
            "user_ratings_total": reviews,
            "price_level": price,
            "formatted_address": address,
            "opening_hours": opens,
            "phone": f"+{rng.randrange(10, 99)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)}",
            "website": f"https://www.{''.join(ch for ch in name.lower() if ch.isalnum())[:18]}.example",
        }
    cities = {
        k: {
            "key": k,
            "name": v[0],
            "country": v[1],
            "timezone": v[2],
            "lat": v[3],
            "lng": v[4],
            "elevation_m": {"tokyo": 40, "london": 11, "singapore": 15, "seoul": 38, "hong_kong": 32}[k],
        }
        for k, v in CITIES.items()
    }
    write(
        "google_maps",
        "A fixed map of five cities (Tokyo, London, Singapore, Seoul, Hong Kong): places with "
        "ratings, addresses, coordinates and opening hours. Distances and travel times are computed from "
        "coordinates by fixed detour factors and speeds. Read-only.",
        {
            "city": ent("cities", "key", "a city: name, country, timezone, centre lat/lng, elevation_m"),
            "place": ent(
                "places",
                "place_id",
                "a place: name, city, types, lat/lng, rating, "
                "user_ratings_total, price_level, formatted_address, opening_hours, phone, website",
                city="city",
            ),
        },
        {"cities": cities, "places": places},
    )


NEIGHBOURHOODS = {
    "tokyo": ["Shibuya", "Asakusa", "Shinjuku", "Ginza"],
    "london": ["Camden", "Shoreditch", "South Kensington", "Southwark"],
    "singapore": ["Tiong Bahru", "Chinatown", "Marina Bay", "Bugis"],
    "seoul": ["Hongdae", "Myeongdong", "Insadong", "Gangnam"],
    "hong_kong": ["Sheung Wan", "Tsim Sha Tsui", "Causeway Bay", "Mong Kok"],
}
KINDS = [
    ("Entire rental unit", 2, 1),
    ("Private room", 1, 1),
    ("Entire loft", 3, 2),
    ("Entire home", 6, 3),
    ("Private room in guesthouse", 2, 1),
    ("Entire condo", 4, 2),
]


def airbnb() -> None:
    rng = random.Random(505)
    listings = {}
    for city, (cname, country, _tz, lat, lng, _cur) in CITIES.items():
        for k in range(8):
            kind, guests, bedrooms = KINDS[(k + len(city)) % len(KINDS)]
            hood = NEIGHBOURHOODS[city][k % 4]
            lid = str(10_000_000 + int(hid("bnb", city, k, n=7, alphabet="0123456789")))
            price = rng.randrange(45, 120) * (guests if "Entire" in kind else 1) // (1 if guests < 4 else 2) + 30
            blocked = sorted(
                {
                    (date(2026, 3, 10) + timedelta(days=rng.randrange(0, 40))).isoformat()
                    for _ in range(rng.randrange(2, 8))
                }
            )
            listings[lid] = {
                "id": lid,
                "name": f"{['Bright', 'Cosy', 'Modern', 'Quiet', 'Stylish'][k % 5]} "
                f"{kind.split(' in ')[0].replace('Entire ', '').lower()} in {hood}",
                "city": city,
                "location": f"{hood}, {cname}, {country}",
                "neighbourhood": hood,
                "room_type": kind,
                "max_guests": guests,
                "bedrooms": bedrooms,
                "beds": max(1, guests // 2),
                "bathrooms": 1 if guests < 4 else 2,
                "price_per_night": price,
                "cleaning_fee": rng.choice([0, 15, 25, 40]),
                "currency": "USD",
                "rating": round(rng.uniform(4.3, 4.99), 2),
                "reviews": rng.randrange(3, 480),
                "superhost": rng.random() < 0.45,
                "pets_allowed": rng.random() < 0.3,
                "minimum_nights": rng.choice([1, 1, 2, 3]),
                "amenities": sorted(
                    rng.sample(
                        [
                            "Wifi",
                            "Kitchen",
                            "Washer",
                            "Air conditioning",
                            "Dedicated workspace",
                            "Self check-in",
                            "Elevator",
                            "Free parking",
                            "Balcony",
                            "Hair dryer",
                        ],
                        5,
                    )
                ),
                "host": rng.choice(["Aiko", "Ben", "Chloe", "Daniel", "Eun-ji", "Farah", "Kenji", "Mei"]),
                "lat": round(lat + rng.uniform(-0.04, 0.04), 4),
                "lng": round(lng + rng.uniform(-0.05, 0.05), 4),
                "unavailable": blocked,
                "url": f"https://www.airbnb.com/rooms/{lid}",
            }
    write(
        "airbnb",
        "A fixed set of short-term rental listings in five cities (Tokyo, London, Singapore, Seoul, "
        "Hong Kong): room type, capacity, nightly price and fees in USD, rating, amenities, minimum stay and "
        "booked dates. Read-only.",
        {
            "listing": ent(
                "listings",
                "id",
                "a listing: name, city, location, room_type, max_guests, bedrooms, "
                "beds, bathrooms, price_per_night, cleaning_fee, rating, reviews, superhost, "
                "pets_allowed, minimum_nights, amenities, unavailable (booked dates)",
            ),
        },
        {"listings": listings},
    )


# -- exchange rates -------------------------------------------------------------------------------------
CURRENCIES = {
    "USD": ("US Dollar", 1.0),
    "EUR": ("Euro", 0.921),
    "GBP": ("British Pound", 0.789),
    "JPY": ("Japanese Yen", 149.62),
    "CNY": ("Chinese Yuan", 7.184),
    "SGD": ("Singapore Dollar", 1.342),
    "KRW": ("South Korean Won", 1331.5),
    "HKD": ("Hong Kong Dollar", 7.812),
    "AUD": ("Australian Dollar", 1.528),
    "CAD": ("Canadian Dollar", 1.356),
    "CHF": ("Swiss Franc", 0.884),
    "INR": ("Indian Rupee", 83.11),
    "THB": ("Thai Baht", 35.82),
}


def exchange_rate() -> None:
    rng = random.Random(606)
    currencies = {}
    days = [date(2026, 1, 1) + timedelta(days=i) for i in range(83)]  # 2026-01-01 .. 2026-03-24
    for code, (name, base) in CURRENCIES.items():
        rate, rates = base, {}
        for d in days:
            if code != "USD":
                rate *= math.exp(rng.gauss(0, 0.0035))
            digits = 2 if base > 100 else 4
            rates[d.isoformat()] = {"date": d.isoformat(), "per_usd": round(rate, digits)}
        currencies[code] = {"code": code, "name": name, "rates": rates}
    write(
        "exchange_rate",
        "Fixed daily reference exchange rates of 13 currencies against the US dollar for "
        "2026-01-01..2026-03-24 (one fixing per day); cross rates are derived through USD. Read-only.",
        {
            "currency": ent("currencies", "code", "a currency: ISO code, name"),
            "rate": ent(
                "rates", "date", "one daily fixing: per_usd (units of this currency per 1 USD)", parent="currency"
            ),
        },
        {"currencies": currencies},
    )


# -- yahoo finance ----------------------------------------------------------------------------------------
STOCKS = [
    ("AAPL", "Apple Inc.", "Technology", "Consumer Electronics", 228.0, 15.2e9, 0.26),
    ("MSFT", "Microsoft Corporation", "Technology", "Software - Infrastructure", 412.0, 7.43e9, 0.83),
    ("NVDA", "NVIDIA Corporation", "Technology", "Semiconductors", 131.0, 24.4e9, 0.01),
    ("GOOGL", "Alphabet Inc.", "Communication Services", "Internet Content & Information", 182.0, 12.2e9, 0.20),
    ("AMZN", "Amazon.com, Inc.", "Consumer Cyclical", "Internet Retail", 214.0, 10.5e9, 0.0),
    ("META", "Meta Platforms, Inc.", "Communication Services", "Internet Content & Information", 598.0, 2.52e9, 0.50),
    ("TSLA", "Tesla, Inc.", "Consumer Cyclical", "Auto Manufacturers", 262.0, 3.21e9, 0.0),
    ("KO", "The Coca-Cola Company", "Consumer Defensive", "Beverages - Non-Alcoholic", 69.0, 4.31e9, 0.51),
    ("JPM", "JPMorgan Chase & Co.", "Financial Services", "Banks - Diversified", 243.0, 2.81e9, 1.25),
    ("AMD", "Advanced Micro Devices, Inc.", "Technology", "Semiconductors", 118.0, 1.62e9, 0.0),
]


def yahoo_finance() -> None:
    rng = random.Random(707)
    tickers = {}
    days = business_days(date(2026, 1, 2), date(2026, 3, 24))
    for sym, name, sector, industry, start, shares, div in STOCKS:
        price, bars = start, {}
        for d in days:
            o = price * math.exp(rng.gauss(0, 0.006))
            c = o * math.exp(rng.gauss(0.0004, 0.016))
            hi, lo = max(o, c) * (1 + abs(rng.gauss(0, 0.006))), min(o, c) * (1 - abs(rng.gauss(0, 0.006)))
            bars[d.isoformat()] = {
                "date": d.isoformat(),
                "open": round(o, 2),
                "high": round(hi, 2),
                "low": round(lo, 2),
                "close": round(c, 2),
                "volume": int(shares * rng.uniform(0.002, 0.009)),
            }
            price = c
        actions = {}
        if div:
            ex = date(2026, 2, 6 + len(sym))
            actions[ex.isoformat()] = {"date": ex.isoformat(), "dividend": div, "split": None}
        news = {}
        for k, (title, pub) in enumerate(
            [
                (f"{name} shares move as investors weigh {industry.lower()} outlook", "Reuters"),
                (f"What analysts expect from {sym} this quarter", "Barron's"),
            ]
        ):
            nid = hid("news", sym, k, n=8)
            news[nid] = {
                "id": nid,
                "title": title,
                "publisher": pub,
                "published": f"2026-03-0{2 + 3 * k}T13:{10 + k:02d}:00Z",
            }
        rec = {
            "strongBuy": rng.randrange(3, 25),
            "buy": rng.randrange(5, 25),
            "hold": rng.randrange(2, 15),
            "sell": rng.randrange(0, 4),
            "strongSell": rng.randrange(0, 2),
        }
        last = bars[days[-1].isoformat()]["close"]
        tickers[sym] = {
            "symbol": sym,
            "longName": name,
            "sector": sector,
            "industry": industry,
            "currency": "USD",
            "exchange": "NMS" if sym not in ("KO", "JPM") else "NYQ",
            "sharesOutstanding": int(shares),
            "trailingEPS": round(last / rng.uniform(18, 60), 2),
            "dividendRate": round(div * 4, 2),
            "fiftyTwoWeekHigh": round(max(b["high"] for b in bars.values()) * 1.08, 2),
            "fiftyTwoWeekLow": round(min(b["low"] for b in bars.values()) * 0.85, 2),
            "recommendations": rec,
            "bars": bars,
            "actions": actions,
            "news": news,
        }
    write(
        "yahoo_finance",
        "Fixed daily price history (OHLCV) of ten US stocks for the trading days "
        "2026-01-02..2026-03-24, with company profiles, dividends, news headlines and analyst recommendations. "
        "Read-only.",
        {
            "ticker": ent(
                "tickers",
                "symbol",
                "a stock: longName, sector, industry, sharesOutstanding, "
                "trailingEPS, dividendRate, 52-week range, analyst recommendations",
            ),
            "bar": ent("bars", "date", "one trading day: open, high, low, close, volume", parent="ticker"),
            "action": ent("actions", "date", "a dividend or split on its ex-date", parent="ticker"),
            "news": ent("news", "id", "a headline: title, publisher, published", parent="ticker"),
        },
        {"tickers": tickers},
    )


# -- wikipedia ---------------------------------------------------------------------------------------------
ARTICLES = [
    (
        "Mount Fuji",
        "Mount Fuji is an active stratovolcano on Honshu, Japan, and the country's highest peak.",
        {"elevation_m": 3776, "country": "Japan", "last_eruption": "1707", "first_ascent": "663"},
        ["Geography", "Geology", "Climbing"],
        ["Japan", "Stratovolcano"],
    ),
    (
        "Eiffel Tower",
        "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
        {"height_m": 330, "opened": "1889", "architect": "Stephen Sauvestre", "visitors_per_year": "5,889,000"},
        ["History", "Design", "Tourism"],
        ["Paris", "Gustave Eiffel"],
    ),
    (
        "Python (programming language)",
        "Python is a high-level, general-purpose programming language emphasising code readability.",
        {
            "designer": "Guido van Rossum",
            "first_appeared": "1991",
            "typing": "duck, dynamic, strong",
            "license": "Python Software Foundation License",
        },
        ["History", "Design philosophy", "Syntax"],
        ["Guido van Rossum", "Rust (programming language)"],
    ),
    (
        "Rust (programming language)",
        "Rust is a general-purpose programming language emphasising performance, type safety and concurrency.",
        {
            "designer": "Graydon Hoare",
            "first_appeared": "2015",
            "typing": "affine, inferred, static, strong",
            "license": "MIT and Apache 2.0",
        },
        ["History", "Syntax", "Memory safety"],
        ["Python (programming language)"],
    ),
    (
        "Ada Lovelace",
        "Ada Lovelace was an English mathematician known for her work on Charles Babbage's Analytical Engine.",
        {"born": "1815-12-10", "died": "1852-11-27", "known_for": "first published algorithm"},
        ["Early life", "Work", "Legacy"],
        ["Charles Babbage", "Analytical Engine"],
    ),
    (
        "Alan Turing",
        "Alan Turing was an English mathematician and computer scientist, a founder of theoretical computer science.",
        {"born": "1912-06-23", "died": "1954-06-07", "known_for": "Turing machine"},
        ["Early life", "Codebreaking", "Legacy"],
        ["Turing machine", "Bletchley Park"],
    ),
    (
        "Speed of light",
        "The speed of light in vacuum is exactly 299,792,458 metres per second.",
        {"value_m_per_s": 299792458, "symbol": "c"},
        ["Numerical value", "Measurement"],
        ["Physics"],
    ),
    (
        "Marie Curie",
        "Marie Curie was a Polish and naturalised-French physicist and chemist who conducted "
        "pioneering research on radioactivity.",
        {"born": "1867-11-07", "died": "1934-07-04", "nobel_prizes": "Physics 1903; Chemistry 1911"},
        ["Early life", "Research", "Awards"],
        ["Radioactivity", "Pierre Curie"],
    ),
    (
        "Great Barrier Reef",
        "The Great Barrier Reef is the world's largest coral reef system, off Queensland, Australia.",
        {"area_km2": 344400, "country": "Australia", "world_heritage": "1981"},
        ["Geology", "Ecology", "Threats"],
        ["Coral reef", "Australia"],
    ),
    (
        "Amazon River",
        "The Amazon River in South America is the largest river by discharge volume of water.",
        {"length_km": 6400, "discharge_m3_per_s": 209000, "countries": "Peru, Colombia, Brazil"},
        ["Course", "Ecology", "History"],
        ["Amazon rainforest", "Nile"],
    ),
    (
        "Nile",
        "The Nile is a major north-flowing river in northeastern Africa, among the longest in the world.",
        {"length_km": 6650, "discharge_m3_per_s": 2830, "countries": "11 countries"},
        ["Course", "History"],
        ["Amazon River", "Egypt"],
    ),
    (
        "Tokyo",
        "Tokyo is the capital of Japan and the centre of the Greater Tokyo Area.",
        {"population": 14094034, "area_km2": 2194, "country": "Japan", "timezone": "Asia/Tokyo"},
        ["History", "Geography", "Economy"],
        ["Japan", "Mount Fuji"],
    ),
    (
        "London",
        "London is the capital and largest city of both England and the United Kingdom.",
        {"population": 8866180, "area_km2": 1572, "country": "United Kingdom", "timezone": "Europe/London"},
        ["History", "Geography", "Economy"],
        ["United Kingdom", "Thames"],
    ),
    (
        "Singapore",
        "Singapore is an island country and city-state in Southeast Asia.",
        {"population": 6036900, "area_km2": 735, "country": "Singapore", "timezone": "Asia/Singapore"},
        ["History", "Geography", "Economy"],
        ["Malaysia"],
    ),
    (
        "Model Context Protocol",
        "The Model Context Protocol (MCP) is an open standard for connecting AI "
        "applications to external tools and data sources.",
        {"developer": "Anthropic", "introduced": "2024-11-25", "transport": "stdio, Streamable HTTP"},
        ["History", "Architecture", "Adoption"],
        ["Large language model"],
    ),
    (
        "Large language model",
        "A large language model is a language model trained with self-supervised learning on vast amounts of text.",
        {"first_popular": "2018", "examples": "GPT, Claude, Llama"},
        ["History", "Training", "Evaluation"],
        ["Model Context Protocol", "Transformer (deep learning)"],
    ),
    (
        "Golden ratio",
        "Two quantities are in the golden ratio if their ratio equals the ratio of their sum to the "
        "larger of the two; its value is about 1.618.",
        {"value": "1.6180339887", "symbol": "φ"},
        ["Calculation", "History", "Applications"],
        ["Fibonacci sequence"],
    ),
    (
        "Fibonacci sequence",
        "In mathematics, the Fibonacci sequence is a sequence in which each number is the sum "
        "of the two that precede it.",
        {"first_terms": "0, 1, 1, 2, 3, 5, 8, 13", "named_after": "Leonardo of Pisa"},
        ["History", "Properties"],
        ["Golden ratio"],
    ),
]


def wikipedia() -> None:
    articles = {}
    for k, (title, summary, facts, sections, links) in enumerate(ARTICLES):
        key = title.replace(" ", "_")
        articles[key] = {
            "key": key,
            "title": title,
            "pageid": str(20_000 + k * 911),
            "summary": summary,
            "infobox": facts,
            "links": links,
            "sections": [{"title": s, "text": f"{title}: {s.lower()}. {summary}"} for s in sections],
            "url": f"https://en.wikipedia.org/wiki/{key}",
            "last_edited": f"2026-0{1 + k % 3}-{10 + k % 18:02d}T08:00:00Z",
        }
    write(
        "wikipedia",
        "A fixed selection of encyclopedia articles: summary, infobox facts, sections and links. Read-only.",
        {
            "article": ent(
                "articles",
                "key",
                "an article keyed by its title with underscores: title, pageid, summary, infobox, sections, links, url",
            )
        },
        {"articles": articles},
    )


# -- hacker news -------------------------------------------------------------------------------------------
HN_STORIES = [
    ("Show HN: I built a local-first notes app with CRDTs", "https://github.com/notes-crdt/app", "show"),
    ("The Model Context Protocol, one year later", "https://blog.example.org/mcp-one-year", "story"),
    ("Ask HN: How do you evaluate LLM agents in production?", None, "ask"),
    ("Postgres 18 released", "https://www.postgresql.org/about/news/postgresql-18-released", "story"),
    ("Why we moved our monorepo from Python to Rust tooling", "https://eng.example.com/rust-tooling", "story"),
    ("Show HN: A 4KB raytracer in C", "https://github.com/tinyrt/tinyrt", "show"),
    ("Polars 2.0: what changed", "https://pola.rs/posts/polars-2", "story"),
    ("Launch HN: Sandboxes for AI code execution (YC W26)", "https://sandboxes.example.dev", "story"),
    ("Ask HN: Best resources to learn Rust in 2026?", None, "ask"),
    ("The hidden cost of microservices", "https://martin.example.com/microservices-cost", "story"),
    ("SQLite is not a toy database", "https://antonz.example/sqlite-not-toy", "story"),
    ("Show HN: Terminal spreadsheet with Python formulas", "https://github.com/tsheet/tsheet", "show"),
    ("Tokyo's rail network is a marvel of engineering", "https://www.example-mag.com/tokyo-rail", "story"),
    ("FastAPI 1.0 is out", "https://fastapi.tiangolo.com/release-notes/", "story"),
    ("Ask HN: Who is hiring? (March 2026)", None, "job"),
]


def hacker_news() -> None:
    rng = random.Random(808)
    stories, users = {}, {}
    names = ["pg_fan", "rustacean42", "dang_it", "tptacek2", "sqlite_lover", "jmoiron", "kentonv", "mira_k"]
    for n in names:
        users[n] = {
            "id": n,
            "karma": rng.randrange(200, 90000),
            "created": f"20{rng.randrange(10, 24)}-06-01",
            "about": f"{n} on the internet.",
        }
    for k, (title, url, kind) in enumerate(HN_STORIES):
        sid = str(43_100_000 + k * 7919)
        author = names[k % len(names)]
        comments = {}
        for j in range(3):
            cid = str(int(sid) + 100 + j)
            comments[cid] = {
                "id": cid,
                "by": names[(k + j + 1) % len(names)],
                "text": [
                    "Great write-up, thanks for sharing.",
                    "We saw the same thing at work.",
                    "I disagree with the conclusion about costs.",
                ][j],
                "time": f"2026-03-{1 + k % 9:02d}T{12 + j}:00:00Z",
            }
        stories[sid] = {
            "id": sid,
            "title": title,
            "url": url,
            "type": kind,
            "by": author,
            "score": rng.randrange(40, 1400),
            "descendants": rng.randrange(5, 600),
            "time": f"2026-03-{1 + k % 9:02d}T{rng.randrange(6, 22):02d}:{rng.randrange(60):02d}:00Z",
            "comments": comments,
        }
    write(
        "hacker_news",
        "A fixed snapshot of a tech news aggregator: stories (score, comments, author, time) "
        "with their top comments, and user profiles. Read-only.",
        {
            "user": ent("users", "id", "a user: karma, created, about"),
            "story": ent(
                "stories",
                "id",
                "a story: title, url, type (story/ask/show/job), by, score, descendants, time",
                by="user",
            ),
            "comment": ent("comments", "id", "a top-level comment: by, text, time", parent="story", by="user"),
        },
        {"users": users, "stories": stories},
    )


# -- npm registry ------------------------------------------------------------------------------------------
NPM = [
    (
        "express",
        "Fast, unopinionated, minimalist web framework",
        ["4.21.2", "5.0.0", "5.1.0"],
        38_500_000,
        "MIT",
        ["web", "framework", "http"],
        {"body-parser": "^2.2.0", "router": "^2.2.0"},
    ),
    (
        "fastify",
        "Fast and low overhead web framework, for Node.js",
        ["4.28.1", "5.2.1", "5.3.0"],
        3_100_000,
        "MIT",
        ["web", "framework", "http"],
        {"avvio": "^9.1.0", "pino": "^9.6.0"},
    ),
    (
        "zod",
        "TypeScript-first schema declaration and validation library",
        ["3.24.2", "4.0.0", "4.1.5"],
        31_200_000,
        "MIT",
        ["validation", "typescript", "schema"],
        {},
    ),
    (
        "@modelcontextprotocol/sdk",
        "Model Context Protocol implementation for TypeScript",
        ["1.10.2", "1.17.0", "1.20.1"],
        6_800_000,
        "MIT",
        ["mcp", "llm", "sdk"],
        {"zod": "^3.23.8", "express": "^5.0.1"},
    ),
    (
        "axios",
        "Promise based HTTP client for the browser and node.js",
        ["1.7.9", "1.8.4", "1.9.0"],
        62_000_000,
        "MIT",
        ["http", "client", "promise"],
        {"follow-redirects": "^1.15.6"},
    ),
    ("lodash", "Lodash modular utilities.", ["4.17.20", "4.17.21"], 58_000_000, "MIT", ["utilities", "modules"], {}),
    (
        "react",
        "React is a JavaScript library for building user interfaces.",
        ["18.3.1", "19.0.0", "19.1.0"],
        41_000_000,
        "MIT",
        ["react", "ui"],
        {},
    ),
    (
        "vite",
        "Native-ESM powered web dev build tool",
        ["5.4.11", "6.2.0", "6.3.5"],
        28_900_000,
        "MIT",
        ["build", "bundler", "dev-server"],
        {"esbuild": "^0.25.0", "rollup": "^4.30.1"},
    ),
    ("left-pad", "String left pad", ["1.1.3", "1.3.0"], 1_200_000, "WTFPL", ["string", "pad"], {}),
]


def npm_registry() -> None:
    rng = random.Random(909)
    packages = {}
    for name, desc, versions, weekly, lic, keywords, deps in NPM:
        day = date(2026, 3, 5)
        vs = {}
        for v in reversed(versions):
            vs[v] = {"version": v, "published": f"{day}T10:00:00Z", "deprecated": name == "left-pad" and v == "1.1.3"}
            day -= timedelta(days=rng.randrange(40, 300))
        packages[name] = {
            "name": name,
            "description": desc,
            "latest": versions[-1],
            "license": lic,
            "keywords": keywords,
            "dependencies": deps,
            "weekly_downloads": weekly,
            "monthly_downloads": weekly * 4 + rng.randrange(0, weekly // 10),
            "repository": f"https://github.com/{name.strip('@').replace('/', '-')}/{name.split('/')[-1]}",
            "maintainers": rng.randrange(1, 12),
            "versions": vs,
        }
    write(
        "npm_registry",
        "A fixed snapshot of a package registry: packages with description, versions "
        "(publish dates, deprecations), license, dependencies and download counts. Read-only.",
        {
            "package": ent(
                "packages",
                "name",
                "a package: description, latest, license, keywords, dependencies, weekly/monthly downloads, repository",
            ),
            "version": ent("versions", "version", "a published version: published, deprecated", parent="package"),
        },
        {"packages": packages},
    )


# -- flights -----------------------------------------------------------------------------------------------
AIRPORTS = {
    "HND": ("Tokyo Haneda", "tokyo", "Asia/Tokyo", 35.5494, 139.7798),
    "NRT": ("Tokyo Narita", "tokyo", "Asia/Tokyo", 35.7720, 140.3929),
    "LHR": ("London Heathrow", "london", "Europe/London", 51.4700, -0.4543),
    "SIN": ("Singapore Changi", "singapore", "Asia/Singapore", 1.3644, 103.9915),
    "ICN": ("Seoul Incheon", "seoul", "Asia/Seoul", 37.4602, 126.4407),
    "HKG": ("Hong Kong International", "hong_kong", "Asia/Hong_Kong", 22.3080, 113.9185),
    "PVG": ("Shanghai Pudong", "shanghai", "Asia/Shanghai", 31.1443, 121.8083),
}
AIRLINES = {
    "NH": "ANA",
    "JL": "Japan Airlines",
    "BA": "British Airways",
    "SQ": "Singapore Airlines",
    "KE": "Korean Air",
    "CX": "Cathay Pacific",
    "MU": "China Eastern",
}
HOME = {
    "HND": ["NH", "JL"],
    "NRT": ["NH", "JL"],
    "LHR": ["BA"],
    "SIN": ["SQ"],
    "ICN": ["KE"],
    "HKG": ["CX"],
    "PVG": ["MU"],
}


def flights() -> None:
    rng = random.Random(1010)
    airports = {
        k: {"iata": k, "name": v[0], "city": v[1], "timezone": v[2], "lat": v[3], "lng": v[4]}
        for k, v in AIRPORTS.items()
    }
    routes = {}
    for a in AIRPORTS:
        for b in AIRPORTS:
            if a == b or (a in ("HND", "NRT") and b in ("HND", "NRT")):
                continue
            for k, carrier in enumerate(sorted(set(HOME[a] + HOME[b]))[:3]):
                rid = f"{carrier}{100 + (hash_int(a + b + carrier) % 800)}"
                routes[rid] = {
                    "flight": rid,
                    "airline": AIRLINES[carrier],
                    "origin": a,
                    "destination": b,
                    "departure_local": f"{7 + 4 * k + rng.randrange(0, 3):02d}:{rng.choice(['05', '20', '35', '50'])}",
                    "weekdays": [0, 1, 2, 3, 4, 5, 6] if k == 0 else [0, 2, 4, 5],
                }
    write(
        "flights",
        "A fixed airline timetable between seven Asian and European airports: scheduled flights "
        "with departure times and operating weekdays; durations come from the great-circle distance and fares "
        "from distance, cabin and days before departure. Read-only.",
        {
            "airport": ent("airports", "iata", "an airport: name, city, timezone, lat/lng"),
            "route": ent(
                "routes",
                "flight",
                "a scheduled flight: airline, origin, destination, departure_local, weekdays (0=Monday)",
                origin="airport",
                destination="airport",
            ),
        },
        {"airports": airports, "routes": routes},
    )


def hash_int(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


# -- excel, time, math engine, code interpreter ----------------------------------------------------------
def excel() -> None:
    path = "/home/user/workspace/expenses_q1.xlsx"
    cells = {
        "A1": "Month",
        "B1": "Travel",
        "C1": "Software",
        "D1": "Meals",
        "A2": "January",
        "B2": 1240.5,
        "C2": 310,
        "D2": 286.4,
        "A3": "February",
        "B3": 980,
        "C3": 310,
        "D3": 341.2,
        "A4": "March",
        "B4": 1515.25,
        "C4": 355,
        "D4": 198.9,
    }
    write(
        "excel",
        "Spreadsheet workbooks on the user's disk: workbooks keyed by file path, each with named "
        "worksheets of cells (values and formulas). Tools create workbooks and worksheets, write ranges, "
        "apply formulas and read ranges back.",
        {
            "workbook": ent("workbooks", "filepath", "a workbook file: filepath, created"),
            "worksheet": ent(
                "worksheets",
                "name",
                "a worksheet: name, index, cells (A1-style address -> value), formulas (address -> formula text)",
                parent="workbook",
            ),
        },
        {
            "workbooks": {
                path: {
                    "filepath": path,
                    "created": 1767225600,
                    "worksheets": {"Summary": {"name": "Summary", "index": 0, "cells": cells, "formulas": {}}},
                }
            }
        },
    )


def time_server() -> None:
    # zone names are the system tz database (as the real server's), not data: an agent knows them
    write(
        "time",
        "The time server's settings: its local time zone (the real server's --local-timezone). Every "
        "IANA zone name of the tz database is accepted; the current time is the task clock's.",
        {"setting": ent("settings", "key", "a server setting: key, value")},
        {"settings": {"local_timezone": {"key": "local_timezone", "value": "UTC"}}},
    )


UNITS = {  # unit: (dimension, factor to the SI base)
    "m": ("length", 1),
    "km": ("length", 1000),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "mi": ("length", 1609.344),
    "ft": ("length", 0.3048),
    "in": ("length", 0.0254),
    "yd": ("length", 0.9144),
    "nmi": ("length", 1852),
    "kg": ("mass", 1),
    "g": ("mass", 0.001),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "t": ("mass", 1000),
    "s": ("time", 1),
    "min": ("time", 60),
    "h": ("time", 3600),
    "day": ("time", 86400),
    "week": ("time", 604800),
    "l": ("volume", 0.001),
    "ml": ("volume", 0.000001),
    "gal": ("volume", 0.003785411784),
    "m3": ("volume", 1),
    "km/h": ("speed", 1 / 3.6),
    "m/s": ("speed", 1),
    "mph": ("speed", 0.44704),
    "kn": ("speed", 1852 / 3600),
    "m2": ("area", 1),
    "km2": ("area", 1e6),
    "ha": ("area", 1e4),
    "acre": ("area", 4046.8564224),
    "sqft": ("area", 0.09290304),
    "j": ("energy", 1),
    "kj": ("energy", 1000),
    "cal": ("energy", 4.184),
    "kcal": ("energy", 4184),
    "kwh": ("energy", 3.6e6),
    "b": ("data", 1),
    "kb": ("data", 1000),
    "mb": ("data", 1e6),
    "gb": ("data", 1e9),
    "kib": ("data", 1024),
    "mib": ("data", 1048576),
    "gib": ("data", 1073741824),
}
ALIASES = {
    "meter": "m",
    "meters": "m",
    "metre": "m",
    "metres": "m",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "mile": "mi",
    "miles": "mi",
    "foot": "ft",
    "feet": "ft",
    "inch": "in",
    "inches": "in",
    "yard": "yd",
    "yards": "yd",
    "centimeter": "cm",
    "centimeters": "cm",
    "kilogram": "kg",
    "kilograms": "kg",
    "gram": "g",
    "grams": "g",
    "pound": "lb",
    "pounds": "lb",
    "lbs": "lb",
    "ounce": "oz",
    "ounces": "oz",
    "second": "s",
    "seconds": "s",
    "minute": "min",
    "minutes": "min",
    "hour": "h",
    "hours": "h",
    "days": "day",
    "weeks": "week",
    "liter": "l",
    "liters": "l",
    "litre": "l",
    "litres": "l",
    "gallon": "gal",
    "gallons": "gal",
    "kph": "km/h",
    "knots": "kn",
    "acres": "acre",
    "hectare": "ha",
    "hectares": "ha",
    "calories": "cal",
    "kcals": "kcal",
    "kilocalories": "kcal",
    "celsius": "c",
    "fahrenheit": "f",
    "kelvin": "k",
    "°c": "c",
    "°f": "f",
}
CONSTANTS = {
    "speed of light": (299792458, "m/s"),
    "gravitational acceleration": (9.80665, "m/s^2"),
    "avogadro constant": (6.02214076e23, "1/mol"),
    "planck constant": (6.62607015e-34, "J s"),
    "earth radius": (6371, "km"),
    "boiling point of water": (100, "°C"),
}


def wolfram_alpha() -> None:
    write(
        "wolfram_alpha",
        "The computation engine's fixed tables: units with their dimension and factor to the "
        "SI unit, spelled-out unit aliases, and a few physical constants. Temperatures (c, f, k) are converted "
        "by formula.",
        {
            "unit": ent("units", "symbol", "a unit: dimension, factor (to the SI unit of its dimension)"),
            "alias": ent("aliases", "name", "a spelled-out unit name and the unit symbol it means"),
            "constant": ent("constants", "name", "a named constant: value, unit"),
        },
        {
            "units": {k: {"symbol": k, "dimension": d, "factor": f} for k, (d, f) in UNITS.items()},
            "aliases": {k: {"name": k, "unit": v} for k, v in ALIASES.items()},
            "constants": {k: {"name": k, "value": v, "unit": u} for k, (v, u) in CONSTANTS.items()},
        },
    )


def code_interpreter() -> None:
    write(
        "code_interpreter",
        "The limits of the sandbox each code run gets (a fresh process per call; nothing persists between calls).",
        {"limit": ent("limits", "name", "a sandbox limit: name, value, unit")},
        {
            "limits": {
                "cpu_seconds": {"name": "cpu_seconds", "value": 5, "unit": "s"},
                "wall_seconds": {"name": "wall_seconds", "value": 10, "unit": "s"},
                "memory_bytes": {"name": "memory_bytes", "value": 536870912, "unit": "B"},
                "output_bytes": {"name": "output_bytes", "value": 32768, "unit": "B"},
                "file_bytes": {"name": "file_bytes", "value": 8388608, "unit": "B"},
            }
        },
    )


ALL = [
    github,
    youtube,
    tmdb,
    google_maps,
    airbnb,
    exchange_rate,
    yahoo_finance,
    wikipedia,
    hacker_news,
    npm_registry,
    flights,
    excel,
    time_server,
    wolfram_alpha,
    code_interpreter,
]

if __name__ == "__main__":
    for make in ALL:
        make()
