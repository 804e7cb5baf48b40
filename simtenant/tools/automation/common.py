"""What every app of the automation world shares: the acting employee, page sizes and updates from
optional fields."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ...errors import Forbidden, InvalidArgument
from ..engine.dispatch import ToolContext
from ..engine.rows import Row

Page = Annotated[int, Field(ge=1, description="Page number, from 1")]
PerPage = Annotated[int, Field(ge=1, le=100, description="Rows per page, at most 100")]
Email = Annotated[
    str,
    Field(min_length=3, max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="An email address"),
]


def me(ctx: ToolContext) -> str:
    """The acting employee's email address (every task names one): the sender of what they send."""
    if not ctx.actor:
        raise Forbidden("these apps act as an employee, and the task names none", error="no_actor")
    return ctx.actor


def update_given(ctx: ToolContext, model: Any, row: Row, **updates: Any) -> list[str]:
    """Set the fields given (not None) on ``row`` (read through ``ctx.rows``) and in the database; the
    names of those that changed. At least one is needed."""
    given = {k: v for k, v in updates.items() if v is not None}
    if not given:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    return ctx.rows.change(model, row, given)
