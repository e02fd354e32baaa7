"""Generate a persona's Discord account: users, servers with roles, members, channels and messages.

The servers (roles, who holds them, channels and the scripted conversations in them) come from
the authentic corpus ``discord_servers_<persona>``; outsiders from ``discord_people_<persona>``.
Every id is a snowflake generated from the moment the thing was created (seeded), so the
creation times the tools read back from ids are consistent with the content.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mcp_persona.apps._social import script
from mcp_persona.apps.discord import snowflake
from mcp_persona.contextgen import Gen

EVERYONE = ["send_messages", "add_reactions", "read_message_history"]


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    people = script.roster(gen)
    outsiders = {o["key"]: o for o in script.all_items(gen, "user", f"discord_people_{persona}")}
    users: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}
    for key, person in people.items():
        uid = _snowflake(gen, "user.id", gen.moment(gen.local(2016, 1, 1), gen.local(2024, 6, 30), step_minutes=1))
        h = person.handle
        name = gen.enumerate("user.username", [h, f"{h}_", f"{h}.{person.city.lower()[:2]}", f"{h}{uid[-2:]}"])
        ids[key] = uid
        users[uid] = {"id": uid, "username": name, "global_name": person.name, "discriminator": "0", "bot": False}
    for key in sorted(outsiders):
        o = outsiders[key]
        uid = _snowflake(gen, "user.id", gen.moment(gen.local(2016, 1, 1), gen.local(2025, 6, 30), step_minutes=1))
        ids[key] = uid
        users[uid] = {"id": uid, "username": o["username"], "global_name": o["global_name"],
                      "discriminator": o.get("discriminator", "0"), "bot": bool(o.get("bot"))}
    servers: dict[str, dict[str, Any]] = {}
    for spec in sorted(script.all_items(gen, "server", f"discord_servers_{persona}"), key=lambda s: s["key"]):
        server = _server(gen, spec, ids)
        servers[server["id"]] = server
    return {
        "context_id": persona,
        "description": gen.cast.personas[persona].description,
        "me": ids[script.ME],
        "users": users,
        "servers": servers,
    }


def _snowflake(gen: Gen, field: str, at: datetime) -> str:
    ms = int(at.timestamp()) * 1000 + int(gen.random_id(field, "{digits:3}"))
    return snowflake.make(ms, int(gen.random_id(field, "{digits:7}")))


def _server(gen: Gen, spec: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    year, month = spec["created"]
    created = gen.moment(gen.local(year, month, 1), gen.local(year, month, 28), step_minutes=1)
    sid = _snowflake(gen, "server.id", created)
    later = lambda days: gen.moment(created + timedelta(hours=1), created + timedelta(days=days),  # noqa: E731
                                    step_minutes=1)

    roles: dict[str, dict[str, Any]] = {sid: {"id": sid, "name": "@everyone", "position": 0,
                                              "permissions": list(spec.get("everyone", EVERYONE)), "color": "#000000",
                                              "managed": False}}
    role_ids: dict[str, str] = {}
    for i, r in enumerate(spec["roles"]):
        rid = _snowflake(gen, "role.id", later(30))
        role_ids[r["key"]] = rid
        roles[rid] = {"id": rid, "name": r["name"], "position": len(spec["roles"]) - i,
                      "permissions": list(r["permissions"]), "color": r["color"], "managed": bool(r.get("managed"))}

    emojis = [{"id": _snowflake(gen, "server.emojis", later(60)), "name": name, "animated": False}
              for name in spec.get("emojis", [])]
    emoji_ids = {e["name"]: e["id"] for e in emojis}

    members: dict[str, dict[str, Any]] = {}
    now = script.now(gen)
    for key in sorted(spec["members"], key=lambda k: ids[k]):
        uid = ids[key]
        joined = created if key == spec["owner"] else gen.moment(created + timedelta(days=1),
                                                                 now - timedelta(days=20), step_minutes=1)
        member: dict[str, Any] = {"user_id": uid, "joined_at": script.utc_iso(joined),
                                  "roles": [role_ids[r] for r in spec["members"][key]]}
        if key in spec.get("nicks", {}):
            member["nick"] = spec["nicks"][key]
        members[uid] = member

    server: dict[str, Any] = {
        "id": sid, "name": spec["name"], "owner_id": ids[spec["owner"]], "description": spec["description"],
        "premium_tier": spec["premium_tier"], "explicit_content_filter": spec["content_filter"],
        "verification_level": spec["verification_level"], "community": spec["community"], "emojis": emojis,
    }
    channels: dict[str, dict[str, Any]] = {}
    channel_ids: dict[str, str] = {}
    positions: dict[str | None, int] = {}
    for ch in spec["channels"]:
        cid = _snowflake(gen, "channel.id", later(90))
        channel_ids[ch["key"]] = cid
        kind = ch.get("type", "text")
        parent = channel_ids[ch["category"]] if ch.get("category") else None
        slot = None if kind == "category" else parent
        positions[slot] = positions.get(slot, -1) + 1
        channel: dict[str, Any] = {"id": cid, "name": ch["name"], "type": kind, "position": positions[slot]}
        if parent:
            channel["parent_id"] = parent
        if ch.get("topic"):
            channel["topic"] = ch["topic"]
        if ch.get("send_roles"):
            channel["send_roles"] = [role_ids[r] for r in ch["send_roles"]]
        if ch.get("required"):
            server[f"{ch['required']}_channel_id"] = cid
        if kind == "text":
            channel["messages"] = _messages(gen, ch, ids, members, emoji_ids)
        channels[cid] = channel
    server |= {"roles": roles, "members": members, "channels": channels}
    return server


def _messages(gen: Gen, ch: dict[str, Any], ids: dict[str, str], members: dict[str, Any],
              emoji_ids: dict[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in script.lay_out(gen, ch, set(ids)):
        author = ids[line.who]
        if author not in members:
            raise ValueError(f"#{ch['name']}: {line.who} posts but is not a member")
        mid = _snowflake(gen, "message.id", line.at)
        msg: dict[str, Any] = {"id": mid, "author_id": author, "content": line.text, "timestamp": snowflake.iso(mid)}
        reactions = {}
        for emoji, who in line.notes.get("reactions", {}).items():
            key = f"{emoji}:{emoji_ids[emoji]}" if emoji in emoji_ids else emoji
            reactions[key] = {"emoji": key, "user_ids": [ids[k] for k in who]}
        if reactions:
            msg["reactions"] = reactions
        out[mid] = msg
    return out
