"""The declarative base every table of every service shares.

A naming convention gives every constraint a name (Alembic's batch mode on
SQLite needs them). Grading semantics live on each column's ``info``:

* ``{"grade": "exact"}`` (the default) — values must be equal;
* ``{"grade": "text"}`` — free text, graded by the facts the task says it must state (any text when
  it says none), exactly, or by a judge (``grader.diff.TextGrading``);
* ``{"grade": "present"}`` — only whether there is a value (a link to whichever message did it);
* ``{"grade": "cells"}`` — a JSON object of spreadsheet cells, compared cell by cell as people read
  them: numbers by value, dates in any written form, text ignoring case and spacing (a cell the task
  gives facts for is graded by its facts);
* ``{"grade": "ignore"}`` — never compared.

A column that holds another row's key without a foreign key (a mail's thread) says which table in
``info={"refers_to": "mail_messages"}``: the row diff follows it to the row it names, as it follows
foreign keys, so rows created in another order still match.

Tables whose names start with ``_`` belong to the harness and are never graded; a world table
that is a by-product of others (an audit trail) says ``info={"graded": False}`` and is left out of
the row diff too (task checks may still query it).
A table that takes new rows from a tool names its id format in
``info={"id_format": "RF-{:04d}"}``; ids then come from ``_sequences``. Reference data that
every organization shares (roles, permissions) says ``info={"shared": True}``: growing a world
(the builder's ``scale``) does not copy it.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import CheckConstraint, MetaData
from sqlalchemy.orm import DeclarativeBase

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

TEXT = {"grade": "text"}
PRESENT = {"grade": "present"}
CELLS = {"grade": "cells"}
IGNORE = {"grade": "ignore"}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def enum_check(column: str, values: Iterable[str], name: str | None = None) -> CheckConstraint:
    """A CHECK constraint that keeps ``column`` within ``values``."""
    quoted = ", ".join(f"'{v}'" for v in values)
    return CheckConstraint(f"{column} IN ({quoted})", name=name or f"{column}_enum")


def is_harness_table(name: str) -> bool:
    return name.startswith("_")
