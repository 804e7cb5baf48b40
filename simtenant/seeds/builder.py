"""The snapshot builder: seed files → a closed SQLite file every episode copies.

empty file → Alembic migrations → seed rows → id sequences → change-capture
triggers → integrity and foreign-key checks → VACUUM, journal mode DELETE, closed.
The triggers record the key of every world row an episode writes in ``_changes``. Snapshots are cached
by a content hash of the migrations, the world's seed files and this builder's
version, and rebuilt when any of them change. Two builds are byte-identical.

``scale`` (1, 10, 100, …) adds ``scale - 1`` relabelled copies of every seed
row, with their keys renumbered and their foreign keys pointing into the same
copy, so a world can be made large without losing a single valid relation.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Integer, Table, UniqueConstraint, delete, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from .. import db
from ..errors import TaskError
from ..schema.harness import ChangeRecord, SequenceRecord
from ..task import read_yaml

if TYPE_CHECKING:
    from ..world import World

BUILDER_VERSION = "3"
MIGRATIONS = Path(__file__).parent.parent / "migrations" / "versions"


def cache_dir() -> Path:
    """The cache folder: ``$SIMTENANT_CACHE``, else ``~/.cache/simtenant`` (made once per process)."""
    setting = (os.environ.get("SIMTENANT_CACHE", ""), os.environ.get("HOME", ""))
    root = _roots.get(setting)
    if root is None:  # a reset asks several times: the path is built and made once per setting
        root = Path(setting[0] or Path.home() / ".cache" / "simtenant")
        root.mkdir(parents=True, exist_ok=True)
        _roots[setting] = root
    return root


_roots: dict[tuple[str, str], Path] = {}


def _seed_files(world: World) -> list[Path]:
    return sorted([world.folder / "world.yaml", *(world.folder / "data").rglob("*.yaml")])


def snapshot_hash(world: World, scale: int = 1) -> str:
    """Content hash of everything a snapshot is made from."""
    files = [*sorted(MIGRATIONS.glob("*.py")), *_seed_files(world)]
    stamps = tuple((str(p), s.st_mtime_ns, s.st_size) for p in files for s in [p.stat()])
    return _content_hash(stamps, scale)


@functools.lru_cache(maxsize=64)
def _content_hash(stamps: tuple[tuple[str, int, int], ...], scale: int) -> str:
    # Keyed on the files' paths, mtimes and sizes, so a process hashes unchanged files once.
    digest = hashlib.sha256(f"builder {BUILDER_VERSION}\n".encode())
    if scale != 1:
        digest.update(f"scale {scale}\n".encode())
    for name, _, _ in stamps:
        path = Path(name)
        digest.update(f"{path.parent.name}/{path.name}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_known: dict[tuple[Path, Path, int], Path] = {}
_intact: dict[Path, tuple[int, ...]] = {}  # cached files whose bytes were checked: their and their checksum's stat


def _checksum_file(path: Path) -> Path:
    return path.with_name(f"{path.name}.sha256")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def place(tmp: Path, dest: Path) -> None:
    """Move a freshly made cache file into place, its checksum written beside it first (a reader
    that sees the file sees the checksum; files made from the same inputs are byte-identical)."""
    checksum = _checksum_file(dest)
    if checksum.is_dir() and not checksum.is_symlink():  # whatever damaged the cache, a rebuild mends it
        shutil.rmtree(checksum)
    checksum.write_text(_sha256(tmp) + "\n")
    os.replace(tmp, dest)
    _intact.pop(dest, None)


def intact(path: Path) -> bool:
    """Whether a cached file exists and its bytes still match the checksum written when it was made
    (an edited or truncated file fails, and its maker rebuilds it). Checked once per process for as
    long as the file's and the checksum's size and mtime stay the same."""
    try:
        stat, recorded = path.stat(), _checksum_file(path).stat()
    except OSError:
        return False
    seen = (stat.st_mtime_ns, stat.st_size, recorded.st_mtime_ns, recorded.st_size)
    if _intact.get(path) == seen:
        return True
    try:
        expected = _checksum_file(path).read_text().strip()
    except OSError:
        return False
    if _sha256(path) != expected:
        return False
    _intact[path] = seen
    return True


def snapshot(world: World, scale: int = 1) -> Path:
    """The world's snapshot file at ``scale``, built if it is not in the cache yet.

    A process hashes a world's files once, as it reads its tasks once: an edit to the seed
    files is seen by the next process (``snapshot_hash`` always reads them anew).
    """
    if scale < 1:
        raise TaskError(f"scale must be at least 1, got {scale}", error="invalid_scale")
    key = (cache_dir(), world.folder, scale)
    path = _known.get(key)
    if path is None or not intact(path):
        path = snapshot_path(world, snapshot_hash(world, scale))
        if not intact(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            build(world, path, scale)
        _known[key] = path
    return path


def snapshot_path(world: World, content_hash: str) -> Path:
    """Where the snapshot of ``world`` with ``content_hash`` is (or would be) cached."""
    return cache_dir() / "snapshots" / f"{world.name}-{content_hash}.db"


def hash_of(world: World, snapshot_file: Path) -> str:
    return snapshot_file.stem.removeprefix(f"{world.name}-")


def build(world: World, dest: Path, scale: int = 1) -> None:
    """Build the snapshot into ``dest`` (atomically: a temporary file, then a rename)."""

    def make(tmp: Path) -> None:
        db.upgrade(tmp, f"{world.schema}@head")
        _insert_seed_rows(world, tmp, scale)
        _add_change_triggers(world, tmp)

    _atomically(world, dest, make)


def _atomically(world: World, dest: Path, make: Callable[[Path], None]) -> None:
    """Make a snapshot in a temporary file, check it, compact it and move it into place."""
    tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        make(tmp)
        problems = db.integrity_problems(tmp)
        if problems:
            raise TaskError(f"world {world.name}: seed data breaks integrity: {'; '.join(problems[:5])}")
        connection = sqlite3.connect(tmp, isolation_level=None)
        connection.execute("VACUUM")
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.close()
        place(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def task_snapshot(world: World, changes: dict[str, list[dict[str, Any]]], scale: int = 1) -> Path:
    """The world's snapshot with a task's own seed changes applied (the snapshot itself without any).

    A change row whose primary key exists updates the columns it names; any other row is inserted.
    Variants are cached by the base snapshot's hash and the changes' hash.
    """
    base = snapshot(world, scale)
    if not changes:
        return base
    text = json.dumps(changes, sort_keys=True, separators=(",", ":"), default=str)
    path = snapshot_path(world, f"{hash_of(world, base)}-t{hashlib.sha256(text.encode()).hexdigest()[:16]}")
    if not intact(path):

        def make(tmp: Path) -> None:
            db.copy_file(base, tmp)
            _apply_changes(world, tmp, changes)

        _atomically(world, path, make)
    return path


def _apply_changes(world: World, path: Path, changes: dict[str, list[dict[str, Any]]]) -> None:
    tables = {t.name: t for t in world.tables}
    unknown = sorted(set(changes) - set(tables))
    if unknown:
        raise TaskError(f"seed changes name tables world {world.name} does not have: {', '.join(unknown)}")
    engine = db.file_engine(path)
    try:
        with engine.begin() as connection:
            for name, table in tables.items():  # foreign-key order
                for number, row in enumerate(changes.get(name, []), start=1):
                    key = [c.name for c in table.primary_key.columns]
                    if any(k not in row for k in key):
                        raise TaskError(f"seed change {name} #{number}: give its primary key ({', '.join(key)})")
                    where = [table.c[k] == row[k] for k in key]
                    values = {c: v for c, v in row.items() if c not in key}
                    unknown_columns = sorted(set(values) - set(table.columns.keys()))
                    if unknown_columns:
                        raise TaskError(f"seed change {name} #{number}: unknown column(s) {', '.join(unknown_columns)}")
                    exists = connection.execute(select(func.count()).select_from(table).where(*where)).scalar()
                    if exists:
                        if values:
                            connection.execute(update(table).where(*where).values(**values))
                    else:
                        connection.execute(insert(table), [_complete_row(world, table, number, row)])
                if "id_format" in table.info:
                    connection.execute(
                        update(SequenceRecord.__table__)
                        .where(SequenceRecord.__table__.c.name == name)
                        .values(next_value=_next_value(connection, table))
                    )
            # the variant is the starting point: its own writes are no episode's changes
            connection.exec_driver_sql('DROP TRIGGER IF EXISTS "_guard_changes_delete"')
            connection.execute(delete(ChangeRecord.__table__))
            connection.exec_driver_sql(LOG_GUARDS[0])
    except SQLAlchemyError as exc:
        raise TaskError(f"seed changes rejected: {exc.__class__.__name__}: {exc.orig or exc}") from None
    finally:
        engine.dispose()


def _add_change_triggers(world: World, path: Path) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("BEGIN")
        for table in world.tables:
            for statement in change_triggers(table):
                connection.execute(statement)
        for statement in LOG_GUARDS:
            connection.execute(statement)
        connection.execute("COMMIT")
    finally:
        connection.close()


# The change log is append-only: hiding a write by deleting its entry takes dropping these first,
# which the grader sees (an episode's triggers must be the snapshot's).
LOG_GUARDS = [
    f'CREATE TRIGGER "_guard_changes_{event}" BEFORE {event.upper()} ON _changes '
    "BEGIN SELECT RAISE(ABORT, 'the change log is append-only'); END"
    for event in ("delete", "update")
]


def change_triggers(table: Table) -> list[str]:
    """Triggers that put the key of each inserted, updated or deleted row of ``table`` in ``_changes``."""

    def record(row: str) -> str:
        key = ", ".join(f'{row}."{c.name}"' for c in table.primary_key.columns)
        return f"INSERT OR IGNORE INTO _changes (tbl, pk) VALUES ('{table.name}', json_array({key}));"

    name = table.name
    return [
        f'CREATE TRIGGER "_track_{name}_insert" AFTER INSERT ON "{name}" BEGIN {record("NEW")} END',
        f'CREATE TRIGGER "_track_{name}_update" AFTER UPDATE ON "{name}" BEGIN {record("OLD")} {record("NEW")} END',
        f'CREATE TRIGGER "_track_{name}_delete" AFTER DELETE ON "{name}" BEGIN {record("OLD")} END',
    ]


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows = read_yaml(path.read_text())
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TaskError(f"{path.name}: a seed file holds a list of rows (mappings)")
    return rows


def _insert_seed_rows(world: World, path: Path, scale: int = 1) -> None:
    tables = {t.name: t for t in world.tables}
    files: dict[str, list[Path]] = {}
    for seed_file in sorted((world.folder / "data").rglob("*.yaml")):  # data/<table>.yaml, data/<group>/<table>.yaml
        files.setdefault(seed_file.stem, []).append(seed_file)
    unknown = sorted(set(files) - set(tables))
    if unknown:
        raise TaskError(f"world {world.name}: seed files for tables it does not have: {', '.join(unknown)}")
    seed = {name: [row for seed_file in files.get(name, []) for row in _read_rows(seed_file)] for name in tables}
    for name, rows in seed.items():
        seed[name] = [_complete_row(world, tables[name], number, row) for number, row in enumerate(rows, start=1)]
    rows_by_table = _scaled(tables, seed, scale)
    engine = db.file_engine(path)
    try:
        with engine.begin() as connection:
            for name, table in tables.items():  # foreign-key order
                if rows_by_table[name]:
                    connection.execute(insert(table), rows_by_table[name])
                if "id_format" in table.info:
                    connection.execute(
                        insert(SequenceRecord.__table__),
                        [{"name": name, "next_value": _next_value(connection, table)}],
                    )
    except SQLAlchemyError as exc:
        raise TaskError(
            f"world {world.name}: seed rows rejected: {exc.__class__.__name__}: {exc.orig or exc}"
        ) from None
    finally:
        engine.dispose()


def _complete_row(world: World, table: Table, number: int, row: dict[str, Any]) -> dict[str, Any]:
    """The row with every column: omitted ones take their default (or NULL); unknown ones are refused."""
    where = f"world {world.name}: {table.name}.yaml row {number}"
    unknown = sorted(set(row) - set(table.columns.keys()))
    if unknown:
        raise TaskError(f"{where}: unknown column(s) {', '.join(unknown)}")
    complete = {}
    for column in table.columns:
        if column.name in row:
            complete[column.name] = row[column.name]
        elif column.default is not None and not callable(column.default.arg):
            complete[column.name] = column.default.arg
        elif column.nullable:
            complete[column.name] = None
        elif not (column.primary_key and isinstance(column.type, Integer)):
            raise TaskError(f"{where}: missing column {column.name}")
    return complete


def _next_value(connection: Any, table: Table) -> int:
    """One past the largest number among the table's ids of its ``id_format``."""
    prefix, _, rest = table.info["id_format"].partition("{")
    suffix = rest.partition("}")[2]
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+){re.escape(suffix)}$")
    (pk,) = table.primary_key.columns
    numbers = [int(m.group(1)) for (value,) in connection.execute(select(pk)) if (m := pattern.match(str(value)))]
    return max(numbers, default=0) + 1


