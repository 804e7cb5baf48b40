"""ORM models of every service, one module per service, on one shared Base."""

from . import automation, harness, homeservices, inventory, itsm, orders, users
from .base import Base, is_harness_table

metadata = Base.metadata

__all__ = [
    "Base",
    "automation",
    "harness",
    "homeservices",
    "inventory",
    "is_harness_table",
    "itsm",
    "metadata",
    "orders",
    "users",
]
