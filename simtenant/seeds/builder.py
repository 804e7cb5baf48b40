"""The snapshot builder: seed files → a closed SQLite file every episode copies.

empty file → Alembic migrations → seed rows → id sequences → integrity and
foreign-key checks → VACUUM, journal mode DELETE, closed. Snapshots are cached
by a content hash of the migrations, the world's seed files and this builder's
version, and rebuilt when any of them change. Two builds are byte-identical.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from sqlalchemy import Table, create_engine, insert, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from .. import db
from ..errors import TaskError
from ..schema.harness import SequenceRecord

if TYPE_CHECKING:
    from ..world import World

BUILDER_VERSION = "1"
MIGRATIONS = Path(__file__).parent.parent / "migrations" / "versions"


def cache_dir() -> Path:
    root = Path(os.environ.get("SIMTENANT_CACHE") or Path.home() / ".cache" / "simtenant")
    root.mkdir(parents=True, exist_ok=True)
    return root


def _seed_files(world: World) -> list[Path]:
    return sorted([world.folder / "world.yaml", *(world.folder / "data").glob("*.yaml")])


def snapshot_hash(world: World) -> str:
    """Content hash of everything a snapshot is made from."""
    digest = hashlib.sha256(f"builder {BUILDER_VERSION}\n".encode())
    for path in [*sorted(MIGRATIONS.glob("*.py")), *_seed_files(world)]:
        digest.update(f"{path.parent.name}/{path.name}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def snapshot(world: World) -> Path:
    """The world's snapshot file, built if it is not in the cache yet."""
    path = snapshot_path(world, snapshot_hash(world))
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        build(world, path)
    return path


def snapshot_path(world: World, content_hash: str) -> Path:
    """Where the snapshot of ``world`` with ``content_hash`` is (or would be) cached."""
    return cache_dir() / "snapshots" / f"{world.name}-{content_hash}.db"


def hash_of(world: World, snapshot_file: Path) -> str:
    return snapshot_file.stem.removeprefix(f"{world.name}-")


def build(world: World, dest: Path) -> None:
    """Build the snapshot into ``dest`` (atomically: a temporary file, then a rename)."""
    tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        db.upgrade(tmp)
        _insert_seed_rows(world, tmp)
        problems = db.integrity_problems(tmp)
        if problems:
            raise TaskError(f"world {world.name}: seed data breaks integrity: {'; '.join(problems[:5])}")
        connection = sqlite3.connect(tmp, isolation_level=None)
        connection.execute("VACUUM")
        connection.execute("PRAGMA journal_mode=DELETE")
        connection.close()
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows = yaml.safe_load(path.read_text())
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TaskError(f"{path.name}: a seed file holds a list of rows (mappings)")
    return rows


def _insert_seed_rows(world: World, path: Path) -> None:
    tables = {t.name: t for t in world.tables}
    files = {p.stem: p for p in (world.folder / "data").glob("*.yaml")}
    unknown = sorted(set(files) - set(tables))
    if unknown:
        raise TaskError(f"world {world.name}: seed files for tables it does not have: {', '.join(unknown)}")
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool)
    try:
        with engine.begin() as connection:
            for name, table in tables.items():  # foreign-key order
                if name in files:
                    rows = _read_rows(files[name])
                    if rows:
                        connection.execute(insert(table), rows)
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


def _next_value(connection: Any, table: Table) -> int:
    """One past the largest number among the table's ids of its ``id_format``."""
    prefix, _, rest = table.info["id_format"].partition("{")
    suffix = rest.partition("}")[2]
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+){re.escape(suffix)}$")
    (pk,) = table.primary_key.columns
    numbers = [int(m.group(1)) for (value,) in connection.execute(select(pk)) if (m := pattern.match(str(value)))]
    return max(numbers, default=0) + 1
