"""Opening tenant databases, and creating their schema through Alembic only.

The migrations form branches: ``core`` (the harness tables every file has), and one branch per
world schema on top of it, so a world's snapshot holds its own tables and nothing else.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection, Engine, create_engine, event
from sqlalchemy.pool import NullPool

if sys.platform == "linux":
    import fcntl

T = TypeVar("T")


def on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    """How every episode connection is set up (the engine's connect event; the bench's floor too)."""
    # Transactions are begun explicitly (the dispatcher's, or the engine's begin event): the driver's own
    # transaction handling breaks SAVEPOINT. Python 3.12+ has an ``autocommit`` attribute, 3.11 not.
    if getattr(dbapi_connection, "autocommit", None) is not None:
        dbapi_connection.autocommit = sqlite3.LEGACY_TRANSACTION_CONTROL
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    # A killed process loses nothing the OS already holds; only a power cut could, and an
    # episode is cheap to run again. Not waiting for the disk makes every call ~0.5 ms faster.
    cursor.execute("PRAGMA synchronous=OFF")
    # The rollback journal is kept between transactions (its header zeroed at commit) rather than created
    # and deleted by every call: as safe against a kill, a few system calls fewer a call.
    cursor.execute("PRAGMA journal_mode=PERSIST")
    cursor.close()


def _on_begin(connection: Connection) -> None:
    # On the driver itself (SQLAlchemy's statement machinery would cost more than the BEGIN), unless a
    # transaction is open already: the dispatcher begins each call's itself, and the session joins it.
    dbapi_connection = connection.connection.dbapi_connection
    if not dbapi_connection.in_transaction:  # type: ignore[union-attr]
        dbapi_connection.execute("BEGIN")  # type: ignore[union-attr]


_opening: ContextVar[str] = ContextVar("opening")


def _tenant_engine() -> Engine:
    # One engine for every tenant file: all share the schema and dialect, so a statement
    # compiled for one episode serves them all (an engine per file would compile anew).
    engine = create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(_opening.get(), check_same_thread=False),
        poolclass=NullPool,
    )
    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", _on_begin)
    return engine


_ENGINE = _tenant_engine()


def connect(path: Path | str) -> Connection:
    """A connection to a tenant file with foreign keys enforced; the caller closes it."""
    token = _opening.set(str(path))
    try:
        return _ENGINE.connect()
    finally:
        _opening.reset(token)


def file_engine(path: Path | str) -> Engine:
    """A plain engine on one file, its name taken as it is (a URL string would read ``?``, ``#`` or ``%``
    in it as URL syntax); the caller disposes of it."""
    return create_engine(URL.create("sqlite", database=str(path)), poolclass=NullPool)


def recover(path: Path | str) -> None:
    """Roll back what a killed writer left: a hot journal beside the file. Any read-write open does this
    by itself; a read-only one cannot (it fails, "attempt to write a readonly database")."""
    journal = Path(f"{path}-journal")
    if Path(path).is_file() and journal.is_file() and journal.stat().st_size > 0:
        connection = sqlite3.connect(path)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
        finally:
            connection.close()


def readonly_uri(path: Path | str) -> str:
    """A URI opening ``path`` read-only, every character of its name escaped (``%``, ``?``, ``#``, spaces,
    non-ASCII) so none is read as URI syntax; a killed writer's journal is rolled back first."""
    recover(path)
    return f"file:{quote(str(Path(path).absolute()))}?mode=ro"


def open_readonly(path: Path | str) -> sqlite3.Connection:
    """A read-only connection to a database file (see ``readonly_uri``); the caller closes it."""
    return sqlite3.connect(readonly_uri(path), uri=True)


