"""Harness tools offered beside every world's own: ending the episode."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .dispatch import ToolContext
from .registry import tool


@tool("harness", "POST", "/finish", ends=True)
def finish(ctx: ToolContext, answer: Annotated[str, Field(description="Your final answer or report")] = "") -> Any:
    """End the episode and give your final answer. No further calls are taken after it."""
    ctx.finish(answer)
    return {"finished": True}
