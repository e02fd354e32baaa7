"""The 163 mail tools over the email163 Context-Tree (see ``data/hierarchies/email163.json``).

Messages are stored top-level by UID with a ``folder`` reference; the UID is kept when a
message moves, so one UID names one message in the whole mailbox. The root ``account`` holds
what the real server keeps in its environment: the address, the authorization code, whether
the account is configured, and the SMTP/IMAP server settings that every mail tool "connects" to.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_persona.apps._mail import (
    AddressError,
    Mail,
    QueryError,
    attachment_meta,
    format_address,
    format_addresses,
    parse_query,
    parse_recipients,
    rfc5322,
    same_address,
)
from mcp_persona.apps._mail.message import newest_first
from mcp_persona.apps._mail.search import MatchContext, matches
from mcp_persona.apps._normalize import StrictNote
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure
from mcp_persona.context_tree.ids import generate_id

SEPARATOR = "─" * 32


class Email163App(App):
    """Speaks like the real server: formatted Chinese text, failures as ``错误: <message>``."""

    def success_payload(self, tool: str, result: Any) -> Any:
        return result

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if failure.message.startswith("Unknown tool: "):
            return f"错误: 未知的工具: {tool}"
        return f"{failure.extra.get('prefix', '错误: ')}{failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return "错误: 参数无效: " + "; ".join(f"{v.field}: {v.message}" for v in violations)


APP = Email163App(
    "email163",
    title="163 Mail (universal-email-server)",
    category="email",
    description="The user's personal 163.com mailbox through an IMAP/SMTP email server: list, read, search, "
                "send, move and delete mail; account setup and connection tests.",
    real_server="TimeCyber/email-mcp",
    strict=[StrictNote("search_emails", "query", ("plural", "qualifier", "phrase"),
                       "keywords match as text, like an IMAP SEARCH on the mail server: 'pickups' is not in "
                       "'pickup', and 'Shanghai, China' needs both words in the message")],
)

# -- providers (the real server's table, in its order) ---------------------------------------------


class _Server(BaseModel):
    host: str
    port: int
    secure: bool


class _Provider(BaseModel):
    name: str
    domains: list[str]
    smtp: _Server
    imap: _Server
    pop3: _Server
    use_pop3: bool


def _provider(name: str, domains: list[str], smtp: tuple[str, int, bool], imap: tuple[str, int, bool],
              pop3: tuple[str, int, bool], use_pop3: bool) -> _Provider:
    def srv(t: tuple[str, int, bool]) -> _Server:
        return _Server(host=t[0], port=t[1], secure=t[2])

    return _Provider(name=name, domains=domains, smtp=srv(smtp), imap=srv(imap), pop3=srv(pop3), use_pop3=use_pop3)


PROVIDERS: dict[str, _Provider] = {
    "qq": _provider("QQ邮箱", ["qq.com"], ("smtp.qq.com", 587, False), ("imap.qq.com", 993, True),
                    ("pop.qq.com", 995, True), False),
    "163": _provider("网易邮箱", ["163.com", "126.com", "yeah.net"], ("smtp.163.com", 465, True),
                     ("imap.163.com", 993, True), ("pop.163.com", 995, True), True),
    "gmail": _provider("Gmail", ["gmail.com", "googlemail.com"], ("smtp.gmail.com", 587, True),
                       ("imap.gmail.com", 993, True), ("pop.gmail.com", 995, True), False),
    "outlook": _provider("Outlook/Hotmail", ["outlook.com", "hotmail.com", "live.com", "msn.com"],
                         ("smtp-mail.outlook.com", 587, False), ("outlook.office365.com", 993, True),
                         ("outlook.office365.com", 995, True), False),
    "exmail": _provider("腾讯企业邮箱", ["exmail.qq.com"], ("smtp.exmail.qq.com", 465, True),
                        ("imap.exmail.qq.com", 993, True), ("pop.exmail.qq.com", 995, True), False),
    "aliyun": _provider("阿里云邮箱", ["aliyun.com", "alibaba-inc.com"], ("smtp.mxhichina.com", 465, True),
                        ("imap.mxhichina.com", 993, True), ("pop.mxhichina.com", 995, True), False),
    "sina": _provider("新浪邮箱", ["sina.com", "sina.cn"], ("smtp.sina.com", 587, False), ("imap.sina.com", 993, True),
                      ("pop.sina.com", 995, True), False),
    "sohu": _provider("搜狐邮箱", ["sohu.com"], ("smtp.sohu.com", 25, False), ("imap.sohu.com", 993, True),
                      ("pop.sohu.com", 995, True), False),
}
_KNOWN_HOSTS = {getattr(p, proto).host for p in PROVIDERS.values() for proto in ("smtp", "imap", "pop3")}
ProviderName = Literal["qq", "163", "gmail", "outlook", "exmail", "aliyun", "sina", "sohu"]

AUTH_FAILED = "Invalid login: 535 Error: authentication failed"
NO_PASSWORD = "缺少邮箱密码配置。请设置 EMAIL_PASSWORD 环境变量。"

# IMAP SPECIAL-USE flags of 163's system folders.
SENT, DRAFTS, TRASH, JUNK = "\\Sent", "\\Drafts", "\\Trash", "\\Junk"


def server_settings(provider: str) -> dict[str, dict[str, Any]]:
    """The SMTP and IMAP settings setup_email_account writes for a provider (also used by the generator)."""
    p = PROVIDERS[provider]
    return {"smtp": p.smtp.model_dump(), "imap": p.imap.model_dump()}


def detect_provider(email: str) -> str | None:
    domain = email.rsplit("@", 1)[-1].lower() if "@" in email else ""
    return next((name for name, p in PROVIDERS.items() if domain in p.domains), None)


# -- state helpers ---------------------------------------------------------------------------------
def _account(env: AppEnv) -> dict[str, Any]:
    """The mailbox's one account entity."""
    return next(iter(env.tree.data["accounts"].values()))


