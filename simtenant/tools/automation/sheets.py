"""Sheets tools: spreadsheets and their worksheets, reading and searching rows, appending,
changing and deleting rows, new worksheets and new columns. A row's values are keyed by the
worksheet's column headers; every cell is kept as text."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.sheets import SheetRow, SheetSpreadsheet, SheetWorksheet
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, Statement, contains, one_of
from ..engine.search import search_context
from .common import Email, Page, PerPage, me

SERVICE = "automation.sheets"


NAMED_IN_SEARCH = 20  # a search result names this many spreadsheets at most, however many there are

_SPREADSHEETS, _WORKSHEETS, _ROWS = SheetSpreadsheet.__table__, SheetWorksheet.__table__, SheetRow.__table__
TABS = Statement.of(
    select(_WORKSHEETS.c.id, _WORKSHEETS.c.spreadsheet_id, _WORKSHEETS.c.title)
    .where(one_of(_WORKSHEETS.c.spreadsheet_id, "spreadsheet_ids"))
    .order_by(_WORKSHEETS.c.id)
)
SPREADSHEETS = Filtered(
    select(_SPREADSHEETS),
    (_SPREADSHEETS.c.title, _SPREADSHEETS.c.id),
    title=contains(_SPREADSHEETS.c.title, "title"),
    owner=_SPREADSHEETS.c.owner == bindparam("owner"),
)
ROWS = Pages.of(select(_ROWS).where(_ROWS.c.worksheet_id == bindparam("worksheet_id")).order_by(_ROWS.c.row_number))
LAST_ROW = Statement.of(
    select(func.max(_ROWS.c.row_number).label("last")).where(_ROWS.c.worksheet_id == bindparam("worksheet_id"))
)
TITLED = Statement.of(
    select(_WORKSHEETS.c.id).where(
        _WORKSHEETS.c.spreadsheet_id == bindparam("spreadsheet_id"),
        func.lower(_WORKSHEETS.c.title) == bindparam("title"),
    )
)


@search_context("sheets")
def spreadsheets_to_name(ctx: ToolContext) -> dict[str, Any]:
    """The spreadsheets and their worksheets, ids and titles, that a sheets operation found by api_search
    may name: the first ``NAMED_IN_SEARCH`` by id, and how many more sheet_list_spreadsheets lists."""
    shown = ctx.rows.find(SheetSpreadsheet, ("id",), limit=NAMED_IN_SEARCH)
    total = ctx.rows.count(SheetSpreadsheet)
    tabs = ctx.rows.all(TABS, spreadsheet_ids=[sheet["id"] for sheet in shown])
    named: dict[str, Any] = {
        "spreadsheets": [
            {
                "id": sheet["id"],
                "title": sheet["title"],
                "worksheets": [
                    {"id": t["id"], "title": t["title"]} for t in tabs if t["spreadsheet_id"] == sheet["id"]
                ],
            }
            for sheet in shown
        ]
    }
    if total > len(shown):
        named["more_spreadsheets"] = f"{total - len(shown)} more: find them with sheet_list_spreadsheets"
    return named


SpreadsheetId = Annotated[str, Field(description="The spreadsheet id, e.g. SS-001")]
WorksheetId = Annotated[str, Field(description="The worksheet (tab) id, e.g. WS-001")]
RowId = Annotated[str, Field(description="The row id, e.g. ROW-00012")]
Cell = str | int | float | None
Values = Annotated[
    dict[str, Cell],
    Field(description='Cell values keyed by column header, e.g. {"Company": "Harborview Hotels", "Amount": 48000}'),
]
Header = Annotated[str, Field(min_length=1, max_length=80, description="A column header")]


def cell_text(value: Cell) -> str:
    """A cell as stored: text as given (trimmed), whole numbers without ".0", empty for null."""
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value).strip()


def headers_of(worksheet: Row) -> list[str]:
    return json.loads(worksheet["headers"])


def _dump(cells: dict[str, str]) -> str:
    return json.dumps(cells, ensure_ascii=False)


def _row(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "worksheet_id": row["worksheet_id"],
        "row_number": row["row_number"],
        "values": json.loads(row["cells"]),
    }


def _worksheet(ctx: ToolContext, worksheet: Row) -> dict[str, Any]:
    return {
        "id": worksheet["id"],
        "spreadsheet_id": worksheet["spreadsheet_id"],
        "title": worksheet["title"],
        "headers": headers_of(worksheet),
        "row_count": ctx.rows.count(SheetRow, worksheet_id=worksheet["id"]),
    }


def _known(worksheet: Row, values: dict[str, Cell]) -> dict[str, str]:
    """The values as cell text, refused when a key is not a header of the worksheet."""
    headers = headers_of(worksheet)
    unknown = [k for k in values if k not in headers]
    if unknown:
        raise InvalidArgument(
            f"unknown column(s) {', '.join(map(repr, unknown))} in worksheet {worksheet['id']}; "
            f"its headers are {', '.join(map(repr, headers))}",
            error="unknown_column",
        )
    if not values:
        raise InvalidArgument("give at least one column value", error="missing_field")
    return {k: cell_text(v) for k, v in values.items()}


def _rows(ctx: ToolContext, worksheet_id: str) -> list[Row]:
    return ctx.rows.find(SheetRow, ("row_number",), worksheet_id=worksheet_id)


def _new_worksheet(ctx: ToolContext, spreadsheet_id: str, title: str, headers: list[str]) -> Row:
    worksheet = {
        "id": ctx.rows.next_id(SheetWorksheet),
        "spreadsheet_id": spreadsheet_id,
        "title": title,
        "headers": _dump(headers),
    }
    ctx.rows.insert(SheetWorksheet, worksheet)
    return worksheet


@tool(SERVICE, "GET", "/sheets/spreadsheets")
def sheet_list_spreadsheets(
    ctx: ToolContext,
    title: Annotated[str | None, Field(description="Only spreadsheets whose title contains this")] = None,
    owner: Annotated[Email | None, Field(description="Only spreadsheets this person owns")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List spreadsheets (workbooks) by title, with their owner."""
    return ctx.rows.page(SPREADSHEETS, page, per_page, title=title, owner=owner.lower() if owner else None)


