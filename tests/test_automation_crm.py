"""The automation world's CRM: companies, contacts, deals through the pipeline, and notes."""

from __future__ import annotations

from support import episode_fixture, ok, refused

ACTOR = "priya.shah@lumenpine.example"

episode = episode_fixture("crm", "automation", "crm-tools", ACTOR)


def test_companies_search_tells_the_look_alike_apart(episode):
    found = ok(episode, "crm_search_companies", {"query": "harbor"})
    assert [(r["id"], r["domain"]) for r in found["rows"]] == [
        ("CMP-007", "harborviewgroup.example"),
        ("CMP-001", "harborview.example"),
    ]
    customers = ok(episode, "crm_search_companies", {"lifecycle": "customer"})
    assert {r["name"] for r in customers["rows"]} == {
        "Harborview Hotels",
        "Greenleaf Garden Centers",
        "Coastline Cafés",
    }
    company = ok(episode, "crm_get_company", {"company_id": "CMP-001"})
    assert [c["name"] for c in company["contacts"]] == ["Karen Ito", "Sam Doyle", "Derek Lowe"]
    assert [d["id"] for d in company["deals"]] == ["DEAL-0001", "DEAL-0002"]
    refused(episode, "crm_get_company", {"company_id": "CMP-999"}, 404, "not_found")


def test_create_and_update_a_company_and_contact(episode):
    company = ok(
        episode,
        "crm_create_company",
        {"name": "Pinecrest Lodges", "domain": "pinecrest.example", "industry": "hospitality"},
    )
    assert company == {
        "id": "CMP-008",
        "name": "Pinecrest Lodges",
        "domain": "pinecrest.example",
        "industry": "hospitality",
        "owner_email": ACTOR,
        "lifecycle": "prospect",
        "created_at": "2026-09-14T09:00:00Z",
    }
    refused(
        episode,
        "crm_create_company",
        {"name": "Dup", "domain": "harborview.example", "industry": "x"},
        409,
        "duplicate_domain",
    )
    updated = ok(
        episode, "crm_update_company", {"company_id": "CMP-008", "owner_email": "Tom.Becker@lumenpine.example"}
    )
    assert updated["owner_email"] == "tom.becker@lumenpine.example"
    refused(episode, "crm_update_company", {"company_id": "CMP-008"}, 400, "missing_field")
    contact = ok(
        episode,
        "crm_create_contact",
        {"company_id": "CMP-008", "name": "Ada Stone", "email": "Ada@pinecrest.example", "title": "Buyer"},
    )
    assert (contact["id"], contact["email"]) == ("CON-015", "ada@pinecrest.example")
    refused(
        episode,
        "crm_create_contact",
        {"company_id": "CMP-008", "name": "Karen", "email": "karen@harborview.example"},
        409,
        "duplicate_email",
    )
    assert (
        ok(episode, "crm_update_contact", {"contact_id": "CON-015", "phone": "+1-555-0100"})["phone"] == "+1-555-0100"
    )
    assert ok(episode, "crm_get_contact", {"contact_id": "CON-015"})["company_name"] == "Pinecrest Lodges"
    assert ok(episode, "crm_search_contacts", {"query": "karen"})["total"] == 2


def test_deals_named_alike_and_the_pipeline(episode):
    alike = ok(episode, "crm_search_deals", {"query": "pool deck"})
    assert [(r["id"], r["company_id"]) for r in alike["rows"]] == [("DEAL-0001", "CMP-001"), ("DEAL-0010", "CMP-007")]
    company = {"name": "Pinecrest Lodges", "domain": "pinecrest.example", "industry": "hospitality"}
    assert ok(episode, "crm_create_company", company)["id"] == "CMP-008"
    deal = ok(
        episode,
        "crm_create_deal",
        {"company_id": "CMP-008", "name": "Cabin porches", "amount": 12000.456, "close_date": "2026-12-15"},
    )
    assert (deal["id"], deal["amount"], deal["stage"], deal["owner_email"]) == (
        "DEAL-0013",
        12000.46,
        "prospecting",
        ACTOR,
    )
    refused(
        episode,
        "crm_create_deal",
        {"company_id": "CMP-008", "name": "x", "amount": 1.0, "close_date": "2026-12-15", "contact_id": "CON-001"},
        400,
        "contact_not_at_company",
    )
    moved = ok(episode, "crm_move_deal_stage", {"deal_id": "DEAL-0013", "stage": "closed_won", "note": "Signed PO."})
    assert (moved["stage"], moved["close_date"]) == ("closed_won", "2026-09-14")
    assert ok(episode, "crm_get_company", {"company_id": "CMP-008"})["lifecycle"] == "customer"
    assert [n["body"] for n in ok(episode, "crm_get_deal", {"deal_id": "DEAL-0013"})["notes"]] == ["Signed PO."]
    refused(episode, "crm_move_deal_stage", {"deal_id": "DEAL-0013", "stage": "proposal"}, 409, "deal_closed")
    refused(episode, "crm_update_deal", {"deal_id": "DEAL-0002", "amount": 1.0}, 409, "deal_closed")
    refused(episode, "crm_move_deal_stage", {"deal_id": "DEAL-0001", "stage": "negotiation"}, 409, "same_stage")
    refused(episode, "crm_move_deal_stage", {"deal_id": "DEAL-0001", "stage": "won"}, 400, "invalid_arguments")
    updated = ok(episode, "crm_update_deal", {"deal_id": "DEAL-0001", "amount": 51000, "close_date": "2026-10-02"})
    assert (updated["amount"], updated["close_date"], updated["updated_at"]) == (
        51000,
        "2026-10-02",
        "2026-09-14T09:00:00Z",
    )
    open_deals = ok(episode, "crm_search_deals", {"owner_email": ACTOR, "open_only": True})
    assert [r["id"] for r in open_deals["rows"]] == ["DEAL-0001", "DEAL-0005", "DEAL-0011"]


def test_notes(episode):
    note = ok(episode, "crm_add_note", {"deal_id": "DEAL-0001", "body": "Karen asked for 30 side tables too."})
    assert (note["company_id"], note["deal_id"], note["author_email"]) == ("CMP-001", "DEAL-0001", ACTOR)
    refused(episode, "crm_add_note", {"body": "x"}, 400, "missing_field")
    refused(episode, "crm_add_note", {"body": "x", "company_id": "CMP-007", "deal_id": "DEAL-0001"}, 400, "mismatch")
    refused(episode, "crm_add_note", {"body": "  ", "company_id": "CMP-001"}, 400, "invalid_arguments")
    notes = ok(episode, "crm_list_notes", {"deal_id": "DEAL-0001"})
    assert [n["id"] for n in notes["rows"]] == [note["id"], "NOTE-0002", "NOTE-0001"]
    assert ok(episode, "crm_list_notes", {"company_id": "CMP-001"})["total"] == 4
    refused(episode, "crm_list_notes", {"deal_id": "DEAL-9999"}, 404, "not_found")
