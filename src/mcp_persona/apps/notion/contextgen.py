"""Generate a persona's Notion workspace (paper §3.2): users, a home page, a task database, a reading list
database, meeting notes and a project brief, with comments.

Values come from the four methods: Enumerate (statuses, priorities, icons, colours, the bot's name),
Free-Form (the home page intro, focus line, inbox items, comments), Random (every UUID, property and option
ids) and Authentic (tasks, reading items, meeting notes and project briefs of the persona's domain). People
are the persona and coworkers of the shared cast, with their cast names and emails.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mcp_persona.apps.notion.tools import default_status_config, empty_value, iso, text_item, user_mention
from mcp_persona.contextgen.cast import Person
from mcp_persona.contextgen.gen import Gen

# The persona's line of work picks the authentic corpora (tasks, reading, meetings, briefs).
DOMAINS = {"Orbit Lab": "marketing", "Eastlake University": "research", "Lumipay": "product"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
SELECT_COLORS = ("blue", "green", "orange", "purple", "pink", "brown", "yellow", "red", "gray")


class _Workspace:
    """Collects the entities of one workspace while the generator writes them."""

    def __init__(self, gen: Gen) -> None:
        self.gen = gen
        self.users: dict[str, dict[str, Any]] = {}
        self.pages: dict[str, dict[str, Any]] = {}
        self.databases: dict[str, dict[str, Any]] = {}
        self.blocks: dict[str, dict[str, Any]] = {}
        self.comments: dict[str, dict[str, Any]] = {}
        self.user_ids: dict[str, str] = {}  # cast id -> Notion user id

    def when(self, dt: datetime, author: str) -> dict[str, Any]:
        stamp = iso(int(dt.timestamp()))
        return {"created_time": stamp, "last_edited_time": stamp, "created_by": author, "last_edited_by": author}

    def person(self, p: Person) -> str:
        uid = self.gen.new_id("user")
        self.users[uid] = {"id": uid, "type": "person", "name": p.name, "avatar_url": None, "email": p.email}
        self.user_ids[p.id] = uid
        return uid

    def page(self, title: str, icon: str, dt: datetime, author: str, *, parent: str | None = None) -> str:
        pid = self.gen.new_id("page")
        page = {"id": pid, "icon": {"type": "emoji", "emoji": icon}, "cover": None,
                "properties": {"title": {"id": "title", "type": "title", "title": [text_item(title)]}},
                "children": [], "archived": False, **self.when(dt, author)}
        if parent is not None:
            page["parent_page_id"] = parent
            self.blocks[pid] = {"id": pid, "type": "child_page", "child_page": {}, "parent_page_id": parent,
                                "children": [], "archived": False, **self.when(dt, author)}
            self.pages[parent]["children"].append(pid)
        self.pages[pid] = page
        return pid

    def block(self, parent: str, btype: str, rich: list[dict[str, Any]] | None, dt: datetime, author: str,
              **extra: Any) -> str:
        bid = self.gen.new_id("block")
        content: dict[str, Any] = {} if btype == "divider" else {"rich_text": rich or [], "color": "default"}
        if btype.startswith("heading_"):
            content["is_toggleable"] = False
        content |= extra
        block = {"id": bid, "type": btype, btype: content, "children": [], "archived": False,
                 **self.when(dt, author)}
        if parent in self.pages:
            block["parent_page_id"] = parent
            self.pages[parent]["children"].append(bid)
        else:
            block["parent_block_id"] = parent
            self.blocks[parent]["children"].append(bid)
        self.blocks[bid] = block
        return bid

    def text(self, parent: str, btype: str, content: str, dt: datetime, author: str, **extra: Any) -> str:
        return self.block(parent, btype, [text_item(content)], dt, author, **extra)


def _options(gen: Gen, field: str, names: list[str]) -> list[dict[str, Any]]:
    return [{"id": gen.random_id(f"{field}.id", "{uuid}"), "name": n,
             "color": gen.enumerate(f"{field}.color", SELECT_COLORS)} for n in names]


def _prop(gen: Gen, name: str, ptype: str, config: dict[str, Any]) -> dict[str, Any]:
    pid = "title" if ptype == "title" else gen.random_id("database.property.id", "{alnum:4}")
    return {"id": pid, "name": name, "type": ptype, ptype: config}


def _row_value(schema: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    prop = schema[name]
    return {"id": prop["id"], "type": prop["type"], prop["type"]: value}


def _empty_row(schema: dict[str, Any]) -> dict[str, Any]:
    return {n: _row_value(schema, n, empty_value(p["type"], p[p["type"]])) for n, p in schema.items()}


def _option(schema: dict[str, Any], prop: str, name: str) -> dict[str, Any]:
    opt = next(o for o in schema[prop][schema[prop]["type"]]["options"] if o["name"] == name)
    return {"id": opt["id"], "name": opt["name"], "color": opt["color"]}


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    me = gen.me
    domain = DOMAINS.get(me.organization, "product")
    ws = _Workspace(gen)
    me_id = ws.person(me)
    team = gen.people(5)
    for p in team:
        ws.person(p)
    bot_id = gen.new_id("user")
    ws.users[bot_id] = {"id": bot_id, "type": "bot", "avatar_url": None,
                        "name": gen.enumerate("user.name", ["Notion MCP", "MCP Assistant", "Workspace Agent"])}
    team_ids = [ws.user_ids[p.id] for p in team]
    names = {ws.user_ids[p.id]: p for p in [me, *team]}

    # -- the home page --------------------------------------------------------------------------------
    t0 = gen.local(2026, 1, 12, 10, 0)
    home = ws.page(gen.enumerate("page.title", ["Home", "Start here", f"{me.organization} workspace"]),
                   gen.enumerate("page.icon", ["🏠", "🪐", "📌"]), t0, me_id)
    intro = gen.free_form("block.paragraph", "notion_home_intro", name=me.name, title=me.title, org=me.organization)
    ws.text(home, "paragraph", intro, t0, me_id)

    # -- the task database ------------------------------------------------------------------------------
    tasks_src = gen.authentic("task", f"notion_tasks_{domain}", k=10)
    tags = sorted({t for item in tasks_src for t in item["tags"]})
    t1 = gen.local(2026, 1, 12, 10, 20)
    task_schema = {
        "Name": _prop(gen, "Name", "title", {}),
        "Status": _prop(gen, "Status", "status",
                        default_status_config(lambda: gen.random_id("database.status.id", "{uuid}"))),
        "Priority": _prop(gen, "Priority", "select", {"options": [
            {"id": gen.random_id("select.id", "{uuid}"), "name": n, "color": c}
            for n, c in (("High", "red"), ("Medium", "yellow"), ("Low", "gray"))]}),
        "Due": _prop(gen, "Due", "date", {}),
        "Assignee": _prop(gen, "Assignee", "people", {}),
        "Tags": _prop(gen, "Tags", "multi_select", {"options": _options(gen, "multi_select", tags)}),
        "Estimate (h)": _prop(gen, "Estimate (h)", "number", {"format": "number"}),
    }
    tasks_db = gen.new_id("database")
    ws.text(home, "heading_2", gen.enumerate("block.heading_2", ["Work", "This month", "Dashboard"]),
                         t1, me_id)
    _database(ws, tasks_db, home, gen.enumerate("database.title", ["Tasks", "Task list", "My tasks"]), "✅",
              "Everything on my plate, with owners and due dates.", task_schema, t1, me_id)
    statuses = ["Done", "Done", "In progress", "In progress", "Not started", "Not started", "Not started"]
    for i, item in enumerate(tasks_src):
        status = gen.enumerate("task.Status", statuses)
        if status == "Done":
            due = gen.moment(gen.local(2026, 2, 24), gen.local(2026, 3, 9), step_minutes=1440)
        else:
            due = gen.moment(gen.local(2026, 3, 9), gen.local(2026, 3, 24), step_minutes=1440)
        owner = [me_id] if i % 3 else gen.link("task.Assignee", [me_id, *team_ids], k=1)
        props = _empty_row(task_schema)
        props["Name"] = _row_value(task_schema, "Name", [text_item(item["title"])])
        props["Status"] = _row_value(task_schema, "Status", _option(task_schema, "Status", status))
        props["Priority"] = _row_value(task_schema, "Priority", _option(
            task_schema, "Priority", gen.enumerate("task.Priority", ["High", "High", "Medium", "Low"])))
        props["Due"] = _row_value(task_schema, "Due", {"start": due.date().isoformat(), "end": None,
                                                       "time_zone": None})
        props["Assignee"] = _row_value(task_schema, "Assignee", [{"object": "user", "id": u} for u in owner])
        props["Tags"] = _row_value(task_schema, "Tags", [_option(task_schema, "Tags", t) for t in item["tags"]])
        props["Estimate (h)"] = _row_value(task_schema, "Estimate (h)", item["estimate_hours"])
        created = gen.moment(gen.local(2026, 2, 20, 9), gen.local(2026, 3, 6, 18), step_minutes=10)
        row = _row(ws, tasks_db, props, "📋" if status != "Done" else "✔️", created, me_id)
        if i < 4:
            ws.text(row, "paragraph", item["note"], created, me_id)
            ws.block(row, "to_do", [text_item(gen.enumerate("block.to_do", [
                "Draft", "Get feedback", "Final check", "Share with the team"]))], created, me_id,
                checked=status == "Done")

    # -- the reading list -------------------------------------------------------------------------------
    reading_src = gen.authentic("reading", f"notion_reading_{domain}", k=7)
    t2 = gen.local(2026, 1, 12, 10, 40)
    reading_schema = {
        "Title": _prop(gen, "Title", "title", {}),
        "Author": _prop(gen, "Author", "rich_text", {}),
        "Type": _prop(gen, "Type", "select", {"options": _options(gen, "select", ["Book", "Article", "Paper"])}),
        "Status": _prop(gen, "Status", "select", {"options": [
            {"id": gen.random_id("select.id", "{uuid}"), "name": n, "color": c}
            for n, c in (("To read", "gray"), ("Reading", "blue"), ("Finished", "green"))]}),
        "Rating": _prop(gen, "Rating", "number", {"format": "number"}),
        "Finished on": _prop(gen, "Finished on", "date", {}),
        "Favorite": _prop(gen, "Favorite", "checkbox", {}),
        "Tags": _prop(gen, "Tags", "multi_select", {"options": _options(
            gen, "multi_select", sorted({t for r in reading_src for t in r["tags"]}))}),
        "Recommended by": _prop(gen, "Recommended by", "people", {}),
    }
    reading_db = gen.new_id("database")
    _database(ws, reading_db, home, gen.enumerate("database.title", ["Reading List", "Reading list", "Library"]),
              "📚", "Books, papers and articles: to read, reading, finished.", reading_schema, t2, me_id)
    for i, item in enumerate(reading_src):
        status = gen.enumerate("reading.Status", ["To read", "To read", "Reading", "Finished", "Finished"])
        props = _empty_row(reading_schema)
        props["Title"] = _row_value(reading_schema, "Title", [text_item(item["title"])])
        props["Author"] = _row_value(reading_schema, "Author", [text_item(item["author"])])
        props["Type"] = _row_value(reading_schema, "Type", _option(reading_schema, "Type", item["type"]))
        props["Status"] = _row_value(reading_schema, "Status", _option(reading_schema, "Status", status))
        props["Tags"] = _row_value(reading_schema, "Tags", [_option(reading_schema, "Tags", t) for t in item["tags"]])
        if status == "Finished":
            done = gen.moment(gen.local(2026, 2, 1), gen.local(2026, 3, 8), step_minutes=1440)
            props["Finished on"] = _row_value(reading_schema, "Finished on", {"start": done.date().isoformat(),
                                                                             "end": None, "time_zone": None})
            props["Rating"] = _row_value(reading_schema, "Rating", gen.enumerate("reading.Rating", [3, 4, 4, 5]))
            props["Favorite"] = _row_value(reading_schema, "Favorite", gen.enumerate("reading.Favorite",
                                                                                     [True, False, False]))
        if i % 3 == 0:
            who = gen.link("reading.Recommended by", team_ids, k=1)
            props["Recommended by"] = _row_value(reading_schema, "Recommended by",
                                                 [{"object": "user", "id": u} for u in who])
        added = gen.moment(gen.local(2026, 1, 15, 20), gen.local(2026, 3, 8, 22), step_minutes=15)
        _row(ws, reading_db, props, "📖", added, me_id)

    # -- meeting notes --------------------------------------------------------------------------------------
    t3 = gen.local(2026, 1, 12, 11, 0)
    notes_page = ws.page(gen.enumerate("page.title", ["Meeting Notes", "Meetings", "Meeting notes"]), "🗓️", t3,
                         me_id, parent=home)
    ws.text(notes_page, "paragraph", gen.enumerate("block.paragraph", [
        "One page per meeting: notes, decisions, action items.",
        "Notes from every meeting, newest at the bottom."]), t3, me_id)
    meetings = sorted(gen.authentic("meeting", f"notion_meetings_{domain}", k=4), key=lambda m: m["seq"])
    days = sorted(gen.link("meeting.date", [gen.local(2026, 3, d, 10) for d in (2, 3, 4, 5, 6, 9)], k=len(meetings)))
    for day, item in zip(days, meetings, strict=True):
        start = gen.moment(day, day + timedelta(hours=6), step_minutes=30)
        title = f"{start:%Y-%m-%d} {item['title']}"
        page = ws.page(title, "📝", start, me_id, parent=notes_page)
        people = gen.link("meeting.attendees", team_ids, k=gen.rng.randint(2, 4))
        rich: list[dict[str, Any]] = [text_item("Attendees: ", bold=True), user_mention(me_id, me.name)]
        for uid in people:
            rich += [text_item(", "), user_mention(uid, names[uid].name)]
        ws.block(page, "paragraph", rich, start, me_id)
        ws.text(page, "heading_2", "Notes", start, me_id)
        for line in item["notes"]:
            ws.text(page, "bulleted_list_item", line, start, me_id)
        ws.text(page, "heading_2", "Decisions", start, me_id)
        for line in item["decisions"]:
            ws.text(page, "numbered_list_item", line, start, me_id)
        ws.text(page, "heading_2", "Action items", start, me_id)
        past = start < gen.local(2026, 3, 6)
        for action in item["actions"]:
            owner = gen.link("meeting.action.owner", [me_id, *people], k=1)[0]
            ws.block(page, "to_do", [user_mention(owner, names[owner].name), text_item(f" {action}")], start, me_id,
                     checked=past and gen.enumerate("block.to_do.checked", [True, True, False]))

    # -- a project brief with a discussion ----------------------------------------------------------------
    brief = gen.authentic("brief", f"notion_briefs_{domain}", k=1)[0]
    t4 = gen.local(2026, 2, 23, 15, 0)
    brief_page = ws.page(brief["title"], gen.enumerate("page.icon", ["🚀", "🎯", "🧭"]), t4, me_id, parent=home)
    ws.block(brief_page, "callout", [text_item(brief["goal"])], t4, me_id,
             icon={"type": "emoji", "emoji": "🎯"})
    ws.text(brief_page, "heading_2", "Context", t4, me_id)
    context_block = ws.text(brief_page, "paragraph", brief["context"], t4, me_id)
    ws.text(brief_page, "heading_2", "Milestones", t4, me_id)
    for m in brief["milestones"]:
        ws.text(brief_page, "numbered_list_item", m, t4, me_id)
    ws.text(brief_page, "heading_2", "Open questions", t4, me_id)
    for q in brief["questions"]:
        toggle = ws.text(brief_page, "toggle", q, t4, me_id)
        ws.text(toggle, "paragraph", gen.enumerate("block.paragraph", ["Not decided yet.", "To discuss this week.",
                                                                       "Waiting for input."]), t4, me_id)
    ws.block(brief_page, "divider", None, t4, me_id)
    ws.text(brief_page, "quote", gen.free_form("block.quote", "notion_focus", item=brief["milestones"][1].lower()),
            t4, me_id)
    for target, field in ((brief_page, "page_id"), (context_block, "block_id"), (brief_page, "page_id")):
        author = gen.link("comment.created_by", team_ids, k=1)[0]
        when = gen.moment(gen.local(2026, 3, 2, 9), gen.local(2026, 3, 9, 19), step_minutes=5)
        text = gen.free_form("comment.rich_text", "notion_comment", name=me.name,
                             day=gen.enumerate("comment.day", WEEKDAYS))
        cid = gen.new_id("comment")
        ws.comments[cid] = {"id": cid, field: target, "discussion_id": gen.random_id("comment.discussion_id", "{uuid}"),
                            "rich_text": [text_item(text)], "created_time": iso(int(when.timestamp())),
                            "last_edited_time": iso(int(when.timestamp())), "created_by": author}

    # -- an inbox page at the workspace level -----------------------------------------------------------------
    t5 = gen.local(2026, 3, 9, 21, 0)
    inbox = ws.page("Inbox", "📥", t5, me_id)
    topics = [t["topic"] for t in tasks_src[4:8]]
    for topic in topics:
        who = gen.link("inbox.name", team, k=1)[0]
        ws.text(inbox, "to_do", gen.free_form("block.to_do", "notion_inbox", name=who.name, topic=topic), t5,
                me_id, checked=False)

    return {
        "context_id": persona,
        "description": f"{me.name}'s Notion workspace at {me.organization}: a home page, a task database, a "
                       "reading list, meeting notes and a project brief.",
        "workspace_name": me.organization,
        "me": me_id,
        "bot": bot_id,
        "users": ws.users,
        "databases": ws.databases,
        "pages": ws.pages,
        "blocks": ws.blocks,
        "comments": ws.comments,
    }


def _database(ws: _Workspace, db_id: str, parent: str, title: str, icon: str, description: str,
              schema: dict[str, Any], dt: datetime, author: str) -> None:
    ws.databases[db_id] = {"id": db_id, "title": [text_item(title)], "description": [text_item(description)],
                           "icon": {"type": "emoji", "emoji": icon}, "cover": None, "parent_page_id": parent,
                           "properties": schema, "is_inline": False, "archived": False, **ws.when(dt, author)}
    ws.blocks[db_id] = {"id": db_id, "type": "child_database", "child_database": {}, "parent_page_id": parent,
                        "children": [], "archived": False, **ws.when(dt, author)}
    ws.pages[parent]["children"].append(db_id)


def _row(ws: _Workspace, db_id: str, props: dict[str, Any], icon: str, dt: datetime, author: str) -> str:
    pid = ws.gen.new_id("page")
    ws.pages[pid] = {"id": pid, "database_id": db_id, "icon": {"type": "emoji", "emoji": icon}, "cover": None,
                     "properties": props, "children": [], "archived": False, **ws.when(dt, author)}
    return pid
