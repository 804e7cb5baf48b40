"""Rows: a tool's reads and writes as plain dicts, on the episode's own SQLite connection.

The ORM models stay the schema and the language of the tools: every statement here is built from a
model's table with SQLAlchemy Core, compiled for SQLite once per shape (table, the columns it filters
or writes, its order) and kept; the columns' own type conversions (booleans, JSON) are applied as
SQLAlchemy would. What it leaves out is what a call paid the ORM for and did not need: building the
query anew, the identity map, instances and the flush (a keyed read ~0.07 ms → ~0.01 ms).

Statements run inside the call's transaction, which the dispatcher begins on the episode's
connection, so a failing call still rolls back everything. A call that writes through ``Rows``
leaves the session's objects out of date: the dispatcher expires them after the call (``wrote``), and
a tool works with either ``Rows`` or the session's objects, not both on the same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    Select,
    String,
    Table,
    TypeDecorator,
    and_,
    bindparam,
    delete,
    func,
    insert,
    literal_column,
    select,
    true,
    update,
)
from sqlalchemy.dialects import sqlite

from ...errors import Conflict, NotFound
from ...schema.harness import SequenceRecord

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Row = dict[str, Any]
_DIALECT = sqlite.dialect(paramstyle="qmark")


@dataclass(frozen=True)
class Statement:
    """A compiled statement: its SQL, its parameters' names in order with their conversions, and the
    result's columns with theirs."""

    sql: str
    names: tuple[str, ...]
    binds: tuple[Callable[[Any], Any] | None, ...]
    columns: tuple[str, ...] = ()
    results: tuple[Callable[[Any], Any] | None, ...] = ()
    constants: Mapping[str, Any] | None = None  # values the statement holds itself (``x.is_(False)``)

    @classmethod
    def of(cls, statement: Any) -> Statement:
        compiled = statement.compile(dialect=_DIALECT)
        sql, names, binds, constants = compiled.string, [], [], {}
        for name in compiled.positiontup or ():
            bind = compiled.binds[name]
            convert = bind.type.bind_processor(_DIALECT)
            if bind.expanding:  # a fixed list (``x.in_(("a", "b"))``), one placeholder each; bind lists with one_of
                if bind.required or not bind.value:
                    raise ValueError(f"{name}: an IN list must be fixed and not empty here; bind a list with one_of")
                sql = sql.replace(f"__[POSTCOMPILE_{name}]", ", ".join("?" * len(bind.value)), 1)
                for i, item in enumerate(bind.value):
                    names.append(f"{name}.{i}")
                    binds.append(convert)
                    constants[f"{name}.{i}"] = item
                continue
            names.append(name)
            binds.append(convert)
            if not bind.required:
                constants[name] = bind.value
        selected = list(getattr(statement, "selected_columns", ()))
        return cls(
            sql,
            tuple(names),
            tuple(binds),
            tuple(c.name for c in selected),
            tuple(c.type.result_processor(_DIALECT, None) for c in selected),
            constants or None,
        )

    def parameters(self, values: Mapping[str, Any]) -> list[Any]:
        if self.constants is not None:
            values = {**self.constants, **values}
        if not self._binds_converted:
            return [values[n] for n in self.names]
        return [
            values[n] if convert is None else convert(values[n])
            for n, convert in zip(self.names, self.binds, strict=True)
        ]

    def row(self, values: tuple[Any, ...]) -> Row:
        found = dict(zip(self.columns, values, strict=True))
        for column, convert in self._results_converted:  # most columns need none
            found[column] = convert(found[column])
        return found

    @cached_property
    def _binds_converted(self) -> bool:
        return any(convert is not None for convert in self.binds)

    @cached_property
    def _results_converted(self) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
        return tuple((c, convert) for c, convert in zip(self.columns, self.results, strict=True) if convert is not None)


@dataclass(frozen=True)
class Pages:
    """A select paged: the count of all its rows, and one page of them (bound as ``limit``, ``offset``)."""

    count: Statement
    rows: Statement

    @classmethod
    def of(cls, query: Select) -> Pages:
        """``query`` (ordered, so pages are stable) as a count and a page."""
        counted = select(func.count()).select_from(query.order_by(None).subquery())
        return cls(Statement.of(counted), Statement.of(query.limit(bindparam("limit")).offset(bindparam("offset"))))


class Filtered:
    """A select with optional conditions, each named after the value it binds (``state ==
    bindparam("state")``), compiled once for each set of conditions a call gives: a value that is None
    leaves its condition out. ``order`` orders its rows (give one: pages are stable only when ordered)."""

    def __init__(self, base: Select, order: tuple[Any, ...], /, **conditions: ColumnElement[bool]) -> None:
        self.base, self.order, self.conditions = base, order, conditions
        self._shapes: dict[tuple[str, ...], Pages] = {}

    def pages(self, values: Mapping[str, Any]) -> Pages:
        """The statements for the conditions whose value is given in ``values``."""
        given = tuple(name for name in self.conditions if values.get(name) is not None)
        pages = self._shapes.get(given)
        if pages is None:
            query = self.base.where(*(self.conditions[name] for name in given)).order_by(*self.order)
            pages = self._shapes[given] = Pages.of(query)
        return pages


