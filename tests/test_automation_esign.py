"""The automation world's e-signature app: envelopes drafted from drive files, sent, signed in routing
order, declined, reminded and voided, with the sender-only and draft-only rules enforced."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

MARCUS = "marcus.webb@lumenpine.example"
RAFAEL = "rafael.ortiz@lumenpine.example"
LENA = "lena.fischer@lumenpine.example"
DANA = "dana.reyes@lumenpine.example"

episode = episode_fixture("esign", "automation", "esign-tools", MARCUS)


def recipients(episode, envelope_id):
    return rows(
        episode.path,
        "SELECT email, role, routing_order, status FROM esign_recipients WHERE envelope_id = ? ORDER BY id",
        envelope_id,
    )


def test_list_and_get_envelopes(episode):
    coastline = ok(episode, "esign_list_envelopes", {"query": "coastline"})
    assert [(e["id"], e["status"]) for e in coastline["rows"]] == [("ENV-0001", "completed"), ("ENV-0002", "voided")]
    waiting = ok(episode, "esign_list_envelopes", {"awaiting_my_signature": True}, actor=RAFAEL)
    assert [e["id"] for e in waiting["rows"]] == ["ENV-0005", "ENV-0004"]  # not ENV-0006: the vendor signs first
    assert ok(episode, "esign_list_envelopes", {"recipient": "harborview"})["total"] == 1  # not the Group's draft NDA
    envelope = ok(episode, "esign_get_envelope", {"envelope_id": "ENV-0004"})
    assert envelope["waiting_on"] == [RAFAEL] and envelope["documents"][0]["file_id"] == "FILE-0024"
    document = ok(episode, "esign_get_document", {"document_id": "EDOC-0002"})
    assert "$7,900.00" in document["content"]  # the voided envelope kept the text it was sent with


def test_create_and_send_an_envelope_in_routing_order(episode):
    created = ok(
        episode,
        "esign_create_envelope",
        {
            "subject": "Summit Resorts - Lodge terrace supply agreement",
            "file_ids": ["FILE-0005"],
            "recipients": [
                {"name": "Jonas Berg", "email": "Jonas@SummitResorts.example", "routing_order": 1},
                {"name": "Dana Reyes", "email": DANA, "routing_order": 2},
                {"name": "Elle Park", "email": "elle@summitresorts.example", "role": "cc"},
            ],
            "reference": "DEAL-0006",
        },
    )
    assert (created["id"], created["status"], created["sender"]) == ("ENV-0012", "draft", MARCUS)
    assert (
        "$86,000.00" in rows(episode.path, "SELECT content FROM esign_documents WHERE envelope_id = 'ENV-0012'")[0][0]
    )
    sent = ok(episode, "esign_send_envelope", {"envelope_id": "ENV-0012"})
    assert sent["status"] == "sent" and sent["waiting_on"] == ["jonas@summitresorts.example"]
    assert recipients(episode, "ENV-0012") == [
        ("jonas@summitresorts.example", "signer", 1, "sent"),
        (DANA, "signer", 2, "waiting"),
        ("elle@summitresorts.example", "cc", None, "waiting"),
    ]
    refused(episode, "esign_sign_envelope", {"envelope_id": "ENV-0012"}, 409, "not_your_turn", actor=DANA)
    refused(episode, "esign_sign_envelope", {"envelope_id": "ENV-0012"}, 403, "not_a_signer", actor=MARCUS)
    refused(
        episode, "esign_add_document", {"envelope_id": "ENV-0012", "file_id": "FILE-0011"}, 409, "envelope_not_draft"
    )
    reminded = ok(episode, "esign_send_reminder", {"envelope_id": "ENV-0012"})
    assert reminded["reminded"] == ["jonas@summitresorts.example"]
    refused(episode, "esign_send_reminder", {"envelope_id": "ENV-0012"}, 409, "already_reminded")


def test_recipients_are_checked(episode):
    base = {"subject": "x", "file_ids": ["FILE-0009"]}
    nothing = lambda e: rows(e.path, "SELECT count(*) FROM esign_envelopes")  # noqa: E731
    former = [{"name": "Tom Baker", "email": "tom.baker@lumenpine.example"}]
    refused(episode, "esign_create_envelope", {**base, "recipients": former}, 400, "not_an_employee", nothing)
    cc_order = [{"name": "Elle Park", "email": "elle@summitresorts.example", "role": "cc", "routing_order": 2}]
    refused(episode, "esign_create_envelope", {**base, "recipients": cc_order}, 400, "cc_has_no_order", nothing)
    twice = [{"name": "A", "email": "a@x.example"}, {"name": "A", "email": "A@x.example"}]
    refused(episode, "esign_create_envelope", {**base, "recipients": twice}, 409, "duplicate_recipient", nothing)
    hidden = {**base, "file_ids": ["FILE-0020"], "recipients": [{"name": "A", "email": "a@x.example"}]}
    refused(episode, "esign_create_envelope", hidden, 404, "not_found", nothing)  # a confidential file Marcus can't see
    only_cc = ok(
        episode, "esign_create_envelope", {**base, "recipients": [{"name": "A", "email": "a@x.example", "role": "cc"}]}
    )
    refused(episode, "esign_send_envelope", {"envelope_id": only_cc["id"]}, 409, "no_signers")


def test_complete_a_draft_then_send_it_as_its_sender(episode):
    refused(episode, "esign_send_envelope", {"envelope_id": "ENV-0003"}, 403, "not_the_sender", actor=MARCUS)
    args = {"envelope_id": "ENV-0003", "name": "Karen Ito", "email": "karen@harborview.example"}
    added = ok(episode, "esign_add_recipient", args, actor=LENA)
    assert (added["id"], added["routing_order"], added["status"]) == ("RCP-0024", 1, "waiting")
    fixed = ok(
        episode,
        "esign_update_recipient",
        {"recipient_id": "RCP-0024", "name": "Karen Ito-Lang", "email": "karen@harborviewgroup.example"},
    )
    assert fixed["changed"] == ["name", "email"]
    refused(
        episode, "esign_add_recipient", {**args, "email": "KAREN@harborviewgroup.example"}, 409, "duplicate_recipient"
    )
    ok(episode, "esign_send_envelope", {"envelope_id": "ENV-0003"})
    assert recipients(episode, "ENV-0003") == [
        (LENA, "signer", 2, "waiting"),
        ("karen@harborviewgroup.example", "signer", 1, "sent"),
    ]
    refused(
        episode, "esign_update_recipient", {"recipient_id": "RCP-0006", "routing_order": 3}, 409, "envelope_not_draft"
    )
    refused(episode, "esign_remove_recipient", {"recipient_id": "RCP-0006"}, 409, "envelope_not_draft")
    refused(episode, "esign_add_recipient", {**args, "email": "x@y.example"}, 409, "envelope_not_draft")


def test_countersign_completes_and_decline_declines(episode):
    signed = ok(episode, "esign_sign_envelope", {"envelope_id": "ENV-0004"}, actor=RAFAEL)
    assert (signed["status"], signed["completed_at"], signed["waiting_on"]) == ("completed", "2026-09-14T09:00:00Z", [])
    refused(episode, "esign_sign_envelope", {"envelope_id": "ENV-0004"}, 409, "not_sent", actor=RAFAEL)
    declined = ok(
        episode,
        "esign_decline_envelope",
        {"envelope_id": "ENV-0005", "reason": "Teak is $14.20, not $14.80."},
        actor=RAFAEL,
    )
    assert declined["status"] == "declined"
    assert rows(episode.path, "SELECT status, declined_reason FROM esign_recipients WHERE id = 'RCP-0010'") == [
        ("declined", "Teak is $14.20, not $14.80.")
    ]
    refused(episode, "esign_sign_envelope", {"envelope_id": "ENV-0006"}, 409, "not_your_turn", actor=RAFAEL)
    refused(
        episode,
        "esign_sign_envelope",
        {"envelope_id": "ENV-0011"},
        409,
        "not_sent",
        actor="olivia@baysideliving.example",
    )  # expired in July
    # a completed envelope is no longer voided; a sent one is, by its sender, with the reason
    refused(
        episode, "esign_void_envelope", {"envelope_id": "ENV-0001", "reason": "x"}, 403, "not_the_sender", actor=MARCUS
    )
    refused(
        episode,
        "esign_void_envelope",
        {"envelope_id": "ENV-0001", "reason": "x"},
        409,
        "envelope_closed",
        actor="priya.shah@lumenpine.example",
    )
    extended = ok(episode, "esign_update_envelope", {"envelope_id": "ENV-0010", "expires_on": "2026-10-30"})
    assert extended["changed"] == ["expires_on"]
    refused(episode, "esign_update_envelope", {"envelope_id": "ENV-0010", "subject": "x"}, 409, "envelope_not_draft")
    voided = ok(episode, "esign_void_envelope", {"envelope_id": "ENV-0010", "reason": "Wrong quantity."})
    assert (voided["status"], voided["voided_reason"]) == ("voided", "Wrong quantity.")
