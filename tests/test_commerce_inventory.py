"""Commerce's inventory service beyond ServiceBench's: finding products and their variants, shelf counts and
write-offs in the stock ledger, stock never negative and large count corrections held for a recount."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

TASK = "commerce/order-status"  # the seed world; its clock is 2026-03-14T10:00:00Z
NOW = "2026-03-14T10:00:00Z"


def query(path: Path, sql: str, *params: Any) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def test_search_by_name_and_category_with_look_alikes(start_episode):
    episode = start_episode(TASK)
    lamps = episode.call("inventory_search", {"query": "table lamp"}).result
    assert [(p["sku"], p["name"]) for p in lamps["products"]] == [
        ("SKU-296", "Ceramic Table Lamp"),
        ("SKU-297", "Ceramic Table Lamp - Mini"),
    ]
    banks = episode.call("inventory_search", {"query": "power bank", "category": "electronics"}).result
    assert [p["sku"] for p in banks["products"]] == ["SKU-459", "SKU-458"]  # by name: 10000mAh, then 20000mAh
    assert episode.call("inventory_search", {"category": "beauty"}).result["total"] == 4
    assert episode.call("inventory_search", {"query": "lamp", "category": "toys"}).result["total"] == 0


def test_variants_are_the_other_skus_of_the_style(start_episode):
    episode = start_episode(TASK)
    hoodie = episode.call("inventory_variants", {"sku": "SKU-581"}).result
    assert hoodie["style"] == "Organic Cotton Hoodie"
    assert [(v["sku"], v["list_price"], v["stock"]) for v in hoodie["variants"]] == [
        ("SKU-582", 72.0, 14),
        ("SKU-583", 72.0, 0),
    ]
    single = episode.call("inventory_variants", {"sku": "SKU-445"}).result
    assert (single["style"], single["variants"]) == (None, [])
    assert episode.call("inventory_variants", {"sku": "SKU-000"}).error["code"] == 404


def test_a_count_sets_the_stock_and_is_ledgered(start_episode):
    episode = start_episode(TASK)
    result = episode.call("inventory_record_count", {"sku": "SKU-739", "counted": 56, "note": "aisle C"}).result
    assert result == {
        "id": "ADJ-0005",
        "sku": "SKU-739",
        "delta": -4,
        "stock_after": 56,
        "previous_stock": 60,
        "reason_code": "cycle_count",
        "note": "aisle C",
        "created_at": NOW,
    }
    assert query(episode.path, "SELECT stock FROM products WHERE sku = 'SKU-739'") == [(56,)]
    ledger = episode.call("inventory_stock_ledger", {"sku": "SKU-739"}).result
    assert (ledger["stock"], [a["id"] for a in ledger["adjustments"]]) == (56, ["ADJ-0005"])
    # exactly 20 units apart is still entered
    assert episode.call("inventory_record_count", {"sku": "SKU-739", "counted": 76}).result["delta"] == 20


@pytest.mark.parametrize(
    ("tool", "args", "code", "error"),
    [
        ("inventory_record_count", {"sku": "SKU-134", "counted": 51}, 403, "recount_required"),  # 86 on record
        ("inventory_record_count", {"sku": "SKU-134", "counted": 107}, 403, "recount_required"),
        ("inventory_record_count", {"sku": "SKU-153", "counted": 96}, 409, "no_difference"),
        ("inventory_record_count", {"sku": "SKU-153", "counted": -1}, 400, "invalid_arguments"),
        ("inventory_record_count", {"sku": "SKU-000", "counted": 1}, 404, "not_found"),
        (
            "inventory_write_off",
            {"sku": "SKU-469", "quantity": 25, "reason_code": "damaged", "note": "wet"},
            409,
            "insufficient_stock",
        ),
        (
            "inventory_write_off",
            {"sku": "SKU-282", "quantity": 1, "reason_code": "lost", "note": "gone"},
            409,
            "insufficient_stock",
        ),
        (
            "inventory_write_off",
            {"sku": "SKU-469", "quantity": 1, "reason_code": "cycle_count", "note": "x"},
            400,
            "invalid_arguments",
        ),
        (
            "inventory_write_off",
            {"sku": "SKU-469", "quantity": 1, "reason_code": "damaged", "note": " "},
            400,
            "invalid_arguments",
        ),
        (
            "inventory_write_off",
            {"sku": "SKU-469", "quantity": 0, "reason_code": "damaged", "note": "x"},
            400,
            "invalid_arguments",
        ),
    ],
)
def test_stock_refusals_write_nothing(start_episode, world_rows, tool, args, code, error):
    episode = start_episode(TASK)
    before = world_rows(episode.path)
    outcome = episode.call(tool, args)
    assert (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error["message"]
    assert world_rows(episode.path) == before


def test_a_write_off_takes_stock_down_to_zero_at_most(start_episode):
    episode = start_episode(TASK)
    args = {"sku": "SKU-458", "quantity": 107, "reason_code": "recalled", "note": "overheating recall"}
    result = episode.call("inventory_write_off", args).result
    assert (result["delta"], result["stock_after"], result["reason_code"]) == (-107, 0, "recalled")
    assert episode.call("inventory_write_off", {**args, "quantity": 1}).error["error"] == "insufficient_stock"
    ledger = episode.call("inventory_stock_ledger", {"sku": "SKU-458"}).result
    assert ledger["stock"] == 0 and ledger["adjustments"][0]["note"] == "overheating recall"


def test_the_seed_ledger_agrees_with_the_stock(start_episode):
    episode = start_episode(TASK)
    rows = query(
        episode.path,
        "SELECT a.sku, a.stock_after, p.stock FROM stock_adjustments a JOIN products p ON p.sku = a.sku "
        "WHERE a.id = (SELECT max(id) FROM stock_adjustments WHERE sku = a.sku)",
    )
    assert rows and all(after == current for _, after, current in rows)
