"""The automation world's social media scheduler: accounts, posts through approval to the schedule and
publication (the tools enforce who approves, the networks' rules and connected accounts), take-downs and
metrics."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

OMAR = "omar.haddad@lumenpine.example"
JADE = "jade.kim@lumenpine.example"
TOM = "tom.becker@lumenpine.example"

episode = episode_fixture("social", "automation", "social-tools", JADE)


def post_rows(e):
    return (
        rows(e.path, "SELECT * FROM soc_posts ORDER BY id"),
        rows(e.path, "SELECT * FROM soc_approvals ORDER BY id"),
        rows(e.path, "SELECT * FROM soc_post_metrics ORDER BY post_id"),
    )


def test_accounts_and_their_look_alikes(episode):
    instagram = ok(episode, "soc_list_accounts", {"network": "instagram"})
    assert [(r["id"], r["handle"], r["status"]) for r in instagram["rows"]] == [
        ("SOC-02", "lumenandpine", "connected"),
        ("SOC-05", "lumenpine.trade", "connected"),
        ("SOC-06", "lumenandpine_outlet", "archived"),
    ]
    assert [r["id"] for r in ok(episode, "soc_list_accounts", {"status": "disconnected"})["rows"]] == ["SOC-04"]
    account = ok(episode, "soc_get_account", {"account_id": "SOC-01"})
    assert account["approver_email"] == OMAR and account["posts_by_status"]["pending_approval"] == 2
    refused(episode, "soc_get_account", {"account_id": "SOC-99"}, 404, "not_found")


def test_posts_listed_and_read_with_approvals_and_metrics(episode):
    queue = ok(episode, "soc_list_approvals", {"reviewer_email": OMAR, "decision": "pending"})
    assert [(r["post_id"], r["network"]) for r in queue["rows"]] == [
        ("POST-0015", "linkedin"),
        ("POST-0016", "instagram"),
        ("POST-0017", "facebook"),
        ("POST-0018", "x"),
        ("POST-0020", "linkedin"),
    ]
    bench = ok(episode, "soc_list_posts", {"query": "teak garden bench", "status": "published"})
    assert [(r["id"], r["handle"]) for r in bench["rows"]] == [
        ("POST-0013", "lumenpine.trade"),
        ("POST-0012", "LumenAndPineOutdoor"),
        ("POST-0011", "lumenandpine"),
    ]
    post = ok(episode, "soc_get_post", {"post_id": "POST-0014"})
    assert post["status"] == "rejected" and post["approvals"][0]["comment"].startswith("The link goes to last year")
    assert ok(episode, "soc_get_post", {"post_id": "POST-0005"})["metrics"]["impressions"] == 8450


def test_a_post_goes_out_only_once_its_approver_approved_it(episode):
    draft = ok(
        episode,
        "soc_create_post",
        {"account_id": "SOC-01", "body": "Fall catalog: one week to go.", "campaign": "fall-catalog-2026"},
    )
    assert (draft["id"], draft["status"], draft["created_by"]) == ("POST-0024", "draft", JADE)
    for tool in ("soc_publish_post_now", "soc_schedule_post"):
        args = (
            {"post_id": draft["id"], "publish_at": "2026-09-24T16:00:00Z"}
            if tool == "soc_schedule_post"
            else {"post_id": draft["id"]}
        )
        refused(episode, tool, args, 403, "not_approved", post_rows)
    refused(
        episode,
        "soc_submit_post_for_approval",
        {"post_id": draft["id"], "reviewer_email": TOM},
        403,
        "not_account_approver",
        post_rows,
    )
    sent = ok(episode, "soc_submit_post_for_approval", {"post_id": draft["id"]})
    assert (sent["status"], sent["approval"]["reviewer_email"], sent["approval"]["decision"]) == (
        "pending_approval",
        OMAR,
        "pending",
    )
    refused(episode, "soc_approve_post", {"post_id": draft["id"]}, 403, "not_reviewer", post_rows)  # Jade is its author
    episode.actor = OMAR
    refused(episode, "soc_reject_post", {"post_id": draft["id"], "comment": "  "}, 400, "invalid_arguments", post_rows)
    approved = ok(episode, "soc_approve_post", {"post_id": draft["id"]})
    assert (approved["status"], approved["approval"]["decision"]) == ("approved", "approved")
    refused(
        episode,
        "soc_schedule_post",
        {"post_id": draft["id"], "publish_at": "2026-09-14T08:00:00Z"},
        400,
        "past_time",
        post_rows,
    )
    scheduled = ok(episode, "soc_schedule_post", {"post_id": draft["id"], "publish_at": "2026-09-24T16:00:00Z"})
    assert (scheduled["status"], scheduled["scheduled_for"]) == ("scheduled", "2026-09-24T16:00:00Z")
    paused = ok(episode, "soc_unschedule_post", {"post_id": draft["id"]})
    assert (paused["status"], paused["scheduled_for"]) == ("approved", None)
    published = ok(episode, "soc_publish_post_now", {"post_id": draft["id"]})
    assert (published["status"], published["published_at"]) == ("published", "2026-09-14T09:00:00Z")
    assert rows(episode.path, "SELECT impressions, clicks FROM soc_post_metrics WHERE post_id = ?", draft["id"]) == [
        (0, 0)
    ]
    refused(episode, "soc_update_post", {"post_id": draft["id"], "body": "x"}, 409, "post_published", post_rows)
    refused(episode, "soc_delete_post", {"post_id": draft["id"]}, 409, "post_published", post_rows)


def test_the_reviewer_decides_and_an_edit_needs_a_new_approval(episode):
    episode.actor = OMAR
    rejected = ok(
        episode, "soc_reject_post", {"post_id": "POST-0016", "comment": "The launch is October 1, not October 10."}
    )
    assert (rejected["status"], rejected["approval"]["comment"]) == (
        "rejected",
        "The launch is October 1, not October 10.",
    )
    refused(
        episode, "soc_approve_post", {"post_id": "POST-0019"}, 403, "not_reviewer", post_rows
    )  # Marcus reviews trade posts
    refused(episode, "soc_approve_post", {"post_id": "POST-0016"}, 409, "post_rejected", post_rows)
    ok(episode, "soc_approve_post", {"post_id": "POST-0015"})
    ok(episode, "soc_schedule_post", {"post_id": "POST-0015", "publish_at": "2026-09-30T16:00:00Z"})
    episode.actor = JADE
    edited = ok(
        episode,
        "soc_update_post",
        {"post_id": "POST-0015", "body": "Our Fall/Winter 2026 catalog is live on October 1."},
    )
    assert (edited["changed"], edited["status"], edited["scheduled_for"]) == (["body"], "draft", None)
    fixed = ok(
        episode,
        "soc_update_post",
        {"post_id": "POST-0016", "body": "New season, new terrace: our catalog launches October 1."},
    )
    assert fixed["status"] == "draft"
    resent = ok(episode, "soc_submit_post_for_approval", {"post_id": "POST-0016"})
    assert [a["decision"] for a in ok(episode, "soc_get_post", {"post_id": "POST-0016"})["approvals"]] == [
        "rejected",
        "pending",
    ]
    assert resent["status"] == "pending_approval"
    withdrawn = ok(
        episode, "soc_update_post", {"post_id": "POST-0017", "link_url": "https://lumenpine.example/fall-winter"}
    )
    assert withdrawn["status"] == "draft"
    assert rows(episode.path, "SELECT decision FROM soc_approvals WHERE post_id = 'POST-0017'") == [("withdrawn",)]
    # Omar writes on his own account: he names another colleague to review it
    episode.actor = OMAR
    own = ok(episode, "soc_create_post", {"account_id": "SOC-03", "body": "Expo week!"})
    refused(episode, "soc_submit_post_for_approval", {"post_id": own["id"]}, 403, "own_post", post_rows)
    refused(
        episode,
        "soc_submit_post_for_approval",
        {"post_id": own["id"], "reviewer_email": "tom.baker@lumenpine.example"},
        400,
        "unknown_reviewer",
        post_rows,
    )
    assert (
        ok(
            episode,
            "soc_submit_post_for_approval",
            {"post_id": own["id"], "reviewer_email": "dana.reyes@lumenpine.example"},
        )["status"]
        == "pending_approval"
    )


def test_network_rules_and_account_states(episode):
    too_long = {"account_id": "SOC-04", "body": "x" * 281}
    refused(episode, "soc_create_post", too_long, 400, "too_long", post_rows)
    refused(
        episode, "soc_create_post", {"account_id": "SOC-02", "body": "No picture"}, 400, "media_required", post_rows
    )
    refused(
        episode,
        "soc_create_post",
        {"account_id": "SOC-06", "body": "Hi", "media_url": "https://m.example/a.jpg"},
        409,
        "account_archived",
        post_rows,
    )
    refused(
        episode,
        "soc_create_post",
        {"account_id": "SOC-01", "body": "Hi", "campaign": "Fall Catalog"},
        400,
        "invalid_arguments",
    )
    assert (
        ok(episode, "soc_create_post", {"account_id": "SOC-04", "body": "x" * 280})["status"] == "draft"
    )  # drafts for a disconnected account
    episode.actor = OMAR
    ok(episode, "soc_approve_post", {"post_id": "POST-0018"})
    refused(
        episode,
        "soc_schedule_post",
        {"post_id": "POST-0018", "publish_at": "2026-10-01T15:30:00Z"},
        409,
        "account_disconnected",
        post_rows,
    )
    refused(episode, "soc_publish_post_now", {"post_id": "POST-0009"}, 409, "account_disconnected", post_rows)


def test_take_down_delete_and_metrics(episode):
    before = ok(episode, "soc_metrics_report", {"campaign": "fall-catalog-teaser"})
    assert [r["post_id"] for r in before["rows"]] == ["POST-0004", "POST-0005", "POST-0006", "POST-0007"]
    assert before["totals"] == {
        "posts": 4,
        "impressions": 22670,
        "likes": 1534,
        "comments": 122,
        "shares": 110,
        "clicks": 398,
        "engagements": 1766,
        "engagement_rate": 7.79,
    }
    assert before["rows"][0]["engagements"] == 181 and before["rows"][0]["engagement_rate"] == 5.8
    assert (
        ok(episode, "soc_metrics_report", {"campaign": "fall-catalog-teaser", "include_removed": True})["totals"][
            "posts"
        ]
        == 5
    )
    page = ok(episode, "soc_metrics_report", {"account_id": "SOC-02", "per_page": 1, "page": 2})
    assert (page["total"], [r["post_id"] for r in page["rows"]], page["totals"]["posts"]) == (4, ["POST-0005"], 4)
    down = ok(
        episode,
        "soc_take_down_post",
        {"post_id": "POST-0011", "reason": "Shows the trade price ($199); retail is $299."},
    )
    assert (down["status"], down["removed_reason"]) == ("removed", "Shows the trade price ($199); retail is $299.")
    refused(episode, "soc_take_down_post", {"post_id": "POST-0011", "reason": "again"}, 409, "post_removed", post_rows)
    refused(episode, "soc_take_down_post", {"post_id": "POST-0021", "reason": "x"}, 409, "post_draft", post_rows)
    assert ok(episode, "soc_delete_post", {"post_id": "POST-0015"}) == {"deleted": "POST-0015"}
    assert rows(episode.path, "SELECT count(*) FROM soc_approvals WHERE post_id = 'POST-0015'") == [(0,)]
    refused(episode, "soc_get_post", {"post_id": "POST-0015"}, 404, "not_found")
