"""Seed data of every world, and the builder that turns it into snapshots."""

from .builder import (
    cache_dir,
    hash_of,
    intact,
    place,
    snapshot,
    snapshot_hash,
    snapshot_path,
    task_snapshot,
    template,
)

__all__ = [
    "cache_dir",
    "hash_of",
    "intact",
    "place",
    "snapshot",
    "snapshot_hash",
    "snapshot_path",
    "task_snapshot",
    "template",
]
