"""The automation world's shipping app: carriers and rate quotes, labels for shop orders, replacements,
returns and parcels, voiding, tracking and carrier claims."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

from simtenant.episode import Episode
from simtenant.tools.automation.shipping import tracking_number

ACTOR = "ben.carter@lumenpine.example"

episode = episode_fixture("ship", "automation", "shipping-tools", ACTOR)  # 2026-09-14 09:00
SAMPLES = {
    "carrier_id": "CAR-01",
    "service": "express",
    "recipient_name": "Elle Park",
    "address": "Summit Lodge, 40 Cascade Lakes Hwy, Bend, OR 97702",
    "packages": [{"weight_lb": 41.0, "contents": "Sample chair"}, {"weight_lb": 2.0, "contents": "Swatch book"}],
}


def _shipments(episode: Episode) -> list[tuple]:
    return rows(episode.path, "SELECT id, status FROM ship_shipments ORDER BY id")


def test_carriers_and_quotes_cheapest_first(episode: Episode) -> None:
    carriers = ok(episode, "ship_list_carriers", {})["carriers"]
    assert [(c["id"], c["status"], len(c["services"])) for c in carriers] == [
        ("CAR-01", "active", 2),
        ("CAR-02", "active", 1),
        ("CAR-03", "active", 1),
        ("CAR-04", "inactive", 2),
    ]
    quotes = ok(episode, "ship_get_rates", {"order_id": "SO-1029"})
    assert quotes["package_weights"] == [48.0]
    assert [(q["carrier_id"], q["service"], q["cost"], q["estimated_delivery"]) for q in quotes["quotes"]] == [
        ("CAR-01", "ground", 33.6, "2026-09-17"),
        ("CAR-01", "express", 73.6, "2026-09-15"),
        ("CAR-03", "freight", 108.44, "2026-09-16"),
        ("CAR-02", "freight", 160.36, "2026-09-19"),
    ]
    heavy = ok(episode, "ship_get_rates", {"package_weights": [158, 24], "address": "1 Main St, Fresno, CA 93721"})
    assert [q["carrier_id"] for q in heavy["quotes"]] == ["CAR-02"]  # no parcel takes 158 lb; Coastal is OR/WA only
    refused(episode, "ship_get_rates", {"package_weights": [5], "address": "somewhere nice"}, 400, "bad_address")
    refused(episode, "ship_get_rates", {"package_weights": [5]}, 400, "missing_field")
    refused(
        episode,
        "ship_get_rates",
        {"order_id": "SO-1029", "address": "1 Main St, Salem, OR 97301"},
        400,
        "conflicting_fields",
    )
    ok(episode, "ship_update_carrier", {"carrier_id": "CAR-03", "status": "inactive"})
    assert "CAR-03" not in {q["carrier_id"] for q in ok(episode, "ship_get_rates", {"order_id": "SO-1029"})["quotes"]}


def test_an_order_ships_once_paid_and_off_hold(episode: Episode) -> None:
    label = {"order_id": "SO-1029", "carrier_id": "CAR-01", "service": "ground"}
    refused(episode, "ship_create_shipment_label", label, 409, "not_paid", state=_shipments)
    ok(episode, "pay_capture_charge", {"charge_id": "CHG-00029"})
    ok(episode, "store_update_order", {"order_id": "SO-1029", "on_hold": True, "hold_reason": "Fraud check"})
    refused(episode, "ship_create_shipment_label", label, 409, "order_on_hold", state=_shipments)
    ok(episode, "store_update_order", {"order_id": "SO-1029", "on_hold": False})
    refused(
        episode,
        "ship_create_shipment_label",
        {**label, "address": "5 Elm St, Corvallis, OR 97333"},
        400,
        "conflicting_fields",
    )
    refused(episode, "ship_create_shipment_label", {**label, "carrier_id": "CAR-04"}, 409, "carrier_inactive")
    refused(episode, "ship_create_shipment_label", {**label, "carrier_id": "CAR-03"}, 400, "service_not_offered")
    shipment = ok(episode, "ship_create_shipment_label", label)
    assert (shipment["id"], shipment["status"], shipment["cost"], shipment["declared_value"]) == (
        "SHP-00031",
        "label_created",
        33.6,
        329.0,
    )
    assert shipment["tracking_number"] == tracking_number("SF", "SO-1029|None|ground|0")
    assert [(p["weight_lb"], p["contents"]) for p in shipment["packages"]] == [(48.0, "1 x LP-HTR-PAT")]
    assert [e["status"] for e in shipment["events"]] == ["label_created"]
    order = ok(episode, "store_get_order", {"order_id": "SO-1029"})
    assert (order["fulfillment_status"], order["fulfilled_at"]) == ("fulfilled", "2026-09-14T09:00:00Z")
    refused(episode, "ship_create_shipment_label", label, 409, "already_fulfilled")
    upgraded = ok(episode, "ship_update_shipment", {"shipment_id": "SHP-00031", "service": "express"})
    assert (upgraded["service"], upgraded["cost"], upgraded["estimated_delivery"]) == ("express", 73.6, "2026-09-15")
    voided = ok(episode, "ship_cancel_shipment", {"shipment_id": "SHP-00031"})
    assert voided["status"] == "voided" and voided["events"][-1]["status"] == "voided"
    assert ok(episode, "store_get_order", {"order_id": "SO-1029"})["fulfillment_status"] == "unfulfilled"
    again = ok(episode, "ship_create_shipment_label", label)
    assert again["tracking_number"] == tracking_number("SF", "SO-1029|None|ground|1") != voided["tracking_number"]


def test_parcels_without_an_order_and_carrier_limits(episode: Episode) -> None:
    sent = ok(episode, "ship_create_shipment_label", {**SAMPLES, "reference": "DEAL-0006"})
    assert (sent["cost"], sent["weight_lb"], sent["order_id"], sent["estimated_delivery"]) == (
        68.85,
        43.0,
        None,
        "2026-09-15",
    )
    assert sent["tracking_number"] == tracking_number("SF", "97702|express|0")
    respelled = {**SAMPLES, "address": "40 Cascade Lakes Highway, Bend, OR 97702"}
    assert ok(episode, "ship_create_shipment_label", respelled)["tracking_number"] == tracking_number(
        "SF", "97702|express|1"
    )
    pallet = {**SAMPLES, "packages": [{"weight_lb": 160.0, "contents": "Sofa"}]}
    refused(episode, "ship_create_shipment_label", pallet, 409, "carrier_cannot_take", state=_shipments)
    to_california = {**SAMPLES, "carrier_id": "CAR-03", "service": "freight", "address": "1 Main St, Fresno, CA 93721"}
    refused(episode, "ship_create_shipment_label", to_california, 409, "carrier_cannot_take")
    refused(episode, "ship_create_shipment_label", {"carrier_id": "CAR-01", "service": "ground"}, 400, "missing_field")
    refused(
        episode,
        "ship_create_shipment_label",
        {**SAMPLES, "replacement_of": "SHP-00024"},
        400,
        "missing_field",
    )


def test_replacing_a_lost_shipment_and_claiming_it(episode: Episode) -> None:
    lost = ok(episode, "ship_list_shipments", {"status": "exception"})
    assert [r["id"] for r in lost["rows"]] == ["SHP-00028", "SHP-00024", "SHP-00010"]
    tracked = ok(episode, "ship_track_shipment", {"tracking_number": lost["rows"][1]["tracking_number"].lower()})
    assert tracked["id"] == "SHP-00024" and tracked["events"][-1]["description"].startswith("Trace closed")
    stock = "SELECT inventory FROM store_variants WHERE sku = 'LP-HTR-PAT'"
    before = rows(episode.path, stock)[0][0]
    replacement = {"order_id": "SO-1024", "carrier_id": "CAR-01", "service": "ground", "replacement_of": "SHP-00024"}
    made = ok(episode, "ship_create_shipment_label", replacement)
    assert (made["replacement_of"], made["reference"]) == ("SHP-00024", "Replacement for SHP-00024")
    assert rows(episode.path, stock)[0][0] == before - 1
    refused(episode, "ship_create_shipment_label", replacement, 409, "already_replaced")
    delivered = {"order_id": "SO-1025", "carrier_id": "CAR-01", "service": "ground", "replacement_of": "SHP-00025"}
    refused(episode, "ship_create_shipment_label", delivered, 409, "not_replaceable")
    refused(episode, "ship_create_shipment_label", {**delivered, "replacement_of": "SHP-00024"}, 400, "not_this_order")
    unchanged = lambda e: rows(e.path, "SELECT count(*) FROM ship_claims")  # noqa: E731
    claim = {"shipment_id": "SHP-00024", "kind": "lost", "amount": 329, "description": "Declared lost."}
    refused(episode, "ship_file_claim", {**claim, "amount": 364}, 409, "over_declared_value", state=unchanged)
    refused(episode, "ship_file_claim", {**claim, "kind": "damaged"}, 409, "not_delivered")
    refused(episode, "ship_file_claim", {**claim, "shipment_id": "SHP-00025"}, 409, "not_lost")
    refused(episode, "ship_file_claim", {**claim, "shipment_id": "SHP-00004", "kind": "damaged"}, 409, "too_late")
    filed = ok(episode, "ship_file_claim", claim)
    assert (filed["id"], filed["status"], filed["created_by"]) == ("CLM-0002", "open", ACTOR)
    refused(episode, "ship_file_claim", claim, 409, "claim_exists")
    assert [c["id"] for c in ok(episode, "ship_list_claims", {"status": "open"})["rows"]] == ["CLM-0002"]
    refused(episode, "ship_cancel_shipment", {"shipment_id": "SHP-00024"}, 409, "already_shipped")
    ok(episode, "ship_cancel_shipment", {"shipment_id": made["id"]})
    assert rows(episode.path, stock)[0][0] == before


def test_a_return_label_goes_back_to_the_warehouse(episode: Episode) -> None:
    rma = ok(
        episode,
        "store_create_return",
        {"order_id": "SO-1026", "sku": "LP-CSH-DIN", "quantity": 4, "reason": "changed_mind"},
    )
    label = ok(episode, "ship_create_return_label", {"return_id": rma["id"]})
    assert (label["direction"], label["return_id"], label["recipient_name"], label["weight_lb"]) == (
        "return",
        rma["id"],
        "Lumen & Pine Returns",
        12.0,
    )
    assert label["address"].endswith("Portland, OR 97209")
    refused(episode, "ship_create_return_label", {"return_id": rma["id"]}, 409, "label_exists")
    returns = ok(episode, "ship_list_shipments", {"direction": "return"})
    assert [r["id"] for r in returns["rows"]] == [label["id"]]
    ok(episode, "store_receive_return", {"return_id": rma["id"]})
    refused(episode, "ship_create_return_label", {"return_id": rma["id"]}, 409, "not_awaited")