def _account_path(acc: dict[str, Any]) -> str:
    return f"accounts[{acc['email']}]"


def _connect(env: AppEnv, proto: Literal["smtp", "imap"]) -> dict[str, Any]:
    """The account, if a connection over ``proto`` with the stored settings would succeed."""
    acc = _account(env)
    if not acc.get("configured"):
        raise ToolFailure(NO_PASSWORD, kind="permission")
    want = getattr(PROVIDERS[acc["provider"]], proto)
    have = acc[proto]
    if have["host"] != want.host:
        if have["host"] in _KNOWN_HOSTS:  # a real server, but not this mailbox's: the login is refused
            raise ToolFailure(AUTH_FAILED if proto == "smtp" else "Invalid credentials (Failure)", kind="permission")
        raise ToolFailure(f"getaddrinfo ENOTFOUND {have['host']}", kind="conflict")
    if have["port"] != want.port:
        raise ToolFailure("Connection timeout" if proto == "smtp" else "Timed out while connecting to server",
                          kind="conflict")
    return acc


def _check_login(env: AppEnv, user: str, password: str) -> None:
    acc = _account(env)
    if not same_address(user, acc["email"]) or password != acc["auth_code"]:
        raise ToolFailure(AUTH_FAILED, kind="permission")


def _folder(env: AppEnv, name: str) -> dict[str, Any]:
    """A folder by its IMAP name (INBOX in any case, the others exactly)."""
    key = "INBOX" if name.strip().upper() == "INBOX" else name.strip()
    folder = env.tree.top("folder", key)
    if folder is None:
        names = ", ".join(env.tree.data.get("folders", {}))
        raise ToolFailure(f"Mailbox doesn't exist: {name}（可用文件夹: {names}）", kind="not_found")
    return folder


def _special(env: AppEnv, flag: str) -> str:
    for f in env.tree.list("folders"):
        if f.get("special_use") == flag:
            return f["name"]
    raise ToolFailure(f"no {flag} folder in this mailbox", kind="internal")


# A UID is a string of digits, as the real schema types it: a bare number is a type error.
Uid = str


def _message(env: AppEnv, uid: str) -> dict[str, Any]:
    text = uid.strip()
    if not text.isdigit() or int(text) <= 0:
        raise ToolFailure(f"无效的UID: {uid!r}（UID 是正整数，如 1024）", kind="type")
    msg = env.tree.top("message", str(int(text)))
    if msg is None:
        raise ToolFailure(f"未找到UID为 {int(text)} 的邮件", kind="not_found")
    return msg


