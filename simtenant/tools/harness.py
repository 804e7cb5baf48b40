"""Harness tools offered beside every world's own: ending the episode."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..schema.harness import EpisodeRecord
from .dispatch import ToolContext
from .registry import tool


@tool("harness", "POST", "/finish")
def finish(ctx: ToolContext, answer: Annotated[str, Field(description="Your final answer or report")] = "") -> Any:
    """End the episode and give your final answer. No further calls are taken after it."""
    record = ctx.get(EpisodeRecord, 1, "episode")
    record.status = "finished"
    record.answer = answer
    return {"finished": True}
