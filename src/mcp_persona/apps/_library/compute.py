"""The computed parts of library tools, by name: what a filter or a lookup alone cannot give (a fare
for a number of nights, a route between two addresses, a sum over ingredients). Each function gets
the episode, the call's arguments and the records its checks found, and returns fields to add (or,
for a ``compute`` tool, the whole result)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp_persona.apps._normalize import same_name, terms
from mcp_persona.apps.base import AppEnv, ToolFailure

Args = dict[str, Any]
Refs = dict[str, Any]
_FUNCS: dict[str, Callable[[AppEnv, Args, Refs], dict[str, Any]]] = {}


def register(fn: Callable[[AppEnv, Args, Refs], dict[str, Any]]) -> Callable[[AppEnv, Args, Refs], dict[str, Any]]:
    _FUNCS[fn.__name__] = fn
    return fn


def names() -> list[str]:
    return sorted(_FUNCS)


def run(name: str, env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    if name not in _FUNCS:
        raise KeyError(f"no computed field function {name!r}")
    return _FUNCS[name](env, args, refs)


def _table(env: AppEnv, name: str) -> list[dict[str, Any]]:
    data = env.tree.data.get(name)
    return list(data.values()) if isinstance(data, dict) else []


def _date(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolFailure(f"{field}: {value!r} is not a date in YYYY-MM-DD form", kind="type") from None


def _span(args: Args, start: str, end: str) -> int:
    days = (_date(args[end], end) - _date(args[start], start)).days
    if days <= 0:
        raise ToolFailure(f"{end} must be after {start}", kind="range")
    return days


def _number(args: Args, field: str) -> float:
    """A number the real tool takes as text ("1.5")."""
    try:
        value = float(args[field])
    except (TypeError, ValueError):
        raise ToolFailure(f"{field}: {args[field]!r} is not a number", kind="type") from None
    if not math.isfinite(value):
        raise ToolFailure(f"{field}: must be a finite number", kind="range")
    return value


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


def _stable(*parts: Any) -> int:
    return int(hashlib.sha256(repr(parts).encode()).hexdigest(), 16)


# -- travel ------------------------------------------------------------------------------------------------
@register
def stay_quote(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    nights = _span(args, "checkinDate", "checkoutDate")
    hotels = refs["__result__"]["results"]
    return {"nights": nights, "quotes": [{"hotel_id": h["hotel_id"], "name": h["name"],
                                          "total_price": h["price_per_night"] * nights} for h in hotels]}


@register
def round_trip_fares(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    if args.get("type") == "round_trip" and not args.get("return_date"):
        raise ToolFailure("return_date is required for a round_trip search", kind="missing")
    if args.get("type") != "round_trip" and args.get("return_date"):
        raise ToolFailure("return_date is only for a round_trip search; leave it out of a one_way search",
                          kind="conflict")
    if args.get("return_date"):
        _span(args, "departure_date", "return_date")  # a real date, after the departure
    legs = 2 if args.get("type") == "round_trip" else 1
    out: dict[str, Any] = {"fares": [{"flight_id": f["flight_id"], "total_fare": f["fare"] * legs}
                                     for f in refs["__result__"]["results"]]}
    if args.get("return_date"):
        out["return_date"] = args["return_date"]
    return out


def _place(env: AppEnv, address: str, field: str) -> dict[str, Any]:
    for p in _table(env, "places"):
        if same_name(address, p["address"]) or same_name(address, p["name"]):
            return p
    raise ToolFailure(f"{field}: address {address!r} not found", kind="not_found")


def _km(a: dict[str, Any], b: dict[str, Any]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (a["lat"], a["lng"], b["lat"], b["lng"]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 6371 * 2 * math.asin(math.sqrt(h))


@register
def driving_route(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    a = _place(env, args["origin_address"], "origin_address")
    b = _place(env, args["destination_address"], "destination_address")
    road_km = round(_km(a, b) * 1.3, 1)  # roads wind: about a third longer than the straight line
    return {"origin": a["address"], "destination": b["address"], "distance_km": road_km,
            "duration_min": round(road_km / 45 * 60)}


@register
def terrain_elevation(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    here = {"lat": args["latitude"], "lng": args["longitude"]}
    if not (-90 <= here["lat"] <= 90 and -180 <= here["lng"] <= 180):
        raise ToolFailure("latitude must be within ±90 and longitude within ±180", kind="range")
    point = min(_table(env, "elevations"), key=lambda p: _km(here, p))
    metres = point["elevation_m"]
    value = round(metres * 3.28084, 1) if args["unit"] == "feet" else metres
    return {"latitude": args["latitude"], "longitude": args["longitude"], "elevation": value,
            "unit": args["unit"], "nearest_landmark": point["name"]}


@register
def world_time(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    out = []
    for tz in args["timezone"]:
        try:
            local = env.clock.current().astimezone(ZoneInfo(tz))
        except (ZoneInfoNotFoundError, ValueError):
            raise ToolFailure(f"timezone: {tz!r} is not an IANA time zone", kind="range") from None
        out.append({"timezone": tz, "datetime": local.isoformat(timespec="minutes"),
                    "utc_offset": local.strftime("%z")})
    return {"times": out}


@register
def countdown(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    days = _span(args, "StartDate", "EndDate")
    today = env.clock.current().date()
    left = (_date(args["EndDate"], "EndDate") - today).days
    return {"event": args["Ele"], "total_days": days, "days_remaining": max(left, 0),
            "on_finish": args.get("EndFunc") or "notify"}


# -- food and health -----------------------------------------------------------------------------------------
@register
def nutrition_totals(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    known = _table(env, "ingredients")
    found = {x: next((i for i in known if same_name(x, i["name"])), None) for x in args["ingredient_list"]}
    missing = [x for x, row in found.items() if row is None]
    if missing:
        raise ToolFailure(f"ingredient_list: unknown ingredients {missing}", kind="not_found")
    rows = [found[x] for x in args["ingredient_list"]]
    totals = {k: round(sum(r[k] for r in rows), 1) for k in ("kcal", "protein_g", "fat_g", "carbs_g")}
    return {"per_ingredient": rows, "totals_per_100g_each": totals}


@register
def adme_profile(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    smile = args["smile"]
    if not re.fullmatch(r"[A-Za-z0-9@+\-\[\]()=#/\\%.]+", smile):
        raise ToolFailure("smile: not a SMILES string", kind="type")
    atoms = re.findall(r"Cl|Br|[CNOSPFI]|[cnos]", smile)
    weights = {"C": 12.011, "N": 14.007, "O": 15.999, "S": 32.06, "P": 30.974, "F": 18.998, "I": 126.9,
               "Cl": 35.45, "Br": 79.904}
    heavy = sum(weights[a.upper() if len(a) == 1 else a] for a in atoms)
    carbons = sum(1 for a in atoms if a in "Cc")
    hetero = len(atoms) - carbons
    mw = round(heavy + 1.008 * max(0, 2 * carbons + 2 - hetero), 2)
    logp = round(0.5 * carbons - 0.7 * hetero, 2)
    donors = len(re.findall(r"O(?![=])|N(?![=])", smile)) // 2
    return {"smile": smile, "molecular_weight": mw, "logP_estimate": logp, "h_bond_donors": donors,
            "h_bond_acceptors": hetero, "lipinski_pass": mw <= 500 and logp <= 5 and donors <= 5 and hetero <= 10}


# -- media and leisure -------------------------------------------------------------------------------------
@register
def similar_tracks(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    songs = _table(env, "songs")
    seeds = [s for s in songs if any(same_name(m, s["title"]) for m in args["music_name"])]
    if not seeds:
        raise ToolFailure(f"music_name: none of {args['music_name']} is in the catalogue", kind="not_found")
    genres = {s["genre"] for s in seeds}
    pool = [s for s in songs if s["genre"] in genres and s not in seeds]
    pool.sort(key=lambda s: -s["popularity"])
    return {"seed_genres": sorted(genres), "tracks": pool[: args["result_num"]]}


@register
def audio_edit(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    source = refs["audio_file"]
    duration = source["duration_s"]
    if "speed_factor" in args:
        factor = _number(args, "speed_factor")
        if not 0.25 <= factor <= 4:
            raise ToolFailure("speed_factor must be between 0.25 and 4", kind="range")
        duration = round(duration / factor, 1)
    if "start_time" in args:
        start, end = _number(args, "start_time"), _number(args, "end_time")
        if not 0 <= start < end <= duration:
            raise ToolFailure(f"start_time/end_time must satisfy 0 <= start < end <= {duration}", kind="range")
        duration = round(end - start, 1)
    stem = source["file"].rsplit(".", 1)
    return {"source": source["file"], "output_file": f"{stem[0]}_edited.{stem[-1]}", "duration_s": duration}


@register
def dice_roll(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    sides, count = args["sides"], args["count"]
    seed = _stable(sides, count, args["modifier"], args["roll_type"])
    rolls = [(seed >> (8 * i)) % sides + 1 for i in range(count)]  # reproducible: same call, same roll
    kept = {"advantage": [max(rolls)], "disadvantage": [min(rolls)]}.get(args["roll_type"], rolls)
    return {"rolls": rolls, "kept": kept, "modifier": args["modifier"], "total": sum(kept) + args["modifier"]}


_EDITION = re.compile(r"(\d+(?:\.\d+)?)\s*(?:e\b|ed\b|(?:st|nd|rd|th)?\s*edition\b)", re.IGNORECASE)


def _edition(text: str) -> str:
    """A rules edition as the rules engine reads it: ``"D&D 5e"``, ``"5E"``, ``"5th edition"`` are ``"5e"``;
    ``"3.5e"`` stays ``"3.5e"``; text naming no numbered edition is kept as written."""
    m = _EDITION.search(text)
    return f"{m.group(1)}e" if m else text


_CANONICAL: dict[str, Callable[[str], str]] = {"edition": _edition}


@register
def guidance(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """Advice entries whose keywords occur in the request, best first; a plan id for follow-ups.

    The reply is about the advice it gives, not the words of the request: the plan id is derived from the
    advice entries (the same advice, the same plan), a free-text argument (a question, a situation: the tool's
    ``free_text`` parameters) is answered by what it matches and not echoed, and the other arguments (settings
    such as a schedule or an edition) are echoed as the engine reads them (``"D&D 5e"`` as ``"5e"``)."""
    words = _words(" ".join(str(v) for v in args.values()))
    scored = [(len(words & set(g["keywords"])), g) for g in _table(env, "guides")]
    hits = [g for n, g in sorted(scored, key=lambda x: -x[0]) if n > 0][:4]
    if not hits:
        raise ToolFailure("no guidance matches this request; name the technologies or topic", kind="not_found")
    tool = refs.get("__tool__")
    free = {n for n, p in tool.params.items() if p.free_text} if tool is not None else set()
    request = {k: _CANONICAL[k](v) if k in _CANONICAL and isinstance(v, str) else v
               for k, v in args.items() if k not in free}
    topics = [g["topic"] for g in hits]
    out: dict[str, Any] = {"plan_id": f"PLAN-{_stable(tuple(topics)) % 10**6:06d}"}
    if request:
        out["request"] = request
    return out | {"recommendations": [{"topic": g["topic"], "advice": g["advice"]} for g in hits]}


# -- home and money ------------------------------------------------------------------------------------
@register
def free_slots(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    busy = sorted((e["startTime"], e["endTime"]) for e in _table(env, "events") if e["startDate"] == args["date"])
    slots, cursor = [], "09:00"
    for start, end in [*busy, ("18:00", "18:00")]:
        if start > cursor:
            slots.append({"start": cursor, "end": start})
        cursor = max(cursor, end)
    return {"date": args["date"], "busy": [{"start": s, "end": e} for s, e in busy], "free": slots}


@register
def balance_after(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    account = next(iter(refs.values()))
    owed = account.get("amount_due", account.get("balance", 0))
    return {"previous": owed, "after": round(owed - args["amount"], 2)}


@register
def card_topup(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    card = refs["card_number"]
    if card["status"] != "active":
        raise ToolFailure(f"card {card['card_number']} is {card['status']}", kind="conflict")
    return {"balance": round(card["balance"] + args["amount"], 2)}


@register
def pass_renewal(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    member = refs["member_id"]
    y, m = map(int, member["expires"][:7].split("-"))
    m += args["renewal_term"]
    y, m = y + (m - 1) // 12, (m - 1) % 12 + 1
    return {"expires": f"{y:04d}-{m:02d}{member['expires'][7:]}", "fee": member["monthly_fee"] * args["renewal_term"]}


@register
def wallet_transfer(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    wallet = next((a for a in _table(env, "accounts") if a["account_type"] == "checking"), None)
    if wallet is None or wallet["balance"] < args["amount"]:
        raise ToolFailure("amount exceeds the checking balance", kind="conflict")
    return {"from_account": wallet["account_type"], "fee": round(args["amount"] * 0.001, 2)}


# -- professional ------------------------------------------------------------------------------------------
@register
def sql_run(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    m = re.search(r"\bfrom\s+`?([\w.]+)`?", args["query"], re.IGNORECASE)
    if m is None:
        raise ToolFailure("query: no FROM clause (only SELECT queries are supported)", kind="range")
    name = m.group(1).split(".")[-1]
    found = [t for t in _table(env, "bq_tables") if t["table"] == name and t["project_id"] == args["project_id"]]
    if not found:
        raise ToolFailure(f"table {name!r} not found in project {args['project_id']!r}", kind="not_found")
    rows = found[0]["rows"]
    limit = re.search(r"\blimit\s+(\d+)", args["query"], re.IGNORECASE)
    shown = rows[: int(limit.group(1))] if limit else rows
    return {"project_id": args["project_id"], "table": name, "row_count": len(shown), "rows": shown}


@register
def rank_documents(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    q = _words(args["query"])
    scored = [(len(q & _words(d["text"])) / (len(q) or 1), d) for d in _table(env, "documents")]
    hits = [{"doc_id": d["doc_id"], "title": d["title"], "score": round(s, 3)}
            for s, d in sorted(scored, key=lambda x: (-x[0], x[1]["doc_id"])) if s > 0]
    return {"query": args["query"], "matches": hits[: args["limit"]]}


@register
def dataset_stats(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    data = next(iter(refs.values()))
    totals: dict[str, float] = {}
    for row in data["rows"]:
        totals[row["group"]] = round(totals.get(row["group"], 0) + row["value"], 2)
    best = max(totals, key=lambda k: totals[k])
    return {"dataset": data["name"], "metric": data["metric"], "total": round(sum(totals.values()), 2),
            "by_group": totals, "top_group": best}


@register
def port_scan(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    host = refs["host"]
    wanted: set[int] = set()
    for part in args["ports"].split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ToolFailure(f"ports: {args['ports']!r} is not a list of ports or ranges (22,80,1000-2000)",
                              kind="type")
        first, last = int(lo), int(hi or lo)
        if not 0 < first <= last <= 65535:
            raise ToolFailure(f"ports: {part.strip()!r} is not a port range within 1-65535", kind="range")
        wanted.update(range(first, last + 1))
    scan = nmap_flags(args.get("arguments", ""))
    ports = [p for p in host["open_ports"] if p["port"] in wanted]
    if scan["scan_type"] == "udp":
        ports = []  # the hosts' listed services are all TCP
    if not scan["version_detection"]:  # without -sV nmap names a port's usual service, marked as a guess
        ports = [{"port": p["port"], "state": "open", "service": f"{p['service']}?"} for p in ports]
    return {"host": host["host"], **scan, "open_ports": ports}


@register
def secret_view(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    secret = refs["secret_name"]
    if args["mask_sensitive"] and args["confirm_unmask"] == "yes":
        raise ToolFailure("confirm_unmask 'yes' asks to unmask, but mask_sensitive is true: set mask_sensitive to "
                          "false to see the value, or confirm_unmask to 'no'", kind="conflict")
    if not args["mask_sensitive"] and args["confirm_unmask"] != "yes":
        raise ToolFailure("unmasking a secret needs confirm_unmask 'yes' (or keep mask_sensitive true)",
                          kind="permission")
    reveal = not args["mask_sensitive"]
    value = secret["value"] if reveal else secret["value"][:3] + "*" * (len(secret["value"]) - 3)
    return {"name": secret["name"], "value": value, "masked": not reveal, "rotated_at": secret["rotated_at"]}


@register
def movement(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    changes = {k: args[k] for k in ("color", "rotation", "scale", "animate") if k in args}
    return {"modified": sorted(changes)}


@register
def zone_alerts(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    severity = args.get("severity", "all")
    found = [a for a in _table(env, "alerts") if same_name(a["zone"], args["zone"])
             and severity in ("all", a["severity"])]
    return {"zone": args["zone"], "severity": severity, "alerts": sorted(found, key=lambda a: a["date"], reverse=True)}


@register
def refill_check(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    rx = refs["prescription_id"]
    if rx["patient_dob"] != args["patient_dob"]:
        raise ToolFailure("patient_dob does not match the prescription's patient", kind="permission")
    if rx["refills_left"] < 1:
        raise ToolFailure(f"prescription {rx['prescription_id']} has no refills left; ask the prescriber",
                          kind="conflict")
    return {"drug": rx["drug"], "refills_left_after": rx["refills_left"] - 1, "status": "ready in 2 hours"}


@register
def best_price(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    prices = refs["__result__"]["prices"]
    store = min(prices, key=lambda s: prices[s])
    return {"best_store": store, "best_price": prices[store]}


@register
def launch_posts(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    _date(args["posted_after"], "posted_after")
    _date(args["posted_before"], "posted_before")
    found = [p for p in _table(env, "posts") if same_name(p["topic"], args["topic"])
             and (args["featured"] == "false" or p["featured"] == "true")
             and args["posted_after"] <= p["posted"] <= args["posted_before"]]
    found.sort(key=lambda p: -p["votes"] if args["order"] == "votes" else p["posted"], reverse=args["order"] != "votes")
    return {"posts": found[: args["count"]]}


@register
def page_view(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    page = refs["url"]
    return {"title": page["title"], "available_actions": page["actions"]}


@register
def page_action(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    tabs = _table(env, "tabs")
    if not tabs:
        raise ToolFailure("no page is open; navigate to a page first", kind="conflict")
    page = tabs[-1]
    action = page_action_meant(args["action"], page["available_actions"])
    if action is None:
        raise ToolFailure(f"action: {args['action']!r} is not possible on {page['url']} "
                          f"(possible: {', '.join(page['available_actions']) or 'none'})", kind="range")
    return {"action": action, "variables": args.get("variables") or {}, "page": page["url"], "result": "done"}


def page_action_meant(text: str, possible: list[str]) -> str | None:
    """The page's action an instruction asks for, as a browser agent reads it: the possible action whose every
    word (stemmed, stop-words aside) the instruction holds, the most specific if several do
    (``"click the checkout button"`` is ``"click checkout"``; ``"type %email% into the email field"`` is
    ``"type email"``); None when none does, or two equally specific ones do (``"click cancel"``)."""
    if text in possible:
        return text
    have = set(terms(text))
    fits = sorted((a for a in possible if set(terms(a)) <= have), key=lambda a: -len(terms(a)))
    if not fits or (len(fits) > 1 and len(terms(fits[0])) == len(terms(fits[1]))):
        return None
    return fits[0]


@register
def new_blog_post(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    post = {k: args[k] for k in ("id", "title", "content", "status", "category", "tags", "date")}
    return env.tree.create("blog_posts", post)


@register
def company_peers(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """The seed's peers by name and headquarters; their other facts are the research agent's to give."""
    seed = refs["seed_company"]
    known = {c["company"]: c for c in _table(env, "companies")}
    peers = [{"company": p, **({"hq": known[p]["hq"]} if p in known else {})} for p in seed["peers"][: args["limit"]]]
    return {"seed_company": seed["company"], "peers": peers}


@register
def company_facts(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    known = _table(env, "companies")
    out = []
    for name in args["companies"]:
        c = next((k for k in known if same_name(name, k["company"])), None)
        if c is None:
            raise ToolFailure(f"companies: no data on {name!r}", kind="not_found")
        unknown = [f for f in args["fields"] if f not in c]
        if unknown:
            raise ToolFailure(f"fields: unknown facts {unknown} (known: founded, employees, revenue_b, hq, peers)",
                              kind="range")
        out.append({"company": c["company"], **{f: c[f] for f in args["fields"]}})
    return {"companies": out}


@register
def granules(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    _date(args["start_date"], "start_date")
    _date(args["end_date"], "end_date")
    coords = args["coordinates"]
    if len(coords) != 2:
        raise ToolFailure("coordinates must be [latitude, longitude]", kind="range")
    found = [p for p in _table(env, "data_products") if same_name(p["data_type"], args["data_type"])
             and abs(p["lat"] - coords[0]) < 0.5 and abs(p["lng"] - coords[1]) < 0.5
             and p["start"] <= args["end_date"] and p["end"] >= args["start_date"]]
    return {"granules": [p["granule"] for p in found], "count": len(found)}


@register
def new_scene(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    objects = [{"name": str(k), "type": str(v)} for k, v in args["objects"].items()]
    scene = {"scene_name": args["scene_name"], "gravity": args["gravity"], "floor": args["floor"], "objects": objects}
    return env.tree.create("scenes", scene)


# -- modifiers the real tools honour ---------------------------------------------------------------------
# Each argument a tool accepts changes its answer or is refused with a message: a ruleset selects rules,
# a format shapes the output, a data source or market changes the quote, a flag changes the scan.
SEMGREP_RULESETS: dict[str, frozenset[str] | None] = {
    "auto": None, "p/default": None, "p/ci": None, "p/security-audit": None,  # None: every rule
    "p/owasp-top-ten": frozenset({"sql-injection", "hardcoded-secret", "path-traversal"}),
    "p/secrets": frozenset({"hardcoded-secret"}),
    "p/sql-injection": frozenset({"sql-injection"}),
    "p/golang": frozenset({"unchecked-error"}),
    "p/python": frozenset({"sql-injection", "hardcoded-secret", "broad-except"}),
    "p/javascript": frozenset({"path-traversal"}),
}
_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}


@register
def sast_scan(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """Findings of ``ruleset`` on the file, in ``output_format``; the config file must be a YAML or JSON
    Semgrep config (its rules are the ruleset's: the simulated scanner has no others)."""
    ruleset = args["ruleset"].strip()
    if ruleset not in SEMGREP_RULESETS:
        raise ToolFailure(f"ruleset: unknown ruleset {ruleset!r} (known: {', '.join(sorted(SEMGREP_RULESETS))})",
                          kind="range")
    config = args["config_file"].strip()
    if not config.endswith((".yml", ".yaml", ".json")):
        raise ToolFailure(f"config_file: {config!r} is not a Semgrep config (a .yml, .yaml or .json file)",
                          kind="range")
    rules = SEMGREP_RULESETS[ruleset]
    found = [i for i in refs["path"]["issues"] if rules is None or i["rule"] in rules]
    path = refs["path"]["path"]
    fmt = args["output_format"]
    if fmt == "sarif":
        results = [{"ruleId": i["rule"], "level": _SARIF_LEVEL.get(i["severity"], "warning"),
                    "properties": {"severity": i["severity"]},
                    "locations": [{"physicalLocation": {"artifactLocation": {"uri": path},
                                                        "region": {"startLine": i["line"]}}}]} for i in found]
        return {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "semgrep", "ruleset": ruleset,
                                                                  "config": config}}, "results": results}]}
    if fmt == "text":
        lines = [f"{path}:{i['line']}: {i['severity']}: {i['rule']}" for i in found]
        return {"path": path, "ruleset": ruleset, "config": config,
                "text": "\n".join(lines) or f"{path}: no findings"}
    return {"path": path, "ruleset": ruleset, "config": config, "issues": found}


