"""The task templates of the ``livemcp101`` suite (registered with ``livemcp101_tasks.task``)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from livemcp101_tasks import (
    WS,
    Plan,
    cut,
    file_has,
    file_line,
    found,
    sheet_cells,
    sole,
    task,
    text_cells,
)

CITY_ZONES = {
    "Tokyo": "Asia/Tokyo",
    "London": "Europe/London",
    "Singapore": "Asia/Singapore",
    "Seoul": "Asia/Seoul",
    "Hong Kong": "Asia/Hong_Kong",
}


def amounts(x: float) -> list[str]:
    """An amount as an answer may name it (thousands separators aside): as the tool gave it, to two decimals,
    to whole units."""
    return list(dict.fromkeys([str(x), f"{x:.2f}", str(round(x))]))


def day_forms(day: str) -> list[str]:
    """A date as a reader writes it without its year: March 2, 2 March, Mar 2, March 2nd."""
    d = datetime.fromisoformat(day)
    th = {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10 if d.day not in (11, 12, 13) else 0, "th")
    out = []
    for month in dict.fromkeys([d.strftime("%B"), d.strftime("%b")]):
        out += [f"{month} {d.day}", f"{d.day} {month}", f"{month} {d.day}{th}", f"{d.day}{th} {month}"]
    return out


def as_precise(x: float, like: float) -> float | int:
    """``x`` rounded to as many decimals as the tool stated ``like``: an alternative as precise as the GT value
    it stands in for."""
    text = str(like)
    places = len(text.split(".")[1]) if "." in text else 0
    return round(x, places) if places else round(x)


# ================================================================ easy ======================================


def _now_and_weather(city: str, tid: str, tz: str = "Asia/Shanghai") -> None:
    @task(tid, "travel_lifestyle", "easy", tz=tz)
    async def t(p: Plan) -> dict[str, Any]:
        clock, weather = await p.step(
            ("time", "get_current_time", {"timezone": CITY_ZONES[city]}),
            ("weather", "get_current_weather", {"city": city}),
        )
        local = clock["datetime"][11:16]
        cur = weather["current"]
        return {
            "instruction": f"I'm about to call a friend in {city}. What time is it there right now, and what's "
            "the weather like (temperature and conditions)?",
            "checkpoints": [
                found(f"local time in {city}", local),
                found(f"current temperature in {city}", cur["temp_c"]),
                found(f"current conditions in {city}", cur["condition"]),
            ],
            "answer": f"It is {local} ({clock['day_of_week']}) in {city}. Conditions: {cur['condition'].lower()}, "
            f"{cur['temp_c']} °C (feels like {cur['feels_like_c']} °C), humidity {cur['humidity']}%.",
            "key_points": [f"local time {local}", f"{cur['temp_c']} °C", cur["condition"]],
        }


_now_and_weather("Tokyo", "travel_easy_01")
_now_and_weather("London", "travel_easy_02", tz="Europe/Paris")
_now_and_weather("Seoul", "travel_easy_03")


def _convert_two_days(amount: int, src: str, dst: str, day: str, tid: str) -> None:
    @task(tid, "finance_markets", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        now, then = await p.step(
            ("exchange_rate", "convert_currency", {"amount": amount, "from_currency": src, "to_currency": dst}),
            (
                "exchange_rate",
                "convert_currency",
                {"amount": amount, "from_currency": src, "to_currency": dst, "date": day},
            ),
        )
        diff = round(now["result"] - then["result"], 2)
        word = "more" if diff > 0 else "less"
        # the comparison: today's amount above or below the other day's, each named by its day or its amount (the
        # day in the forms a reader writes it). Every answer names today's amount first, so a lead is no claim
        other_day = [*day_forms(day), *amounts(then["result"]), "then"]
        reading = {"aliases": {"today": amounts(now["result"]), day: other_day},
                   "by_lead": False}
        return {
            "instruction": f"How much is {amount:,} {src} in {dst} at today's rate, and how does that compare "
            f"with what it would have been on {day}?",
            "checkpoints": [
                found(f"{amount} {src} in {dst} today", now["result"]),
                found(
                    f"{amount} {src} in {dst} on {day}, and today's amount {word} than that",
                    then["result"],
                    claim=("today", [day], diff > 0),
                    reading=reading,
                ),
            ],
            "answer": f"Today {amount:,} {src} = {now['result']} {dst} (rate {now['rate']}). On {day} it would "
            f"have been {then['result']} {dst} (rate {then['rate']}), so today's amount is "
            f"{abs(diff)} {dst} {word}.",
            "key_points": [f"today {now['result']} {dst}", f"{day}: {then['result']} {dst}"],
        }


_convert_two_days(1250, "EUR", "JPY", "2026-03-02", "finance_easy_01")
_convert_two_days(800, "GBP", "SGD", "2026-02-16", "finance_easy_02")
_convert_two_days(5000, "CNY", "KRW", "2026-01-30", "finance_easy_03")


def _chart_movie(kind: str, tid: str) -> None:
    tool = {"popular": "get_popular_movies", "top rated": "get_top_rated_movies"}[kind]

    @task(tid, "leisure_entertainment", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        chart = await p.step(("tmdb", tool, {}))
        first = chart["results"][0]
        d = await p.step(("tmdb", "get_movie_details", {"movie_id": first["id"]}))
        hours, mins = divmod(d["runtime"], 60)
        return {
            "instruction": f"What's the number one {kind} movie on TMDB at the moment? Tell me who directed it "
            "and how many minutes it runs.",
            "checkpoints": [
                found(f"the #1 {kind} movie", d["title"]),
                found("its director", d["director"]),
                found("its runtime in minutes", d["runtime"]),
            ],
            "answer": f"The #1 {kind} movie is {d['title']} ({d['release_date'][:4]}), directed by {d['director']}. "
            f"It runs {d['runtime']} minutes ({hours} h {mins} min).",
            "key_points": [d["title"], d["director"], f"{d['runtime']} minutes"],
        }


_chart_movie("popular", "leisure_easy_01")
_chart_movie("top rated", "leisure_easy_02")


def _release_and_commit(owner: str, repo: str, tid: str) -> None:
    @task(tid, "software_development", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        rel, commits = await p.step(
            ("github", "list_releases", {"owner": owner, "repo": repo}),
            ("github", "list_commits", {"owner": owner, "repo": repo, "perPage": 1}),
        )
        c = commits[0]
        tag = rel[0]["tag_name"]
        bare = [tag[1:]] if tag.startswith("v") else []
        return {
            "instruction": f"For the GitHub repo {owner}/{repo}: what's the latest release tag, and what was the "
            "most recent commit on the main branch (message and author)?",
            "checkpoints": [
                # the latest tag said to be the latest ("latest", "newest", "most recent"), not one of a list of
                # releases after which another is called the latest; with or without its "v"
                found("the latest release tag", tag, alternatives={tag: bare},
                      next_to={tag: [["latest", "newest", "recent", "current", "last", "most"]]},
                      apart=[f for r in rel[1:] for f in dict.fromkeys([r["tag_name"], r["tag_name"].lstrip("v")])]),
                found("the latest commit message", c["commit"]["message"]),
                found("the latest commit's author", c["author"]["login"]),
            ],
            "answer": f"The latest release of {owner}/{repo} is {rel[0]['tag_name']} (published "
            f'{rel[0]["published_at"][:10]}). The most recent commit is "{c["commit"]["message"]}" by '
            f"{c['author']['login']} on {c['commit']['author']['date'][:10]}.",
            "key_points": [rel[0]["tag_name"], c["commit"]["message"]],
        }


_release_and_commit("pallets", "flask", "software_easy_01")
_release_and_commit("astral-sh", "ruff", "software_easy_02")
_release_and_commit("ollama", "ollama", "software_easy_03")


def _fact_in_units(title: str, key: str, what: str, src: str, dst: str, question: str, tid: str) -> None:
    @task(tid, "knowledge_research", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        facts = await p.step(("wikipedia", "extract_key_facts", {"title": title}))
        value = facts["facts"][key]
        conv = await p.step(("wolfram_alpha", "convert_units", {"value": value, "from_unit": src, "to_unit": dst}))
        shown = cut(conv["result"], 0)
        # the conversion a careful solver does itself (the factor is common knowledge) is grounded on the fact
        per = {("m", "ft"): 0.3048, ("km", "mi"): 1.609344}[(src, dst)]
        return {
            "instruction": question,
            "checkpoints": [found(f"{title}: {key}", value),
                            found(f"the value in {dst}", conv["result"], derived={conv["result"]: f"{value} / {per}"})],
            "answer": f"According to Wikipedia, the {what} of {title} is {value:,} {src}. That is about "
            f"{conv['result']} {dst}.",
            "key_points": [f"{value} {src}", f"{shown} {dst}"],
        }


_fact_in_units(
    "Mount Fuji",
    "elevation_m",
    "elevation",
    "m",
    "ft",
    "How high is Mount Fuji in feet? Use Wikipedia's figure in metres and convert it.",
    "knowledge_easy_01",
)
_fact_in_units(
    "Eiffel Tower",
    "height_m",
    "height",
    "m",
    "ft",
    "My kid wants to know how tall the Eiffel Tower is in feet. Look up its height and convert it for me.",
    "knowledge_easy_02",
)
_fact_in_units(
    "Amazon River",
    "length_km",
    "length",
    "km",
    "mi",
    "How long is the Amazon River in miles? Take the length from Wikipedia and convert it.",
    "knowledge_easy_03",
)


def _pace(distance_km: float, pace_min: float, label: str, tid: str) -> None:
    @task(tid, "mathematics", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        expr = f"{distance_km} * {pace_min}"
        total = await p.step(("wolfram_alpha", "calculate", {"expression": expr}))
        miles = await p.step(
            ("wolfram_alpha", "convert_units", {"value": distance_km, "from_unit": "km", "to_unit": "mi"})
        )
        minutes = total["result"]
        h, m = divmod(minutes, 60)
        mi = cut(miles["result"], 1)
        return {
            "instruction": f"I'm running a {label} ({distance_km} km) at a steady {pace_min} minutes per km. How "
            "many minutes will it take in total, and how far is that in miles?",
            "checkpoints": [
                found("total minutes", minutes, derived={minutes: expr}),
                found("distance in miles", miles["result"]),
            ],
            "answer": f"At {pace_min} min/km, {distance_km} km takes {minutes} minutes (about {int(h)} h "
            f"{round(m)} min). The distance is {miles['result']} miles.",
            "key_points": [f"{minutes} minutes", f"{mi} miles"],
        }


_pace(42.195, 5.5, "marathon", "math_easy_01")
_pace(21.0975, 6.25, "half marathon", "math_easy_02")
_pace(15.0, 4.8, "15K race", "math_easy_03")


def _hn_top(n: int, tid: str) -> None:
    @task(tid, "web_search_news", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        top = await p.step(("hacker_news", "get_stories", {"story_type": "top", "num_stories": n}))
        story = await p.step(("hacker_news", "get_story_info", {"story_id": int(top[0]["id"])}))
        lines = "; ".join(f"{s['title']} ({s['score']} points)" for s in top)
        first_comment = story["comments"][0]
        return {
            "instruction": f"What are the top {n} stories on Hacker News right now, with their scores? For the top "
            "one, tell me who posted it and quote its first comment.",
            "checkpoints": [
                found("the top stories", *[s["title"] for s in top]),
                *[found(f"the score of '{s['title']}'", s["score"],
                        beside=([s["title"]], [o["title"] for o in top if o is not s])) for s in top],
                found("the top story's author", story["by"]),
                found("the top story's first comment, quoted", first_comment["text"].rstrip(".!")),
            ],
            "answer": f"Top {n}: {lines}. The top story was posted by {story['by']}; the first comment "
            f'({first_comment["by"]}) says: "{first_comment["text"]}"',
            "key_points": [s["title"] for s in top],
        }


_hn_top(3, "news_easy_01")
_hn_top(5, "news_easy_02")

Q1 = f"{WS}/expenses_q1.xlsx"


def _q1_total(column: str, col: str, tid: str) -> None:
    @task(tid, "office", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        rows = await p.step(("excel", "read_data_from_excel", {"filepath": Q1, "sheet_name": "Summary"}))
        values = [r[col] for r in rows["rows"][1:]]
        expr = " + ".join(str(v) for v in values)
        calc = await p.step(("wolfram_alpha", "calculate", {"expression": expr}))
        return {
            "instruction": f"In my workbook {Q1}, what did we spend on {column.lower()} in Q1 in total? Just "
            "read the Summary sheet, don't change anything.",
            "checkpoints": [found(f"Q1 {column.lower()} total", calc["result"], derived={calc["result"]: expr})],
            "answer": f"Q1 {column.lower()} spend was {calc['result']} in total (January {values[0]}, February "
            f"{values[1]}, March {values[2]}).",
            "key_points": [f"total {calc['result']}"],
        }


_q1_total("Travel", 1, "office_easy_01")
_q1_total("Meals", 3, "office_easy_02")


def _cheapest_stay(city: str, checkin: str, checkout: str, adults: int, tid: str) -> None:
    @task(tid, "travel_lifestyle", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        res = await p.step(
            ("airbnb", "airbnb_search", {"location": city, "checkin": checkin, "checkout": checkout, "adults": adults})
        )
        listings = res["searchResults"]
        low = min(x["price"]["total"] for x in listings)  # the cheapest stay: its total, cleaning included
        best = next(x for x in listings if x["price"]["total"] == low)
        tied = [x["name"] for x in listings if x["price"]["total"] == low and x is not best]
        d = await p.step(
            (
                "airbnb",
                "airbnb_listing_details",
                {"id": best["id"], "checkin": checkin, "checkout": checkout, "adults": adults},
            )
        )
        total = d["price"]["total"]

        def has(a: str) -> str:
            return "yes" if a in d["amenities"] else "no"

        amenities = found(
            f"whether the listing has Wifi ({has('Wifi')}) and a kitchen ({has('Kitchen')})"
            + (f"; for a tied listing ({', '.join(tied)}) as its own details show" if tied else ""),
            best["name"],
            alternatives={best["name"]: tied},
        )
        amenities["rules_cannot_check"] = "whether the answer says rightly if the listing has Wifi and a kitchen"
        return {
            "instruction": f"Find me the cheapest Airbnb in {city} for {adults} adult{'s' if adults > 1 else ''} "
            f"from {checkin} to {checkout}. What's the total for the stay and does it have Wifi and a kitchen?",
            "checkpoints": [
                found("the cheapest listing", best["name"], alternatives={best["name"]: tied}),
                found("the stay's total price", total),
                amenities,
            ],
            "answer": f'The cheapest fit is "{best["name"]}" ({d["room_type"]}, {best["price"]["rate"]}): '
            f"${total} in total for {d['price']['nights']} nights including cleaning. Wifi: "
            f"{'yes' if 'Wifi' in d['amenities'] else 'no'}; kitchen: "
            f"{'yes' if 'Kitchen' in d['amenities'] else 'no'}.",
            "key_points": [best["name"], f"${total}"],
        }


_cheapest_stay("Tokyo", "2026-03-20", "2026-03-23", 2, "travel_easy_04")
_cheapest_stay("London", "2026-03-27", "2026-03-30", 1, "travel_easy_05")
_cheapest_stay("Singapore", "2026-04-02", "2026-04-05", 2, "travel_easy_06")


def _close_and_pe(ticker: str, day: str, tid: str) -> None:
    @task(tid, "finance_markets", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        bar, info = await p.step(
            ("yahoo_finance", "get_stock_price_on_date", {"ticker": ticker, "date": day}),
            ("yahoo_finance", "get_stock_info", {"ticker": ticker}),
        )
        cap = info["marketCap"]
        return {
            "instruction": f"What did {ticker} close at on {day}, and what's its current trailing P/E and market cap?",
            "checkpoints": [
                # the close beside its day, not the latest close's, nor the P/E's place (a swap fails)
                found(f"{ticker} close on {day}", bar["close"], next_to={bar["close"]: [[day, *day_forms(day)]]},
                      apart=[info["asOf"], *day_forms(info["asOf"]), str(info["currentPrice"]), "latest", "current",
                             "last close", "as of", "P/E", "PE ratio", "market cap"]),
                found("trailing P/E", info["trailingPE"]),
                # "$3.10T": the matcher reads no "T" for trillion, so that shorthand is spelt out as accepted
                found("market cap", cap, alternatives={cap: [f"{cap / 1e12:.{k}f}T" for k in (1, 2) if cap >= 1e12]}),
            ],
            "answer": f"{info['longName']} ({ticker}) closed at ${bar['close']} on {day}. As of the last close "
            f"({info['asOf']}, ${info['currentPrice']}) its trailing P/E is {info['trailingPE']} and its "
            f"market cap is ${info['marketCap']:,}.",
            "key_points": [f"close {bar['close']}", f"P/E {info['trailingPE']}", f"market cap {cap:,}"],
        }


_close_and_pe("NVDA", "2026-03-06", "finance_easy_04")
_close_and_pe("KO", "2026-02-27", "finance_easy_05")
_close_and_pe("MSFT", "2026-03-02", "finance_easy_06")


def _npm_pkg(name: str, tid: str) -> None:
    @task(tid, "software_development", "easy")
    async def t(p: Plan) -> dict[str, Any]:
        info, dl = await p.step(
            ("npm_registry", "get_package_info", {"name": name}),
            ("npm_registry", "get_package_downloads", {"name": name, "period": "last-week"}),
        )
        return {
            "instruction": f"Before I add {name} to our project: what's its latest version, its license, and how "
            "many downloads did it get last week?",
            "checkpoints": [
                found("latest version", info["latest"]),
                found("its license", info["license"], whole_word=True),
                found("weekly downloads", dl["downloads"]),
            ],
            "answer": f"{name} is at {info['latest']} (published {info['published'][:10]}), licensed "
            f"{info['license']}, with {dl['downloads']:,} downloads last week.",
            "key_points": [info["latest"], info["license"], f"{dl['downloads']:,}"],
        }


_npm_pkg("fastify", "software_easy_04")
_npm_pkg("zod", "software_easy_05")


@task("leisure_easy_03", "leisure_entertainment", "easy")
async def _trending_jp(p: Plan) -> dict[str, Any]:
    chart = await p.step(("youtube_data", "getTrendingVideos", {"regionCode": "JP", "maxResults": 1}))
    v = chart["items"][0]
    d = await p.step(("youtube_data", "getVideoDetails", {"videoIds": [v["id"]]}))
    item = d["items"][0]
    mins, secs = divmod(item["contentDetails"]["durationSeconds"], 60)
    whole = round(item["contentDetails"]["durationSeconds"] / 60)  # "about 37 minutes"
    return {
        "instruction": "What's the number one trending YouTube video in Japan right now? Who made it, how long is "
        "it and how many views does it have?",
        "checkpoints": [
            found("the #1 trending video in Japan", item["snippet"]["title"]),
            found("its creator (channel)", item["snippet"]["channelTitle"]),
            found("its view count", item["statistics"]["viewCount"]),
            # the length in whole minutes ("36 min 48 s", "36:48", "about 37 minutes")
            found("its length", mins, alternatives={mins: [m for m in [whole] if m != mins]},
                  derived={whole: f"round({item['contentDetails']['durationSeconds']} / 60)"} if whole != mins
                  else None),
        ],
        "answer": f'#1 in Japan is "{item["snippet"]["title"]}" by {item["snippet"]["channelTitle"]}: {mins} min '
        f"{secs} s long, {item['statistics']['viewCount']:,} views.",
        "key_points": [item["snippet"]["title"], item["snippet"]["channelTitle"]],
    }


# ================================================================ medium ====================================


def _day_plan(
    city: str,
    hotel: str,
    sight_q: str,
    food_q: str,
    tid: str,
    lead: str = "I'm staying by {hotel} in {city} and have one free day.",
) -> None:
    @task(tid, "travel_lifestyle", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        sights, foods = await p.step(
            ("google_maps", "maps_search_places", {"query": sight_q}),
            ("google_maps", "maps_search_places", {"query": food_q}),
        )
        sight, food = sights["places"][0], foods["places"][0]
        ds, df = await p.step(
            ("google_maps", "maps_place_details", {"place_id": sight["place_id"]}),
            ("google_maps", "maps_place_details", {"place_id": food["place_id"]}),
        )
        m = await p.step(
            (
                "google_maps",
                "maps_distance_matrix",
                {"origins": [hotel], "destinations": [sight["name"], food["name"]], "mode": "transit"},
            )
        )
        e1, e2 = m["results"][0]["elements"]
        t1, t2 = round(e1["duration"]["value"] / 60), round(e2["duration"]["value"] / 60)
        path = f"{WS}/{city.lower().replace(' ', '-')}-day-plan.md"
        text = (
            f"# {city} day plan\n\nStart: {hotel}\n\n"
            f"1. {sight['name']} - {ds['formatted_address']} (open {ds['opening_hours']['daily']}, rating "
            f"{sight['rating']}), about {t1} min by transit\n"
            f"2. {food['name']} - {df['formatted_address']} (open {df['opening_hours']['daily']}, rating "
            f"{food['rating']}), about {t2} min by transit from the start\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": lead.format(hotel=hotel, city=city) + " Find the best-rated "
            f"{sight_q.split()[0]} and the best-rated {food_q.split()[0]} spot, check their opening "
            f"hours, and how long each takes by public transport from {hotel}. Save a short plan "
            f"to {path}.",
            "checkpoints": [
                found("the chosen sight", sight["name"]),
                found("the chosen food place", food["name"]),
                file_has(path, sight["name"], "the sight"),
                file_line(path, ds["opening_hours"]["daily"].split("-"), "the sight's opening hours"),
                file_has(path, food["name"], "the food place"),
                file_line(path, df["opening_hours"]["daily"].split("-"), "the food place's opening hours"),
                file_line(path, [f"{t1} min"], f"the transit time to {sight['name']}"),
                file_line(path, [f"{t2} min"], f"the transit time to {food['name']}"),
            ],
            "answer": f"Plan saved to {path}: {sight['name']} (rating {sight['rating']}, open "
            f"{ds['opening_hours']['daily']}, ~{t1} min by transit) and {food['name']} (rating "
            f"{food['rating']}, open {df['opening_hours']['daily']}, ~{t2} min by transit).",
            "key_points": [sight["name"], food["name"], f"{t1} min", f"{t2} min"],
        }


_day_plan("Tokyo", "Tokyo Station", "museum Tokyo", "restaurant Tokyo", "travel_medium_01")
_day_plan("London", "King's Cross Station", "museum London", "restaurant London", "travel_medium_02")
_day_plan(
    "Singapore",
    "Changi Airport",
    "park Singapore",
    "food Singapore",
    "travel_medium_03",
    lead="I have a long layover at {hotel} and want to see a bit of {city}.",
)


def _portfolio(holdings: dict[str, int], cur: str, tid: str) -> None:
    """"The last closing prices" may also be read as the quote's ``previousClose``: that portfolio value (and
    its conversion at the same rate) is accepted too."""

    @task(tid, "finance_markets", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        infos = await p.step(*[("yahoo_finance", "get_stock_info", {"ticker": k}) for k in holdings])

        def worth(price: str) -> str:
            return " + ".join(f"{n} * {i[price]}" for n, i in zip(holdings.values(), infos, strict=True))

        expr = worth("currentPrice")
        total = await p.step(("wolfram_alpha", "calculate", {"expression": expr}))
        conv = await p.step(
            (
                "exchange_rate",
                "convert_currency",
                {"amount": total["result"], "from_currency": "USD", "to_currency": cur},
            )
        )
        before = sum(n * i["previousClose"] for n, i in zip(holdings.values(), infos, strict=True))
        other = as_precise(before, total["result"])
        derived = {total["result"]: expr, other: worth("previousClose")}
        usd_alt = {total["result"]: [other]}
        cur_alt = {conv["result"]: [as_precise(before * conv["rate"], conv["result"])]}
        parts = ", ".join(f"{n} {k} at ${i['currentPrice']}" for (k, n), i in zip(holdings.items(), infos, strict=True))
        held = ", ".join(f"{n} {k}" for k, n in holdings.items())
        return {
            "instruction": f"I hold {held}. What is my portfolio worth at the last closing prices, in US dollars "
            f"and in {cur} at today's exchange rate?",
            "checkpoints": [
                found("portfolio value in USD", total["result"], derived=derived, alternatives=usd_alt, reported=True),
                # converted by the tool, or by the agent at the rate a tool showed: grounded on the total and rate
                found(f"portfolio value in {cur}", conv["result"], alternatives=cur_alt,
                      derived={conv["result"]: f"({expr}) * {conv['rate']}"}),
            ],
            "answer": f"At the last close ({infos[0]['asOf']}): {parts}. Total ${total['result']:,} = "
            f"{conv['result']:,} {cur} at {conv['rate']} {cur}/USD.",
            "key_points": [f"${total['result']}", f"{conv['result']} {cur}"],
        }


_portfolio({"AAPL": 40, "MSFT": 15, "NVDA": 25}, "EUR", "finance_medium_01")
_portfolio({"GOOGL": 30, "AMZN": 20, "META": 8}, "GBP", "finance_medium_02")
_portfolio({"KO": 120, "JPM": 35, "AMD": 50}, "JPY", "finance_medium_03")


PROFIT = {"measure": ["profit"], "other_measures": ["budget", "revenue", "gross", "box office", "cost", "spent",
                                                    "runtime", "rating"]}


def _director_pair(name: str, tid: str) -> None:
    @task(tid, "leisure_entertainment", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        people = await p.step(("tmdb", "search_person", {"query": name}))
        films = people["results"][0]["known_for"][:2]
        d1, d2 = await p.step(*[("tmdb", "get_movie_details", {"movie_id": f["id"]}) for f in films])
        calc = await p.step(
            (
                "wolfram_alpha",
                "calculate",
                {"expression": f"({d1['revenue']} - {d1['budget']}) - ({d2['revenue']} - {d2['budget']})"},
            )
        )
        better, other = (d1, d2) if calc["result"] > 0 else (d2, d1)
        gap = f"({better['revenue']} - {better['budget']}) - ({other['revenue']} - {other['budget']})"
        return {
            "instruction": f"{name} has two films on TMDB. Which one made more profit (revenue minus budget), "
            "and by how much?",
            "checkpoints": [
                # the claim is about profit: "Interstellar had the bigger budget, yet Oppenheimer made more profit"
                # names Interstellar on top of another measure
                found("the film that made more profit", better["title"],
                      claim=(better["title"], [other["title"]], True), reading=PROFIT),
                found("the profit difference", abs(calc["result"]), derived={abs(calc["result"]): gap}),
            ],
            "answer": f"{d1['title']}: revenue ${d1['revenue']:,}, budget ${d1['budget']:,}; {d2['title']}: revenue "
            f"${d2['revenue']:,}, budget ${d2['budget']:,}. {better['title']} made "
            f"${abs(calc['result']):,} more profit ({abs(calc['result'])}).",
            "key_points": [better["title"], f"${abs(calc['result']):,}"],
        }


_director_pair("Christopher Nolan", "leisure_medium_01")
_director_pair("Denis Villeneuve", "leisure_medium_02")
_director_pair("Hayao Miyazaki", "leisure_medium_03")


def _triage(owner: str, repo: str, tid: str) -> None:
    @task(tid, "software_development", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        hits = await p.step(
            (
                "github",
                "search_issues",
                {"query": f"repo:{owner}/{repo} is:issue is:open", "sort": "comments", "order": "desc"},
            )
        )
        top = hits["items"][0]
        sole({str(i["number"]): i["comments"] for i in hits["items"]})
        issue, prs = await p.step(
            ("github", "get_issue", {"owner": owner, "repo": repo, "issue_number": top["number"]}),
            ("github", "list_pull_requests", {"owner": owner, "repo": repo, "state": "open"}),
        )
        path = f"{WS}/{repo}-triage.md"
        others = [i for i in hits["items"] if i["number"] != top["number"]]
        rivals = [i["title"] for i in others]
        aliases = {i["title"]: [f"#{i['number']}", f"issue {i['number']}"] for i in [top, *others]}
        pr_lines = "".join(f"- #{x['number']} {x['title']} ({x['user']})\n" for x in prs) or "- none\n"
        text = (
            f"# {owner}/{repo} triage\n\nMost discussed open issue: #{issue['number']} {issue['title']} "
            f"({issue['comments']} comments, labels: {', '.join(issue['labels'])})\n\nOpen pull requests:\n"
            f"{pr_lines}"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"Which open issue in {owner}/{repo} has the most discussion right now? Note it together "
            f"with the repo's open pull requests in {path} so I can bring it to triage.",
            "checkpoints": [
                # the pick is what is checked: the answer and the note put this issue first, not another one
                # they name as its runner-up; named by title or by number
                found("the most discussed open issue", issue["title"],
                      claim=(issue["title"], rivals, True), reading={"aliases": aliases}),
                {**file_has(path, issue["title"], "the issue as the pick"),
                 "expect": {"path": path, "content": {"$all": [{"$contains": issue["title"]}, {"$claim": {
                     "winner": issue["title"], "rivals": rivals, "aliases": aliases}}]}}},
                *[file_has(path, x["title"], f"open pull request #{x['number']}") for x in prs],
            ],
            "answer": f'The most discussed open issue is #{issue["number"]} "{issue["title"]}" '
            f"({issue['comments']} comments). I wrote it and the open pull requests ({len(prs)}) to "
            f"{path}.",
            "key_points": [f"#{issue['number']}", issue["title"]],
        }


_triage("psf", "requests", "software_medium_01")
_triage("tiangolo", "fastapi", "software_medium_02")
_triage("pola-rs", "polars", "software_medium_03")


def _compare_facts(
    a: str, b: str, code: str, what: str, path: str, question: str, tid: str, up: bool | None = None
) -> None:
    """``up``: the question asks which of the two is bigger (True: ``a``'s figure, the first printed, must come
    out on top when it is the larger); the answer must say so, and the file must hold every figure."""

    @task(tid, "knowledge_research", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        fa, fb = await p.step(
            ("wikipedia", "extract_key_facts", {"title": a}), ("wikipedia", "extract_key_facts", {"title": b})
        )
        src = code.format(a=fa["facts"], b=fb["facts"])
        out = await p.step(("code_interpreter", "execute_python_code", {"code": src}))
        lines = out["stdout"].strip().splitlines()
        text = f"# {a} vs {b}\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        values = [line.split(": ", 1)[1] for line in lines]
        checkpoints = [found(what, *values), file_has(path, values[0], "the first figure")]
        if up is not None:  # which of the two: by their figures, the first printed being a's
            top, other = (a, b) if float(values[0]) > float(values[1]) else (b, a)
            checkpoints[0] = found(what + f", and {top} ahead of {other}", *values, claim=(top, [other], up))
            checkpoints[1]["expect"]["content"] = {"$all": [{"$contains": v} for v in values]}
            checkpoints[1]["summary"] = f"Write {path} with both figures"
        return {
            "instruction": question + f" Save the comparison to {path}.",
            "checkpoints": checkpoints,
            "answer": f"{'; '.join(lines)}. Saved to {path}.",
            "key_points": lines,
        }


_compare_facts(
    "Amazon River",
    "Nile",
    "a, b = {a}, {b}\nprint('discharge ratio Amazon/Nile:', round(a['discharge_m3_per_s'] / "
    "b['discharge_m3_per_s'], 1))\nprint('length difference km (Nile - Amazon):', b['length_km'] - "
    "a['length_km'])\n",
    "the discharge ratio and length difference",
    f"{WS}/rivers.md",
    "How many times more water does the Amazon River carry than the Nile, and how much longer is the Nile? Use "
    "Wikipedia's figures.",
    "knowledge_medium_01",
)
_compare_facts(
    "Tokyo",
    "London",
    "a, b = {a}, {b}\nprint('Tokyo density per km2:', round(a['population'] / a['area_km2']))\n"
    "print('London density per km2:', round(b['population'] / b['area_km2']))\n",
    "both population densities",
    f"{WS}/density.md",
    "Which is more densely populated, Tokyo or London? Work out people per square kilometre from "
    "Wikipedia's population and area.",
    "knowledge_medium_02",
    up=True,
)


def _prices_to_book(ticker: str, tid: str) -> None:
    @task(tid, "office", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        bars = await p.step(("yahoo_finance", "get_historical_stock_prices", {"ticker": ticker, "period": "5d"}))
        book = f"{WS}/{ticker.lower()}-week.xlsx"
        await p.step(("excel", "create_workbook", {"filepath": book}))
        rows = [["Date", "Close"], *[[b["Date"], b["Close"]] for b in bars]]
        await p.step(("excel", "write_data_to_excel", {"filepath": book, "sheet_name": "Sheet1", "data": rows}))
        avg = await p.step(
            (
                "excel",
                "apply_formula",
                {
                    "filepath": book,
                    "sheet_name": "Sheet1",
                    "cell": f"B{len(rows) + 1}",
                    "formula": f"=AVERAGE(B2:B{len(rows)})",
                },
            )
        )
        n = len(rows)
        first, last = bars[0]["Close"], bars[-1]["Close"]
        # the rows oldest or newest first (the instruction fixes no order): the middle row is the same either way
        table = {"A1": "Date", "B1": "Close", "B2": {"$in": [{"$approx": first}, {"$approx": last}]},
                 f"B{n // 2 + 1}": bars[n // 2 - 1]["Close"], f"B{n}": {"$in": [{"$approx": last}, {"$approx": first}]}}
        average = sheet_cells(book, "Sheet1", {f"B{n + 1}": avg["value"]}, "the average under the prices, by a "
                              "formula over them", tool="apply_formula")
        average["expect"][f"formulas.B{n + 1}"] = {"$all": [{"$contains": "B2"}, {"$contains": f"B{n}"}]}
        return {
            "instruction": f"Put {ticker}'s closing prices for the last five trading sessions into a new workbook "
            f"{book} (Date and Close columns, first sheet) and add the average close under the "
            "prices with a formula. What's the average?",
            "checkpoints": [
                found("the average close", avg["value"]),
                sheet_cells(book, "Sheet1", table, "the header and the closes, in either date order"),
                average,
            ],
            "answer": f"Created {book} with the closes of {bars[0]['Date']}..{bars[-1]['Date']} and "
            f"=AVERAGE(B2:B{len(rows)}) in B{len(rows) + 1}: the average close is {avg['value']}.",
            "key_points": [f"average {avg['value']}"],
        }


_prices_to_book("AAPL", "office_medium_01")
_prices_to_book("TSLA", "office_medium_02")
_prices_to_book("JPM", "office_medium_03")


def _topic_digest(word: str, repo_q: str, tid: str) -> None:
    @task(tid, "web_search_news", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        hits = await p.step(("hacker_news", "search_stories", {"query": word, "num_results": 3}))
        story = await p.step(("hacker_news", "get_story_info", {"story_id": int(hits[0]["id"])}))
        repos = await p.step(("github", "search_repositories", {"query": repo_q, "perPage": 3}))
        top_repo = repos["items"][0]
        path = f"{WS}/{word.lower()}-digest.md"
        text = (
            f"# {word} digest\n\nHacker News: {story['title']} ({story['score']} points, "
            f"{story['descendants']} comments) {story['url'] or ''}\n\nMost starred repo: {top_repo['full_name']} "
            f"({top_repo['stargazers_count']} stars) - {top_repo['description']}\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"Make me a quick {word} digest: the highest-scoring Hacker News story mentioning "
            f'{word} and the most-starred GitHub repo for "{repo_q}". Write it to {path}.',
            "checkpoints": [
                found("the Hacker News story", story["title"]),
                found("the most-starred repository", top_repo["full_name"]),
                file_has(path, top_repo["full_name"], "the repository"),
                file_has(path, story["title"], "the Hacker News story"),
            ],
            "answer": f'Top story: "{story["title"]}" ({story["score"]} points). Most-starred repo: '
            f"{top_repo['full_name']} ({top_repo['stargazers_count']:,} stars). Digest saved to {path}.",
            "key_points": [story["title"], top_repo["full_name"]],
        }


_topic_digest("Rust", "language:rust", "news_medium_01")
_topic_digest("Polars", "dataframe", "news_medium_02")


def _savings(principal: int, cur: str, rate: float, years: int, target: str, tid: str) -> None:
    @task(tid, "mathematics", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        grown = f"{principal} * (1 + {rate} / 100 / 12) ^ ({years} * 12)"
        final = await p.step(("wolfram_alpha", "calculate", {"expression": grown}))
        code = (
            f"import math\nr = {rate} / 100 / 12\nmonths = math.ceil(math.log(2) / math.log(1 + r))\n"
            "print('months to double:', months)\nprint('years to double:', round(months / 12, 1))\n"
        )
        dbl = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        conv = await p.step(
            (
                "exchange_rate",
                "convert_currency",
                {"amount": final["result"], "from_currency": cur, "to_currency": target},
            )
        )
        months = dbl["stdout"].splitlines()[0].split(": ")[1]
        import math

        # "how long until it doubles" fixes no unit: months (exact or the first whole month past it), or years
        # (exact, as the whole months make them, or rounded to whole years)
        m = math.log(2) / math.log(1 + rate / 100 / 12)
        doubling = [round(m), round(m, 1), round(m / 12, 2), round(int(months) / 12, 2), round(m / 12)]
        return {
            "instruction": f"If I deposit {principal:,} {cur} at {rate}% a year compounded monthly for {years} "
            f"years, what will I have? How long until the money doubles at that rate, and what is "
            f"the final amount worth in {target} today?",
            "checkpoints": [
                found("the final amount", final["result"], derived={final["result"]: grown}),
                found("the time to double", months, alternatives={months: [x for x in dict.fromkeys(doubling)
                                                                           if str(x) != months]}),
                found(f"the final amount in {target}", conv["result"],
                      derived={conv["result"]: f"({grown}) * {conv['rate']}"}),
            ],
            "answer": f"After {years} years: {final['result']} {cur}. It doubles after {months} months "
            f"(about {dbl['stdout'].splitlines()[1].split(': ')[1]} years). In {target} at today's rate "
            f"({conv['rate']}): {conv['result']} {target}.",
            "key_points": [f"{final['result']} {cur}", f"{months} months", f"{conv['result']} {target}"],
        }


_savings(12000, "SGD", 3.2, 5, "USD", "math_medium_01")
_savings(50000, "EUR", 2.75, 10, "CHF", "math_medium_02")
_savings(8000, "GBP", 4.1, 3, "AUD", "math_medium_03")


def _trip_cost(
    orig: str, dest: str, city: str, day: str, back: str, adults: int, cur: str, tid: str
) -> None:
    """A flight as cheap as the first offer is accepted in its place: the request names no tie-break."""

    @task(tid, "travel_lifestyle", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        fl, stay = await p.step(
            (
                "flights",
                "search_flights",
                {"origin": orig, "destination": dest, "departure_date": day, "adults": adults},
            ),
            ("airbnb", "airbnb_search", {"location": city, "checkin": day, "checkout": back, "adults": adults}),
        )
        f, s = fl["offers"][0], stay["searchResults"][0]
        tied = [
            o["flight_number"] for o in fl["offers"][1:] if o["total_price_usd"] == f["total_price_usd"]
        ]
        both = f"{f['total_price_usd']} + {s['price']['total']}"
        total = await p.step(("wolfram_alpha", "calculate", {"expression": both}))
        conv = await p.step(
            (
                "exchange_rate",
                "convert_currency",
                {"amount": total["result"], "from_currency": "USD", "to_currency": cur},
            )
        )
        return {
            "instruction": f"We're {adults} adults flying {orig} to {dest} on {day} and staying in {city} until "
            f"{back}. Take the cheapest one-way flight and the cheapest Airbnb that fits us: what "
            f"do they cost together, in USD and in {cur}?",
            "checkpoints": [
                found("the cheapest flight", f["flight_number"], alternatives={f["flight_number"]: tied}),
                found("the cheapest stay", s["name"]),
                found("the combined cost in USD", total["result"], derived={total["result"]: both}),
                found(f"the combined cost in {cur}", conv["result"],
                      derived={conv["result"]: f"({both}) * {conv['rate']}"}),
            ],
            "answer": f"Flight {f['flight_number']} ({f['airline']}, departs {f['departure']}): "
            f'${f["total_price_usd"]} for {adults}. Stay: "{s["name"]}" ${s["price"]["total"]} '
            f"({s['price']['breakdown']}). Together ${total['result']} = {conv['result']} {cur}.",
            "key_points": [f["flight_number"], s["name"], f"${total['result']}"],
        }


_trip_cost("PVG", "NRT", "Tokyo", "2026-03-27", "2026-03-30", 2, "CNY", "travel_medium_04")
_trip_cost("SIN", "HKG", "Hong Kong", "2026-04-03", "2026-04-06", 2, "SGD", "travel_medium_05")
_trip_cost("LHR", "ICN", "Seoul", "2026-04-10", "2026-04-14", 1, "GBP", "travel_medium_06")


def _channel_duel(topic: str, tid: str) -> None:
    @task(tid, "leisure_entertainment", "medium")
    async def t(p: Plan) -> dict[str, Any]:
        res = await p.step(("youtube_data", "searchVideos", {"query": topic, "maxResults": 5}))
        items = res["items"]
        channels = list(dict.fromkeys(v["snippet"]["channelId"] for v in items))[:2]
        pair = [next(v for v in items if v["snippet"]["channelId"] == c) for c in channels]
        stats, cmp_ = await p.step(
            ("youtube_data", "getChannelStatistics", {"channelIds": channels}),
            ("youtube_data", "compareVideos", {"videoIds": [v["id"] for v in pair]}),
        )
        big = max(stats["items"], key=lambda c: c["statistics"]["subscriberCount"])
        top = await p.step(("youtube_data", "getChannelTopVideos", {"channelId": big["id"], "maxResults": 1}))
        best = next(r for r in cmp_["videos"] if r["id"] == cmp_["mostViewed"])
        small = next(c for c in stats["items"] if c["id"] != big["id"])

        def lead(title: str) -> str:
            """A title's words before its first figure: how the claim names the video, so that a figure in it
            set in bold ("Under **$5**") still names it."""
            head = re.split(r"[\d$£€¥]", title, maxsplit=1)[0].rstrip(" -:,")
            return head if len(head.split()) >= 2 else title

        rival = next(r for r in cmp_["videos"] if r["id"] != best["id"])
        return {
            "instruction": f'Search YouTube for "{topic}" and take the top videos from two different channels. '
            "Which channel has more subscribers, which of the two videos has more views (and its "
            "likes per 1,000 views), and what's the bigger channel's most-viewed video overall?",
            "checkpoints": [
                # each claim about its own measure: "Tokyo Walks' video has more views" is no claim about subscribers
                found("the channel with more subscribers", big["snippet"]["title"],
                      claim=(big["snippet"]["title"], [small["snippet"]["title"]], True),
                      reading={"measure": ["subscri"], "other_measures": ["view", "like", "watch"]}),
                found("the more viewed video", best["title"],
                      claim=(lead(best["title"]), [lead(rival["title"])], True),
                      reading={"measure": ["view", "watch"], "other_measures": ["subscri"]}),
                found("the more viewed video's likes per 1,000 views", best["likesPer1000Views"]),
                found("the bigger channel's top video", top["items"][0]["snippet"]["title"]),
            ],
            "answer": f"{big['snippet']['title']} is bigger ({big['statistics']['subscriberCount']:,} subscribers). "
            f'Of the two videos, "{best["title"]}" has more views ({best["viewCount"]:,}; '
            f"{best['likesPer1000Views']} likes per 1,000 views). {big['snippet']['title']}'s most-viewed "
            f'video is "{top["items"][0]["snippet"]["title"]}".',
            "key_points": [big["snippet"]["title"], best["title"]],
        }


_channel_duel("home", "leisure_medium_04")  # "budget": the bigger channel's top video was the more viewed one
_channel_duel("japan", "leisure_medium_05")
_channel_duel("tokyo", "leisure_medium_06")


def _meeting(organiser_tz: str, at: str, zones: list[str], tid: str, tz: str) -> None:
    @task(tid, "office", "medium", tz=tz)
    async def t(p: Plan) -> dict[str, Any]:
        convs = await p.step(
            *[
                ("time", "convert_time", {"source_timezone": organiser_tz, "time": at, "target_timezone": z})
                for z in zones
            ]
        )
        now = await p.step(("time", "get_current_time", {"timezone": organiser_tz}))
        path = f"{WS}/meeting-times.txt"
        lines = [
            f"{z}: {c['target']['datetime'][11:16]} {c['target']['day_of_week']}"
            for z, c in zip(zones, convs, strict=True)
        ]
        text = f"Sync at {at} {organiser_tz} on {now['datetime'][:10]}\n" + "\n".join(lines) + "\n"
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"I want to hold a sync today at {at} {organiser_tz} time. What time will that be for "
            f"colleagues in {', '.join(zones)}? Put the list in {path}.",
            "checkpoints": [
                found("the converted times", *[c["target"]["datetime"][11:16] for c in convs]),
                {
                    **file_line(path, [], "each colleague's time beside their zone"),
                    "expect": {
                        "path": path,
                        "content": {
                            "$all": [
                                {"$line": [{"$in": list(dict.fromkeys([city, city.replace("_", " ")]))}, at_]}
                                for city, at_ in ((z.split("/")[-1], c["target"]["datetime"][11:16])
                                                  for z, c in zip(zones, convs, strict=True))
                            ]
                        },
                    },
                },
            ],
            "answer": f"Today ({now['datetime'][:10]}) {at} in {organiser_tz} is: "
            + "; ".join(lines)
            + f". Saved to {path}.",
            "key_points": lines,
        }


_meeting(
    "Europe/London", "15:00", ["Asia/Tokyo", "America/New_York", "Asia/Kolkata"], "office_medium_04", "Europe/London"
)
_meeting(
    "America/Los_Angeles",
    "08:30",
    ["Europe/Berlin", "Asia/Singapore", "Australia/Sydney"],
    "office_medium_05",
    "America/Los_Angeles",
)


# ================================================================ hard ======================================
AIRPORT_OF = {"Tokyo": "NRT", "London": "LHR", "Singapore": "SIN", "Seoul": "ICN", "Hong Kong": "HKG"}
CITY_CUR = {"Tokyo": "JPY", "London": "GBP", "Singapore": "SGD", "Seoul": "KRW", "Hong Kong": "HKD"}


def _full_trip(
    orig: str, city: str, day: str, back: str, adults: int, home: str, tid: str, tz: str = "Asia/Shanghai"
) -> None:
    @task(tid, "travel_lifestyle", "hard", tz=tz)
    async def t(p: Plan) -> dict[str, Any]:
        ports = await p.step(("flights", "search_airports", {"query": city}))
        dests = [a["iata"] for a in ports["airports"]]  # every airport of the city: the cheapest may land at any
        *fls, stay, fc = await p.step(
            *[
                (
                    "flights",
                    "search_flights",
                    {"origin": orig, "destination": dest, "departure_date": day, "adults": adults},
                )
                for dest in dests
            ],
            ("airbnb", "airbnb_search", {"location": city, "checkin": day, "checkout": back, "adults": adults}),
            ("weather", "get_forecast", {"city": city, "days": 7}),
        )
        offers = [o for fl in fls for o in fl["offers"]]
        f = min(offers, key=lambda o: (o["total_price_usd"], datetime.fromisoformat(o["departure"])))
        low = min(x["price"]["total"] for x in stay["searchResults"])  # the cheapest stay: its total
        s = next(x for x in stay["searchResults"] if x["price"]["total"] == low)
        tied = [x["name"] for x in stay["searchResults"] if x["price"]["total"] == low and x is not s]
        fd, sd = await p.step(
            ("flights", "get_flight_details", {"flight_number": f["flight_number"], "departure_date": day}),
            ("airbnb", "airbnb_listing_details", {"id": s["id"], "checkin": day, "checkout": back, "adults": adults}),
        )
        sights = await p.step(("google_maps", "maps_search_places", {"query": f"tourist attraction {city}"}))
        top = sights["places"][:3]
        m = await p.step(
            (
                "google_maps",
                "maps_distance_matrix",
                {"origins": [f"{sd['lat']},{sd['lng']}"], "destinations": [x["name"] for x in top], "mode": "transit"},
            )
        )
        mins = [round(e["duration"]["value"] / 60) for e in m["results"][0]["elements"]]
        days = [d for d in fc["forecast"]["forecastday"] if day <= d["date"] < back]
        code = (
            f"flight = {f['total_price_usd']}\nstay = {sd['price']['total']}\nadults = {adults}\n"
            "total = flight + stay\nprint('total USD:', total)\nprint('per person USD:', round(total / adults, 2))\n"
        )
        calc = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        total = float(calc["stdout"].splitlines()[0].split(": ")[1])
        conv = await p.step(
            ("exchange_rate", "convert_currency", {"amount": total, "from_currency": "USD", "to_currency": home})
        )
        book = f"{WS}/{city.lower().replace(' ', '-')}-trip-budget.xlsx"
        await p.step(("excel", "create_workbook", {"filepath": book}))
        rows = [
            [f"Flight {f['flight_number']}", f["total_price_usd"]],
            [f"Stay: {sd['name']}", sd["price"]["total"]],
            ["Total (USD)", total],
        ]
        await p.step(("excel", "write_data_to_excel", {"filepath": book, "sheet_name": "Sheet1", "data": rows}))
        path = f"{WS}/{city.lower().replace(' ', '-')}-itinerary.md"
        weather = "\n".join(
            f"- {d['date']}: {d['condition_day']}, {d['min_temp_c']}-{d['max_temp_c']} °C, rain {d['chance_of_rain']}%"
            for d in days
        )
        near = "\n".join(f"- {x['name']}: ~{n} min by transit" for x, n in zip(top, mins, strict=True))
        text = (
            f"# {city} trip {day} to {back}\n\nFlight: {f['flight_number']} {f['airline']} {fd['departure']} -> "
            f"{fd['arrival']}\nStay: {sd['name']} ({sd['location']}), {sd['price']['breakdown']}\n\nWeather:\n"
            f"{weather}\n\nSights from the apartment:\n{near}\n\nBudget: ${total} = {conv['result']} {home}\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"Plan our trip to {city}: {adults} adult{'s' if adults > 1 else ''} flying from {orig} on "
            f"{day}, back home on {back} (just book the outbound for now). Pick the cheapest flight (of "
            "flights that cost the same, the one that leaves first) and the cheapest Airbnb that fits us, "
            "check the weather for our days there, and find the three top tourist attractions with transit "
            f"times from the apartment. Put the costs (flight, stay, total in USD) in a new workbook {book} and "
            f"the whole itinerary in {path}. Also tell me the total in {home}.",
            "checkpoints": [
                found("the cheapest flight", f["flight_number"]),
                found("the cheapest stay", sd["name"], alternatives={sd["name"]: tied}),
                found("the total in USD", total),
                found(f"the total in {home}", conv["result"]),
                {
                    "type": "operate",
                    "summary": f"A sheet of {book} holds the flight, its cost, the stay's cost and the total in USD",
                    "server": "excel",
                    "tool": "write_data_to_excel",
                    "operate_type": "create",
                    "entity": "worksheet",
                    "expect": {"cells": {"$all": [
                        *[{"$contains": v} for v in (f["flight_number"], f["total_price_usd"], sd["price"]["total"],
                                                     total, "total")],
                        {"$in": [{"$contains": w} for w in ["stay", "airbnb", sd["name"], *tied]]},
                    ]}},
                    "parent_expect": {"filepath": book},
                },
                file_has(path, f["flight_number"], "the flight"),
                file_line(path, [{"$in": [sd["name"], *tied]}], "the stay"),
                file_has(path, top[0]["name"], "the top attraction"),
            ],
            "answer": f"Flight {f['flight_number']} ({f['airline']}) {fd['departure']} -> {fd['arrival']}, "
            f'${f["total_price_usd"]} for {adults}. Stay: "{sd["name"]}", ${sd["price"]["total"]} '
            f"({sd['price']['breakdown']}). Weather: "
            + "; ".join(f"{d['date']} {d['condition_day']} {d['min_temp_c']}-{d['max_temp_c']} °C" for d in days)
            + ". Attractions: "
            + ", ".join(f"{x['name']} (~{n} min)" for x, n in zip(top, mins, strict=True))
            + f". Total ${total} = {conv['result']} {home}. Budget in {book}, itinerary in {path}.",
            "key_points": [f["flight_number"], sd["name"], f"${total}", f"{conv['result']} {home}"],
        }


_full_trip("PVG", "Tokyo", "2026-03-14", "2026-03-17", 2, "CNY", "travel_hard_01")
_full_trip("HKG", "Singapore", "2026-03-15", "2026-03-18", 2, "HKD", "travel_hard_02", tz="Asia/Hong_Kong")
_full_trip("PVG", "Seoul", "2026-03-13", "2026-03-16", 1, "CNY", "travel_hard_03")
_full_trip("SIN", "London", "2026-03-14", "2026-03-18", 2, "SGD", "travel_hard_04", tz="Asia/Singapore")
_full_trip("ICN", "Hong Kong", "2026-03-16", "2026-03-18", 3, "KRW", "travel_hard_05", tz="Asia/Seoul")


def _week_report(tickers: list[str], tid: str) -> None:
    @task(tid, "finance_markets", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        hist = await p.step(
            *[("yahoo_finance", "get_historical_stock_prices", {"ticker": k, "period": "5d"}) for k in tickers]
        )
        infos = await p.step(*[("yahoo_finance", "get_stock_info", {"ticker": k}) for k in tickers])
        closes = {k: [b["Close"] for b in h] for k, h in zip(tickers, hist, strict=True)}
        code = (
            f"closes = {closes}\nchg = {{k: round((v[-1] - v[0]) / v[0] * 100, 2) for k, v in closes.items()}}\n"
            "for k, c in chg.items():\n    print(f'{k}: {c}')\nbest = max(chg, key=chg.get)\n"
            "print('best:', best)\nprint('worst:', min(chg, key=chg.get))\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        lines = out["stdout"].splitlines()
        chg = {ln.split(": ")[0]: float(ln.split(": ")[1]) for ln in lines[: len(tickers)]}
        best, worst = lines[-2].split(": ")[1], lines[-1].split(": ")[1]
        sole(chg), sole(chg, min)
        rec = await p.step(("yahoo_finance", "get_recommendations", {"ticker": best}))
        book = f"{WS}/weekly-performance.xlsx"
        await p.step(("excel", "create_workbook", {"filepath": book}))
        rows = [
            ["Ticker", "First close", "Last close", "Change %", "P/E"],
            *[[k, closes[k][0], closes[k][-1], chg[k], i["trailingPE"]] for k, i in zip(tickers, infos, strict=True)],
        ]
        await p.step(("excel", "write_data_to_excel", {"filepath": book, "sheet_name": "Sheet1", "data": rows}))
        n = len(rows)
        avg = await p.step(
            (
                "excel",
                "apply_formula",
                {"filepath": book, "sheet_name": "Sheet1", "cell": f"D{n + 1}", "formula": f"=AVERAGE(D2:D{n})"},
            )
        )
        buys = rec["strongBuy"] + rec["buy"]
        exact = {k: (v[-1] - v[0]) / v[0] * 100 for k, v in closes.items()}
        # a change as the table keeps it (2 decimals) or at one decimal, rounded from the exact or the kept figure
        shown = {k: [x for x in dict.fromkeys([round(exact[k], 1), round(chg[k], 1)]) if x != chg[k]] for k in tickers}

        def cell(k: str) -> dict[str, Any]:
            return {"$in": [{"$approx": x} for x in dict.fromkeys([chg[k], *shown[k]])]}

        means = dict.fromkeys([round(avg["value"], 2), round(sum(exact.values()) / len(exact), 2)])
        pes = {k: i["trailingPE"] for k, i in zip(tickers, infos, strict=True)}
        # best and worst are checked against the tickers between them: "NVDA is the lowest, below AAPL, MSFT and
        # AMD" puts MSFT above NVDA, not on top, and must not count against "MSFT did best" (nor the other way)
        middle = [k for k in tickers if k not in (best, worst)]
        return {
            "instruction": f"Give me a five-session performance review of {', '.join(tickers)}: each one's change "
            "in percent from the first to the last close, which did best and worst, and the P/E of "
            f"each. Put a table (Ticker, First close, Last close, Change %, P/E) in a new workbook "
            f"{book} with the average change under the Change % column, and tell me how many "
            "analysts rate the best performer a buy or strong buy.",
            "checkpoints": [
                found("each change", *[str(chg[k]) for k in tickers],
                      alternatives={str(chg[k]): shown[k] for k in tickers}),
                found(f"the best performer ({best}) and its change", str(chg[best]),
                      alternatives={str(chg[best]): shown[best]},
                      claim=(best, middle, True)),
                found(f"the worst performer ({worst}) and its change", str(chg[worst]),
                      alternatives={str(chg[worst]): shown[worst]},
                      claim=(worst, middle, False)),
                found("each P/E", *pes.values()),
                found("buy ratings of the best performer", buys, derived={buys: f"{rec['strongBuy']} + {rec['buy']}"}),
                sheet_cells(
                    book,
                    "Sheet1",
                    {**text_cells(rows), "D2": cell(tickers[0]), f"D{n}": cell(tickers[-1])},
                    "the performance table",
                ),
                sheet_cells(
                    book,
                    "Sheet1",
                    {f"D{n + 1}": {"$in": [{"$approx": m} for m in means]}},
                    "the average change",
                    tool="apply_formula",
                ),
            ],
            "answer": "Five-session change: "
            + ", ".join(f"{k} {chg[k]}% (P/E {i['trailingPE']})" for k, i in zip(tickers, infos, strict=True))
            + f". Best: {best}; worst: {worst}. Average change {avg['value']}%. {buys} analysts rate "
            f"{best} buy or strong buy ({rec['strongBuy']} strong buy, {rec['buy']} buy). Table in {book}.",
            "key_points": [f"best {best}", f"worst {worst}", f"{buys} buy ratings"],
        }


_week_report(["AAPL", "MSFT", "NVDA", "AMD"], "finance_hard_01")
_week_report(["GOOGL", "META", "AMZN"], "finance_hard_02")
_week_report(["KO", "JPM", "TSLA", "MSFT"], "finance_hard_03")
_week_report(["NVDA", "AMD", "TSLA"], "finance_hard_04")
_week_report(["AAPL", "GOOGL", "KO", "JPM"], "finance_hard_05")


def _repo_health(repos: list[str], tid: str) -> None:
    @task(tid, "software_development", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        pairs = [r.split("/") for r in repos]
        rels = await p.step(*[("github", "list_releases", {"owner": o, "repo": n}) for o, n in pairs])
        commits = await p.step(*[("github", "list_commits", {"owner": o, "repo": n, "perPage": 5}) for o, n in pairs])
        bugs = await p.step(
            *[("github", "search_issues", {"query": f"repo:{r} is:issue is:open label:bug"}) for r in repos]
        )
        stats = {
            r: {
                "release": rel[0]["tag_name"],
                "last_commit": c[0]["commit"]["author"]["date"][:10],
                "open_bugs": b["total_count"],
            }
            for r, rel, c, b in zip(repos, rels, commits, bugs, strict=True)
        }
        code = (
            f"stats = {stats}\nworst = max(stats, key=lambda r: (stats[r]['open_bugs'], r))\n"
            "fresh = max(stats, key=lambda r: stats[r]['last_commit'])\n"
            "print('most open bugs:', worst, stats[worst]['open_bugs'])\nprint('most recent commit:', fresh)\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        worst = out["stdout"].splitlines()[0].split(": ")[1].split()[0]
        sole({r: st["open_bugs"] for r, st in stats.items()})
        fresh = out["stdout"].splitlines()[1].split(": ")[1]
        path = f"{WS}/repo-health.md"
        table = "\n".join(f"| {r} | {s['release']} | {s['last_commit']} | {s['open_bugs']} |" for r, s in stats.items())
        await p.step(
            (
                "filesystem",
                "write_file",
                {
                    "path": path,
                    "content": "# Dependency health\n\n| Repo | Latest "
                    "release | Last commit | Open bugs |\n|---|---|---|---|\n" + table + "\n",
                },
            )
        )
        o, n = worst.split("/")
        titles = [i["title"] for i in bugs[repos.index(worst)]["items"]]
        title = "Open bug backlog review"
        body = f"There are {stats[worst]['open_bugs']} open bugs: " + "; ".join(titles) + "."
        await p.step(
            ("github", "create_issue", {"owner": o, "repo": n, "title": title, "body": body, "labels": ["triage"]})
        )
        return {
            "instruction": f"We depend on {', '.join(repos)}. For each, find the latest release, the date of the "
            "most recent commit and the number of open issues labelled bug. Write a table to "
            f'{path}. Then open an issue titled "{title}" (label: triage) in the repo with the most '
            "open bugs, listing those bugs' titles in the body.",
            "checkpoints": [
                # a tag as GitHub names it (v1.8.1) or as the version it is (1.8.1)
                found("latest releases", *[s["release"] for s in stats.values()],
                      alternatives={s["release"]: [s["release"].removeprefix("v")] for s in stats.values()}),
                *[file_line(path, [r, st["release"].removeprefix("v"), st["last_commit"], st["open_bugs"]],
                            f"the row of {r}")
                  for r, st in stats.items()],
                {
                    "type": "operate",
                    "summary": f"Open the backlog issue in {worst}",
                    "server": "github",
                    "tool": "create_issue",
                    "operate_type": "create",
                    "entity": "issue",
                    "expect": {"title": title, "labels": {"$has": "triage"},
                               "body": {"$all": [{"$contains": x} for x in titles]}},
                    "parent_expect": {"full_name": worst},
                },
            ],
            "answer": "; ".join(
                f"{r}: release {s['release']}, last commit {s['last_commit']}, "
                f"{s['open_bugs']} open bug{'s' if s['open_bugs'] != 1 else ''}"
                for r, s in stats.items()
            )
            + f'. Most recently active: {fresh}. Table in {path}. Opened "{title}" in {worst} listing: '
            + "; ".join(titles)
            + ".",
            "key_points": [worst, *[s["release"] for s in stats.values()]],
        }


_repo_health(["pallets/flask", "psf/requests", "encode/httpx"], "software_hard_01")
_repo_health(["tiangolo/fastapi", "modelcontextprotocol/python-sdk", "astral-sh/ruff"], "software_hard_02")
_repo_health(["vercel/next.js", "denoland/deno", "modelcontextprotocol/typescript-sdk"], "software_hard_03")
_repo_health(["pola-rs/polars", "huggingface/transformers", "denoland/deno"], "software_hard_04")
_repo_health(["psf/requests", "tiangolo/fastapi", "pola-rs/polars"], "software_hard_05")


END = ["end", "finish", "wrap", "over", "done", "until", "till", "→", "–"]
LEAD = ["lead", "star", "top-billed", "top billed", "main", "protagonist", "plays", "headline", "first-billed"]


def clock(hhmm: str) -> list[str]:
    """A 24-hour time as a reader may also write it: without its leading zero, on the 12-hour clock."""
    h, m = int(hhmm[:2]), hhmm[3:]
    twelve = f"{h % 12 or 12}:{m}"
    half = "am" if h < 12 else "pm"
    return list(dict.fromkeys(x for x in [f"{h}:{m}", f"{twelve} {half}", f"{twelve}{half}"] if x != hhmm))


def _marathon(genre: str, start: str, zone: str, friend_zone: str, friend_city: str, tid: str) -> None:
    @task(tid, "leisure_entertainment", "hard", tz=zone)
    async def t(p: Plan) -> dict[str, Any]:
        found_ = await p.step(("tmdb", "discover_movies", {"with_genres": genre, "sort_by": "vote_average.desc"}))
        picks = found_["results"][:3]
        details = await p.step(*[("tmdb", "get_movie_details", {"movie_id": m["id"]}) for m in picks])
        credits = await p.step(("tmdb", "get_movie_credits", {"movie_id": picks[0]["id"]}))
        now = await p.step(("time", "get_current_time", {"timezone": zone}))
        runtimes = [d["runtime"] for d in details]
        code = (
            f"from datetime import datetime, timedelta\nstart = datetime.fromisoformat('{now['datetime'][:10]}T"
            f"{start}')\nruntimes = {runtimes}\ntotal = sum(runtimes) + 15 * (len(runtimes) - 1)\n"
            "print('total minutes:', total)\nprint('ends at:', (start + timedelta(minutes=total)).strftime("
            "'%Y-%m-%d %H:%M'))\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        total = out["stdout"].splitlines()[0].split(": ")[1]
        ends = out["stdout"].splitlines()[1].split(": ")[1]
        conv = await p.step(
            ("time", "convert_time", {"source_timezone": zone, "time": start, "target_timezone": friend_zone})
        )
        path = f"{WS}/{genre.lower().replace(' ', '-')}-marathon.md"
        lines = "\n".join(
            f"{i + 1}. {d['title']} ({d['release_date'][:4]}, {d['runtime']} min, rated {d['vote_average']})"
            for i, d in enumerate(details)
        )
        lead = credits["cast"][0]["name"]
        friend_at = conv["target"]["datetime"][11:16]
        end = ends[11:]
        text = (
            f"# {genre} marathon\n\n{lines}\n\nStarts {start}, ends {ends} ({total} min with 15-min breaks).\n"
            f"{friend_city} joins at {conv['target']['datetime'][11:16]} their time.\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"Tonight I want {'an' if genre[0] in 'AEIOU' else 'a'} {genre.lower()} movie marathon: "
            "the three highest-rated "
            f"{genre.lower()} films on TMDB, back to back starting at {start} with a 15-minute "
            f"break between films. When will it end, who's the lead actor of the first film, and "
            f"what time is the start for my friend in {friend_city}? Write the plan to {path}.",
            "checkpoints": [
                found("the three films", *[d["title"] for d in details]),
                # each time beside what it is (the end, the friend's start), in any clock; the lead said to lead
                found("the end time", end, alternatives={end: clock(end)}, next_to={end: [END]},
                      apart=[friend_city, "friend", "join"]),
                found("the first film's lead", lead, next_to={lead: [LEAD]},
                      apart=[c["name"] for c in credits["cast"][1:6]]),
                found(f"the start time in {friend_city}", friend_at,
                      alternatives={friend_at: [*clock(friend_at), *(["midnight"] if friend_at == "00:00" else [])]},
                      next_to={friend_at: [[friend_city, "friend", "their time", "join"]]}, apart=END),
                file_has(path, details[0]["title"], "the first film"),
                {**file_line(path, [end], "the end time"), "expect": {"path": path, "content": {"$in": [
                    {"$beside": {"of": f, "says": [END], "apart": [friend_city, "friend", "join"]}}
                    for f in [end, *clock(end)]]}}},
            ],
            "answer": "Line-up: "
            + "; ".join(f"{d['title']} ({d['runtime']} min)" for d in details)
            + f". Total {total} minutes including breaks: it starts at {start} and ends at {ends}. The first film "
            f"stars {lead}. "
            f"For your friend in {friend_city} it starts at {conv['target']['datetime'][11:16]} "
            f"({conv['target']['day_of_week']}). Plan saved to {path}.",
            "key_points": [*[d["title"] for d in details], f"ends {ends}"],
        }


_marathon("Animation", "18:30", "Asia/Tokyo", "Europe/London", "London", "leisure_hard_01")
_marathon("Science Fiction", "19:00", "Europe/London", "America/New_York", "New York", "leisure_hard_02")
_marathon("Drama", "17:45", "Asia/Singapore", "Australia/Sydney", "Sydney", "leisure_hard_03")
_marathon("Action", "20:00", "America/New_York", "Asia/Tokyo", "Tokyo", "leisure_hard_04")
_marathon("Adventure", "19:30", "Europe/Berlin", "Asia/Kolkata", "Bangalore", "leisure_hard_05")


def _brief(
    query: str,
    titles: list[str],
    code: str,
    what: str,
    path: str,
    question: str,
    tid: str,
    names: list[list[str]] | None = None,
    alternatives: dict[str, list[str]] | None = None,
    claim: tuple[str, list[str], bool] | None = None,
    about: list[list[str] | None] | None = None,
    line_words: dict[str, list[str]] | None = None,
    derive: Any = None,
) -> None:
    """``names``: the words that name each topic (its paragraph must be there, in any wording); ``alternatives``:
    other forms of a figure the question leaves open; ``claim``: the choice the question asks for (who lived
    longest), by the words an answer names the entities with; ``about``: for each printed figure, the words
    naming the topic it belongs to (None: a figure of no one topic), so that it is checked beside them."""

    @task(tid, "knowledge_research", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        await p.step(("wikipedia", "search_wikipedia", {"query": query, "limit": 5}))
        outs = await p.step(
            *[("wikipedia", "get_summary", {"title": x}) for x in titles],
            *[("wikipedia", "extract_key_facts", {"title": x}) for x in titles],
        )
        sums, facts = outs[: len(titles)], outs[len(titles) :]
        data = {f["title"]: f["facts"] for f in facts}
        out = await p.step(("code_interpreter", "execute_python_code", {"code": f"facts = {data}\n" + code}))
        lines = out["stdout"].strip().splitlines()
        values = [ln.split(": ", 1)[1] for ln in lines]
        text = (
            f"# {query.title()}\n\n"
            + "\n\n".join(f"## {s['title']}\n{s['summary']}" for s in sums)
            + "\n\n## Figures\n"
            + "\n".join(f"- {ln}" for ln in lines)
            + "\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        # a name the question gives is no finding (a figure is, even where its digits occur in the question)
        asked = [v for v in values if v.lower() not in question.lower() or any(c.isdigit() for c in v)]
        alts = dict(alternatives or {})
        for v in asked:  # a figure in e-notation (2.55e-08) is read in any notation; to one decimal it is either way
            if "e-" in v and v.replace(".", "", 1).replace("e-", "", 1).isdigit():
                m, e = v.split("e-")
                if len(m.split(".")[-1]) == 2:
                    low = f"{int(float(m) * 10) / 10:.1f}"
                    alts[v] = [*alts.get(v, []), f"{low}e-{int(e)}", f"{float(low) + 0.1:.1f}e-{int(e)}"]
        # the brief: a paragraph naming each topic (in the agent's own words) and every figure, in any form accepted
        topics = [{"$in": [{"$contains": w} for w in ws]} for ws in (names or [[x.split(" (")[0]] for x in titles])]
        owner = dict(zip(values, about or [None] * len(values), strict=True))
        # a figure given in several forms (MCP's age: 2, 1 or 1.3) is looked for on its topic's line, where a
        # stray "1" elsewhere in the brief does not count
        # ``line_words``: words a figure's line holds in the brief (a bare "12" is in any date; "12 copies" is a
        # ratio)
        owner |= {v: ws for v, ws in (line_words or {}).items() if not owner.get(v)}
        figures = [{"$line": [{"$in": owner[v]}, {"$in": [v, *alts.get(v, [])]}]} if owner[v] and (
                   alts.get(v) or v in (line_words or {})) else
                   {"$in": [{"$contains": f} for f in [v, *alts.get(v, [])]]} for v in asked]
        brief = file_has(path, asked[-1], "a paragraph per topic and the figures")
        brief["expect"]["content"] = {"$all": topics + figures}
        # asked: told, not only filed (a figure in e-notation excepted: the answer matcher does not read
        # "2.55e-08." yet, so the brief's use of it still counts)
        told = not any("e-" in v for v in asked)
        checkpoints = [found(what, *asked, alternatives=alts, claim=claim, reported=told,
                             derived=derive(data) if derive else None)]
        for v in asked:  # a figure of one topic: beside its name, not anywhere ("MCP is 5" is no age of MCP's)
            if owner[v] and v not in (line_words or {}):
                others = [w for ws in owner.values() if ws and ws != owner[v] for w in ws]
                checkpoints.append(found(f"{what}: the figure of {owner[v][0]}", v,
                                         alternatives={v: alts.get(v, [])}, beside=(owner[v], others)))
        checkpoints.append(brief)
        return {
            "instruction": question + f" Write a short brief with a paragraph per topic and the figures to {path}.",
            "checkpoints": checkpoints,
            "answer": "; ".join(lines) + f". Brief with the summaries and figures saved to {path}.",
            "key_points": lines,
        }


_brief(
    "computer science pioneers",
    ["Ada Lovelace", "Alan Turing", "Marie Curie"],
    "from datetime import date\nages = {}\nfor name, f in facts.items():\n    b, d = date.fromisoformat(f['born']),"
    " date.fromisoformat(f['died'])\n    ages[name] = d.year - b.year - ((d.month, d.day) < (b.month, b.day))\n"
    "    print(f'{name} age at death: {ages[name]}')\nprint('lived longest: ' + max(ages, key=ages.get))\n",
    "each age at death and who lived longest",
    f"{WS}/pioneers.md",
    "How old were Ada Lovelace, Alan Turing and Marie Curie when they died, and who lived the longest? Use the "
    "birth and death dates on Wikipedia.",
    "knowledge_hard_01",
    names=[["Lovelace"], ["Turing"], ["Curie"]],
    about=[["Lovelace"], ["Turing"], ["Curie"], None],
    claim=("Curie", ["Lovelace", "Turing"], True),
)
_brief(
    "capital city",
    ["Tokyo", "London", "Singapore"],
    "dens = {n: round(f['population'] / f['area_km2']) for n, f in facts.items()}\nfor n, d in dens.items():\n"
    "    print(f'{n} people per km2: {d}')\nprint('densest: ' + max(dens, key=dens.get))\n",
    "each density and the densest city",
    f"{WS}/city-density.md",
    "Compare how crowded Tokyo, London and Singapore are: people per square kilometre from Wikipedia's population "
    "and area, and which is densest.",
    "knowledge_hard_02",
    claim=("Singapore", ["Tokyo", "London"], True),
    about=[["Tokyo"], ["London"], ["Singapore"], None],
)
_brief(
    "programming language",
    ["Python (programming language)", "Rust (programming language)", "Model Context Protocol"],
    "years = {'Python': int(facts['Python (programming language)']['first_appeared']), "
    "'Rust': int(facts['Rust (programming language)']['first_appeared']), "
    "'MCP': int(facts['Model Context Protocol']['introduced'][:4])}\nfor n, y in years.items():\n"
    "    print(f'{n} age in 2026: {2026 - y}')\nprint('Python is older than Rust by: '"
    " + str(years['Rust'] - years['Python']))\n",
    "the ages and the gap",
    f"{WS}/tech-ages.md",
    "How old are Python, Rust and the Model Context Protocol as of 2026 (from when they first appeared), and how "
    "many years older is Python than Rust?",
    "knowledge_hard_03",
    names=[["Python"], ["Rust"], ["Model Context Protocol", "MCP"]],
    about=[["Python"], ["Rust"], ["MCP", "Model Context Protocol"], None],
    # MCP was introduced on 2024-11-25: in March 2026 it is 2 by calendar years, 1 (1.3) by the date
    alternatives={"2": ["1", "1.3"]},
)
_brief(
    "golden ratio",
    ["Golden ratio", "Fibonacci sequence"],
    "phi = float(facts['Golden ratio']['value'])\na, b = 0, 1\nfor _ in range(19):\n    a, b = b, a + b\n"
    "print('F(20)/F(19): ' + str(round(b / a, 10)))\nprint('difference from phi: ' + format(abs(b / a - phi), "
    "'.2e'))\n",
    "the Fibonacci ratio and its gap to phi",
    f"{WS}/golden-ratio.md",
    "Show how fast the ratio of consecutive terms of the Fibonacci sequence approaches the golden ratio: compute "
    "F(20)/F(19) and how far it is from Wikipedia's value of the golden ratio.",
    "knowledge_hard_04",
    names=[["golden ratio"], ["Fibonacci"]],
)
_brief(
    "landmark height",
    ["Mount Fuji", "Eiffel Tower"],
    "fuji, eiffel = facts['Mount Fuji']['elevation_m'], facts['Eiffel Tower']['height_m']\n"
    "print('Eiffel Towers to reach the summit of Fuji: ' + str(round(fuji / eiffel, 1)))\n"
    "print('height difference m: ' + str(fuji - eiffel))\n",
    "the ratio and the difference",
    f"{WS}/fuji-vs-eiffel.md",
    "How many copies of the Eiffel Tower stacked on top of each other would reach the summit of Mount Fuji, and "
    "what's the difference in metres? Use the heights on Wikipedia.",
    "knowledge_hard_05",
    names=[["Fuji"], ["Eiffel"]],
    alternatives={"11.4": ["12"]},  # whole towers: the twelfth is the first to reach the summit
    # the whole towers needed, worked out from the two heights
    derive=lambda f: {"12": f"ceil({f['Mount Fuji']['elevation_m']} / {f['Eiffel Tower']['height_m']})"},
    line_words={"11.4": ["cop", "stack", "times", "×", "ratio", "reach", "take", "need"]},
)


def _q1_in(cur: str, tid: str) -> None:
    @task(tid, "office", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        data = await p.step(("excel", "read_data_from_excel", {"filepath": Q1, "sheet_name": "Summary"}))
        ends = ["2026-01-31", "2026-02-28", "2026-03-11"]
        rates = await p.step(
            *[("exchange_rate", "get_exchange_rate", {"base": "USD", "target": cur, "date": d}) for d in ends]
        )
        months = {r[0]: round(sum(r[1:]), 2) for r in data["rows"][1:]}
        code = (
            f"months = {months}\nrates = {[r['rate'] for r in rates]}\nfor (m, usd), rate in zip(months.items(), "
            f"rates):\n    print(f'{{m}}: {{round(usd * rate, 2)}}')\nprint('Q1 total {cur}:', "
            "round(sum(u * r for u, r in zip(months.values(), rates)), 2))\n"
            "for m, usd in months.items():\n    print(f'{m} in USD: {usd}')\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        lines = out["stdout"].splitlines()
        conv = [float(ln.split(": ")[1]) for ln in lines[:3]]
        sheet = f"Q1 in {cur}"
        await p.step(("excel", "create_worksheet", {"filepath": Q1, "sheet_name": sheet}))
        rows = [
            ["Month", "Total USD", f"USD/{cur} rate", f"Total {cur}"],
            *[[m, u, r["rate"], c] for (m, u), r, c in zip(months.items(), rates, conv, strict=True)],
        ]
        await p.step(("excel", "write_data_to_excel", {"filepath": Q1, "sheet_name": sheet, "data": rows}))
        summed = await p.step(
            ("excel", "apply_formula", {"filepath": Q1, "sheet_name": sheet, "cell": "D5", "formula": "=SUM(D2:D4)"})
        )
        path = f"{WS}/q1-expenses-{cur.lower()}.txt"
        whole = cur in ("JPY", "KRW")  # no minor unit: a sheet kept to whole yen is as right
        total_cell = sheet_cells(Q1, sheet, {"D5": summed["value"]}, "the SUM of the converted column, by a formula",
                                 tool="apply_formula", named=True)
        # the sum of the rounded months (the gold's SUM) or the exact sum rounded (a column of formulas, or the
        # code's own total): the rounding order is the solver's
        exact = float(lines[3].split(": ")[1])
        totals = list(dict.fromkeys([summed["value"], exact]))
        total_cell["expect"]["cells.D5"] = {"$in": [{"$approx": x} for x in dict.fromkeys(
            [*totals, *([round(summed["value"]), sum(round(c) for c in conv)] if whole else [])])]}
        total_cell["expect"]["formulas.D5"] = {"$all": [{"$contains": "SUM"}, {"$contains": "D2"}, {"$contains": "D4"}]}
        memo = (
            f"Q1 expenses converted to {cur} at month-end rates: "
            + ", ".join(f"{m} {c} {cur}" for m, c in zip(months, conv, strict=True))
            + f". Total {summed['value']} {cur}. Details: sheet '{sheet}' of {Q1}.\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": memo}))
        return {
            "instruction": f"Our parent company reports in {cur}. Take each month's total spend (all categories) "
            f"from the Summary sheet of {Q1}, convert it at the USD/{cur} rate of that month's last "
            f'day (March: use 2026-03-11), and add a sheet "{sheet}" to the same workbook with '
            f"Month, Total USD, rate and Total {cur} columns plus a SUM of the {cur} column in D5. "
            f"Then drop a one-paragraph memo with the figures in {path}.",
            "checkpoints": [
                found(f"the Q1 total in {cur}", summed["value"], alternatives={summed["value"]: totals[1:]}),
                found("the monthly totals in USD", *[str(v) for v in months.values()]),
                sheet_cells(
                    Q1,
                    sheet,
                    # the instruction names the rate column only as "rate" ("Rate", "USD/EUR", "EUR per USD")
                    {
                        **text_cells(rows),
                        "C1": {"$in": [{"$contains": w} for w in ("rate", "per", f"USD/{cur}", f"{cur}/USD", "fx")]},
                        "B2": rows[1][1],
                        "D4": {"$in": [{"$approx": rows[3][3]}, {"$approx": round(rows[3][3])}]} if whole
                        else rows[3][3],
                    },
                    "the converted months",
                    tool="create_worksheet",
                    named=True,
                ),
                total_cell,
                {**file_has(path, str(summed["value"]), "each month's converted figure and the total"),
                 "expect": {"path": path, "content": {"$all": [*[{"$contains": x} for x in conv],
                                                            {"$in": [{"$contains": x} for x in totals]}]}}},
            ],
            "answer": "Monthly totals: "
            + ", ".join(f"{m} ${u} -> {c} {cur}" for (m, u), c in zip(months.items(), conv, strict=True))
            + f". Q1 total {summed['value']} {cur}. Added sheet '{sheet}' to {Q1} (SUM in D5) and the "
            f"memo {path}.",
            "key_points": [f"total {summed['value']} {cur}"],
        }


_q1_in("EUR", "office_hard_01")
_q1_in("GBP", "office_hard_02")
_q1_in("JPY", "office_hard_03")
_q1_in("SGD", "office_hard_04")


def _hn_digest(now: str, n: int, tid: str) -> None:
    @task(tid, "web_search_news", "hard", now=now)
    async def t(p: Plan) -> dict[str, Any]:
        top = await p.step(("hacker_news", "get_stories", {"story_type": "top", "num_stories": n}))
        infos = await p.step(*[("hacker_news", "get_story_info", {"story_id": int(s["id"])}) for s in top[:3]])
        user, asks = await p.step(
            ("hacker_news", "get_user_info", {"user_name": top[0]["by"]}),
            ("hacker_news", "get_stories", {"story_type": "ask", "num_stories": 3}),
        )
        code = (
            f"scores = {[s['score'] for s in top]}\ncomments = {[s['descendants'] for s in top]}\n"
            "print('average score:', round(sum(scores) / len(scores), 1))\nprint('total comments:', sum(comments))\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        avg = out["stdout"].splitlines()[0].split(": ")[1]
        path = f"{WS}/hn-digest-{now[:10]}.md"
        body = "\n".join(
            f"- {s['title']} ({s['score']} points) - first comment: {i['comments'][0]['text']}"
            for s, i in zip(top[:3], infos, strict=True)
        )
        ask = "\n".join(f"- {a['title']}" for a in asks) or "- none"
        text = (
            f"# Hacker News digest {now[:10]}\n\n{body}\n\nTop poster: {user['id']} ({user['karma']} karma)\n\n"
            f"Ask HN:\n{ask}\n\nAverage score of the top {n}: {avg}\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        # what says a story is the number one: its rank, "top", its title; the others' ranks and titles end it
        first = ["#1", "no. 1", "number one", "number 1", "top", "first", "1st", "leading", top[0]["title"]]
        later = [x for k, s in enumerate(top[1:3], 2) for x in (f"#{k}", f"no. {k}", s["title"])]
        return {
            "instruction": f"Write my morning Hacker News digest to {path}: the top three stories with their scores "
            "and first comment, who posted the number one story and their karma, the current Ask "
            f"HN threads, and the average score across the top {n}.",
            "checkpoints": [
                found("the top three", *[s["title"] for s in top[:3]]),
                # the karma beside its user, and the user said to have posted the number one story (not a poster
                # of another story named beside it)
                found("the top poster's karma", user["karma"], next_to={user["karma"]: [user["id"]]}),
                found("the average score", avg),
                found("who posted the number one story", user["id"], next_to={user["id"]: [first]}, apart=later),
                # a story's score on its line, or under its title's heading ("### 1. Title" / "Score: 1,249")
                *[{**file_line(path, [s["title"], s["score"]], f"story {k + 1} with its score"),
                   "expect": {"path": path, "content": {"$in": [{"$line": [s["title"], s["score"]]},
                                                                {"$section": [s["title"], s["score"]]}]}}}
                  for k, s in enumerate(top[:3])],
                *[file_has(path, c, "a top story's first comment") for c in dict.fromkeys(
                    " ".join(i["comments"][0]["text"].rstrip(".!?").split()[:5]) for i in infos)],
                # the first comments may read alike: each of the three is read, not the first one's copied
                {"type": "other", "summary": "the first comment of each of the top three stories read",
                 "server": "hacker_news", "tool": "get_story_info",
                 "expect_calls": [{"story_id": int(s["id"])} for s in top[:3]]},
                {**file_line(path, [user["id"], user["karma"]], "the top poster and their karma"),
                 "expect": {"path": path, "content": {"$in": [
                     {"$beside": {"of": user["id"], "says": [first, str(user["karma"])], "apart": later}},
                     {"$section": ["poster", user["id"]]}]}}},
                # an Ask HN thread's title, with or without its "Ask HN:" prefix (under an "Ask HN" heading)
                *[{**file_has(path, a["title"], "an Ask HN thread"),
                   "expect": {"path": path, "content": {"$contains": re.sub(r"^Ask HN:\s*", "", a["title"])}}}
                  for a in asks],
                file_has(path, f"{avg}", "the average score"),
            ],
            "answer": "Top stories: "
            + "; ".join(f"{s['title']} ({s['score']})" for s in top[:3])
            + f". #1 was posted by {user['id']} ({user['karma']} karma). Ask HN threads: "
            + (", ".join(a["title"] for a in asks) or "none")
            + f". Average score of the top {n}: {avg}. Digest saved to {path}.",
            "key_points": [top[0]["title"], f"average {avg}"],
        }


_hn_digest("2026-03-06T08:00:00", 5, "news_hard_01")
_hn_digest("2026-03-08T08:00:00", 6, "news_hard_02")
_hn_digest("2026-03-10T08:00:00", 8, "news_hard_03")
_hn_digest("2026-03-12T08:00:00", 10, "news_hard_04")


def _loans(loans: list[tuple[str, int, float, int]], cur: str, target: str, tid: str) -> None:
    @task(tid, "mathematics", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        annuity = {
            n: f"{amt} * ({rate} / 1200) / (1 - (1 + {rate} / 1200) ^ (-{yrs * 12}))" for n, amt, rate, yrs in loans
        }
        pays = await p.step(*[("wolfram_alpha", "calculate", {"expression": e}) for e in annuity.values()])
        pay = {n: round(x["result"], 2) for (n, *_), x in zip(loans, pays, strict=True)}
        code = (
            f"loans = {[(n, a, r, y) for n, a, r, y in loans]}\npay = {pay}\nfor n, a, r, y in loans:\n"
            "    print(f'{n} total interest: {round(pay[n] * y * 12 - a, 2)}')\n"
            "for n in pay:\n    print(f'{n} monthly payment: {pay[n]}')\n"
            "best = min(loans, key=lambda l: pay[l[0]] * l[3] * 12 - l[1])\nprint('cheapest: ' + best[0])\n"
            "print('cheapest total repaid: ' + str(round(pay[best[0]] * best[3] * 12, 2)))\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        lines = out["stdout"].splitlines()
        interest = [float(ln.split(": ")[1]) for ln in lines[: len(loans)]]
        repaid = float(lines[-1].split(": ")[1])
        book = f"{WS}/loan-comparison.xlsx"
        await p.step(("excel", "create_workbook", {"filepath": book}))
        rows = [
            ["Offer", "Amount", "Rate %", "Years", "Monthly payment", "Total interest"],
            *[[n, a, r, y, pay[n], i] for (n, a, r, y), i in zip(loans, interest, strict=True)],
        ]
        await p.step(("excel", "write_data_to_excel", {"filepath": book, "sheet_name": "Sheet1", "data": rows}))
        low = await p.step(
            (
                "excel",
                "apply_formula",
                {
                    "filepath": book,
                    "sheet_name": "Sheet1",
                    "cell": f"F{len(rows) + 1}",
                    "formula": f"=MIN(F2:F{len(rows)})",
                },
            )
        )
        conv = await p.step(
            ("exchange_rate", "convert_currency", {"amount": repaid, "from_currency": cur, "to_currency": target})
        )
        offers = "; ".join(f"{n}: {a:,} {cur} at {r}% over {y} years" for n, a, r, y in loans)
        # the same figures from the unrounded payment (a =PMT formula, a calculator kept at full precision)
        exact = {n: x["result"] for (n, *_), x in zip(loans, pays, strict=True)}
        cost = {n: exact[n] * y * 12 - a for n, a, _, y in loans}
        cheap = min(cost, key=cost.get)
        if cheap != lines[-2].split(": ")[1]:
            raise ValueError(f"the cheapest offer depends on rounding the payment: {cheap} or {lines[-2]}")
        low_x = round(cost[cheap], 2)
        repaid_x = round(cost[cheap] + next(a for n, a, *_ in loans if n == cheap), 2)
        conv_x = round(repaid_x * conv["rate"], 2)

        def either(*xs: float) -> dict[str, Any]:
            return {"$in": [{"$approx": x} for x in dict.fromkeys(xs)]}

        last = loans[-1][0]
        return {
            "instruction": f"Compare these loan offers (monthly repayments, fixed rate): {offers}. Work out each "
            "monthly payment and the total interest, put them in a new workbook "
            f"{book} (Offer, Amount, Rate %, Years, Monthly payment, Total interest) with the lowest "
            "total interest computed under the last column, and tell me what the cheapest offer "
            f"repays in total, also in {target}.",
            "checkpoints": [
                found("each monthly payment", *pay.values(), derived={pay[n]: annuity[n] for n in pay}),
                found("the lowest total interest", low["value"], alternatives={low["value"]: [low_x]}),
                found(f"the cheapest offer's total repayment in {cur}", repaid, alternatives={repaid: [repaid_x]}),
                found(f"the cheapest repayment in {target}", conv["result"], alternatives={conv["result"]: [conv_x]}),
                sheet_cells(
                    book,
                    "Sheet1",
                    {
                        **text_cells(rows),
                        # =PMT gives the payment as a negative cash flow
                        "E2": either(rows[1][4], -rows[1][4]),
                        f"F{len(rows)}": either(rows[-1][5], round(cost[last], 2)),
                    },
                    "the comparison table",
                ),
                sheet_cells(
                    book,
                    "Sheet1",
                    {f"F{len(rows) + 1}": either(low["value"], low_x)},
                    "the lowest interest",
                    tool="apply_formula",
                ),
            ],
            "answer": "; ".join(
                f"{n}: {pay[n]} {cur}/month, interest {i}" for (n, *_), i in zip(loans, interest, strict=True)
            )
            + f". Lowest total interest {low['value']} {cur}; that offer repays {repaid} {cur} = "
            f"{conv['result']} {target}. Table in {book}.",
            "key_points": [f"lowest interest {low['value']}", f"{conv['result']} {target}"],
        }


_loans(
    [("Bank A", 250000, 3.4, 25), ("Bank B", 250000, 3.1, 30), ("Credit union", 250000, 3.65, 20)],
    "USD",
    "EUR",
    "math_hard_01",
)
_loans([("Dealer", 32000, 5.9, 5), ("Bank", 32000, 4.8, 6), ("Online", 32000, 6.5, 4)], "GBP", "USD", "math_hard_02")
_loans([("Offer 1", 1800000, 2.6, 20), ("Offer 2", 1800000, 2.35, 25)], "SGD", "USD", "math_hard_03")
_loans(
    [
        ("Fixed 10", 400000, 3.95, 10),
        ("Fixed 15", 400000, 3.7, 15),
        ("Fixed 20", 400000, 3.55, 20),
        ("Fixed 30", 400000, 3.45, 30),
    ],
    "CAD",
    "USD",
    "math_hard_04",
)


# how a line may say which place was chosen
PICK_WORDS = ["pick", "choice", "chose", "recommend", "winner", "go with", "verdict", "decision", "best option"]
PICK_HEADINGS = ["recommendation", "recommended", "pick", "our pick", "choice", "verdict", "decision", "winner"]


def _weekend_pick(cities: list[str], checkin: str, checkout: str, home: str, tid: str) -> None:
    @task(tid, "travel_lifestyle", "hard")
    async def t(p: Plan) -> dict[str, Any]:
        fcs = await p.step(*[("weather", "get_forecast", {"city": c, "days": 5}) for c in cities])
        aqs = await p.step(*[("weather", "get_air_quality", {"city": c}) for c in cities])
        stays = await p.step(
            *[
                ("airbnb", "airbnb_search", {"location": c, "checkin": checkin, "checkout": checkout, "adults": 2})
                for c in cities
            ]
        )
        facts, tied, loose = {}, {}, {}
        for c, fc, aq, st in zip(cities, fcs, aqs, stays, strict=True):
            days = [d for d in fc["forecast"]["forecastday"] if checkin <= d["date"] < checkout]
            # "our nights" may be read with the day we leave: its rain and top temperature are right too
            out_day = [d for d in fc["forecast"]["forecastday"] if checkin <= d["date"] <= checkout]
            loose[c] = {"rain": max(d["chance_of_rain"] for d in out_day), "max": max(d["max_temp_c"] for d in out_day)}
            # the cheapest stay is the lowest total for our nights (cleaning included), not the first listing
            low = min(x["price"]["total"] for x in st["searchResults"])
            names = [x["name"] for x in st["searchResults"] if x["price"]["total"] == low]
            facts[c] = {
                "rain": max(d["chance_of_rain"] for d in days),
                "max": max(d["max_temp_c"] for d in days),
                "aqi": aq["air_quality"]["aqi"],
                "stay": low,
                "name": names[0],
            }
            tied[c] = names[1:]  # listings as cheap: any of them is the cheapest
        code = (
            f"facts = {facts}\nok = [c for c, f in facts.items() if f['rain'] < 60]\n"
            "pool = ok or list(facts)\npick = min(pool, key=lambda c: facts[c]['stay'])\n"
            "for c, f in facts.items():\n    print(f\"{c}: rain {f['rain']}%, max {f['max']} C, AQI {f['aqi']}, "
            "stay ${f['stay']}\")\nprint('pick: ' + pick)\nprint('stay: ' + str(facts[pick]['stay']))\n"
        )
        out = await p.step(("code_interpreter", "execute_python_code", {"code": code}))
        pick = out["stdout"].splitlines()[-2].split(": ")[1]
        dry = {c: f["stay"] for c, f in facts.items() if f["rain"] < 60} or {c: f["stay"] for c, f in facts.items()}
        sole(dry, min)
        wide = {c: f["stay"] for c, f in facts.items() if loose[c]["rain"] < 60} or dry
        if sole(wide, min) != pick:
            raise ValueError(f"the pick depends on whether 'our nights' take in the day we leave: {wide}")
        conv = await p.step(
            (
                "exchange_rate",
                "convert_currency",
                {"amount": facts[pick]["stay"], "from_currency": "USD", "to_currency": home},
            )
        )
        path = f"{WS}/weekend-pick.md"
        text = (
            "# Weekend options\n\n"
            + "\n".join(f"- {ln}" for ln in out["stdout"].splitlines()[: len(cities)])
            + f"\n\nPick: {pick} - {facts[pick]['name']}, ${facts[pick]['stay']} = {conv['result']} {home}\n"
        )
        await p.step(("filesystem", "write_file", {"path": path, "content": text}))
        return {
            "instruction": f"We (2 adults) want a weekend away from {checkin} to {checkout} and are torn between "
            f"{', '.join(cities)}. For each, check the forecast for our nights (highest chance of "
            "rain and top temperature), today's air quality and the cheapest Airbnb. Pick the "
            "cheapest place among those where the rain chance stays under 60% (if none does, just "
            f"the cheapest), give its cost in {home}, and write the comparison to {path}.",
            "checkpoints": [
                # each city's figures beside its name: another city's AQI given for it is no fact about it
                *[found(f"{c}: the highest chance of rain and top temperature over our nights, today's air quality "
                        "and the cheapest stay", f"{f['rain']}%", f["max"], f["aqi"], f"${f['stay']}",
                        beside=([c], [o for o in cities if o != c]),
                        alternatives={f"{f['rain']}%": [f"{loose[c]['rain']}%"] if loose[c]["rain"] != f["rain"]
                                      else [], f["max"]: [loose[c]["max"]] if loose[c]["max"] != f["max"] else []})
                  for c, f in facts.items()],
                found("the chosen listing", facts[pick]["name"], alternatives={facts[pick]["name"]: tied[pick]}),
                found(f"its cost in {home}", conv["result"]),
                # the pick on a line saying so, or under a heading saying so ("## Recommendation" / "Hong Kong - ...")
                {**file_line(path, [pick, {"$in": PICK_WORDS}], "the pick"), "expect": {"path": path, "content": {
                    "$in": [{"$line": [pick, {"$in": PICK_WORDS}]},
                            *[{"$section": [h, pick]} for h in PICK_HEADINGS]]}}},
                file_line(path, [cities[0], f"${facts[cities[0]]['stay']}"], "the first city's stay"),
            ],
            "answer": "; ".join(
                f"{c}: rain up to {f['rain']}%, max {f['max']} °C, AQI {f['aqi']}, cheapest stay ${f['stay']}"
                for c, f in facts.items()
            )
            + f". Pick: {pick} ({facts[pick]['name']}, ${facts[pick]['stay']} = {conv['result']} {home}). "
            f"Comparison saved to {path}.",
            "key_points": [pick, facts[pick]["name"]],
        }


_weekend_pick(["Tokyo", "Seoul", "Hong Kong"], "2026-03-13", "2026-03-15", "CNY", "travel_hard_06")
_weekend_pick(["Singapore", "Hong Kong", "Tokyo"], "2026-03-14", "2026-03-16", "SGD", "travel_hard_07")
_weekend_pick(["London", "Tokyo", "Seoul"], "2026-03-13", "2026-03-16", "GBP", "travel_hard_08")
_weekend_pick(["Seoul", "Singapore", "London"], "2026-03-15", "2026-03-17", "KRW", "travel_hard_09")
