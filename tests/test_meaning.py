"""A text checked by what it says, not one wording (``$says``, ``wording: free``), a negation read (``$not``,
"rather than email"), each side of a contrast its own statement, a whole entity matched in another form
(``"*"``: a WeCom markdown message), and the persona tasks fixed with them after the held-out review; each both
ways."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_persona.protocols import load_tasks
from mcp_persona.scoring.checkpoints import _search
from mcp_persona.scoring.claims import said_beside
from mcp_persona.scoring.match import fields_matched, value_matches
from mcp_persona.scoring.meaning import says
from mcp_persona.tasks import SearchCheckpoint

PERSONA = {t.id: t for t in load_tasks("persona")}


def expect_of(task_id: str, index: int) -> dict[str, Any]:
    return PERSONA[task_id].spec.checkpoints[index].expect


@pytest.mark.parametrize(("phrase", "text", "ok"), [
    ("not requeued", "Running jobs won't be automatically re-queued.", True),
    ("not requeued", "Jobs are killed at 21:45 without being requeued.", True),
    ("not requeued", "killed at 21:45 but are requeued automatically afterwards, no need to resubmit", False),
    ("resubmit", "killed at 21:45 but are requeued automatically afterwards, no need to resubmit", False),
    ("resubmit", "They won't be requeued, so please resubmit after 02:00.", True),
    ("heavy rain warning", "MSS has a warning out for heavy rain from 1pm to 5pm today", True),
    ("heavy rain warning", "There is no heavy rain warning today.", False),
    ("email", "Rather than email, I'll send my passport number over this chat.", False),
    ("email", "I'll email you my full name and passport number today.", True),
    ("resolved", "The token-expired issue is resolved in Studio 3.2.2.", True),
    ("fix", "The token-expired issue is resolved in Studio 3.2.2.", False),
    ("backward", "No, it doesn't cover the backward pass.", False),
])
def test_says_reads_words_inflections_and_negation(phrase: str, text: str, ok: bool) -> None:
    assert says(phrase, text) is ok


def test_not_operator_and_whole_entity_key() -> None:
    assert value_matches({"$not": {"$says": "requeued"}}, "They won't be requeued.")
    assert not value_matches({"$not": {"$says": "requeued"}}, "They are requeued automatically.")
    forms = {"*": {"$in": [{"msgtype": "text", "text.content": {"$contains": "SC26"}},
                           {"msgtype": "markdown", "markdown.content": {"$contains": "SC26"}}]}}
    assert fields_matched(forms, {"msgtype": "markdown", "markdown": {"content": "code **SC26**"}}) == 1
    assert fields_matched(forms, {"msgtype": "markdown", "markdown": {"content": "code SC25"}}) == 0


def test_each_side_of_a_contrast_is_its_own_statement() -> None:
    today = [["today", "current"]]
    assert said_beside("Approvals would take 21 days instead of up to 60 today.", ["60"], today, ["21 days"])
    assert not said_beside("Approvals would take 60 days, compared with 21 days today.", ["60"], today, ["21 days"])


def test_free_wording_reports_a_phrase_in_other_words() -> None:
    cp = SearchCheckpoint(type="generic_search", summary="the alert", gt_value=["Heavy Rain Warning"], wording="free")
    assert _search(0, cp, "Yes - MSS has a warning out for heavy rain, 1pm to 5pm.", [], set()).score == 1.0
    assert _search(0, cp, "No heavy rain warning is in force today.", [], set()).score == 0.0
    exact = SearchCheckpoint(type="generic_search", summary="the alert", gt_value=["Heavy Rain Warning"])
    assert _search(0, exact, "Yes - MSS has a warning out for heavy rain, 1pm to 5pm.", [], set()).score == 0.0


# -- the tasks the held-out review sampled ----------------------------------------------------------------------
@pytest.mark.parametrize(("task_id", "index", "field", "text", "ok"), [
    ("hodge_009", 1, "*", "Jobs killed at 21:45 won't be automatically re-queued; 1,260 GPU-hours left.", True),
    ("hodge_009", 1, "*", "Jobs killed at 21:45 without being requeued; 1260 GPU-hours left.", True),
    ("hodge_009", 1, "*", "killed at 21:45 but are requeued automatically afterwards, no need to resubmit; 1260 "
                          "GPU-hours left", False),
    ("collab_slack_001", 1, "text", "The WeChat article and the posters both go out at 9 a.m. on Wed 25 March.", True),
    ("collab_slack_001", 1, "text", "The WeChat article goes out at 09:00 on Mar 25; the posters go up at 14:00.",
     False),
    ("hodge_008", 3, "text", "Kenji is set up to present on the 26th, and my session on the 19th includes the "
                             "backward pass.", True),
    ("hodge_008", 3, "text", "Kenji is set up to present on the 19th, and my FlashAttention-2 session on the 26th "
                             "includes the backward pass.", False),
    ("rednote_x_004", 2, "text", "筛选腰部达人看近30天互动中位数，不看粉丝数；"
                                 "笔记说最容易被忽略的指标是搜索增量。", True),
    ("rednote_x_004", 2, "text", "To screen mid-tier creators (腰部达人), look at the lift in branded search "
                                 "(搜索增量). The metric people overlook most is median engagement (互动中位数).",
     False),
    ("social_instagram_002", 0, "text", "@lucas.w the token expired issue is resolved in Studio 3.2.2, please update",
     True),
    ("social_telegram_007", 1, "text", "Confirming the sunrise climb on 15 April, one spot (just myself). I'll email "
                                       "you my full name and passport number today.", True),
    ("social_telegram_007", 1, "text", "Confirming 15 April for one person. Rather than email, I'll send my full name "
                                       "and passport number over this chat today.", False),
    ("content_obsidian_013", 2, "content", "- *Reading Charts with Vision-Language Models* — Xu, Weber and He", True),
    ("social_reddit_003", 0, "body", "栖木 (Qimu): second floor sockets, 45 RMB. Try the small places off Yuyuan Road "
                                     "too, quieter than Wukang Road on weekends.", False),
    ("social_reddit_003", 0, "body", "Try the small places off Yuyuan Road too, they're great. 栖木 (Qimu): second "
                                     "floor sockets, 45 RMB.", False),
    ("social_reddit_003", 0, "body", "Try the small places off Yuyuan Road too, quieter than Wukang Road on "
                                     "weekends. 栖木 (Qimu): second floor has a socket at every window seat, 45 RMB.",
     True),
])
def test_sampled_task_checks_read_the_meaning(task_id: str, index: int, field: str, text: str, ok: bool) -> None:
    want = expect_of(task_id, index)[field]
    if field == "*":  # a WeCom message: the text form
        want = want["$in"][0]["text.content"]
    assert value_matches(want, text) is ok


def test_hodge_001_accepts_a_markdown_mention() -> None:
    expect = expect_of("hodge_001", 2)
    md = {"msgtype": "markdown", "markdown": {"content": "<@SunLei> DiDi ride on 2 Mar 2026, Orbit Lab → Hongqiao "
                                                         "Station, ¥62.40, campaign code SC26"}}
    assert fields_matched(expect, md) == len(expect)
    md["markdown"]["content"] = md["markdown"]["content"].replace("<@SunLei>", "<@ZhouJie>")
    assert fields_matched(expect, md) < len(expect)


@pytest.mark.parametrize(("answer", "ok"), [
    ("Approvals would take 21 days instead of up to 60 today.", True),
    ("Under the proposal, approvals would come within three weeks (21 days), versus up to 60 days.", True),
    ("Approvals would take up to 60 days, compared with 21 days today.", False),
    ("60 days proposed vs 21 today.", False),
])
def test_content_notion_013_binds_each_figure_to_its_side(answer: str, ok: bool) -> None:
    cp = PERSONA["content_notion_013"].spec.checkpoints[0]
    assert (_search(0, cp, answer, [], set()).score == 1.0) is ok
