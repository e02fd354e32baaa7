"""The 12306 train-ticket server (``12306-mcp``): stations, timetables and fares that agree.

The generic engine answers every tool from one record list; a ticket query needs more than that, so
this server keeps the engine's machinery (schema check, transaction, envelopes) and answers its eight
tools itself, over the shipped stations and trains (``datasets.json``: each train has its stops and
its second-class fare over the whole route):

* ``get-current-date``: the task's date in Shanghai time (tickets are sold in China's time);
* ``get-stations-code-in-city`` / ``get-station-code-of-citys`` / ``get-station-code-by-names`` /
  ``get-station-by-telecode``: telecodes for a city (all its stations, or its main one), for station
  names, and the station of a telecode; names may be Chinese or English, several joined by ``|``;
* ``get-tickets``: the trains from one city to another on a date, as the 12306 left-ticket query
  answers (a station stands for its city: ``BJP`` also finds trains leaving ``VNP``), with times,
  duration and the fare between the two stations each train actually serves; filter flags, sort and
  limit applied;
* ``get-interline-tickets``: journeys with one change (at ``middleStation`` or any station);
* ``get-train-route-stations``: a train's stops between two of its stations on a date, with the fare
  of that part of the route.

Dates must be within the booking window (today to 14 days ahead, 12306's presale period); a station
a train does not serve, an unknown name or code, or a date outside the window is an error that says
what is accepted. A date is taken only as the real server takes it, ``YYYY-MM-DD`` (its schema wants
exactly ten characters); one in another form ("May 8, 2026", "2026-05-08T09:00:00") is refused with that
form named, not with the schema's bare "is too long". Fares for part of a route are the route's fare in
proportion to the distance.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from mcp_persona.apps._normalize import fold, same_name
from mcp_persona.apps.base import AppEnv, FieldViolation, ToolFailure
from mcp_persona.livemcptool.catalogue import ToolEntry
from mcp_persona.livemcptool.engine import CatalogueApp, datasets

SERVER = "12306-mcp"
PRESALE_DAYS = 14  # 12306 sells tickets from today to 14 days ahead (a 15-day window)
TIMEZONE = "Asia/Shanghai"
SORT_FLAGS = ("startTime", "arriveTime", "duration")
MIN_CHANGE_MINUTES = 20
_FILTERS = {"G": ("G", "C"), "D": ("D",), "Z": ("Z",), "T": ("T",), "K": ("K",)}
DATE_PARAMS = ("date", "departDate")
DATE_FORM = "YYYY-MM-DD, e.g. 2026-05-08"

Station = dict[str, str]
Train = dict[str, Any]


class RailApp(CatalogueApp):
    """``12306-mcp`` over its stations and timetables (see the module docstring)."""

    def __init__(self, entry: Any) -> None:
        super().__init__(entry)
        self.stations: list[Station] = list((datasets().get(SERVER) or {}).get("stations", []))
        self.by_code = {s["code"]: s for s in self.stations}

    def run(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        handler = {
            "get-current-date": self.current_date,
            "get-stations-code-in-city": self.stations_in_city,
            "get-station-code-of-citys": self.codes_of_cities,
            "get-station-code-by-names": self.codes_by_names,
            "get-station-by-telecode": self.station_by_code,
            "get-tickets": self.tickets,
            "get-interline-tickets": self.interline_tickets,
            "get-train-route-stations": self.route_stations,
        }.get(tool.name)
        if handler is None:
            return super().run(env, tool, args)
        return handler(env, args)

    def violations(self, tool: ToolEntry, arguments: dict[str, Any]) -> list[FieldViolation]:
        """The schema's violations, a date's length (``minLength``/``maxLength`` 10) told as the form a date
        takes: the same inputs are refused, the message names what to send instead."""
        out = []
        for v in super().violations(tool, arguments):
            value = arguments.get(v.field)
            if v.field in DATE_PARAMS and isinstance(value, str) and len(value) != 10:
                v = FieldViolation(v.field, v.kind, f"{value!r} is not a date in the accepted form: "
                                                    f"{v.field} must be {DATE_FORM}")
            out.append(v)
        return out

    # -- stations ------------------------------------------------------------------------------------
    @staticmethod
    def _names(text: str) -> list[str]:
        names = [n.strip() for n in text.split("|") if n.strip()]
        if not names:
            raise ToolFailure("give at least one name (several joined by '|', e.g. '北京|上海')", kind="range")
        return names

    def _city_stations(self, city: str) -> list[Station]:
        probe = city.strip().removesuffix("市")
        return [s for s in self.stations if probe == s["city"] or same_name(city, s["city_en"])]

    def _station(self, name: str, param: str) -> Station:
        """A station by telecode, station name or city name (the city's main station)."""
        text = name.strip()
        if text.upper() in self.by_code:
            return self.by_code[text.upper()]
        for s in self.stations:
            if text in (s["name"], s["name"] + "站") or same_name(text, s["name_en"]):
                return s
        in_city = self._city_stations(text)
        if in_city:
            return in_city[0]
        raise ToolFailure(f"{param}: no station or city named {name!r}; give a station telecode (e.g. 'VNP', from "
                          "get-station-code-of-citys or get-stations-code-in-city) or a station name",
                          kind="not_found")

    @staticmethod
    def _view(s: Station) -> dict[str, str]:
        return {"station_code": s["code"], "station_name": s["name"], "station_name_en": s["name_en"],
                "city": s["city"], "city_en": s["city_en"]}

    def current_date(self, env: AppEnv, args: dict[str, Any]) -> Any:
        return self._today(env).isoformat()

    def stations_in_city(self, env: AppEnv, args: dict[str, Any]) -> Any:
        found = self._city_stations(args["city"])
        if not found:
            raise ToolFailure(f"city: no stations in {args['city']!r} (cities: "
                              f"{', '.join(sorted({s['city_en'] for s in self.stations}))})", kind="not_found")
        return [self._view(s) for s in found]

    def codes_of_cities(self, env: AppEnv, args: dict[str, Any]) -> Any:
        out: dict[str, Any] = {}
        for name in self._names(args["citys"]):
            found = self._city_stations(name)
            out[name] = self._view(found[0]) if found else {"error": "no such city"}
        if all("error" in v for v in out.values()):
            raise ToolFailure(f"citys: no city found among {args['citys']!r} (give city names joined by '|', "
                              f"e.g. 'Beijing|Shanghai'; cities: "
                              f"{', '.join(sorted({s['city_en'] for s in self.stations}))})", kind="not_found")
        return out

    def codes_by_names(self, env: AppEnv, args: dict[str, Any]) -> Any:
        out: dict[str, Any] = {}
        for name in self._names(args["stationNames"]):
            s = next((s for s in self.stations if name.strip() in (s["name"], s["name"] + "站")
                      or same_name(name, s["name_en"])), None)
            out[name] = self._view(s) if s else {"error": "no such station"}
        if all("error" in v for v in out.values()):
            raise ToolFailure(f"stationNames: no station found among {args['stationNames']!r}", kind="not_found")
        return out

    def station_by_code(self, env: AppEnv, args: dict[str, Any]) -> Any:
        code = args["stationTelecode"].strip().upper()
        if code not in self.by_code:
            raise ToolFailure(f"stationTelecode: no station has telecode {args['stationTelecode']!r}",
                              kind="not_found")
        return self._view(self.by_code[code])

    # -- trains --------------------------------------------------------------------------------------
    def _today(self, env: AppEnv) -> date:
        return env.clock.current().astimezone(ZoneInfo(TIMEZONE)).date()

    def _date(self, env: AppEnv, text: str, param: str) -> date:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise ToolFailure(f"{param}: {text!r} is not a date; {param} must be {DATE_FORM}", kind="type") from None
        first = self._today(env)
        last = first + timedelta(days=PRESALE_DAYS)
        if not first <= day <= last:
            raise ToolFailure(f"{param}: {text} is outside the booking window ({first} to {last}); 12306 sells "
                              "tickets from today to 14 days ahead", kind="range")
        return day

    def _trains(self, env: AppEnv) -> list[Train]:
        return [r for r in self._visible(env) if r.get("stops")]

    @staticmethod
    def _leg(train: Train, i: int, j: int, day: date) -> dict[str, Any]:
        stops = train["stops"]
        a, b = stops[i], stops[j]
        dep = datetime.combine(day, datetime.strptime(a["time"], "%H:%M").time())  # the date is the boarding day
        arr = datetime.combine(day + timedelta(days=b["day"] - a["day"]),
                               datetime.strptime(b["time"], "%H:%M").time())
        full = stops[-1]["km"] - stops[0]["km"]
        fare = round(train["value"] * (b["km"] - a["km"]) / full, 2) if full else train["value"]
        minutes = int((arr - dep).total_seconds() // 60)
        return {"train_no": train["symbol"], "from_station": a["station"], "to_station": b["station"],
                "start_time": f"{dep:%Y-%m-%d %H:%M}", "arrive_time": f"{arr:%Y-%m-%d %H:%M}",
                "duration": f"{minutes // 60:02d}:{minutes % 60:02d}", "fuxing": train.get("fuxing", False),
                "prices": [{"seat": "second class", "price": fare}]}

    def _serves(self, train: Train, from_city: str, to_city: str) -> tuple[int, int] | None:
        """The stop indexes of the first stop in ``from_city`` and a later one in ``to_city``."""
        codes = [s["station"] for s in train["stops"]]
        for i, c in enumerate(codes):
            if self.by_code[c]["city"] != from_city:
                continue
            for j in range(i + 1, len(codes)):
                if self.by_code[codes[j]]["city"] == to_city:
                    return i, j
        return None

    def _filter_sort(self, legs: list[dict[str, Any]], args: dict[str, Any], key: Any) -> list[dict[str, Any]]:
        flags = args.get("trainFilterFlags") or ""
        if flags:
            def kept(leg: dict[str, Any]) -> bool:
                no = leg["train_no"]
                return any((f in _FILTERS and no.startswith(_FILTERS[f])) or (f == "F" and leg["fuxing"])
                           or (f == "O" and not no.startswith(("G", "C", "D", "Z", "T", "K")))
                           for f in flags)
            legs = [leg for leg in legs if kept(leg)]
        sort = args.get("sortFlag") or ""
        if sort:
            if sort not in SORT_FLAGS:
                raise ToolFailure(f"sortFlag: {sort!r} is not a sort order (use {', '.join(SORT_FLAGS)} or '')",
                                  kind="range")
            legs = sorted(legs, key=lambda leg: key(leg, sort))
        if args.get("sortReverse"):
            legs = legs[::-1]
        limit = int(args.get("limitedNum") or 0)
        return legs[:limit] if limit > 0 else legs

    @staticmethod
    def _sort_key(leg: dict[str, Any], sort: str) -> str:
        return {"startTime": leg["start_time"], "arriveTime": leg["arrive_time"], "duration": leg["duration"]}[sort]

    def tickets(self, env: AppEnv, args: dict[str, Any]) -> Any:
        day = self._date(env, args["date"], "date")
        a, b = self._station(args["fromStation"], "fromStation"), self._station(args["toStation"], "toStation")
        if a["city"] == b["city"]:
            raise ToolFailure("fromStation and toStation are in the same city", kind="conflict")
        legs = []
        for train in self._trains(env):
            served = self._serves(train, a["city"], b["city"])
            if served:
                legs.append(self._leg(train, *served, day))
        legs.sort(key=lambda leg: leg["start_time"])
        legs = self._filter_sort(legs, args, self._sort_key)
        return {"date": day.isoformat(), "from_city": a["city_en"], "to_city": b["city_en"], "count": len(legs),
                "trains": legs}

    def interline_tickets(self, env: AppEnv, args: dict[str, Any]) -> Any:
        day = self._date(env, args["date"], "date")
        a, b = self._station(args["fromStation"], "fromStation"), self._station(args["toStation"], "toStation")
        middle = (self._station(args["middleStation"], "middleStation")["city"]
                  if args.get("middleStation") else None)
        cities = sorted({s["city"] for s in self.stations} - {a["city"], b["city"]})
        journeys = []
        for city in [middle] if middle else cities:
            firsts = [self._leg(t, *ij, day) for t in self._trains(env) if (ij := self._serves(t, a["city"], city))]
            seconds = [self._leg(t, *ij, day) for t in self._trains(env) if (ij := self._serves(t, city, b["city"]))]
            for f in firsts:
                for s in seconds:
                    wait = (datetime.fromisoformat(s["start_time"]) - datetime.fromisoformat(f["arrive_time"]))
                    if f["train_no"] != s["train_no"] and wait >= timedelta(minutes=MIN_CHANGE_MINUTES):
                        total = f["prices"][0]["price"] + s["prices"][0]["price"]
                        journeys.append({"middle_city": self.by_code[f["to_station"]]["city_en"],
                                         "start_time": f["start_time"], "arrive_time": s["arrive_time"],
                                         "wait_minutes": int(wait.total_seconds() // 60),
                                         "legs": [f, s], "total_price": round(total, 2)})
        if args.get("showWZ"):  # no-seat (无座) tickets, sold at the second-class price, only when asked for
            for j in journeys:
                for leg in j["legs"]:
                    leg["prices"] = [*leg["prices"], {"seat": "no seat", "price": leg["prices"][0]["price"]}]
        journeys.sort(key=lambda j: j["arrive_time"])
        journeys = self._filter_journeys(journeys, args)
        return {"date": day.isoformat(), "from_city": a["city_en"], "to_city": b["city_en"], "count": len(journeys),
                "journeys": journeys}

    def _filter_journeys(self, journeys: list[dict[str, Any]], args: dict[str, Any]) -> list[dict[str, Any]]:
        flags = args.get("trainFilterFlags") or ""
        if flags:
            journeys = [j for j in journeys if all(self._filter_sort([leg], {"trainFilterFlags": flags}, None)
                                                    for leg in j["legs"])]
        sort = args.get("sortFlag") or ""
        if sort:
            if sort not in SORT_FLAGS:
                raise ToolFailure(f"sortFlag: {sort!r} is not a sort order (use {', '.join(SORT_FLAGS)} or '')",
                                  kind="range")
            journeys = sorted(journeys, key=lambda j: (j["start_time"] if sort == "startTime" else j["arrive_time"]
                                                       if sort == "arriveTime" else
                                                       str(datetime.fromisoformat(j["arrive_time"])
                                                           - datetime.fromisoformat(j["start_time"]))))
        if args.get("sortReverse"):
            journeys = journeys[::-1]
        return journeys[: int(args.get("limitedNum") or 10)]

    def route_stations(self, env: AppEnv, args: dict[str, Any]) -> Any:
        day = self._date(env, args["departDate"], "departDate")
        train = next((t for t in self._trains(env) if fold(t["symbol"]) == fold(args["trainNo"])), None)
        if train is None:
            raise ToolFailure(f"trainNo: no train {args['trainNo']!r} runs on {day} (trains: "
                              f"{', '.join(t['symbol'] for t in self._trains(env))})", kind="not_found")
        codes = [s["station"] for s in train["stops"]]
        served = ", ".join(f"{self.by_code[c]['name_en']} ({c})" for c in codes)
        ends = []
        for param in ("fromStationTelecode", "toStationTelecode"):
            code = args[param].strip().upper()
            if code not in codes:
                raise ToolFailure(f"{param}: train {train['symbol']} does not stop at {args[param]!r} (its stops: "
                                  f"{served})", kind="conflict")
            ends.append(codes.index(code))
        i, j = ends
        if i >= j:
            raise ToolFailure(f"train {train['symbol']} reaches {args['toStationTelecode']} before "
                              f"{args['fromStationTelecode']}; give its stops in travel order", kind="conflict")
        leg = self._leg(train, i, j, day)
        stops = []
        for k in range(i, j + 1):
            s = train["stops"][k]
            st = self.by_code[s["station"]]
            when = day + timedelta(days=s["day"] - train["stops"][i]["day"])
            stops.append({"station_no": k + 1, "station_code": st["code"], "station_name": st["name"],
                          "station_name_en": st["name_en"], "time": f"{when:%Y-%m-%d} {s['time']}"})
        return {"train_no": train["symbol"], "depart_date": day.isoformat(), "stops": stops,
                "duration": leg["duration"], "prices": leg["prices"]}
