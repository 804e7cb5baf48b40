"""Commerce's user service beyond ServiceBench's: searching customers by name, verifying who a customer is,
and contact details that change only with the account holder's verification."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

TASK = "commerce/order-status"  # any commerce task: the seed world, its clock 2026-03-14T10:00:00Z
BEATRIZ = {"phone_last4": "0172", "postal_code": "97206"}  # USR-036's phone digits and ZIP on file


def query(path: Path, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def test_search_finds_look_alikes_by_name_or_email_in_name_order(start_episode):
    episode = start_episode(TASK)
    found = episode.call("users_search", {"query": "beatriz santos"}).result
    assert found["total"] == 2
    assert [(u["id"], u["email"]) for u in found["users"]] == [
        ("USR-036", "beatriz.santos@example.com"),
        ("USR-037", "beatriz.santos@example.net"),
    ]
    hannahs = episode.call("users_search", {"query": "HANNAH"}).result
    assert [u["name"] for u in hannahs["users"]] == ["Hannah Brook", "Hannah Brooks"]
    by_email = episode.call("users_search", {"query": "@example.org", "per_page": 2, "page": 2}).result
    assert by_email["total"] > 4 and len(by_email["users"]) == 2
    assert episode.call("users_search", {"query": "50%_off"}).result["total"] == 0  # wildcards taken literally


@pytest.mark.parametrize(
    ("digits", "postal", "phone_ok", "postal_ok"),
    [("0172", "97206", True, True), ("0172", "97205", True, False), ("0138", "97206", False, True)],
)
def test_verify_identity_checks_both_and_writes_nothing(start_episode, world_rows, digits, postal, phone_ok, postal_ok):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    result = episode.call(
        "users_verify_identity", {"user_id": "USR-036", "phone_last4": digits, "postal_code": postal}
    ).result
    assert result == {
        "user_id": "USR-036",
        "verified": phone_ok and postal_ok,
        "phone_matches": phone_ok,
        "postal_code_matches": postal_ok,
    }
    assert world_rows(episode.path) == before


def test_contact_details_change_only_when_verified(start_episode, world_rows):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    args = {"user_id": "USR-036", "updates": {"email": "Bea.Santos@Example.org"}}
    refused = episode.call("users_update", args)
    assert (refused.error["code"], refused.error["error"]) == (403, "verification_required")
    wrong = episode.call("users_update", {**args, "verification": {**BEATRIZ, "postal_code": "33131"}})
    assert (wrong.error["code"], wrong.error["error"]) == (403, "verification_failed")
    assert "33131" not in wrong.error["message"] and "97206" not in wrong.error["message"]  # nothing on file leaks
    assert world_rows(episode.path) == before
    done = episode.call("users_update", {**args, "verification": BEATRIZ})
    assert done.ok, done.error
    assert query(episode.path, "SELECT email FROM users WHERE id = 'USR-036'") == [("bea.santos@example.org",)]


def test_a_name_change_needs_no_verification_but_an_address_does(start_episode):
    episode = start_episode(TASK)
    assert episode.call("users_update", {"user_id": "USR-036", "updates": {"name": "Bea Santos"}}).ok
    moved = {"user_id": "USR-036", "updates": {"name": "B. Santos", "address": "1 Main St, Salem, OR 97301"}}
    assert episode.call("users_update", moved).error["error"] == "verification_required"
    assert query(episode.path, "SELECT name, address FROM users WHERE id = 'USR-036'") == [
        ("Bea Santos", "4417 SE Division St, Portland, OR 97206")
    ]
    assert episode.call("users_update", {**moved, "verification": BEATRIZ}).ok
    # verified against the details on file when asked: the old ZIP no longer verifies her
    again = {"user_id": "USR-036", "updates": {"phone": "+1-503-555-0000"}, "verification": BEATRIZ}
    assert episode.call("users_update", again).error["error"] == "verification_failed"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("users_verify_identity", {"user_id": "USR-036", "phone_last4": "172", "postal_code": "97206"}),
        ("users_verify_identity", {"user_id": "USR-036", "phone_last4": "0172", "postal_code": "9720"}),
        ("users_update", {"user_id": "USR-036", "updates": {"email": "x@example.org"}, "verification": {"zip": "1"}}),
        ("users_search", {"query": ""}),
        ("users_search", {"query": "a", "per_page": 21}),
    ],
)
def test_malformed_arguments_are_a_400(start_episode, tool, args):
    outcome = start_episode(TASK).call(tool, args)
    assert (outcome.error["code"], outcome.error["error"]) == (400, "invalid_arguments")


def test_verify_identity_of_an_unknown_user_is_a_404(start_episode):
    outcome = start_episode(TASK).call(
        "users_verify_identity", {"user_id": "USR-999", "phone_last4": "0000", "postal_code": "00000"}
    )
    assert (outcome.error["code"], outcome.error["error"]) == (404, "not_found")
