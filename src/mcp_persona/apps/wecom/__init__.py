"""WeCom (Enterprise WeChat) group bots, mirroring gotoolkits/mcp-wecombot-server.

The real server wraps one group bot's webhook (``WECOM_BOT_WEBHOOK_KEY``) and has six tools,
kept here with their names and arguments: ``send_text {content, mentioned_list,
mentioned_mobile_list}`` (the mention lists are comma-separated *strings*, as in the real
server; ``@all`` mentions everyone), ``send_markdown {content}``, ``send_image {base64_data,
md5}``, ``send_news {title, description, url, picurl}``, ``send_template_card {card_type,
main_title, main_desc, card_action_type, card_action_url, card_action_appid,
card_action_pagepath}`` and ``upload_file {file_path}``. Answers use the webhook API's envelope
``{"errcode": 0, "errmsg": "ok"}`` (upload_file adds ``type``, ``media_id``, ``created_at``) and
WeCom's error codes: 93000 invalid webhook url (unknown key), 44004 empty content, 40058 invalid
parameter (content over 2048 / 4096 bytes, bad URL, bad base64, md5 that is not 32 hex digits or
does not match the decoded image, a card action without its url / appid + pagepath, news_notice
without the card_image this tool cannot send), 40008 invalid message type (card types other than
text_notice / news_notice), 40009 invalid image size (over 2 MB), 40004 invalid media type (not
JPG/PNG), 40006 invalid file size (uploads of 5 B to 20 MB), 40007 invalid media_id. Errmsg
wording is modelled on WeCom's and ends in its "more info" link. Schema violations answer 40058.
upload_file reads the bot server's own disk: a path that is not there fails before WeCom is
called, with the real server's plain-text error ("Failed to upload file: open <path>: no such
file or directory").

Invented, so that the app is stateful and personalized (the real server has no reads and one
fixed group): every send_* tool and upload_file take an optional ``key`` (a webhook key, or the
full webhook URL) choosing the bot and so the group, defaulting to the configured key;
``send_file {media_id, key}`` sends an uploaded file (WeCom's ``file`` msgtype; a media_id is
valid 3 days and only for the bot that uploaded it, else 40007); ``list_groups`` (the bots'
groups with their webhook keys), ``get_group_messages {group_id, limit}`` (the latest messages,
oldest first) and ``list_group_members {group_id}`` (userids and mobiles to mention), with 86003
for an unknown chat_id. The real server sends mentions only when both lists are given; here each
list works on its own.
"""

from mcp_persona.apps.wecom.tools import APP

__all__ = ["APP"]
