"""Rednote (Xiaohongshu / 小红书): the user's RED account, mirroring xpzouying/xiaohongshu-mcp.

Tools keep the real server's names and argument names: check_login_status, get_login_qrcode,
delete_cookies, list_feeds, search_feeds {keyword, filters{sort_by, note_type, publish_time,
search_scope, location}}, get_feed_detail {feed_id, xsec_token, load_all_comments, limit,
click_more_replies, reply_limit, scroll_speed}, like_feed {.., unlike}, favorite_feed {.., unfavorite},
user_profile {user_id, xsec_token, tab}, post_comment_to_feed, reply_comment_in_feed {.., comment_id
or user_id}, publish_content {title, content, images, tags, schedule_at, is_original, visibility,
products}, publish_with_video {title, content, video, ...} and get_my_profile {tab}. Payloads keep the
real shapes: feeds as ``{"feeds": [{"xsecToken", "id", "modelType", "noteCard": {"type",
"displayTitle", "user", "interactInfo", "cover", "video"}, "index"}], "count"}``, details as ``{"feed_id",
"data": {"note", "comments": {"list", "cursor", "hasMore"}}}``, profiles as ``{"userBasicInfo",
"interactions", "feeds"}``, the action results (``{"feed_id", "success", "message": "点赞成功或已点赞"}``,
``{"title", "content", "images", "status": "发布完成"}``), counters as strings ("1.2万"), a note's topics
appended to its desc as ``#tag[话题]#``.

Response style (one for every tool): a success is the JSON object, compact (the real server indents it;
the whitespace means nothing and is resent in every later request), where the real server answers some
tools with a sentence (the login and action tools); a failure is the real handlers' plain text
``<操作>失败: <原因>`` (e.g. ``获取Feed详情失败: 缺少xsec_token参数``, ``搜索Feeds失败:
排序依据 不支持 "热门"，可选：综合、最新、最多点赞、最多评论、最多收藏``, ``发布失败: 标题长度超过限制``), and a
schema violation reads ``invalid params: validating "arguments": <field>: <message>``.

Kept quirks: every note listed (home feed, search, profiles) carries an ``xsecToken`` that must be
passed back with its feed_id; a missing token, a token of another note or a made-up one is rejected
(``笔记不可访问: 当前笔记暂时无法浏览（xsec_token 无效...）``); user_profile needs the xsec_token of one of
that user's notes (or of a user card); the session is a cookie that delete_cookies drops, after which
every site tool fails with 未登录 until get_login_qrcode; title limit 20 (a CJK character 1, ASCII 1/2,
the site's own count), body 1000 characters, 1..9 images (an empty list fails with the real "no valid
images found"); publishing returns no note id (find the note with get_my_profile); like/favorite are
idempotent ("点赞成功或已点赞"); the detail shows 10 top-level comments with their first reply unless
load_all_comments; search filter values are the site's Chinese labels, checked before searching; a
reply found by user_id answers that user's first comment; a note its author deleted stays in the
favorites list but cannot be opened (该笔记已被删除); commenting on a note with comments closed fails
with the real "未找到评论输入框..." text.

Simulator choices (not in the real server): get_login_qrcode, when logged out, returns the QR code and
the persona scans it at once, so the session is restored; user cards (note authors, commenters) carry
the user's ``xsecToken``; search matches every space-separated word in title, text, tags or author
nickname (a run of 4+ CJK characters also matches as two-character words; a Latin word also in
another number or form, through the shared normalisation, as the site's fuzzy search does) and ranks 综合 by where the
words hit; 同城/附近 compare the note's IP location with the user's; opening a note marks it 已看过
(``viewed``, a read side effect); local files are those listed in the context's ``local_files`` (a path
not there fails with 图片文件不存在 / 视频文件不存在或不可访问), remote http(s) images are accepted;
comments are limited to 280 characters; products always fail (no account has the shop feature); the
wording of the unknown-note, unknown-user, bad-token, private-tab and too-many-images errors is invented
in the real style.
"""

from mcp_persona.apps.rednote.tools import APP

__all__ = ["APP"]