@contextmanager
def reading(path: Path | str, connection: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """``connection`` where the caller has one open on ``path`` (left open), else a read-only one opened
    for the block and closed after it."""
    if connection is not None:
        yield connection
        return
    opened = open_readonly(path)
    try:
        yield opened
    finally:
        opened.close()


# Connections to files that never change once written (snapshots, gold databases), kept open between
# uses: opening one costs SQLite a parse of its whole schema (~0.7 ms for itsm), more than a grade's queries.
IDLE_LIMIT = 16
_idle: OrderedDict[tuple[str, int, int, int], list[sqlite3.Connection]] = OrderedDict()
_idle_lock = threading.Lock()
_inherited: list[sqlite3.Connection] = []  # a forked child must neither use nor close its parent's


def _forget_idle_after_fork() -> None:
    _inherited.extend(c for found in _idle.values() for c in found)
    _idle.clear()


os.register_at_fork(after_in_child=_forget_idle_after_fork)


FICLONE = 0x40049409  # Linux's ioctl sharing one file's blocks with another (what ``cp --reflink`` does)
_UNCLONABLE: set[str] = set()  # folders whose file system refused a clone: copied into without asking again


def copy_file(source: Path | str, target: Path | str) -> None:
    """Copy the file ``source`` to ``target`` (replacing it): where the file system shares blocks between
    files (XFS, btrfs), a clone, made at once whatever its size, its blocks copied only as they are written;
    elsewhere (ext4, tmpfs) a plain copy. A folder whose file system refused a clone is not asked again."""
    folder = os.path.dirname(os.path.abspath(target))
    if sys.platform == "linux" and folder not in _UNCLONABLE:
        try:
            with open(source, "rb") as original, open(target, "wb") as clone:
                fcntl.ioctl(clone.fileno(), FICLONE, original.fileno())
            return
        except OSError:  # not supported here (EOPNOTSUPP), across file systems (EXDEV), …: copied instead
            _UNCLONABLE.add(folder)
    shutil.copyfile(source, target)


def file_identity(path: Path | str) -> tuple[str, int, int, int]:
    """What tells one file from another at a path: the path, its inode, modification time and size."""
    found = os.stat(path)
    return (str(Path(path).absolute()), found.st_ino, found.st_mtime_ns, found.st_size)


_REMEMBERED: dict[tuple[Any, ...], Any] = {}
REMEMBERED_LIMIT = 1024  # entries; past it all are forgotten (a long run moves from task to task)


def remembered(identity: tuple[Any, ...], what: Hashable, compute: Callable[[], T]) -> T:
    """What ``compute`` reads from a file that is never written once in place (a snapshot, a gold
    database), computed once for its ``file_identity`` and ``what``. Shared: callers change it only to add
    more of the same file (the diff fills a table's rows by key as it reads them)."""
    key = (identity, what)
    found = _REMEMBERED.get(key, _REMEMBERED)  # the dict itself: no value is it
    if found is _REMEMBERED:
        if len(_REMEMBERED) >= REMEMBERED_LIMIT:
            _REMEMBERED.clear()
        found = _REMEMBERED[key] = compute()
    return found


@contextmanager
def reading_unchanging(path: Path | str) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a file that is never written once in place (a snapshot, a gold database),
    used by one caller at a time and kept open afterwards for the next. A file replaced at the same path
    (another inode, time or size) gets a connection of its own; one written in place would still be read
    right, since SQLite checks the file's change counter at every read transaction."""
    key = file_identity(path)
    connection = None
    with _idle_lock:
        spare = _idle.get(key)
        if spare:
            connection = spare.pop()
            if not spare:
                del _idle[key]  # the pool holds no empty lists: the oldest entry always has one to close
    if connection is None:
        connection = sqlite3.connect(readonly_uri(path), uri=True, check_same_thread=False)
    try:
        yield connection
    except BaseException:
        connection.close()  # it may be mid-statement: not kept
        raise
    with _idle_lock:
        _idle.setdefault(key, []).append(connection)
        _idle.move_to_end(key)
        while sum(len(found) for found in _idle.values()) > IDLE_LIMIT:
            oldest = next(iter(_idle))
            _idle[oldest].pop(0).close()
            if not _idle[oldest]:
                del _idle[oldest]


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", "simtenant:migrations")
    return config


def migration_heads(branch: str | None = None) -> tuple[str, ...]:
    """The head revisions: of every branch, or of one branch (a world's schema, or "core")."""
    scripts = ScriptDirectory.from_config(alembic_config())
    if branch is None:
        return tuple(sorted(scripts.get_heads()))
    return tuple(sorted(script.revision for script in scripts.get_revisions(f"{branch}@head")))


def _run_alembic(path: Path | str, action: str, revision: str) -> None:
    # Batch migrations recreate tables, which enforced foreign keys forbid:
    # migrate on a plain engine, check foreign keys after seeding.
    engine = file_engine(path)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            getattr(command, action)(config, revision)
    finally:
        engine.dispose()


def upgrade(path: Path | str, revision: str = "heads") -> None:
    """Migrate to ``revision``: every branch by default; ``"<world>@head"`` for one world's tables."""
    _run_alembic(path, "upgrade", revision)


def downgrade(path: Path | str, revision: str = "base") -> None:
    _run_alembic(path, "downgrade", revision)


def current_revisions(path: Path | str) -> tuple[str, ...]:
    """The revisions a file is at (one per branch it has)."""
    engine = file_engine(path)
    try:
        with engine.connect() as connection:
            return tuple(sorted(MigrationContext.configure(connection).get_current_heads()))
    finally:
        engine.dispose()


def integrity_problems(path: Path | str) -> list[str]:
    """What ``PRAGMA integrity_check`` and ``foreign_key_check`` report (empty when clean)."""
    connection = sqlite3.connect(path)
    try:
        problems = [row[0] for row in connection.execute("PRAGMA integrity_check") if row[0] != "ok"]
        problems += [
            f"foreign key: {table} rowid {rowid} -> {parent}"
            for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check")
        ]
        return problems
    finally:
        connection.close()


def table_names(path: Path | str) -> set[str]:
    """The tables a database file has (empty if it is not a database)."""
    try:
        connection = open_readonly(path)
        try:
            return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            connection.close()
    except sqlite3.Error:
        return set()