def _mail(msg: dict[str, Any]) -> Mail:
    return Mail(
        id=msg["uid"], sender=msg["from"], to=tuple(msg.get("to", [])), cc=tuple(msg.get("cc", [])),
        bcc=tuple(msg.get("bcc", [])), subject=msg.get("subject", ""), body=msg.get("text", ""),
        extra_text=msg.get("html", ""), date=msg["date"], labels=frozenset({msg["folder"].casefold()}),
        unread=not msg.get("seen", False), starred=bool(msg.get("flagged")),
        attachments=tuple(msg.get("attachments", [])),
    )


def _entry(env: AppEnv, msg: dict[str, Any]) -> str:
    return (f"📧 UID: {msg['uid']}\n"
            f"📅 日期: {rfc5322(msg['date'], env.clock.tz)}\n"
            f"👤 发件人: {format_address(msg['from'])}\n"
            f"📝 主题: {msg.get('subject') or '(无主题)'}\n"
            f"🔖 状态: {'已读' if msg.get('seen') else '未读'}{'，已加星标' if msg.get('flagged') else ''}\n"
            f"{SEPARATOR}")


def _in_folder(env: AppEnv, folder: str) -> list[dict[str, Any]]:
    return env.tree.list("messages", {"folder": folder})


def _new_uid(env: AppEnv) -> str:
    """The next UID (the account's uidnext), never reused even after a message is expunged."""
    acc = _account(env)
    uid = int(acc["uidnext"])
    env.tree.update(_account_path(acc), {"uidnext": uid + 1})
    return str(uid)


def _store(env: AppEnv, body: dict[str, Any]) -> dict[str, Any]:
    return env.tree.create("messages", body, entity_id=_new_uid(env))


# -- sending ---------------------------------------------------------------------------------------
class AttachmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    filename: str = Field(min_length=1, description="附件文件名")
    path: str | None = Field(None, description="附件文件路径")
    content: str | None = Field(None, description="附件内容(base64编码)")


def _attachments(items: list[AttachmentIn] | None) -> list[dict[str, Any]]:
    out = []
    for att in items or []:
        if att.content is not None:
            try:
                size = len(base64.b64decode(att.content, validate=True))
            except (binascii.Error, ValueError) as exc:
                raise ToolFailure(f"附件 {att.filename} 的 content 不是有效的 base64 编码", kind="type") from exc
        elif att.path is not None:  # the server's file system is not the agent's: nothing is there
            raise ToolFailure(f"ENOENT: no such file or directory, open '{att.path}'", kind="not_found")
        else:
            raise ToolFailure(f"附件 {att.filename} 需要 content（base64）或 path", kind="missing")
        out.append(attachment_meta(att.filename, size))
    return out


@APP.tool(mutates=True)
def send_email(
    env: AppEnv,
    to: list[str] = Field(description="收件人邮箱地址列表"),  # noqa: B008
    subject: str = Field(description="邮件主题"),
    text: str = Field(description="纯文本邮件内容"),
    cc: list[str] | None = Field(None, description="抄送邮箱地址列表（可选）"),  # noqa: B008
    bcc: list[str] | None = Field(None, description="密送邮箱地址列表（可选）"),  # noqa: B008
    html: str | None = Field(None, description="HTML格式邮件内容（可选）"),
    attachments: list[AttachmentIn] | None = Field(None, description="邮件附件列表（可选）"),  # noqa: B008
) -> str:
    """发送邮件。Sends from the configured 163 account; the sent copy is saved in 已发送, and mail addressed
    to the account itself also arrives in INBOX."""
    acc = _connect(env, "smtp")
    if not to:
        raise ToolFailure("No recipients defined", kind="missing")
    try:
        rcpt_to, rcpt_cc, rcpt_bcc = parse_recipients(to), parse_recipients(cc), parse_recipients(bcc)
    except AddressError as exc:
        raise ToolFailure(f"Can't send mail - all recipients were rejected: 553 Invalid recipient address "
                          f"<{exc.address}>", kind="type") from exc
    files = _attachments(attachments)
    now = env.now()
    message_id = generate_id("<{uuid}@163.com>", env.tree.rng)
    body: dict[str, Any] = {
        "from": {"name": acc.get("display_name", ""), "address": acc["email"]},
        "to": rcpt_to, "cc": rcpt_cc, "bcc": rcpt_bcc, "subject": subject, "text": text,
        "date": now, "seen": True, "flagged": False, "attachments": files, "message_id": message_id,
    }
    if html is not None:
        body["html"] = html
    _store(env, body | {"folder": _special(env, SENT)})
    if any(same_address(a["address"], acc["email"]) for a in rcpt_to + rcpt_cc + rcpt_bcc):
        _store(env, {k: v for k, v in body.items() if k != "bcc"} | {"folder": "INBOX", "seen": False})
    return f"邮件发送成功！\n消息ID: {message_id}\n收件人: {', '.join(to)}\n主题: {subject}"