def _scaled(tables: dict[str, Table], seed: dict[str, list[dict[str, Any]]], scale: int) -> dict[str, list[dict]]:
    """The seed rows plus ``scale - 1`` relabelled copies (see the module docstring)."""
    result = {name: list(rows) for name, rows in seed.items()}
    for copy in range(2, scale + 1):
        renamed: dict[str, dict[Any, Any]] = {}
        for name, table in tables.items():
            if table.info.get("shared"):
                continue  # reference data: the copies point at the same rows
            pk = [c.name for c in table.primary_key.columns]
            relabel = _unique_columns(table) | (set(pk) if len(pk) == 1 else set())
            foreign = {fk.parent.name: fk.column.table.name for fk in table.foreign_keys}
            largest = max((r[pk[0]] for r in seed[name] if isinstance(r.get(pk[0]), int)), default=0)
            renamed[name] = {}
            for row in seed[name]:
                new = dict(row)
                for column, referred in foreign.items():
                    new[column] = renamed.get(referred, {}).get(row[column], row[column])
                for column in relabel - set(foreign):
                    if row.get(column) is not None:
                        new[column] = _relabel(row[column], copy, largest)
                if len(pk) == 1:
                    renamed[name][row[pk[0]]] = new[pk[0]]
                result[name].append(new)
    return result


