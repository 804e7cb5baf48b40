"""Row-by-row diff of two tenant databases, over the tables of a world.

Rows that exist in the base (the snapshot) are aligned by primary key. Rows
created during the episode are aligned by content, so the same records made
in another order still match; a foreign key that points at a created row is
compared through that alignment. Only the rows either database changed are
read: their keys come from ``_changes``, which the snapshot's triggers fill, so
the cost of a diff follows the changes, not the size of the world. The full
diff (``full=True``) finds the same rows by scanning every table with EXCEPT.

Free text (columns graded ``text``) is compared by a ``TextGrading``: by the facts the expected
text must state (the default; facts come from the task), exactly, or by a judge model. A text the
expected database left as it was in the base must stay exactly as it was; an optional text the
expected database left empty in a row both created may say anything. Columns graded ``present``
are compared by whether they hold a value at all (a link to a message, whichever message it is);
``cells`` columns (a JSON object of spreadsheet cells) cell by cell, as people read them.

The same pass counts the changes the expected database made (``expected``),
how many of them the actual one made too (``achieved``) and the changes it made
that the expected one did not (``unexpected``): the partial credit is
``(achieved - unexpected) / expected`` clamped to [0, 1] (with no expected
changes, 1 when nothing differs and 0 otherwise).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, Table

from ..db import file_identity, reading, reading_unchanging, readonly_uri, remembered
from ..errors import InvalidArgument
from ..facts import Fact, fact_kind, missing_facts, states_fact

TEXT_MATCH_MODES = ("facts", "exact", "judge")

Row = dict[str, Any]
Key = tuple[Any, ...]
CHUNK = 400


@dataclass(frozen=True)
class Difference:
    table: str
    key: str
    column: str | None
    expected: Any
    actual: Any
    kind: str  # missing_row | unexpected_row | changed
    detail: str | None = None  # why a text differs (the facts it does not state)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DiffResult:
    differences: list[Difference] = field(default_factory=list)
    expected: float = 0.0
    achieved: float = 0.0
    unexpected: float = 0.0
    scanned_because: str | None = None  # why every table was scanned where the change log would have served

    @property
    def match(self) -> bool:
        return not self.differences

    @property
    def partial_credit(self) -> float:
        if self.expected == 0:
            return 1.0 if self.match else 0.0
        return round(min(1.0, max(0.0, (self.achieved - self.unexpected) / self.expected)), 6)


CellKey = tuple[str, Key, str]  # (table, key in the expected database, column)
Judge = Callable[[CellKey, str, str, list[Fact]], tuple[bool, str]]


@dataclass
class TextGrading:
    """How free text is compared: ``facts`` (what it must state, per cell of the expected
    database; a text with no facts passes when it says anything), ``exact``, or ``judge``: the
    judge's verdict on the actual text against the expected one, the facts that are ids, numbers,
    dates and times still required. Rows are paired by facts in every mode but ``exact``."""

    mode: str = "facts"
    facts: dict[CellKey, list[Fact]] = field(default_factory=dict)
    judge: Judge | None = None

    def compare(
        self, cell: CellKey, base: Any, expected: Any, actual: Any, created: bool, final: bool = True
    ) -> str | None:
        """None when ``actual`` passes for ``expected``; otherwise why not."""
        if self.mode == "exact" or (not created and expected == base):
            return None if expected == actual else ""
        if expected is None or not str(expected).strip():  # the gold left it empty
            return None if created or expected == actual else ""
        if actual is None or not str(actual).strip():
            return "no text"
        facts = self.facts.get(cell, [])
        if not created and actual == base:
            return "left as it was"
        if self.mode == "judge" and final and self.judge is not None:
            required = [f for f in facts if any(fact_kind(o) != "words" for o in ([f] if isinstance(f, str) else f))]
            missing = missing_facts(actual, required)
            if missing:
                return f"missing: {', '.join(missing)}"
            passed, reason = self.judge(cell, str(expected), str(actual), facts)
            return None if passed else f"judge: {reason}"
        missing = missing_facts(actual, facts)
        return f"missing: {', '.join(missing)}" if missing else None


@dataclass
class _TableSpec:
    table: Table
    columns: list[str]
    pk: list[str]
    graded: dict[str, dict[str, Any]]  # column -> info, for compared columns
    surrogate_pk: bool
    foreign: dict[str, str]  # column -> referenced table (single-column keys)

    @classmethod
    @cache
    def of(cls, table: Table) -> _TableSpec:
        pk = [c.name for c in table.primary_key.columns]
        surrogate = "id_format" in table.info or (len(pk) == 1 and isinstance(table.c[pk[0]].type, Integer))
        graded = {
            c.name: c.info
            for c in table.columns
            if c.info.get("grade", "exact") != "ignore" and not (surrogate and c.name in pk)
        }
        foreign = {c.name: c.info["refers_to"] for c in table.columns if "refers_to" in c.info}
        for fk in table.foreign_key_constraints:
            if len(fk.columns) == 1:
                foreign[fk.column_keys[0]] = fk.referred_table.name
        return cls(table, [c.name for c in table.columns], pk, graded, surrogate, foreign)

    @property
    def self_refs(self) -> list[str]:
        """Columns holding a key of another row of the same table (a parent, a thread's first message)."""
        return [column for column, referred in self.foreign.items() if referred == self.table.name]

    def key_text(self, key: Key) -> str:
        return "/".join(str(v) for v in key)

    def compare(
        self, text: TextGrading, key: Key, column: str, base: Any, expected: Any, actual: Any, final: bool = True
    ) -> str | None:
        """None when the column's values agree (``key`` is the expected row's, ``base`` None for a
        created row); otherwise why not ('' when there is nothing to add to the values)."""
        grade = self.graded[column].get("grade")
        if grade == "text":
            cell = (self.table.name, key, column)
            return text.compare(cell, base, expected, actual, created=base is None, final=final)
        if grade == "present":
            return None if (expected is None) == (actual is None) else ""
        if grade == "cells":
            return _compare_cells(text, (self.table.name, key, column), base, expected, actual, final)
        return None if expected == actual else ""


def _cells(value: Any) -> dict[str, Any] | None:
    try:
        cells = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return cells if isinstance(cells, dict) else None


def same_cell(expected: Any, actual: Any) -> bool:
    """Two spreadsheet cells as people read them: numbers by value ("$1,250.00" is 1250), an ISO date
    in any written form, other text ignoring case and spacing."""
    left, right = str(expected or "").strip(), str(actual or "").strip()
    if " ".join(left.casefold().split()) == " ".join(right.casefold().split()):
        return True
    kind = fact_kind(left) if left else ""
    if kind == "number" and fact_kind(right) == "number":
        return states_fact(right, left)
    if kind == "date":
        return len(right) <= 40 and states_fact(right, left)
    return False


def _compare_cells(text: TextGrading, cell: CellKey, base: Any, expected: Any, actual: Any, final: bool) -> str | None:
    if expected == actual:
        return None
    gold, got = _cells(expected), _cells(actual)
    if gold is None or got is None or set(gold) != set(got):
        return ""
    was = _cells(base) or {}
    wrong = []
    for name in sorted(gold):
        inner = (cell[0], cell[1], f"{cell[2]}.{name}")
        if inner in text.facts:
            why = text.compare(inner, was.get(name), gold[name], got[name], created=base is None, final=final)
            if why is not None:
                wrong.append(f"{name}: {why or 'differs'}")
        elif not same_cell(gold[name], got[name]):
            wrong.append(f"{name}: differs")
    return f"cells {'; '.join(wrong)}" if wrong else None


class _Sources:
    """Where each of the three databases is read: ``main`` (the actual one), ``exp`` and ``base``; each
    name is a connection and the schema that names the database on it."""

    def __init__(self, found: dict[str, tuple[sqlite3.Connection, str]]) -> None:
        self.found = found
        self.base_identity: tuple[Any, ...] | None = None  # the base file's, when it is read apart
        self.expected_identity: tuple[Any, ...] | None = None  # the expected file's, when it is read apart
        self.main_triggers: list[tuple[str, str]] | None = None  # the actual database's, once read
        self.fetched: dict[tuple[str, str], dict[Key, Row]] = {}  # (table, database) -> rows read by key

    def execute(self, name: str, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Cursor:
        """Run ``sql`` on database ``name``, its ``{db}`` replaced by that database's schema."""
        connection, schema = self.found[name]
        return connection.execute(sql.format(db=schema), list(parameters))


def diff_databases(
    expected: Path,
    actual: Path,
    tables: Iterable[Table],
    base: Path | None = None,
    full: bool = False,
    text: TextGrading | None = None,
    connection: sqlite3.Connection | None = None,
) -> DiffResult:
    """Differences of ``actual`` against ``expected``, both grown from ``base``.

    Free text is compared by ``text`` (by default: by facts, with none declared).
    Without a base, ``expected`` serves as one: every row is aligned by key. The rows compared
    are those the two databases' ``_changes`` name (kept by the snapshot's triggers); with
    ``full``, or when either database has no triggers, every table is scanned instead (with both
    attached to ``actual``'s connection, for EXCEPT across them). ``connection`` is an open read-only
    connection to ``actual`` to use (a grade reads the episode through one); expected and base files
    never change once written, so they are read through kept connections (``db.reading_unchanging``).
    """
    own = connection is None
    try:
        with ExitStack() as stack:
            connection = stack.enter_context(reading(actual, connection))
            exp = stack.enter_context(reading_unchanging(expected))
            old = stack.enter_context(reading_unchanging(base or expected))
            sources = _Sources({"main": (connection, "main"), "exp": (exp, "main"), "base": (old, "main")})
            sources.base_identity = file_identity(base or expected)
            sources.expected_identity = file_identity(expected)
            return _diff(sources, connection, expected, base, full, text, tables, own)
    except (sqlite3.DatabaseError, OSError) as exc:
        raise InvalidArgument(
            f"cannot diff {expected} and {actual}: not tenant databases of the same schema ({exc})",
            error="not_a_database",
        ) from None


def _diff(
    sources: _Sources,
    connection: sqlite3.Connection,
    expected: Path,
    base: Path | None,
    full: bool,
    text: TextGrading | None,
    tables: Iterable[Table],
    own: bool,
) -> DiffResult:
    result = DiffResult()
    aligned: dict[str, dict[Key, Key | None]] = {}
    specs = [_TableSpec.of(table) for table in tables if table.info.get("graded") is not False]
    tracked = None if full or base is None else _tracked_keys(sources)
    if tracked is not None:
        result.scanned_because = _untrusted_log(sources, specs, tracked)
        tracked = None if result.scanned_because else tracked
    text = text or TextGrading()
    if tracked is None:  # scanned: EXCEPT needs all three on one connection
        connection.execute("ATTACH DATABASE ? AS exp", (readonly_uri(expected),))
        connection.execute("ATTACH DATABASE ? AS base", (readonly_uri(base or expected),))
        sources = _Sources({name: (connection, name) for name in ("main", "exp", "base")})
    try:
        for spec in specs:
            keys = _scanned_keys(connection, spec) if tracked is None else tracked.get(spec.table.name, set())
            _diff_table(sources, spec, keys, aligned, result, text)
    finally:
        if tracked is None and not own:  # the caller's connection is left as it came
            connection.execute("DETACH DATABASE exp")
            connection.execute("DETACH DATABASE base")
    return result


TRIGGERS = "SELECT name, sql FROM {db}.sqlite_master WHERE type = 'trigger' ORDER BY name"
TRACKING = "SELECT 1 FROM {db}.sqlite_master WHERE type = 'trigger' AND name LIKE '_track_%' LIMIT 1"


def _tracked_keys(sources: _Sources) -> dict[str, set[Key]] | None:
    """Keys of the rows either database changed, from ``_changes``; None if either keeps no record. The
    expected database never changes once written: what it logged is read once (``db.remembered``)."""
    sources.main_triggers = sources.execute("main", TRIGGERS).fetchall()
    expected = _unchanging(sources, "exp", sources.expected_identity, _logged_keys)
    if expected is None or not any(name.startswith("_track_") for name, _sql in sources.main_triggers):
        return None
    keys = {table: set(found) for table, found in expected.items()}
    for table, found in _logged_keys(sources, "main").items():
        keys.setdefault(table, set()).update(found)
    return keys


def _logged_keys(sources: _Sources, name: str) -> dict[str, set[Key]] | None:
    """The keys database ``name`` logged in ``_changes`` by table; None when it has no change triggers."""
    if name != "main" and not sources.execute(name, TRACKING).fetchone():
        return None
    keys: dict[str, set[Key]] = {}
    for table, pk in sources.execute(name, "SELECT tbl, pk FROM {db}._changes"):
        keys.setdefault(table, set()).add(tuple(json.loads(pk)))
    return keys


def _unchanging(sources: _Sources, name: str, identity: tuple[Any, ...] | None, read: Any, *what: Any) -> Any:
    """``read(sources, name, *what)`` of a database that never changes (``db.remembered``; read each
    time when it is not read apart, as in a scan)."""
    if identity is None:
        return read(sources, name, *what)
    return remembered(identity, (read.__name__, *what), lambda: read(sources, name, *what))


def _base_facts(sources: _Sources, name: str, counts: str) -> tuple[list[Any], tuple[int, ...]]:
    return sources.execute(name, TRIGGERS).fetchall(), sources.execute(name, counts).fetchone()


def _untrusted_log(sources: _Sources, specs: list[_TableSpec], tracked: dict[str, set[Key]]) -> str | None:
    """Why the episode's change log cannot be trusted to name every row it wrote (None when it can): its
    triggers differ from the snapshot's, or a table holds more or fewer rows outside the logged keys than
    the snapshot does (a row written and its log entry deleted). Row counts come from the tables' b-trees,
    so the check costs little; a hidden update that keeps counts needs the guard triggers dropped first."""
    # every table's count in one statement per database
    counts = "SELECT " + ", ".join(f'(SELECT count(*) FROM {{db}}."{spec.table.name}")' for spec in specs)
    base_triggers, base_totals = _unchanging(sources, "base", sources.base_identity, _base_facts, counts)
    if sources.main_triggers != base_triggers:
        return "its change-log triggers differ from the snapshot's"
    totals = {"main": sources.execute("main", counts).fetchone(), "base": base_totals}
    for index, spec in enumerate(specs):
        keys = sorted(tracked.get(spec.table.name, set()), key=repr)
        outside = [totals[name][index] - len(_fetch(sources, spec, name, keys)) for name in ("main", "base")]
        if outside[0] != outside[1]:
            return f"{spec.table.name} has {outside[0] - outside[1]:+d} rows its change log does not name"
    return None


def _scanned_keys(connection: sqlite3.Connection, spec: _TableSpec) -> set[Key]:
    """Keys of the rows that differ from the base in either database, by scanning whole tables."""
    keys: set[Key] = set()
    for left, right in (("main", "base"), ("base", "main"), ("exp", "base"), ("base", "exp")):
        keys |= _except_keys(connection, spec, left, right)
    return keys


def _except_keys(connection: sqlite3.Connection, spec: _TableSpec, left: str, right: str) -> set[Key]:
    cols = ", ".join(f'"{c}"' for c in spec.columns)
    pk_positions = [spec.columns.index(p) for p in spec.pk]
    sql = f'SELECT {cols} FROM {left}."{spec.table.name}" EXCEPT SELECT {cols} FROM {right}."{spec.table.name}"'
    return {tuple(row[i] for i in pk_positions) for row in connection.execute(sql)}


def _fetch(sources: _Sources, spec: _TableSpec, name: str, keys: list[Key]) -> dict[Key, Row]:
    """The rows of these keys in database ``name``, found through the primary key's index (a table's
    keys are the same all through one diff: its rows are read once, for the cross-check and the diff)."""
    memo = (spec.table.name, name)
    if memo not in sources.fetched:
        identity = {"exp": sources.expected_identity, "base": sources.base_identity}.get(name)
        if identity is None:
            sources.fetched[memo] = _read_keys(sources, spec, name, keys)
        else:  # a file that never changes: each of its rows is read once, for every diff against it
            held: dict[Key, Row | None] = remembered(identity, ("rows", spec.table.name), dict)
            missing = [key for key in keys if key not in held]
            if missing:
                found = _read_keys(sources, spec, name, missing)
                held.update({key: found.get(key) for key in missing})
            sources.fetched[memo] = {key: held[key] for key in keys if held[key] is not None}
    return sources.fetched[memo]


def _read_keys(sources: _Sources, spec: _TableSpec, name: str, keys: list[Key]) -> dict[Key, Row]:
    rows: dict[Key, Row] = {}
    if not keys:
        return rows
    cols = ", ".join(f'"{c}"' for c in spec.columns)
    if len(spec.pk) == 1:
        one = "?"
        where = f'"{spec.pk[0]}" IN ({{}})'
    else:  # row values with IN (VALUES …) would scan the table; a disjunction of key lookups does not
        one = "(" + " AND ".join(f'"{c}" = ?' for c in spec.pk) + ")"
        where = "{}"
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        joiner = ", " if len(spec.pk) == 1 else " OR "
        sql = f'SELECT {cols} FROM {{db}}."{spec.table.name}" WHERE ' + where.format(joiner.join(one for _ in chunk))
        for values in sources.execute(name, sql, [v for key in chunk for v in key]):
            row = dict(zip(spec.columns, values, strict=True))
            rows[tuple(row[p] for p in spec.pk)] = row
    return rows


def _diff_table(
    sources: _Sources,
    spec: _TableSpec,
    keys: set[Key],
    aligned: dict[str, dict[Key, Key | None]],
    result: DiffResult,
    text: TextGrading,
) -> None:
    if not keys:
        aligned[spec.table.name] = {}
        return
    ordered = sorted(keys, key=repr)
    base = _fetch(sources, spec, "base", ordered)
    expected = _fetch(sources, spec, "exp", ordered)
    actual = {k: _translate(spec, row, aligned) for k, row in _fetch(sources, spec, "main", ordered).items()}
    name = spec.table.name
    created_expected = [k for k in ordered if k in expected and k not in base]
    created_actual = [k for k in ordered if k in actual and k not in base]
    pairs = _pair_created(spec, expected, actual, created_expected, created_actual, text)
    aligned[name] = {key: pairs.get(key) for key in created_actual}
    if spec.self_refs:  # now the table's own created rows are paired, references among them can be followed
        actual = {k: _translate(spec, row, aligned, own=True) for k, row in actual.items()}

    for key in (k for k in ordered if k in base):
        e, a = expected.get(key), actual.get(key)
        if e is not None and a is not None:
            _compare_existing(spec, key, base[key], e, a, result, text)
        elif e is not None:
            result.differences.append(Difference(name, spec.key_text(key), None, e, None, "missing_row"))
            result.unexpected += 1
        elif a is not None:
            result.differences.append(Difference(name, spec.key_text(key), None, None, a, "unexpected_row"))
            result.expected += 1
        else:
            result.expected += 1
            result.achieved += 1

    _compare_created(spec, expected, actual, created_expected, created_actual, pairs, result, text)


def _translate(spec: _TableSpec, row: Row, aligned: dict[str, dict[Key, Key | None]], own: bool = False) -> Row:
    """Point the row's foreign keys at the expected database's ids of created rows: those into other
    tables, or (``own``) those into its own table, once its created rows are paired.

    A key of a created row that has no partner cannot equal any expected id, whatever its value.
    """
    for column, referred in spec.foreign.items():
        if (referred == spec.table.name) != own:
            continue
        mapping = aligned.get(referred)
        if mapping and (row[column],) in mapping:
            target = mapping[(row[column],)]
            row = {**row, column: f"{row[column]} (unmatched created row)" if target is None else target[0]}
    return row


def _compare_existing(
    spec: _TableSpec, key: Key, base: Row, expected: Row, actual: Row, result: DiffResult, text: TextGrading
) -> None:
    for column in spec.graded:
        gold_changed = expected[column] != base[column]
        why = spec.compare(text, key, column, base[column], expected[column], actual[column])
        if why is None:
            if gold_changed:
                result.expected += 1
                result.achieved += 1
            continue
        result.differences.append(
            Difference(
                spec.table.name, spec.key_text(key), column, expected[column], actual[column], "changed", why or None
            )
        )
        if gold_changed:
            result.expected += 1
        else:
            result.unexpected += 1


def _pair_created(
    spec: _TableSpec,
    expected: dict[Key, Row],
    actual: dict[Key, Row],
    created_expected: list[Key],
    created_actual: list[Key],
    text: TextGrading,
) -> dict[Key, Key]:
    """Pair created rows by content: actual key → expected key. References to the table's own rows
    are left out of the pairing (they are followed once the rows are paired)."""
    columns = [c for c in spec.graded if c not in spec.self_refs]

    def agreement(e: Key, a: Key) -> int:
        return sum(spec.compare(text, e, c, None, expected[e][c], actual[a][c], final=False) is None for c in columns)

    pairs: dict[Key, Key] = {}
    free_actual = list(created_actual)
    for e in created_expected:  # first, rows equal in every compared column
        for a in free_actual:
            if agreement(e, a) == len(columns):
                pairs[a] = e
                free_actual.remove(a)
                break
    left_expected = [e for e in created_expected if e not in pairs.values()]
    candidates = sorted(
        ((agreement(e, a), i, j, e, a) for i, e in enumerate(left_expected) for j, a in enumerate(free_actual)),
        key=lambda c: (-c[0], c[1], c[2]),
    )
    for score, _, _, e, a in candidates:  # then the closest rows, when at least half agree
        if score * 2 < len(columns) or a in pairs or e in pairs.values():
            continue
        pairs[a] = e
    return pairs


def _compare_created(
    spec: _TableSpec,
    expected: dict[Key, Row],
    actual: dict[Key, Row],
    created_expected: list[Key],
    created_actual: list[Key],
    pairs: dict[Key, Key],
    result: DiffResult,
    text: TextGrading,
) -> None:
    """Report the differences of paired created rows, and the rows that have no partner."""
    name = spec.table.name
    columns = list(spec.graded)
    result.expected += len(created_expected)
    for a, e in sorted(pairs.items(), key=lambda p: repr(p[1])):
        matched = 0
        for column in columns:
            why = spec.compare(text, e, column, None, expected[e][column], actual[a][column])
            if why is None:
                matched += 1
            else:
                result.differences.append(
                    Difference(
                        name, spec.key_text(a), column, expected[e][column], actual[a][column], "changed", why or None
                    )
                )
        result.achieved += matched / len(columns) if columns else 1.0
    for e in created_expected:
        if e not in pairs.values():
            result.differences.append(Difference(name, spec.key_text(e), None, expected[e], None, "missing_row"))
    for a in created_actual:
        if a not in pairs:
            result.differences.append(Difference(name, spec.key_text(a), None, None, actual[a], "unexpected_row"))
            result.unexpected += 1
