"""Tools: the registry, the dispatcher, and one module per service."""

from . import api, automation, harness, homeservices, inventory, itsm, orders, users
from .dispatch import ToolContext, canonical_json, dispatch, row_dict
from .registry import REGISTRY, Tool, tool, tools_of

__all__ = [
    "REGISTRY",
    "Tool",
    "ToolContext",
    "api",
    "automation",
    "canonical_json",
    "dispatch",
    "harness",
    "homeservices",
    "inventory",
    "itsm",
    "orders",
    "row_dict",
    "tool",
    "tools_of",
    "users",
]
