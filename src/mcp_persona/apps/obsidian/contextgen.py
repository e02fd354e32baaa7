"""Generate a persona's Obsidian vault (paper §3.2): a home note, projects, people, meetings, daily notes (and
weekly/monthly ones when enabled), a reading list, ideas and templates, with Periodic Notes settings.

The hand-curated vaults (``chen_yu`` ...) stay as they are; generated ones are ``gen_<persona>``. Values come
from the four methods: Enumerate (vault name, periodic-note folders/formats and which periods are enabled,
task states, reading states), Free-Form (home intro, daily log lines, remarks on people), Random (file
timestamps are drawn on the persona's calendar; note paths are names, the vault has no random ids) and
Authentic (projects, meetings, reading and ideas of the persona's line of work). People are the shared cast,
with their cast names, roles and emails. Periodic note paths follow the vault's own moment.js formats, so
the periodic-note tools find them.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from mcp_persona.apps.obsidian.tools import moment_format, note_tags
from mcp_persona.contextgen.gen import Gen

CONTEXT_PREFIX = "gen_"
DOMAINS = {"Orbit Lab": "marketing", "Eastlake University": "research", "Lumipay": "product"}
LOG_TIMES = ("09:10", "10:30", "11:45", "14:00", "15:20", "16:40", "17:30")


def _ms(dt: datetime) -> int:
    return int(dt.timestamp()) * 1000


def _yaml_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    me = gen.me
    domain = DOMAINS.get(me.organization, "product")
    notes: dict[str, dict[str, Any]] = {}

    def note(path: str, content: str, created: datetime, modified: datetime | None = None) -> None:
        notes[path] = {"path": path, "content": content, "tags": note_tags(content), "ctime": _ms(created),
                       "mtime": _ms(modified or created)}

    # -- settings ----------------------------------------------------------------------------------------
    daily_folder = gen.enumerate("periodic_notes.daily.folder", ["Daily", "Journal", "Daily Notes"])
    daily_format = gen.enumerate("periodic_notes.daily.format", ["YYYY-MM-DD", "YYYY/MM/YYYY-MM-DD"])
    weekly_on = gen.enumerate("periodic_notes.weekly.enabled", [True, True, False])
    weekly_format = gen.enumerate("periodic_notes.weekly.format", ["GGGG-[W]WW", "gggg-[W]ww"])
    monthly_on = gen.enumerate("periodic_notes.monthly.enabled", [True, False])
    periodic = {
        "daily": {"enabled": True, "folder": daily_folder, "format": daily_format, "template": "Templates/Daily.md"},
        "weekly": {"enabled": weekly_on, "folder": "Weekly" if weekly_on else "", "format": weekly_format,
                   "template": "Templates/Weekly.md" if weekly_on else ""},
        "monthly": {"enabled": monthly_on, "folder": "Monthly" if monthly_on else "", "format": "YYYY-MM",
                    "template": ""},
        "quarterly": {"enabled": False, "folder": "", "format": "YYYY-[Q]Q", "template": ""},
        "yearly": {"enabled": False, "folder": "", "format": "YYYY", "template": ""},
    }

    def periodic_path(period: str, d: date) -> str:
        s = periodic[period]
        name = moment_format(s["format"], d) + ".md"
        return f"{s['folder']}/{name}" if s["folder"] else name

    # -- people -------------------------------------------------------------------------------------------
    projects = gen.authentic("project", f"obsidian_projects_{domain}", k=2)
    meetings = gen.authentic("meeting", f"obsidian_meetings_{domain}", k=2)
    topics = [p["title"] for p in projects] + [m["title"].lower() for m in meetings]
    team = gen.people(4)
    for i, p in enumerate(team):
        remark = gen.free_form("person.remark", "obsidian_person", topic=gen.link("person.topic", topics, k=1)[0])
        content = (f"---\nrole: {p.title}\nteam: {p.department}\nemail: {p.email}\ntags: [person]\n---\n"
                   f"# {p.name}\n\n- {p.title}, {p.department}.\n- {remark}\n")
        note(f"People/{p.name}.md", content, gen.local(2026, 1, 6, 10, 5 * i),
             gen.moment(gen.local(2026, 2, 20, 9), gen.local(2026, 3, 6, 18), step_minutes=5))

    # -- projects -----------------------------------------------------------------------------------------
    for project in projects:
        owners = gen.link("project.team", team, k=2)
        lines = [f"---\nstatus: {project['status']}\nowner: {me.name}\ntags: {_yaml_list(project['tags'])}\n---",
                 f"# {project['title']}", "", project["summary"], "", "## Goals",
                 *[f"- {g}" for g in project["goals"]], "", "## Checklist",
                 *[f"- [{'x' if done else ' '}] {item}" for item, done in project["checklist"]], "", "## Team",
                 f"- Lead: {me.name}", *[f"- [[People/{p.name}]] ({p.title})" for p in owners], ""]
        note(f"Projects/{project['title']}.md", "\n".join(lines), gen.local(2026, 2, 2, 9),
             gen.moment(gen.local(2026, 3, 2, 9), gen.local(2026, 3, 9, 19), step_minutes=5))

    # -- meetings -----------------------------------------------------------------------------------------
    meeting_days = sorted(gen.link("meeting.date", [date(2026, 3, d) for d in (3, 4, 5, 6, 9)], k=len(meetings)))
    for day, meeting in zip(meeting_days, meetings, strict=True):
        who = gen.link("meeting.attendees", team, k=gen.rng.randint(1, 3))
        attendees = [me, *who]
        actions = [f"- [ ] {gen.link('meeting.action.owner', attendees, k=1)[0].name}: {a}" for a in meeting["actions"]]
        content = "\n".join([
            f"---\ndate: {day.isoformat()}\nattendees: {_yaml_list([p.name for p in attendees])}\n"
            "tags: [meeting]\n---", f"# {meeting['title']}", "", "## Notes", *[f"- {n}" for n in meeting["notes"]],
            "", "## Action items", *actions, ""])
        start = datetime(day.year, day.month, day.day, 11, 0, tzinfo=gen.tz)
        note(f"Meetings/{day.isoformat()} {meeting['title']}.md", content, start, start + timedelta(minutes=50))

    # -- daily notes --------------------------------------------------------------------------------------
    days = sorted({date(2026, 3, 9), *gen.link("daily.date", [date(2026, 3, d) for d in (4, 5, 6, 10)], k=2)})
    for day in days:
        log = []
        for t in sorted(gen.link("daily.log.time", LOG_TIMES, k=3)):
            person = gen.link("daily.log.name", team, k=1)[0]
            log.append("- " + gen.free_form("daily.log", "obsidian_log", time=t, name=person.name,
                                            topic=gen.link("daily.log.topic", topics, k=1)[0]))
        todo = gen.link("daily.task", [a for m in meetings for a in m["actions"]], k=2)
        tasks = [f"- [{'x' if gen.enumerate('daily.task.done', [True, False]) and day < date(2026, 3, 10) else ' '}] "
                 f"{t}" for t in todo]
        content = "\n".join([f"---\ndate: {day.isoformat()}\ntags: [daily]\n---", f"# {day:%A, %B} {day.day}", "",
                             "## Log", *log, "", "## Tasks", *tasks, "", "## Notes", ""])
        start = datetime(day.year, day.month, day.day, 8, 50, tzinfo=gen.tz)
        end = start + timedelta(hours=9) if day < date(2026, 3, 10) else start + timedelta(minutes=20)
        note(periodic_path("daily", day), content, start, end)

    # -- weekly / monthly notes -----------------------------------------------------------------------------
    week = date(2026, 3, 9)
    open_items = [item for p in projects for item, done in p["checklist"] if not done]
    if weekly_on:
        goals = gen.link("weekly.goals", open_items, k=min(3, len(open_items)))
        content = "\n".join([f"---\nweek: {moment_format(weekly_format, week)}\ntags: [weekly]\n---",
                             f"# Week {week.isocalendar()[1]} (Mar 9 – Mar 15)", "", "## Goals",
                             *[f"- [ ] {g}" for g in goals], "", "## Review", ""])
        start = datetime(2026, 3, 9, 8, 40, tzinfo=gen.tz)
        note(periodic_path("weekly", week), content, start, start + timedelta(hours=1))
        note("Templates/Weekly.md", "---\nweek: {{date:GGGG-[W]WW}}\ntags: [weekly]\n---\n# Week {{date:W}}\n\n"
             "## Goals\n\n## Review\n", gen.local(2026, 1, 5, 9, 2))
    if monthly_on:
        content = "\n".join(["---\nmonth: 2026-03\ntags: [monthly]\n---", "# March 2026", "", "## Focus",
                             *[f"{i}. {p['title']}" for i, p in enumerate(projects, 1)], "", "## Key dates",
                             *[f"- {d.isoformat()} {m['title']}" for d, m in zip(meeting_days, meetings, strict=True)],
                             "", "## Retro", ""])
        note(periodic_path("monthly", date(2026, 3, 1)), content, gen.local(2026, 3, 1, 10),
             gen.local(2026, 3, 9, 18, 30))
    note("Templates/Daily.md", "---\ndate: {{date}}\ntags: [daily]\n---\n# {{date:dddd, MMMM D}}\n\n## Log\n\n"
         "## Tasks\n\n## Notes\n", gen.local(2026, 1, 5, 9, 0))

    # -- reading, ideas, home ---------------------------------------------------------------------------------
    books = gen.authentic("reading", f"obsidian_reading_{domain}", k=5)
    shelves: dict[str, list[str]] = {"Reading": [], "To read": [], "Done": []}
    for b in books:
        shelf = gen.enumerate("reading.shelf", ["Reading", "To read", "To read", "Done"])
        shelves[shelf].append(f"- *{b['title']}* — {b['author']}")
    content = "---\ntags: [reading]\n---\n# Reading List\n" + "".join(
        f"\n## {s}\n" + "".join(f"{line}\n" for line in lines) for s, lines in shelves.items())
    note("Reading List.md", content, gen.local(2026, 1, 8, 21), gen.local(2026, 3, 7, 22, 15))
    ideas = gen.authentic("idea", f"obsidian_ideas_{domain}", k=4)
    content = "# Ideas\n\n" + "".join(f"- {i['idea']} #idea\n" for i in ideas)
    note("Ideas.md", content, gen.local(2026, 1, 9, 20), gen.local(2026, 3, 8, 21, 40))
    intro = gen.free_form("home.intro", "obsidian_home_intro", name=me.name, title=me.title, org=me.organization)
    content = "\n".join(["# Home", "", intro, "", "## Projects", *[f"- [[Projects/{p['title']}]]" for p in projects],
                         "", "## People", " · ".join(f"[[People/{p.name}]]" for p in team), "", "## Lists",
                         "- [[Reading List]]", "- [[Ideas]]", ""])
    note("Home.md", content, gen.local(2026, 1, 5, 9, 0), gen.local(2026, 3, 2, 8, 30))

    vault = gen.enumerate("vault_name", [f"{me.organization} notes", "Work", "Second Brain"])
    return {
        "context_id": CONTEXT_PREFIX + persona,
        "description": f"{gen.cast.personas[persona].description}: generated vault with projects, people, meetings, "
                       "periodic notes, a reading list and ideas",
        "vault_name": vault,
        "owner": me.name,
        "periodic_notes": periodic,
        "notes": dict(sorted(notes.items())),
    }