def _unique_columns(table: Table) -> set[str]:
    """The columns a value must be unique in alone (a column's ``unique``, a one-column unique constraint
    or index), which every copy relabels."""
    single = {c.name for c in table.columns if c.unique}
    for unique in [*table.constraints, *table.indexes]:
        columns = list(unique.columns)
        if len(columns) == 1 and (isinstance(unique, UniqueConstraint) or getattr(unique, "unique", False)):
            single.add(columns[0].name)
    return single


def _relabel(value: Any, copy: int, largest_int: int) -> Any:
    """A value made distinct for the ``copy``-th copy: USR-001 → USR-1001, a@b → a+2@b, 7 → 7 + n·largest,
    other text → text (2)."""
    if isinstance(value, int):
        return value + (copy - 1) * largest_int
    text = str(value)
    if "@" in text:
        local, _, domain = text.partition("@")
        return f"{local}+{copy}@{domain}"
    match = re.match(r"^(.*?)(\d+)$", text)
    if match:
        prefix, digits = match.groups()
        return f"{prefix}{int(digits) + (copy - 1) * 10 ** len(digits):0{len(digits)}d}"
    return f"{text} ({copy})"  # not "-N": a value may already end so (LP-ADR-TK beside LP-ADR-TK-24)


_templates: dict[tuple[Path, str], Path] = {}  # where each template is, by what it holds (hashed once)


def template(snapshot_file: Path, record: dict[str, Any], messages: list[dict[str, Any]]) -> Path:
    """The snapshot with an episode's ``_episode`` record (and opening messages) already written,
    cached, so starting an episode is a file copy and a connection."""
    text = json.dumps([snapshot_file.name, record, messages], sort_keys=True, separators=(",", ":"))
    path = _templates.get((cache_dir(), text))
    if path is None:
        path = cache_dir() / "templates" / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.db"
        _templates[(cache_dir(), text)] = path
    if intact(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        db.copy_file(snapshot_file, tmp)
        connection = sqlite3.connect(tmp, isolation_level=None)
        try:
            connection.execute("BEGIN")
            connection.execute(
                f"INSERT INTO _episode ({', '.join(record)}) VALUES ({', '.join('?' for _ in record)})",
                list(record.values()),
            )
            for message in messages:
                connection.execute(
                    f"INSERT INTO _messages ({', '.join(message)}) VALUES ({', '.join('?' for _ in message)})",
                    list(message.values()),
                )
            connection.execute("COMMIT")
        finally:
            connection.close()
        place(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
