"""163 Mail: a personal 163.com mailbox, mirroring TimeCyber/email-mcp ("universal-email-server").

Real tools, names and arguments: ``send_email {to[], subject, text, cc?, bcc?, html?,
attachments?}``, ``get_recent_emails {limit?, days?}`` (defaults 20 and 3),
``get_email_content {uid}``, ``setup_email_account {email, password, provider?}``,
``configure_email_server {user, password, smtpHost?, smtpPort?, smtpSecure?, imapHost?,
imapPort?, imapSecure?}``, ``list_supported_providers``, ``test_email_connection
{testType?}``. Responses are the real server's formatted Chinese text (📬/📧/📅/👤/📝 lines,
``邮件发送成功！\\n消息ID: ...``, ``✅ 邮箱账号设置成功！ ...``, the provider table); failures
read ``错误: <message>`` (``❌ 邮箱设置失败: ...`` for setup), with nodemailer/IMAP-style
messages such as ``Invalid login: 535 Error: authentication failed``, ``No recipients
defined``, ``getaddrinfo ENOTFOUND <host>`` and ``缺少邮箱密码配置。请设置 EMAIL_PASSWORD 环境变量。``.

Kept quirks: messages are addressed by numeric IMAP UIDs passed as strings; every mail tool
needs a configured account, and its stored SMTP/IMAP settings must point at 163's servers
(configure_email_server can break them, setup_email_account restores the defaults); the 163
password is the client authorization code and a wrong one is rejected; dates are RFC 5322
in the task clock's zone; reading a message sets ``\\Seen`` (a read side effect, listed in
the hierarchy's ``ignore_changes``); the sent copy goes to 已发送 and mail to oneself also
lands in INBOX; 163's folders have Chinese names (INBOX, 已发送, 草稿箱, 已删除, 垃圾邮件).

Invented (the real server has none of these): ``search_emails {query, folder?, limit?}``
(keywords plus Gmail-style operators, one folder at a time; keywords match as text, like an IMAP
SEARCH, with no stemming or place normalisation: strict as the mail server is), ``mark_email_read {uid, read?}``,
``delete_email {uid}`` (to 已删除, or expunged when already there) and ``move_email {uid,
folder}``; the ``folder`` argument of get_recent_emails; the 🔖 status line in listings and
the 📁 folder line of get_email_content. Simulator choices where the real server misbehaves:
it lists 163 mail over POP3 (message numbers that get_email_content cannot use) — here
listings give the IMAP UIDs that get_email_content takes; the login is checked when the
account is set up or configured rather than on first use; a UID is kept when a message
moves; a missing UID is an error instead of a hang; an attachment ``path`` never exists on
the simulated server (send ``content`` as base64).
"""

from mcp_persona.apps.email163.tools import APP

__all__ = ["APP"]