@tool(SERVICE, "GET", "/sheets/spreadsheets/{spreadsheet_id}")
def sheet_get_spreadsheet(ctx: ToolContext, spreadsheet_id: SpreadsheetId) -> Any:
    """Get a spreadsheet with its worksheets (tabs), each with its column headers and row count."""
    spreadsheet = ctx.rows.need(SheetSpreadsheet, spreadsheet_id, "spreadsheet")
    worksheets = ctx.rows.find(SheetWorksheet, ("id",), spreadsheet_id=spreadsheet["id"])
    return {**spreadsheet, "worksheets": [_worksheet(ctx, w) for w in worksheets]}


@tool(SERVICE, "GET", "/sheets/worksheets/{worksheet_id}/rows")
def sheet_get_rows(ctx: ToolContext, worksheet_id: WorksheetId, page: Page = 1, per_page: PerPage = 100) -> Any:
    """Read the rows of a worksheet (a tab of a spreadsheet) in order, each with its values keyed by column header."""
    worksheet = ctx.rows.need(SheetWorksheet, worksheet_id, "worksheet")
    found = ctx.rows.page(ROWS, page, per_page, worksheet_id=worksheet["id"])
    return {**_worksheet(ctx, worksheet), **found, "rows": [_row(r) for r in found["rows"]]}


@tool(SERVICE, "GET", "/sheets/rows/{row_id}")
def sheet_get_row(ctx: ToolContext, row_id: RowId) -> Any:
    """Get one spreadsheet row with its values keyed by column header."""
    return _row(ctx.rows.need(SheetRow, row_id, "row"))


@tool(SERVICE, "GET", "/sheets/worksheets/{worksheet_id}/find")
def sheet_find_rows(
    ctx: ToolContext,
    worksheet_id: WorksheetId,
    column: Annotated[Header, Field(description="The column header to look in")],
    value: Annotated[str, Field(description="The value to look for (case-insensitive)")],
    match: Annotated[Literal["equals", "contains"], Field(description="equals (whole cell) or contains")] = "equals",
) -> Any:
    """Find the rows of a worksheet where a column equals or contains a value (lookup / search rows)."""
    worksheet = ctx.rows.need(SheetWorksheet, worksheet_id, "worksheet")
    if column not in headers_of(worksheet):
        raise InvalidArgument(
            f"unknown column {column!r}; headers are {', '.join(map(repr, headers_of(worksheet)))}",
            error="unknown_column",
        )
    wanted = value.strip().lower()
    found = []
    for row in _rows(ctx, worksheet["id"]):
        cell = json.loads(row["cells"]).get(column, "").strip().lower()
        if cell == wanted or (match == "contains" and wanted in cell):
            found.append(_row(row))
    return {"worksheet_id": worksheet["id"], "column": column, "total": len(found), "rows": found}


@tool(SERVICE, "POST", "/sheets/worksheets/{worksheet_id}/rows")
def sheet_append_row(ctx: ToolContext, worksheet_id: WorksheetId, values: Values) -> Any:
    """Append (add, log) a new row at the end of a worksheet (a tab of a spreadsheet); columns left out stay empty."""
    worksheet = ctx.rows.need(SheetWorksheet, worksheet_id, "worksheet")
    given = _known(worksheet, values)
    cells = {h: given.get(h, "") for h in headers_of(worksheet)}
    last = ctx.rows.value(LAST_ROW, worksheet_id=worksheet["id"])
    row = {
        "id": ctx.rows.next_id(SheetRow),
        "worksheet_id": worksheet["id"],
        "row_number": (last or 0) + 1,
        "cells": _dump(cells),
    }
    ctx.rows.insert(SheetRow, row)
    return _row(row)