# -- reading ---------------------------------------------------------------------------------------
@APP.tool()
def get_recent_emails(
    env: AppEnv,
    limit: int = Field(20, ge=1, le=100, description="返回邮件数量限制（默认20）"),
    days: int = Field(3, ge=1, le=3650, description="获取最近几天的邮件（默认3天）"),
    folder: str = Field("INBOX", min_length=1, description="文件夹（默认INBOX；163的系统文件夹: INBOX, 已发送, "
                                                           "草稿箱, 已删除, 垃圾邮件，另有用户文件夹）"),
) -> str:
    """获取最近三天的邮件列表。Lists the mail of the last `days` days in one folder, newest first, with each
    message's numeric UID (pass it to get_email_content)."""
    _connect(env, "imap")
    name = _folder(env, folder)["name"]
    since = env.clock.timestamp() - days * 86400
    found = [m for m in _in_folder(env, name) if m["date"] >= since]
    found.sort(key=lambda m: (m["date"], int(m["uid"])), reverse=True)
    found = found[:limit]
    if not found:
        return f"最近{days}天内没有找到邮件。"
    where = "" if name == "INBOX" else f"{name} "
    entries = "\n".join(_entry(env, m) for m in found)
    return f"📬 {where}最近{days}天的邮件列表 (共{len(found)}封):\n\n{entries}"


@APP.tool()
def get_email_content(env: AppEnv, uid: Uid = Field(description="邮件唯一标识符")) -> str:  # noqa: B008
    """获取指定邮件的详细内容。Reads one message by its UID (from get_recent_emails or search_emails) and
    marks it as read (\\Seen)."""
    _connect(env, "imap")
    msg = _message(env, uid)
    if not msg.get("seen"):
        env.tree.update(f"messages[{msg['uid']}]", {"seen": True})
    lines = [
        f"📧 邮件详情 (UID: {msg['uid']})",
        SEPARATOR,
        f"📅 日期: {rfc5322(msg['date'], env.clock.tz)}",
        f"👤 发件人: {format_address(msg['from'])}",
        f"👥 收件人: {format_addresses(msg.get('to', [])) or '未知'}",
    ]
    if msg.get("cc"):
        lines.append(f"📋 抄送: {format_addresses(msg['cc'])}")
    lines += [f"📝 主题: {msg.get('subject') or '(无主题)'}", f"📁 文件夹: {msg['folder']}", SEPARATOR]
    text = "\n".join(lines) + "\n"
    if msg.get("text"):
        text += f"📄 文本内容:\n{msg['text']}\n"
    if msg.get("html") and msg["html"] != msg.get("text"):
        text += f"🌐 HTML内容:\n{msg['html']}\n"
    if msg.get("attachments"):
        text += "📎 附件列表:\n" + "".join(
            f"  {i}. {a['filename']} ({a['size']} bytes)\n" for i, a in enumerate(msg["attachments"], 1))
    return text