class _Contained(TypeDecorator[str]):
    """A text bound as a LIKE pattern that finds it anywhere, ignoring case, its wildcards taken literally."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        if value is None:
            return None
        escaped = value.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
        return f"%{escaped}%"


def contains(column: Any, name: str) -> ColumnElement[bool]:
    """``column`` contains the text bound as ``name``, ignoring case (LIKE wildcards in it taken literally)."""
    return func.lower(column).like(bindparam(name, type_=_Contained()), escape="/")


def one_of(column: Any, name: str) -> ColumnElement[bool]:
    """``column`` is one of the values of the list bound as ``name`` (one statement for any length)."""
    values = select(literal_column("value")).select_from(func.json_each(bindparam(name, type_=JSON)))
    return column.in_(values.scalar_subquery())


def _table(model: Any) -> Table:
    return model.__table__


def _equal(table: Table, columns: Iterable[str]) -> Any:
    """Each of ``columns`` equal to the value bound by its name (every row when there are none)."""
    return and_(true(), *(table.c[column] == bindparam(column) for column in columns))


@cache
def _select(model: Any, where: tuple[str, ...], order: tuple[str, ...], limit: int | None) -> Statement:
    table = _table(model)
    query = select(table).where(_equal(table, where)).order_by(*(table.c[c] for c in order))
    return Statement.of(query.limit(limit) if limit is not None else query)


@cache
def _count(model: Any, where: tuple[str, ...]) -> Statement:
    table = _table(model)
    return Statement.of(select(func.count()).select_from(table).where(_equal(table, where)))


@cache
def _insert(model: Any, columns: tuple[str, ...]) -> Statement:
    table = _table(model)
    return Statement.of(insert(table).values({c: bindparam(c) for c in columns}))


@cache
def _update(model: Any, columns: tuple[str, ...]) -> Statement:
    table = _table(model)
    # the new values are bound as "set_<column>", apart from the key's own names
    values = {c: bindparam(f"set_{c}") for c in columns}
    return Statement.of(update(table).where(_equal(table, _key_columns(model))).values(values))


@cache
def _delete(model: Any) -> Statement:
    table = _table(model)
    return Statement.of(delete(table).where(_equal(table, _key_columns(model))))


@cache
def _key_columns(model: Any) -> tuple[str, ...]:
    return tuple(c.name for c in _table(model).primary_key.columns)


def _key_values(model: Any, key: Any) -> dict[str, Any]:
    """A primary key's values by column name (``key`` a tuple for a key of several columns)."""
    return dict(zip(_key_columns(model), key if isinstance(key, tuple) else (key,), strict=True))


@cache
def _defaults(model: Any) -> tuple[tuple[str, Any], ...]:
    """The Python-side scalar defaults of the model's columns (SQL-side ones SQLite fills itself)."""
    return tuple(
        (c.name, c.default.arg)
        for c in _table(model).columns
        if c.default is not None and getattr(c.default, "is_scalar", False)
    )


_SEQUENCES = SequenceRecord.__table__
_TAKE_NEXT = Statement.of(
    update(_SEQUENCES)
    .where(_SEQUENCES.c.name == bindparam("name"))
    .values(next_value=_SEQUENCES.c.next_value + literal_column("1"))
    .returning(_SEQUENCES.c.next_value - literal_column("1"))
)


def driver(session: Session) -> sqlite3.Connection:
    """The sqlite3 connection under an episode's session (bound to the episode's one connection), found
    once and kept in the session's ``info``: every call asks for it several times."""
    found = session.info.get("driver")
    if found is None:
        found = session.info["driver"] = session.get_bind().connection.dbapi_connection  # type: ignore[union-attr]
    return found