@tool(SERVICE, "PATCH", "/sheets/rows/{row_id}")
def sheet_update_row(ctx: ToolContext, row_id: RowId, values: Values) -> Any:
    """Update a row of a worksheet (a tab of a spreadsheet): only the cells of the columns given
    change (null or "" clears one)."""
    row = ctx.rows.need(SheetRow, row_id, "row")
    worksheet = ctx.rows.need(SheetWorksheet, row["worksheet_id"], "worksheet")
    given = _known(worksheet, values)
    cells = json.loads(row["cells"])
    changed = [k for k, v in given.items() if cells.get(k, "") != v]
    cells.update(given)
    ctx.rows.change(SheetRow, row, {"cells": _dump({h: cells.get(h, "") for h in headers_of(worksheet)})})
    return {**_row(row), "changed": changed}


@tool(SERVICE, "DELETE", "/sheets/rows/{row_id}")
def sheet_delete_row(ctx: ToolContext, row_id: RowId) -> Any:
    """Delete a row; the rows below it move up one row number."""
    row = ctx.rows.need(SheetRow, row_id, "row")
    deleted = _row(row)
    later = [r for r in _rows(ctx, row["worksheet_id"]) if r["row_number"] > row["row_number"]]
    ctx.rows.delete(SheetRow, row["id"])
    for other in later:  # in order, so no two rows share a number at any point
        ctx.rows.update(SheetRow, other["id"], {"row_number": other["row_number"] - 1})
    return {"deleted": deleted}


@tool(SERVICE, "POST", "/sheets/spreadsheets")
def sheet_create_spreadsheet(
    ctx: ToolContext,
    title: Annotated[Text, Field(description="The spreadsheet title")],
    headers: Annotated[
        list[Header], Field(min_length=1, max_length=50, description="Column headers of the first worksheet")
    ],
    worksheet_title: Annotated[Text, Field(description="The title of its first worksheet (tab)")] = "Sheet1",
) -> Any:
    """Create a new spreadsheet owned by the acting employee, with a first worksheet and its column headers."""
    _distinct(headers)
    spreadsheet = {
        "id": ctx.rows.next_id(SheetSpreadsheet),
        "title": title,
        "owner": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(SheetSpreadsheet, spreadsheet)
    worksheet = _new_worksheet(ctx, spreadsheet["id"], worksheet_title, headers)
    return {**spreadsheet, "worksheets": [_worksheet(ctx, worksheet)]}


def _distinct(headers: list[str]) -> None:
    if len(set(headers)) != len(headers):
        raise InvalidArgument("column headers must be distinct", error="duplicate_column")


@tool(SERVICE, "POST", "/sheets/spreadsheets/{spreadsheet_id}/worksheets")
def sheet_create_worksheet(
    ctx: ToolContext,
    spreadsheet_id: SpreadsheetId,
    title: Annotated[Text, Field(description="The new worksheet's (tab's) title")],
    headers: Annotated[list[Header], Field(min_length=1, max_length=50, description="Its column headers, in order")],
) -> Any:
    """Add a new worksheet (tab) with column headers to a spreadsheet."""
    spreadsheet = ctx.rows.need(SheetSpreadsheet, spreadsheet_id, "spreadsheet")
    _distinct(headers)
    if ctx.rows.one(TITLED, spreadsheet_id=spreadsheet["id"], title=title.lower()) is not None:
        raise Conflict(
            f"spreadsheet {spreadsheet['id']} already has a worksheet {title!r}", error="duplicate_worksheet"
        )
    return _worksheet(ctx, _new_worksheet(ctx, spreadsheet["id"], title, headers))


@tool(SERVICE, "POST", "/sheets/worksheets/{worksheet_id}/columns")
def sheet_add_column(
    ctx: ToolContext,
    worksheet_id: WorksheetId,
    header: Annotated[Header, Field(description="The new column's header")],
    default: Annotated[Cell, Field(description="The value to put in every existing row (empty if not given)")] = None,
) -> Any:
    """Add a column at the right of a worksheet; existing rows get the default value."""
    worksheet = ctx.rows.need(SheetWorksheet, worksheet_id, "worksheet")
    headers = headers_of(worksheet)
    if header in headers:
        raise Conflict(f"worksheet {worksheet['id']} already has a column {header!r}", error="duplicate_column")
    ctx.rows.change(SheetWorksheet, worksheet, {"headers": _dump([*headers, header])})
    for row in ctx.rows.find(SheetRow, ("id",), worksheet_id=worksheet["id"]):
        ctx.rows.change(SheetRow, row, {"cells": _dump({**json.loads(row["cells"]), header: cell_text(default)})})
    return _worksheet(ctx, worksheet)