IEX_VOLUME_SHARE = 0.025  # IEX's own trades are a few percent of the consolidated (SIP) volume
_QUOTE_FIELDS = ("price", "change_pct", "volume")


@register
def live_quotes(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """Quotes for the symbols from ``source`` (``sip``: every exchange's volume; ``iex``: IEX's own trades
    only), restricted to ``fields`` and to a ``market`` (a country code such as US or an exchange)."""
    fields = args.get("fields") or list(_QUOTE_FIELDS)
    unknown = [f for f in fields if f not in _QUOTE_FIELDS]
    if unknown:
        raise ToolFailure(f"fields: unknown fields {unknown} (known: {', '.join(_QUOTE_FIELDS)})", kind="range")
    stocks = _table(env, "stocks")
    market = args.get("market")
    out = []
    for symbol in args["symbols"]:
        s = next((r for r in stocks if same_name(symbol, r["ticker"])), None)
        if s is None:
            known = ", ".join(r["ticker"] for r in stocks)
            raise ToolFailure(f"symbols: no stocks record with ticker {symbol!r} (known: {known})", kind="not_found")
        if market is not None and not _on_market(s, market):
            raise ToolFailure(f"symbols: {s['ticker']} does not trade on market {market!r} (it trades on "
                              f"{s['exchange']})", kind="conflict")
        quote = {"price": s["price"], "change_pct": s["change_pct"], "volume": s["volume"]}
        if args["source"] == "iex":
            quote["volume"] = round(s["volume"] * IEX_VOLUME_SHARE)
        out.append({"ticker": s["ticker"], **{f: quote[f] for f in fields}})
    return {"source": args["source"], "results": out}


_US_EXCHANGES = {"NASDAQ", "NYSE", "AMEX", "ARCA"}
_COUNTRY_EXCHANGES = {"US": _US_EXCHANGES, "JP": {"TSE"}}


def _on_market(stock: dict[str, Any], market: str) -> bool:
    m = market.strip().upper()
    return stock["exchange"].upper() == m or stock["exchange"].upper() in _COUNTRY_EXCHANGES.get(m, set())


@register
def api_base_url(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """The request goes to ``url``: it must be the API's base URL (or that URL with the endpoint)."""
    api = next((a for a in _table(env, "apis") if same_name(a["name"], args["apiName"])), None)
    if api is None:
        return {}
    url = args["url"].strip().rstrip("/").casefold()
    base = api["base_url"].rstrip("/").casefold()
    if url not in (base, base + args["endpoint"].rstrip("/").casefold()):
        raise ToolFailure(f"url: {args['url']!r} is not the base URL of {api['name']} ({api['base_url']})",
                          kind="conflict")
    return {"url": api["base_url"].rstrip("/") + args["endpoint"]}


_NMAP_TIMING = {f"-T{i}": name for i, name in enumerate(("paranoid", "sneaky", "polite", "normal", "aggressive",
                                                          "insane"))}
_NMAP_SCAN = {"-sS": "syn", "-sT": "connect", "-sU": "udp"}
_NMAP_FLAGS = {"-sV", "-Pn", "-n", "-v", "--open", *_NMAP_TIMING, *_NMAP_SCAN}


def nmap_flags(text: str) -> dict[str, Any]:
    """The scan a flag string asks for: scan type, timing, version detection; unsupported flags refused."""
    flags = text.split()
    bad = [f for f in flags if f not in _NMAP_FLAGS]
    if bad:
        raise ToolFailure(f"arguments: unsupported nmap flags {bad} (supported: {', '.join(sorted(_NMAP_FLAGS))})",
                          kind="range")
    scan = next((_NMAP_SCAN[f] for f in flags if f in _NMAP_SCAN), "syn")
    timing = next((_NMAP_TIMING[f] for f in flags if f in _NMAP_TIMING), "normal")
    return {"scan_type": scan, "timing": timing, "version_detection": "-sV" in flags}


@register
def wolfram_answer(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """``format`` shapes the answer (``image``: a rendered pod per result instead of text); a ``location``
    is the assumption the engine states it used, as Wolfram|Alpha's answers do."""
    out: dict[str, Any] = {"format": args.get("format", "plaintext")}
    if out["format"] == "image":
        out["results"] = [{"fact_id": r["fact_id"], "topic": r["topic"],
                           "image": f"https://www.wolframalpha.com/pod/{r['fact_id']}.gif"}
                          for r in refs["__result__"]["results"]]
    if args.get("location"):
        out["assumptions"] = {"location": args["location"]}
    return out


@register
def conversation_turn(env: AppEnv, args: Args, refs: Refs) -> dict[str, Any]:
    """The conversation a search belongs to, so that a follow-up can name it (default: a new one, 0)."""
    return {"conversation_id": args.get("conversation_id", 0)}