class Rows:
    """The tables of one call, read and written as dicts (see the module docstring)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.written: set[str] = set()  # the tables this call wrote through Rows
        self._driver: sqlite3.Connection | None = None

    @property
    def wrote(self) -> bool:
        """Whether this call wrote through Rows (the session's objects are then out of date)."""
        return bool(self.written)

    def _connection(self) -> sqlite3.Connection:
        if self._driver is None:
            self._driver = driver(self.session)  # the call's transaction is open on it
        session = self.session
        # a session holds changes only when it holds objects or was used in this call (adding one begins
        # its transaction); tools on Rows alone leave it empty, and skip asking what is pending
        if (session.identity_map or session.in_transaction()) and (session.new or session.dirty or session.deleted):
            session.flush()  # what the session holds is written first, in order
        return self._driver

    def execute(self, statement: Statement, values: Mapping[str, Any]) -> sqlite3.Cursor:
        """Run a compiled statement with its named values (the one place SQL runs: a fault injected
        here reaches every write)."""
        return self._connection().execute(statement.sql, statement.parameters(values))

    def all(self, statement: Statement | Filtered, **values: Any) -> list[Row]:
        """Every row a compiled select returns for ``values`` (for a ``Filtered`` select, with the
        conditions whose value ``values`` gives)."""
        if isinstance(statement, Filtered):
            statement = statement.pages(values).rows
            values = {**values, "limit": -1, "offset": 0}
        return [statement.row(found) for found in self.execute(statement, values)]

    def one(self, statement: Statement, **values: Any) -> Row | None:
        """The first row a compiled select returns for ``values`` (None when there is none)."""
        found = self.execute(statement, values).fetchone()
        return None if found is None else statement.row(found)

    def value(self, statement: Statement, **values: Any) -> Any:
        """The first column of the first row a compiled select returns (None when there is none)."""
        found = self.execute(statement, values).fetchone()
        return None if found is None else statement.row(found)[statement.columns[0]]

    def page(self, pages: Pages | Filtered, page: int, per_page: int, **values: Any) -> dict[str, Any]:
        """Page ``page`` (from 1) of a paged select's rows, ``per_page`` a page, and their total (for a
        ``Filtered`` select, with the conditions whose value ``values`` gives)."""
        if isinstance(pages, Filtered):
            pages = pages.pages(values)
        total = self.execute(pages.count, values).fetchone()[0]
        rows = self.all(pages.rows, **values, limit=per_page, offset=(page - 1) * per_page)
        return {"page": page, "per_page": per_page, "total": total, "rows": rows}

    # --- reads ---------------------------------------------------------------------------------

    def get(self, model: Any, key: Any) -> Row | None:
        """The row of ``model`` with primary key ``key`` (a tuple for a key of several columns)."""
        statement = _select(model, _key_columns(model), (), None)
        found = self.execute(statement, _key_values(model, key)).fetchone()
        return None if found is None else statement.row(found)

    def need(self, model: Any, key: Any, what: str | None = None) -> Row:
        """The row of ``model`` with primary key ``key``, or a 404."""
        found = self.get(model, key)
        if found is None:
            raise NotFound(f"{what or _table(model).name} {key!r} not found")
        return found

    def find(self, model: Any, order_by: tuple[str, ...] = (), limit: int | None = None, **equal: Any) -> list[Row]:
        """The rows of ``model`` whose columns equal ``equal``, in ``order_by``'s order (give one: rows
        come back in a stable order only when asked)."""
        statement = _select(model, tuple(equal), tuple(order_by), limit)
        return [statement.row(found) for found in self.execute(statement, equal)]

    def count(self, model: Any, **equal: Any) -> int:
        return self.execute(_count(model, tuple(equal)), equal).fetchone()[0]

    # --- writes --------------------------------------------------------------------------------

    def insert(self, model: Any, values: Mapping[str, Any]) -> int:
        """Insert a row (the columns' scalar defaults filled in); returns its rowid (an integer key's value)."""
        row = {**{c: v for c, v in _defaults(model) if c not in values}, **values}
        self.written.add(_table(model).name)
        return self.execute(_insert(model, tuple(row)), row).lastrowid or 0

    def update(self, model: Any, key: Any, values: Mapping[str, Any]) -> None:
        """Set ``values`` on the row with primary key ``key`` (which must exist)."""
        if not values:
            return
        self.written.add(_table(model).name)
        named = {**_key_values(model, key), **{f"set_{c}": v for c, v in values.items()}}
        cursor = self.execute(_update(model, tuple(values)), named)
        if cursor.rowcount != 1:
            raise NotFound(f"{_table(model).name} {key!r} not found")

    def change(self, model: Any, row: Row, values: Mapping[str, Any]) -> list[str]:
        """Set on ``row`` (read by ``get``/``find``) the ``values`` that differ from it, in the database and
        in the dict; the names of those that changed, in ``values``' order (nothing written when none)."""
        changed = {c: v for c, v in values.items() if row[c] != v}
        if changed:
            self.update(model, tuple(row[c] for c in _key_columns(model)), changed)
            row.update(changed)
        return list(changed)

    def delete(self, model: Any, key: Any) -> None:
        """Delete the row of ``model`` with primary key ``key`` (which must exist)."""
        self.written.add(_table(model).name)
        if self.execute(_delete(model), _key_values(model, key)).rowcount != 1:
            raise NotFound(f"{_table(model).name} {key!r} not found")

    def next_id(self, model: Any) -> str:
        """The next id of ``model``'s sequence, formatted by its ``id_format``."""
        table = _table(model)
        self.written.add(_SEQUENCES.name)
        taken = self.execute(_TAKE_NEXT, {"name": table.name}).fetchone()  # one statement: moved and read
        if taken is None:
            raise Conflict(f"table {table.name} has no id sequence")
        return table.info["id_format"].format(taken[0])
