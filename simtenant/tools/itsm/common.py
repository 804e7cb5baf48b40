"""What every ITSM tool shares: the acting user, permission checks, organization scope,
the audit trail, pagination and the rules that derive fields (priority, SLA clocks)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Annotated, Any, TypeVar

from pydantic import Field
from sqlalchemy import Select, func, inspect, select
from sqlalchemy.orm import Session

from ...errors import Forbidden, InvalidArgument, NotFound
from ...schema.itsm.audit import AuditEntry
from ...schema.itsm.identity import Permission, RolePermission, SysUser, UserRole
from ..dispatch import ToolContext, row_dict

T = TypeVar("T")

RESOURCES = (
    "organization",
    "location",
    "user",
    "role",
    "group",
    "service",
    "catalog",
    "request",
    "cmdb",
    "incident",
    "problem",
    "change",
    "knowledge",
    "sla",
    "notification",
    "audit",
)

Page = Annotated[int, Field(ge=1, description="Page number, from 1")]
PerPage = Annotated[int, Field(ge=1, le=50, description="Rows per page, at most 50")]


def acting_user(ctx: ToolContext) -> SysUser:
    """The task's acting user: known, active and not locked, or the call is refused."""
    if ctx.actor is None:
        raise Forbidden("these tools act as a user, and the task names none", error="no_actor")
    user = ctx.session.get(SysUser, ctx.actor)
    if user is None:
        raise Forbidden(f"acting user {ctx.actor} does not exist", error="no_actor")
    if not user.active or user.locked:
        raise Forbidden(f"acting user {ctx.actor} is inactive or locked", error="inactive_actor")
    return user


def roles_of(session: Session, user_id: str, org_id: str) -> list[str]:
    query = select(UserRole.role_id).where(UserRole.user_id == user_id, UserRole.org_id == org_id)
    return sorted(session.scalars(query))


def scope(ctx: ToolContext) -> list[str]:
    """The organizations the acting user holds a role in."""
    user = acting_user(ctx)
    return sorted(set(ctx.session.scalars(select(UserRole.org_id).where(UserRole.user_id == user.id))))


def allowed(session: Session, user_id: str, org_id: str, resource: str, action: str) -> bool:
    """Whether the user's roles in ``org_id`` grant ``action`` (read or crud) on ``resource``."""
    actions = ("read", "crud") if action == "read" else ("crud",)
    query = (
        select(func.count())
        .select_from(UserRole)
        .join(RolePermission, RolePermission.role_id == UserRole.role_id)
        .join(Permission, Permission.id == RolePermission.permission_id)
        .where(
            UserRole.user_id == user_id,
            UserRole.org_id == org_id,
            Permission.resource == resource,
            Permission.action.in_(actions),
        )
    )
    return bool(session.scalar(query))


def require(ctx: ToolContext, resource: str, action: str, org_id: str | None = None) -> SysUser:
    """The acting user, if their roles allow ``action`` on ``resource`` in the organization
    (their own by default); otherwise 403."""
    user = acting_user(ctx)
    org = org_id or user.org_id
    if not allowed(ctx.session, user.id, org, resource, action):
        roles = ", ".join(roles_of(ctx.session, user.id, org)) or "none"
        verb = "read" if action == "read" else "change"
        raise Forbidden(f"{user.id} (roles: {roles}) may not {verb} {resource} records in {org}")
    return user


def require_role(ctx: ToolContext, role: str, org_id: str | None = None) -> SysUser:
    user = acting_user(ctx)
    org = org_id or user.org_id
    if role not in roles_of(ctx.session, user.id, org) and "admin" not in roles_of(ctx.session, user.id, org):
        raise Forbidden(f"only a {role} may do this; {user.id} is not one in {org}", error="role_required")
    return user


def get_in_scope(ctx: ToolContext, model: type[T], key: Any, what: str, resource: str, action: str = "read") -> T:
    """The row with this key, if it is in the acting user's scope and they may act on it; a row
    outside their scope is reported as not found, so nothing about it leaks."""
    row = ctx.session.get(model, key)
    if row is None or row.org_id not in scope(ctx):  # type: ignore[attr-defined]
        raise NotFound(f"{what} {key!r} not found")
    require(ctx, resource, action, row.org_id)  # type: ignore[attr-defined]
    return row


def find_one(ctx: ToolContext, query: Select, what: str, resource: str) -> Any:
    """The first row of ``query`` within scope, checked for read permission; else 404."""
    for row in ctx.session.scalars(query):
        if row.org_id in scope(ctx):
            require(ctx, resource, "read", row.org_id)
            return row
    raise NotFound(f"{what} not found")


def scoped(ctx: ToolContext, query: Select, model: Any, resource: str) -> Select:
    """``query`` limited to the organizations the acting user may read ``resource`` in."""
    user = acting_user(ctx)
    readable = [org for org in scope(ctx) if allowed(ctx.session, user.id, org, resource, "read")]
    if not readable:
        raise Forbidden(f"{user.id} may not read {resource} records")
    return query.where(model.org_id.in_(readable))


def paged(ctx: ToolContext, query: Select, page: int, per_page: int) -> dict[str, Any]:
    """A page of ``query``'s rows (the query must be ordered, so pages are stable) and the total."""
    total = ctx.session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = ctx.session.scalars(query.offset((page - 1) * per_page).limit(per_page))
    return {"page": page, "per_page": per_page, "total": total, "rows": [row_dict(r) for r in rows]}


def audit(ctx: ToolContext, tool: str, action: str, record: Any, fields: Iterable[str]) -> None:
    """Write the audit entry of a mutation: who, which tool, what, which record and fields, when."""
    table = record.__table__
    (pk,) = table.primary_key.columns if len(table.primary_key.columns) == 1 else (None,)
    record_id = (
        str(getattr(record, pk.name))
        if pk is not None
        else "/".join(str(getattr(record, c.name)) for c in table.primary_key.columns)
    )
    ctx.session.add(
        AuditEntry(
            org_id=record.org_id,
            actor_id=ctx.actor,
            tool=tool,
            action=action,
            record_table=table.name,
            record_id=record_id,
            fields=sorted(fields),
            created_at=ctx.timestamp,
        )
    )


def apply_updates(record: Any, updates: dict[str, Any], writable: Iterable[str]) -> list[str]:
    """Set the given fields (only writable ones); returns the names of those that changed."""
    writable = set(writable)
    unknown = sorted(set(updates) - writable)
    if unknown:
        raise InvalidArgument(
            f"not writable here: {', '.join(unknown)}; writable: {', '.join(sorted(writable))}", error="invalid_field"
        )
    changed = []
    for field, value in updates.items():
        if getattr(record, field) != value:
            setattr(record, field, value)
            changed.append(field)
    return changed


def filled(record: Any) -> list[str]:
    """The columns a new record sets (all but a surrogate ``id`` and empty ones), for its audit entry."""
    return [a.key for a in inspect(record).mapper.column_attrs if a.key != "id" and getattr(record, a.key) is not None]


def priority_of(impact: int, urgency: int) -> int:
    """The policy's impact × urgency matrix: 1+1 → 1 (critical) … 3+3 → 5 (planning)."""
    return impact + urgency - 1


def later(timestamp: str, minutes: int) -> str:
    moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ") + timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
