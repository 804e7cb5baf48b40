"""The ITSM knowledge tools: the article lifecycle (publishing by a manager only), search, and
links to incidents (a resolution only for a published article); refusals write nothing."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

# the episode fixture and the ok / refused helpers are the incident tests' own
from test_itsm_incidents import AGENT, MANAGER, REPORTER, Rows, ep, ok, refused  # noqa: F401

from simtenant.episode import Episode


def audits(episode: Episode, tool: str) -> list[tuple]:
    connection = sqlite3.connect(episode.path)
    try:
        query = "SELECT action, record_table, record_id, fields FROM audit_log WHERE tool = ? ORDER BY id"
        return [(*r[:3], json.loads(r[3])) for r in connection.execute(query, (tool,))]
    finally:
        connection.close()


def draft(episode: Episode, **args: Any) -> dict[str, Any]:
    fields = {
        "title": "Resetting a qqx-token",
        "body": "Open the portal and choose Reset.",
        "category": "access",
        "keywords": ["QQX Token", " reset "],
        **args,
    }
    return ok(episode, "create_knowledge_article", **fields)


def test_create_and_update_a_draft(ep: Episode, world_rows: Rows) -> None:
    article = draft(ep)
    assert (article["state"], article["author_id"], article["visibility"]) == ("draft", AGENT, "internal")
    assert article["keywords"] == "qqx token,reset" and article["id"].startswith("KB")
    assert audits(ep, "create_knowledge_article")[0][:3] == ("create", "knowledge_articles", article["id"])
    updated = ok(ep, "update_knowledge_article", article_id=article["id"], body="Use the self-service portal.")
    assert (updated["body"], updated["changed"]) == ("Use the self-service portal.", ["body"])
    assert audits(ep, "update_knowledge_article") == [("update", "knowledge_articles", article["id"], ["body"])]
    got = ok(ep, "get_knowledge_article", actor=REPORTER, article_id=article["id"])
    assert got["body"] == "Use the self-service portal."
    refused(ep, world_rows, "create_knowledge_article", 403, actor=REPORTER, title="t", body="b", category="c")
    refused(ep, world_rows, "create_knowledge_article", 400, "invalid_arguments", title=" ", body="b", category="c")
    refused(ep, world_rows, "update_knowledge_article", 400, "missing_field", article_id=article["id"])
    refused(ep, world_rows, "update_knowledge_article", 403, actor=REPORTER, article_id=article["id"], title="x")
    refused(ep, world_rows, "get_knowledge_article", 404, article_id="KB9999999")


def test_lifecycle_and_manager_only_publishing(ep: Episode, world_rows: Rows) -> None:
    number = draft(ep)["id"]
    refused(ep, world_rows, "publish_article", 409, "illegal_transition", actor=MANAGER, article_id=number)
    refused(ep, world_rows, "retire_article", 409, "illegal_transition", article_id=number)
    review = ok(ep, "submit_article_for_review", article_id=number)
    assert (review["state"], review["previous_state"]) == ("review", "draft")
    refused(ep, world_rows, "submit_article_for_review", 409, "illegal_transition", article_id=number)
    refused(ep, world_rows, "publish_article", 403, "role_required", article_id=number)
    refused(ep, world_rows, "publish_article", 403, actor=REPORTER, article_id=number)
    published = ok(ep, "publish_article", actor=MANAGER, article_id=number)
    assert published["state"] == "published"
    retired = ok(ep, "retire_article", article_id=number)
    assert (retired["state"], retired["previous_state"]) == ("retired", "published")
    refused(ep, world_rows, "retire_article", 409, "illegal_transition", article_id=number)
    assert audits(ep, "publish_article") == [("update", "knowledge_articles", number, ["state"])]


def test_search(ep: Episode) -> None:
    one = draft(ep)["id"]
    two = draft(ep, title="Printer jams on tray 2", keywords=["qqx-printer"])["id"]
    assert [r["id"] for r in ok(ep, "search_knowledge", query="QQX")["rows"]] == [one, two]
    assert [r["id"] for r in ok(ep, "search_knowledge", query="printer jams")["rows"]] == [two]
    ok(ep, "submit_article_for_review", article_id=two)
    in_review = ok(ep, "search_knowledge", query="qqx", state="review", actor=REPORTER)
    assert [r["id"] for r in in_review["rows"]] == [two] and in_review["total"] == 1
    assert ok(ep, "search_knowledge", query="100%_nothing")["total"] == 0


def test_links_to_incidents(ep: Episode, world_rows: Rows) -> None:
    incident = ok(
        ep,
        "create_incident",
        caller_id=REPORTER,
        short_description="Cannot log in",
        category="access",
        impact=3,
        urgency=2,
    )["id"]
    article = draft(ep)["id"]
    refused(
        ep, world_rows, "link_knowledge_to_incident", 409, "not_published", incident_number=incident,
        article_id=article, relation="resolution",
    )  # fmt: skip
    refused(
        ep, world_rows, "link_knowledge_to_incident", 403, actor=REPORTER, incident_number=incident,
        article_id=article, relation="suggested",
    )  # fmt: skip
    refused(
        ep, world_rows, "link_knowledge_to_incident", 404, incident_number=incident, article_id="KB9999999",
        relation="suggested",
    )  # fmt: skip
    linked = ok(ep, "link_knowledge_to_incident", incident_number=incident, article_id=article, relation="applied")
    assert (linked["relation"], linked["previous_relation"]) == ("applied", None)
    refused(
        ep, world_rows, "link_knowledge_to_incident", 409, "duplicate", incident_number=incident,
        article_id=article, relation="applied",
    )  # fmt: skip
    ok(ep, "submit_article_for_review", article_id=article)
    ok(ep, "publish_article", actor=MANAGER, article_id=article)
    resolution = ok(
        ep, "link_knowledge_to_incident", incident_number=incident, article_id=article, relation="resolution"
    )
    assert (resolution["relation"], resolution["previous_relation"]) == ("resolution", "applied")
    listed = ok(ep, "list_incident_knowledge", actor=REPORTER, incident_number=incident)["articles"]
    assert {
        "article_id": article,
        "relation": "resolution",
        "title": "Resetting a qqx-token",
        "state": "published",
    } in (listed)
    key = f"{incident}/{article}"
    assert audits(ep, "link_knowledge_to_incident") == [
        ("create", "incident_knowledge", key, ["article_id", "incident_id", "org_id", "relation"]),
        ("update", "incident_knowledge", key, ["relation"]),
    ]
