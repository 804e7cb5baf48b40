"""Tools: the engine's machinery (``engine``: registry, dispatcher, harness tools, search), then one
package per world, a module per service."""

from . import automation, commerce, homeservices, itsm
from .engine import harness, search
from .engine.dispatch import ToolContext, canonical_json, dispatch
from .engine.registry import REGISTRY, Tool, tool, tools_of

__all__ = [
    "REGISTRY",
    "Tool",
    "ToolContext",
    "automation",
    "canonical_json",
    "commerce",
    "dispatch",
    "harness",
    "homeservices",
    "itsm",
    "search",
    "tool",
    "tools_of",
]
