"""Sheets: spreadsheets, their worksheets (a header row of column names) and the rows of each
worksheet, the cells of a row a JSON object keyed by header."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import CELLS, IGNORE, Base


class SheetSpreadsheet(Base):
    __tablename__ = "sheet_spreadsheets"
    __table_args__ = ({"info": {"id_format": "SS-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String)
    owner: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)


class SheetWorksheet(Base):
    """A tab of a spreadsheet; ``headers`` is a JSON list of its column names, in order."""

    __tablename__ = "sheet_worksheets"
    __table_args__ = (UniqueConstraint("spreadsheet_id", "title"), {"info": {"id_format": "WS-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    spreadsheet_id: Mapped[str] = mapped_column(ForeignKey("sheet_spreadsheets.id"), index=True)
    title: Mapped[str] = mapped_column(String)
    headers: Mapped[str] = mapped_column(Text)


class SheetRow(Base):
    """A data row (``row_number`` 1 is the first row under the headers); ``cells`` is a JSON object
    of every header to its text value ("" when empty), in header order."""

    __tablename__ = "sheet_rows"
    __table_args__ = (UniqueConstraint("worksheet_id", "row_number"), {"info": {"id_format": "ROW-{:05d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    worksheet_id: Mapped[str] = mapped_column(ForeignKey("sheet_worksheets.id"), index=True)
    # which of two appended rows came first is the order of the calls, not the outcome
    row_number: Mapped[int] = mapped_column(Integer, info=IGNORE)
    cells: Mapped[str] = mapped_column(Text, info=CELLS)