@APP.tool()
def search_emails(
    env: AppEnv,
    query: str = Field(min_length=1, description="搜索条件：关键词（匹配主题、发件人、收件人、正文、附件名），"
                                                 "可用 from: to: subject: is:unread has:attachment "
                                                 "after:YYYY/MM/DD before:YYYY/MM/DD"),
    folder: str = Field("INBOX", min_length=1, description="要搜索的文件夹（默认INBOX）"),
    limit: int = Field(20, ge=1, le=100, description="返回邮件数量限制（默认20）"),
) -> str:
    """搜索邮件。Searches one folder (INBOX by default) and lists the matches newest first with their UIDs."""
    _connect(env, "imap")
    if not query.strip():
        raise ToolFailure("搜索条件不能为空", kind="range")
    try:
        q = parse_query(query)
    except QueryError as exc:
        raise ToolFailure(f"搜索条件无效: {exc}", kind="range") from exc
    name = _folder(env, folder)["name"]
    ctx = MatchContext(me=_account(env)["email"], tz=env.clock.tz, now=env.clock.timestamp())
    by_uid = {m["uid"]: m for m in _in_folder(env, name)}
    hits = [by_uid[m.id] for m in newest_first(_mail(m) for m in by_uid.values()) if matches(q, m, ctx)][:limit]
    if not hits:
        return f'在{name}中没有找到与"{query}"匹配的邮件。'
    entries = "\n".join(_entry(env, m) for m in hits)
    return f'🔍 {name} 中与"{query}"匹配的邮件 (共{len(hits)}封):\n\n{entries}'


# -- changing mail -----------------------------------------------------------------------------------
@APP.tool(mutates=True)
def mark_email_read(
    env: AppEnv,
    uid: Uid = Field(description="邮件唯一标识符"),  # noqa: B008
    read: bool = Field(True, description="true 标记为已读（默认），false 标记为未读"),
) -> str:
    """标记邮件为已读或未读（设置或清除 \\Seen 标志）。"""
    _connect(env, "imap")
    msg = _message(env, uid)
    env.tree.update(f"messages[{msg['uid']}]", {"seen": read})
    return f"✅ 邮件已标记为{'已读' if read else '未读'} (UID: {msg['uid']})"


@APP.tool(mutates=True)
def delete_email(env: AppEnv, uid: Uid = Field(description="邮件唯一标识符")) -> str:  # noqa: B008
    """删除邮件：移到「已删除」文件夹；已在「已删除」中的邮件会被彻底删除（expunge），无法恢复。"""
    _connect(env, "imap")
    msg = _message(env, uid)
    trash = _special(env, TRASH)
    if msg["folder"] == trash:
        env.tree.delete(f"messages[{msg['uid']}]")
        return f"🗑️ 邮件已彻底删除 (UID: {msg['uid']})"
    env.tree.update(f"messages[{msg['uid']}]", {"folder": trash})
    return f"🗑️ 邮件已移至「{trash}」(UID: {msg['uid']})"


@APP.tool(mutates=True)
def move_email(
    env: AppEnv,
    uid: Uid = Field(description="邮件唯一标识符"),  # noqa: B008
    folder: str = Field(min_length=1, description="目标文件夹名称（如 INBOX、旅行、账单）"),
) -> str:
    """移动邮件到另一个文件夹。The UID stays the same after the move."""
    _connect(env, "imap")
    msg = _message(env, uid)
    target = _folder(env, folder)["name"]
    if msg["folder"] == target:
        raise ToolFailure(f"邮件已在「{target}」中 (UID: {msg['uid']})", kind="conflict")
    source = msg["folder"]
    env.tree.update(f"messages[{msg['uid']}]", {"folder": target})
    return f"✅ 邮件已移动 (UID: {msg['uid']}): {source} → {target}"


# -- the account -----------------------------------------------------------------------------------
@APP.tool(mutates=True)
def setup_email_account(
    env: AppEnv,
    email: str = Field(min_length=1, description="邮箱地址（如 user@qq.com）"),
    password: str = Field(min_length=1, description="邮箱密码或授权码"),
    provider: ProviderName | None = Field(None, description="邮箱提供商（可选，不填写则自动识别）"),  # noqa: B008
) -> str:
    """设置邮箱账号（自动识别邮箱类型并配置服务器）。For 163 the password is the client authorization code
    (授权码), not the web login password; the login is checked before the settings are saved."""
    name = provider or detect_provider(email)
    if name is None:
        raise ToolFailure(f"无法识别邮箱类型: {email}\n\n支持的邮箱类型请使用 list_supported_providers 查看，"
                          "或手动指定 provider 参数。", kind="range", prefix="❌ ")
    acc = _account(env)
    if name != acc["provider"] or not same_address(email, acc["email"]) or password != acc["auth_code"]:
        raise ToolFailure(AUTH_FAILED, kind="permission", prefix="❌ 邮箱设置失败: ")
    env.tree.update(_account_path(acc), {"configured": True, **server_settings(name)})
    p = PROVIDERS[name]
    incoming = p.pop3 if p.use_pop3 else p.imap
    return (f"✅ 邮箱账号设置成功！\n\n"
            f"📧 邮箱地址: {email}\n"
            f"🏢 邮箱提供商: {p.name}\n"
            f"📤 SMTP服务器: {p.smtp.host}:{p.smtp.port} (SSL: {_js(p.smtp.secure)})\n"
            f"📥 接收协议: {'POP3' if p.use_pop3 else 'IMAP'}\n"
            f"📥 {'POP3' if p.use_pop3 else 'IMAP'}服务器: {incoming.host}:{incoming.port} "
            f"(SSL: {_js(incoming.secure)})\n"
            f"\n💡 提示: 配置已自动完成，您现在可以使用邮件功能了！")


