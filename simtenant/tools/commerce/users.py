"""User service tools: look up, list and update customer profiles."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import func, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.commerce.users import USER_TIERS, User
from ..engine.dispatch import ToolContext, row_dict
from ..engine.registry import tool

WRITABLE_FIELDS = ("name", "email", "phone", "address", "tier")


@tool("users", "GET", "/users/lookup")
def users_lookup(
    ctx: ToolContext,
    email: Annotated[str | None, Field(description="The customer's email address")] = None,
    user_id: Annotated[str | None, Field(description="The user id, e.g. USR-001")] = None,
) -> Any:
    """Look up a customer by email or by user id (give at least one)."""
    if email is None and user_id is None:
        raise InvalidArgument("give email or user_id", error="missing_argument")
    query = select(User)
    if user_id is not None:
        query = query.where(User.id == user_id)
    if email is not None:
        query = query.where(func.lower(User.email) == email.strip().lower())
    user = ctx.session.scalars(query).first()
    if user is None:
        given = f"user_id {user_id!r}" if user_id is not None else f"email {email!r}"
        raise NotFound(f"no user with {given}")
    return row_dict(user)


@tool("users", "GET", "/users/list")
def users_list(
    ctx: ToolContext,
    page: Annotated[int, Field(ge=1, description="Page number, from 1")] = 1,
    per_page: Annotated[int, Field(ge=1, le=5, description="Users per page, at most 5")] = 5,
) -> Any:
    """List customers, a page at a time (at most 5 per page)."""
    total = ctx.session.scalar(select(func.count()).select_from(User)) or 0
    users = ctx.session.scalars(select(User).order_by(User.id).offset((page - 1) * per_page).limit(per_page))
    return {"page": page, "per_page": per_page, "total": total, "users": [row_dict(u) for u in users]}


@tool("users", "POST", "/users/update")
def users_update(
    ctx: ToolContext,
    user_id: Annotated[str, Field(description="The user id, e.g. USR-001")],
    updates: Annotated[dict[str, str], Field(description=f"Fields to change: any of {', '.join(WRITABLE_FIELDS)}")],
) -> Any:
    """Update a customer's profile fields (name, email, phone, address, tier)."""
    if not updates:
        raise InvalidArgument("updates is empty", error="missing_argument")
    unknown = sorted(set(updates) - set(WRITABLE_FIELDS))
    if unknown:
        raise InvalidArgument(
            f"not writable: {', '.join(unknown)}; writable fields are {', '.join(WRITABLE_FIELDS)}",
            error="invalid_field",
        )
    blank = sorted(field for field, value in updates.items() if not value.strip())
    if blank:
        raise InvalidArgument(f"empty value for {', '.join(blank)}", error="invalid_value")
    if "tier" in updates and updates["tier"] not in USER_TIERS:
        raise InvalidArgument(f"tier must be one of {', '.join(USER_TIERS)}", error="invalid_value")
    user = ctx.get(User, user_id, "user")
    if "email" in updates:
        updates = {**updates, "email": updates["email"].strip().lower()}
        taken = ctx.session.scalar(select(User.id).where(User.email == updates["email"], User.id != user_id))
        if taken:
            raise Conflict(f"email {updates['email']} belongs to another user", error="duplicate_email")
    for field in WRITABLE_FIELDS:
        if field in updates:
            setattr(user, field, updates[field])
    return row_dict(user)
