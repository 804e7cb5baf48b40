"""The sheets app of the automation world: spreadsheets, worksheets and rows read, searched, appended,
changed and deleted by header; refusals write nothing."""

from __future__ import annotations

from functools import partial

import support
from support import episode_fixture, ok, rows

from simtenant.episode import Episode

ACTOR = "maya.patel@lumenpine.example"

episode = episode_fixture("sheets", "automation", "sheets-sweep", ACTOR)


def counts(episode: Episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT group_concat(id || title || headers) FROM sheet_worksheets),"
        " (SELECT group_concat(id || row_number || cells) FROM sheet_rows),"
        " (SELECT count(*) FROM sheet_spreadsheets)",
    )[0]


refused = partial(support.refused, state=counts)


def q3_deals(episode: Episode) -> str:
    found = ok(episode, "sheet_list_spreadsheets", {"title": "Sales Pipeline"})
    assert [s["title"] for s in found["rows"]] == ["Sales Pipeline 2025", "Sales Pipeline 2026"]
    book = ok(episode, "sheet_get_spreadsheet", {"spreadsheet_id": found["rows"][1]["id"]})
    (tab,) = [w for w in book["worksheets"] if w["title"] == "Q3 Deals"]
    assert tab["headers"][:3] == ["Deal", "Company", "Owner"] and tab["row_count"] >= 10
    return tab["id"]


def test_reads_and_finds_rows(episode):
    tab = q3_deals(episode)
    rows = ok(episode, "sheet_get_rows", {"worksheet_id": tab})
    assert [r["row_number"] for r in rows["rows"]] == list(range(1, rows["total"] + 1))
    equal = ok(episode, "sheet_find_rows", {"worksheet_id": tab, "column": "Company", "value": "harborview hotels"})
    assert equal["total"] == 2 and {r["values"]["Company"] for r in equal["rows"]} == {"Harborview Hotels"}
    near = ok(
        episode, "sheet_find_rows", {"worksheet_id": tab, "column": "Company", "value": "Harbor", "match": "contains"}
    )
    assert near["total"] == 3  # the look-alike prospect too
    row = ok(episode, "sheet_get_row", {"row_id": equal["rows"][0]["id"]})
    assert row["values"]["Amount"] == "48000"
    refused(episode, "sheet_find_rows", {"worksheet_id": tab, "column": "Client", "value": "x"}, 400, "unknown_column")
    refused(episode, "sheet_get_rows", {"worksheet_id": "WS-999"}, 404, "not_found")


def test_appends_updates_and_deletes_rows(episode):
    tab = q3_deals(episode)
    total = ok(episode, "sheet_get_rows", {"worksheet_id": tab})["total"]
    appended = ok(
        episode,
        "sheet_append_row",
        {"worksheet_id": tab, "values": {"Deal": "Fjord Hotels pilot", "Company": "Fjord Hotels", "Amount": 12500.0}},
    )
    assert appended["row_number"] == total + 1
    assert appended["values"] == {
        "Deal": "Fjord Hotels pilot",
        "Company": "Fjord Hotels",
        "Owner": "",
        "Stage": "",
        "Amount": "12500",
        "Close Date": "",
        "Notes": "",
    }
    refused(episode, "sheet_append_row", {"worksheet_id": tab, "values": {"Client": "X"}}, 400, "unknown_column")
    refused(episode, "sheet_append_row", {"worksheet_id": tab, "values": {}}, 400, "missing_field")
    updated = ok(episode, "sheet_update_row", {"row_id": appended["id"], "values": {"Stage": "Lead", "Amount": 13000}})
    assert updated["changed"] == ["Stage", "Amount"] and updated["values"]["Amount"] == "13000"
    refused(
        episode, "sheet_update_row", {"row_id": appended["id"], "values": {"Probability": "50%"}}, 400, "unknown_column"
    )
    first = ok(episode, "sheet_get_rows", {"worksheet_id": tab, "per_page": 1})["rows"][0]
    ok(episode, "sheet_delete_row", {"row_id": first["id"]})
    after = ok(episode, "sheet_get_rows", {"worksheet_id": tab})
    assert after["total"] == total and [r["row_number"] for r in after["rows"]] == list(range(1, total + 1))
    refused(episode, "sheet_delete_row", {"row_id": first["id"]}, 404, "not_found")


def test_adds_worksheets_columns_and_spreadsheets(episode):
    book = ok(episode, "sheet_list_spreadsheets", {"title": "Expense Log"})["rows"][0]
    tab = ok(
        episode, "sheet_create_worksheet", {"spreadsheet_id": book["id"], "title": "Q4", "headers": ["Date", "Amount"]}
    )
    assert tab["headers"] == ["Date", "Amount"] and tab["row_count"] == 0
    refused(
        episode,
        "sheet_create_worksheet",
        {"spreadsheet_id": book["id"], "title": "q4", "headers": ["A"]},
        409,
        "duplicate_worksheet",
    )
    refused(
        episode,
        "sheet_create_worksheet",
        {"spreadsheet_id": book["id"], "title": "Q5", "headers": ["A", "A"]},
        400,
        "duplicate_column",
    )
    stock = ok(episode, "sheet_list_spreadsheets", {"title": "Inventory"})["rows"][0]
    (stock_tab,) = ok(episode, "sheet_get_spreadsheet", {"spreadsheet_id": stock["id"]})["worksheets"]
    widened = ok(episode, "sheet_add_column", {"worksheet_id": stock_tab["id"], "header": "Counted", "default": "no"})
    assert widened["headers"][-1] == "Counted"
    rows = ok(episode, "sheet_get_rows", {"worksheet_id": stock_tab["id"]})["rows"]
    assert all(r["values"]["Counted"] == "no" for r in rows)
    refused(episode, "sheet_add_column", {"worksheet_id": stock_tab["id"], "header": "SKU"}, 409, "duplicate_column")
    made = ok(episode, "sheet_create_spreadsheet", {"title": "Move checklist", "headers": ["Item", "Done"]})
    assert made["owner"] == ACTOR and made["worksheets"][0]["title"] == "Sheet1"
