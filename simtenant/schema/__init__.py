"""ORM models: the engine's base and harness tables, then one package per world, a module per service."""

from . import automation, commerce, harness, homeservices, itsm
from .base import Base, is_harness_table

metadata = Base.metadata

__all__ = ["Base", "automation", "commerce", "harness", "homeservices", "is_harness_table", "itsm", "metadata"]