def _js(flag: bool) -> str:
    return "true" if flag else "false"


@APP.tool(mutates=True)
def configure_email_server(
    env: AppEnv,
    user: str = Field(min_length=1, description="邮箱账号"),
    password: str = Field(min_length=1, description="邮箱密码或授权码"),
    smtpHost: str | None = Field(None, min_length=1, description="SMTP服务器地址"),
    smtpPort: int | None = Field(None, ge=1, le=65535, description="SMTP端口"),
    smtpSecure: bool | None = Field(None, description="是否使用SSL"),
    imapHost: str | None = Field(None, min_length=1, description="IMAP服务器地址"),
    imapPort: int | None = Field(None, ge=1, le=65535, description="IMAP端口"),
    imapSecure: bool | None = Field(None, description="是否使用SSL"),
) -> str:
    """手动配置邮箱服务器设置（高级用户使用）。Settings left out keep their current values; wrong hosts or ports
    make later sends and reads fail until they are fixed (or setup_email_account restores the defaults)."""
    _check_login(env, user, password)
    acc = _account(env)
    smtp = dict(acc["smtp"])
    imap = dict(acc["imap"])
    for target, host, port, secure in ((smtp, smtpHost, smtpPort, smtpSecure), (imap, imapHost, imapPort, imapSecure)):
        if host is not None:
            target["host"] = host.strip()
        if port is not None:
            target["port"] = port
        if secure is not None:
            target["secure"] = secure
    env.tree.update(_account_path(acc), {"configured": True, "smtp": smtp, "imap": imap})
    return ("邮箱配置已更新：\n"
            f"SMTP服务器: {smtp['host']}\nSMTP端口: {smtp['port']}\nSMTP SSL: {_js(smtp['secure'])}\n"
            f"IMAP服务器: {imap['host']}\nIMAP端口: {imap['port']}\nIMAP SSL: {_js(imap['secure'])}\n"
            f"用户: {user}")


@APP.tool()
def list_supported_providers(env: AppEnv) -> str:
    """列出支持的邮箱提供商"""
    text = "📋 支持的邮箱提供商:\n\n"
    for key, p in PROVIDERS.items():
        text += (f"🏢 {p.name} ({key})\n   域名: {', '.join(p.domains)}\n"
                 f"   推荐协议: {'POP3' if p.use_pop3 else 'IMAP'}\n   示例: user@{p.domains[0]}\n\n")
    text += ("💡 使用方法:\n1. 使用 setup_email_account 工具\n2. 填写完整邮箱地址和密码/授权码\n"
             "3. 系统会自动识别并配置对应的邮箱服务器\n\n"
             "⚠️  注意: 请确保已在对应邮箱中开启POP3/IMAP/SMTP服务并获取授权码！")
    return text


@APP.tool()
def test_email_connection(
    env: AppEnv,
    testType: Literal["smtp", "imap", "both"] = Field(
        "both", description="测试类型：smtp（发送）、imap（接收）或both（全部）"),
) -> str:
    """测试邮箱服务器连接"""
    lines, failed = [], 0
    for proto, label in (("smtp", "SMTP"), ("imap", "IMAP")):
        if testType not in (proto, "both"):
            continue
        try:
            _connect(env, proto)  # type: ignore[arg-type]
            lines.append(f"✅ {label}服务器连接测试成功！")
        except ToolFailure as exc:
            failed += 1
            lines.append(f"❌ {label}连接测试失败: {exc.message}")
    if failed:
        raise ToolFailure("\n".join(lines), kind="conflict", prefix="")
    return "\n".join(lines)
