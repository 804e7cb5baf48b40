"""Assertions: statements about the final database, scored for partial credit.

Each assertion is evaluated on the task's starting world and on the episode's final one. A guard
(``guard: true``) holds at the start and guards a record the agent could break: it is left out of
the score unless the agent breaks it, which counts as a failure. Every other assertion is scored,
and must not hold at the start (``simtenant validate`` proves both). Partial credit is the share of
scored assertions that hold. Queries are built from the world's own table and column names
(checked against its schema) with every value bound as a parameter.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Table

from ..db import reading, reading_unchanging
from ..errors import TaskError
from ..facts import missing_facts
from ..task import Assertion

Reader = sqlite3.Connection | sqlite3.Cursor  # what queries are run on

CONDITIONS = {"contains", "in", "not", "null", "states"}


@dataclass(frozen=True)
class AssertionResult:
    name: str
    kind: str
    held_before: bool
    holds: bool
    scored: bool  # counted in the partial credit
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _column(table: Table, name: str) -> str:
    if name not in table.columns:
        raise TaskError(f"assertion: table {table.name} has no column {name!r}")
    return f'"{name}"'


def _condition(table: Table, column: str, expected: Any) -> tuple[str, list[Any]]:
    """SQL for one column's condition, and its parameters."""
    quoted = _column(table, column)
    if isinstance(expected, dict):
        expected = {"null" if k is None else k: v for k, v in expected.items()}  # YAML reads a bare null key as None
        unknown = set(expected) - CONDITIONS
        if len(expected) != 1 or unknown:
            raise TaskError(f"assertion: {column}: a condition is one of {sorted(CONDITIONS)}, got {expected!r}")
        ((kind, operand),) = expected.items()
        if kind == "not" and isinstance(operand, dict):  # not: {in: [...]}: a NULL is none of them either
            clause, values = _condition(table, column, operand)
            return f"NOT coalesce(({clause}), 0)", values
        scalars = operand if kind == "in" and isinstance(operand, list) else [operand]
        if (kind == "in" and not isinstance(operand, list)) or any(isinstance(v, dict | list) for v in scalars):
            raise TaskError(f"assertion: {column}: {kind} takes {'a list of values' if kind == 'in' else 'a value'}")
        if kind == "contains":
            escaped = str(operand).lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return f"lower({quoted}) LIKE ? ESCAPE '\\'", [f"%{escaped}%"]
        if kind == "in":
            values = list(operand)
            return f"{quoted} IN ({', '.join('?' for _ in values)})", values
        if kind == "not":
            return f"{quoted} IS NOT ?", [operand]
        return (f"{quoted} IS NULL" if operand else f"{quoted} IS NOT NULL"), []
    return f"{quoted} IS ?", [expected]


def _matching(database: Reader, table: Table, where: dict[str, Any]) -> list[sqlite3.Row]:
    clauses, parameters = ["1 = 1"], []
    stated: dict[str, list[Any]] = {}  # column -> facts its text must state (checked here, not in SQL)
    for column, expected in where.items():
        if isinstance(expected, dict) and set(expected) == {"states"}:
            _column(table, column)
            facts = expected["states"]
            stated[column] = facts if isinstance(facts, list) else [facts]
            continue
        clause, values = _condition(table, column, expected)
        clauses.append(clause)
        parameters += values
    query = f'SELECT * FROM "{table.name}" WHERE {" AND ".join(clauses)}'
    rows = database.execute(query, parameters).fetchall()
    return [r for r in rows if all(not missing_facts(r[c], facts) for c, facts in stated.items())]


def holds(assertion: Assertion, database: Reader, tables: dict[str, Table]) -> tuple[bool, str]:
    """Whether the assertion holds in ``database``, and what was found."""
    table = tables.get(assertion.table)
    if table is None:
        raise TaskError(f"assertion {assertion.name}: the world has no table {assertion.table!r}")
    rows = _matching(database, table, assertion.where)
    if assertion.kind == "exists":
        return bool(rows), f"{len(rows)} matching row(s)"
    if assertion.kind == "not_exists":
        return not rows, f"{len(rows)} matching row(s)"
    if assertion.kind == "count":
        if assertion.expect is None:
            raise TaskError(f"assertion {assertion.name}: a count needs expect")
        return len(rows) == assertion.expect, f"{len(rows)} matching row(s), expected {assertion.expect}"
    if assertion.column is None:
        raise TaskError(f"assertion {assertion.name}: equals needs a column")
    if len(rows) != 1:
        return False, f"{len(rows)} matching row(s), expected exactly 1"
    clause, values = _condition(table, assertion.column, assertion.value)
    keys = [c.name for c in table.primary_key.columns]
    key_clause = " AND ".join(f'"{k}" IS ?' for k in keys)
    query = f'SELECT count(*) FROM "{table.name}" WHERE {key_clause} AND {clause}'
    found = database.execute(query, [rows[0][k] for k in keys] + values).fetchone()[0]
    return bool(found), f"{assertion.column} = {rows[0][assertion.column]!r}"


def grade_assertions(
    assertions: list[Assertion],
    start: Path,
    final: Path,
    tables: list[Table],
    connection: sqlite3.Connection | None = None,
) -> tuple[float, list[AssertionResult]]:
    """Partial credit (1.0 when nothing is scored) and every assertion's result; ``start`` is a snapshot
    (read through a kept connection), ``final`` the episode (through ``connection`` where one is open)."""
    by_name = {t.name: t for t in tables}
    results = []
    with reading(final, connection) as episode, reading_unchanging(start) as snapshot:
        before_db, after_db = snapshot.cursor(), episode.cursor()
        before_db.row_factory = after_db.row_factory = sqlite3.Row
        for assertion in assertions:
            try:
                held, _ = holds(assertion, before_db, by_name)
                now, detail = holds(assertion, after_db, by_name)
            except sqlite3.Error as exc:
                raise TaskError(f"assertion {assertion.name}: {exc}") from None
            scored = not assertion.guard or not now  # a guard counts only when broken
            results.append(AssertionResult(assertion.name, assertion.kind, held, now, scored, detail))
    counted = [r for r in results if r.scored]
    credit = sum(r.holds for r in counted) / len(counted) if counted else 1.0
    return round(credit, 6), results
