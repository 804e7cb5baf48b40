"""User service tools: look up, list and update customer profiles."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.commerce.users import USER_TIERS, User
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from ..engine.rows import Statement

WRITABLE_FIELDS = ("name", "email", "phone", "address", "tier")
USERS = User.__table__
BY_EMAIL = Statement.of(select(USERS).where(func.lower(USERS.c.email) == bindparam("email")).order_by(USERS.c.id))
EMAIL_OF_ANOTHER = Statement.of(
    select(USERS.c.id).where(USERS.c.email == bindparam("email"), USERS.c.id != bindparam("user_id"))
)
PAGE = Statement.of(select(USERS).order_by(USERS.c.id).limit(bindparam("limit")).offset(bindparam("offset")))


@tool("users", "GET", "/users/lookup")
def users_lookup(
    ctx: ToolContext,
    email: Annotated[str | None, Field(description="The customer's email address")] = None,
    user_id: Annotated[str | None, Field(description="The user id, e.g. USR-001")] = None,
) -> Any:
    """Look up a customer by email or by user id (give at least one)."""
    if email is None and user_id is None:
        raise InvalidArgument("give email or user_id", error="missing_argument")
    user = ctx.rows.get(User, user_id) if user_id is not None else None
    if email is not None:
        if user_id is None:
            found = ctx.rows.all(BY_EMAIL, email=email.strip().lower())
            user = found[0] if found else None
        elif user is not None and user["email"].lower() != email.strip().lower():
            user = None  # both given: the user must have both
    if user is None:
        given = f"user_id {user_id!r}" if user_id is not None else f"email {email!r}"
        raise NotFound(f"no user with {given}")
    return user


@tool("users", "GET", "/users/list")
def users_list(
    ctx: ToolContext,
    page: Annotated[int, Field(ge=1, description="Page number, from 1")] = 1,
    per_page: Annotated[int, Field(ge=1, le=5, description="Users per page, at most 5")] = 5,
) -> Any:
    """List customers, a page at a time (at most 5 per page)."""
    users = ctx.rows.all(PAGE, limit=per_page, offset=(page - 1) * per_page)
    return {"page": page, "per_page": per_page, "total": ctx.rows.count(User), "users": users}


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
    user = ctx.rows.need(User, user_id, "user")
    if "email" in updates:
        updates = {**updates, "email": updates["email"].strip().lower()}
        if ctx.rows.all(EMAIL_OF_ANOTHER, email=updates["email"], user_id=user_id):
            raise Conflict(f"email {updates['email']} belongs to another user", error="duplicate_email")
    changes = {field: updates[field] for field in WRITABLE_FIELDS if field in updates}
    ctx.rows.update(User, user_id, changes)
    return {**user, **changes}
