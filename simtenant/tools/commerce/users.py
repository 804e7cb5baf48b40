"""User service tools: look up, search, list and update customer profiles, and verify who a customer is."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.commerce.users import USER_TIERS, User
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from ..engine.rows import Filtered, Row, Statement, contains

WRITABLE_FIELDS = ("name", "email", "phone", "address", "tier")
CONTACT_FIELDS = ("email", "phone", "address")  # changing any of them needs the account holder verified
USERS = User.__table__
SEARCH = Filtered(
    select(USERS),
    (USERS.c.name, USERS.c.id),
    query=or_(contains(USERS.c.name, "query"), contains(USERS.c.email, "query")),
)
POSTAL_CODE = re.compile(r"\b(\d{5})(?:-\d{4})?\s*$")
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


class Verification(BaseModel):
    """What the account holder tells you to prove who they are."""

    model_config = ConfigDict(extra="forbid", strict=True)

    phone_last4: str = Field(pattern=r"^\d{4}$", description="The last four digits of the phone number on file")
    postal_code: str = Field(pattern=r"^\d{5}$", description="The ZIP code of the address on file")


def _identity_matches(user: Row, phone_last4: str, postal_code: str) -> tuple[bool, bool]:
    """Whether the phone's last four digits and the address's ZIP code are the ones on file."""
    digits = re.sub(r"\D", "", user["phone"] or "")
    found = POSTAL_CODE.search(user["address"] or "")
    return (len(digits) >= 4 and digits[-4:] == phone_last4), (found is not None and found.group(1) == postal_code)


@tool("users", "GET", "/users/search")
def users_search(
    ctx: ToolContext,
    query: Annotated[str, Field(min_length=1, description="Text in the customer's name or email address")],
    page: Annotated[int, Field(ge=1, description="Page number, from 1")] = 1,
    per_page: Annotated[int, Field(ge=1, le=20, description="Customers per page, at most 20")] = 20,
) -> Any:
    """Find customers whose name or email contains a text (ignoring case), by name."""
    found = ctx.rows.page(SEARCH, page, per_page, query=query.strip())
    return {"page": page, "per_page": per_page, "total": found["total"], "users": found["rows"]}


@tool("users", "GET", "/users/verify-identity")
def users_verify_identity(
    ctx: ToolContext,
    user_id: Annotated[str, Field(description="The user id, e.g. USR-001")],
    phone_last4: Annotated[
        str, Field(pattern=r"^\d{4}$", description="The last four digits of their phone, as they say")
    ],
    postal_code: Annotated[str, Field(pattern=r"^\d{5}$", description="Their ZIP code, as they say")],
) -> Any:
    """Check what a customer says against their account: the phone's last four digits and the ZIP code on file."""
    user = ctx.rows.need(User, user_id, "user")
    phone, postal = _identity_matches(user, phone_last4, postal_code)
    return {"user_id": user_id, "verified": phone and postal, "phone_matches": phone, "postal_code_matches": postal}


@tool("users", "POST", "/users/update")
def users_update(
    ctx: ToolContext,
    user_id: Annotated[str, Field(description="The user id, e.g. USR-001")],
    updates: Annotated[dict[str, str], Field(description=f"Fields to change: any of {', '.join(WRITABLE_FIELDS)}")],
    verification: Annotated[
        Verification | None,
        Field(
            description="The account holder's answers (phone's last 4 digits, ZIP on file): needed to change "
            "email, phone or address"
        ),
    ] = None,
) -> Any:
    """Update a customer's profile fields (name, email, phone, address, tier); contact details (email, phone,
    address) change only with the account holder's verification."""
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
    contact = [field for field in CONTACT_FIELDS if field in updates]
    if contact:
        if verification is None:
            raise Forbidden(
                f"changing {', '.join(contact)} needs the account holder verified: give verification "
                "(the last four digits of the phone and the ZIP code on file, as the customer states them)",
                error="verification_required",
            )
        if not all(_identity_matches(user, verification.phone_last4, verification.postal_code)):
            raise Forbidden(
                f"verification failed for {user_id}: the phone digits or ZIP code given are not the ones on file",
                error="verification_failed",
            )
    if "email" in updates:
        updates = {**updates, "email": updates["email"].strip().lower()}
        if ctx.rows.all(EMAIL_OF_ANOTHER, email=updates["email"], user_id=user_id):
            raise Conflict(f"email {updates['email']} belongs to another user", error="duplicate_email")
    changes = {field: updates[field] for field in WRITABLE_FIELDS if field in updates}
    ctx.rows.update(User, user_id, changes)
    return {**user, **changes}
