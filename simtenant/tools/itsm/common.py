"""What every ITSM tool shares: the acting user, permission checks, organization scope,
the audit trail, page sizes and the rules that derive fields (priority, SLA clocks).

Records are read and written as dicts through ``ctx.rows``; a listing limits its rows to the
organizations ``listed_orgs`` gives, bound as ``orgs`` (``one_of(Model.org_id, "orgs")``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.itsm.audit import AuditEntry
from ...schema.itsm.identity import Organization, Permission, RolePermission, SysUser, UserRole
from ..engine.dispatch import ToolContext
from ..engine.rows import Row, Statement, one_of

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


OrgId = Annotated[
    str | None,
    Field(description="The organization to create it in (one you hold a role in), e.g. ORG-ACME; yours when omitted"),
]
InOrg = Annotated[str | None, Field(description="Only records of this organization (one you hold a role in)")]

_MEMO = "itsm_grants"  # the acting user's grants, in the episode's memo until a call writes their tables
_GRANT_TABLES = tuple(m.__table__.name for m in (SysUser, UserRole, Organization, RolePermission, Permission))

_ROLES, _ORGS, _LINKS, _PERMISSIONS = (
    UserRole.__table__,
    Organization.__table__,
    RolePermission.__table__,
    Permission.__table__,
)
_GRANTS = Statement.of(
    select(_ROLES.c.org_id, _ORGS.c.active, _ROLES.c.role_id, _PERMISSIONS.c.resource, _PERMISSIONS.c.action)
    .select_from(_ROLES)
    .join(_ORGS, _ORGS.c.id == _ROLES.c.org_id)
    .outerjoin(_LINKS, _LINKS.c.role_id == _ROLES.c.role_id)
    .outerjoin(_PERMISSIONS, _PERMISSIONS.c.id == _LINKS.c.permission_id)
    .where(_ROLES.c.user_id == bindparam("user_id"))
)
_ROLES_OF = Statement.of(
    select(_ROLES.c.role_id)
    .where(_ROLES.c.user_id == bindparam("user_id"), _ROLES.c.org_id == bindparam("org_id"))
    .order_by(_ROLES.c.role_id)
)
_ROLE_IN = Statement.of(
    select(_ROLES.c.org_id)
    .where(_ROLES.c.user_id == bindparam("user_id"), one_of(_ROLES.c.org_id, "orgs"))
    .order_by(_ROLES.c.org_id)
    .limit(1)
)
_ALLOWED = Statement.of(
    select(func.count())
    .select_from(_ROLES)
    .join(_LINKS, _LINKS.c.role_id == _ROLES.c.role_id)
    .join(_PERMISSIONS, _PERMISSIONS.c.id == _LINKS.c.permission_id)
    .where(
        _ROLES.c.user_id == bindparam("user_id"),
        _ROLES.c.org_id == bindparam("org_id"),
        _PERMISSIONS.c.resource == bindparam("resource"),
        one_of(_PERMISSIONS.c.action, "actions"),
    )
)


@dataclass(frozen=True)
class Grants:
    """The acting user and what their roles give them, read once per call: the roles they hold in
    each organization (their scope is the organizations they hold one in), per organization the
    actions each resource allows, and which organizations of the scope are inactive."""

    actor: str
    user: Row
    roles: dict[str, frozenset[str]]
    rights: dict[str, dict[str, frozenset[str]]]
    inactive: frozenset[str]

    @property
    def orgs(self) -> frozenset[str]:
        return frozenset(self.roles)

    def may(self, org_id: str, resource: str, action: str) -> bool:
        """Whether the roles in ``org_id`` grant ``action`` (read, or crud which implies read) on ``resource``."""
        granted = self.rights.get(org_id, {}).get(resource, frozenset())
        return "crud" in granted or (action == "read" and "read" in granted)


def grants(ctx: ToolContext) -> Grants:
    """The acting user's grants, memoised in the episode's memo: read once, however many calls and checks
    use them, and again only after a call that writes a table they come from (a user, a role held, an
    organization, a role's permissions). The acting user must be known, active and not locked, or the
    call is refused."""
    memo = ctx.memo.get(_MEMO)
    if memo is not None and memo.actor == ctx.actor:
        return memo
    if ctx.actor is None:
        raise Forbidden("these tools act as a user, and the task names none", error="no_actor")
    user = ctx.rows.get(SysUser, ctx.actor)
    if user is None:
        raise Forbidden(f"acting user {ctx.actor} does not exist", error="no_actor")
    if not user["active"] or user["locked"]:
        raise Forbidden(f"acting user {ctx.actor} is inactive or locked", error="inactive_actor")
    roles: dict[str, set[str]] = {}
    rights: dict[str, dict[str, set[str]]] = {}
    inactive = set()
    for found in ctx.rows.all(_GRANTS, user_id=user["id"]):
        org, resource = found["org_id"], found["resource"]
        roles.setdefault(org, set()).add(found["role_id"])
        if not found["active"]:
            inactive.add(org)
        if resource is not None:
            rights.setdefault(org, {}).setdefault(resource, set()).add(found["action"])
    memo = Grants(
        actor=ctx.actor,
        user=user,
        roles={org: frozenset(r) for org, r in roles.items()},
        rights={org: {res: frozenset(a) for res, a in by.items()} for org, by in rights.items()},
        inactive=frozenset(inactive),
    )
    ctx.memo.put(_MEMO, memo, _GRANT_TABLES)
    return memo


def forget_grants(ctx: ToolContext) -> None:
    """Drop the memo, for a tool that changes the roles it was read from."""
    ctx.memo.pop(_MEMO)


def acting_user(ctx: ToolContext) -> Row:
    """The task's acting user: known, active and not locked, or the call is refused."""
    return grants(ctx).user


def roles_of(ctx: ToolContext, user_id: str, org_id: str) -> list[str]:
    """The roles any user holds in ``org_id`` (read from the database, not the memo)."""
    return [found["role_id"] for found in ctx.rows.all(_ROLES_OF, user_id=user_id, org_id=org_id)]


def scope(ctx: ToolContext) -> list[str]:
    """The organizations the acting user holds a role in."""
    return sorted(grants(ctx).orgs)


def in_scope(ctx: ToolContext, org_id: str | None) -> bool:
    return org_id in grants(ctx).orgs


def first_role_org(ctx: ToolContext, user_id: str) -> str | None:
    """The first organization of the acting user's scope where ``user_id`` holds a role (None: none)."""
    return ctx.rows.value(_ROLE_IN, user_id=user_id, orgs=scope(ctx))


def allowed(ctx: ToolContext, user_id: str, org_id: str, resource: str, action: str) -> bool:
    """Whether any user's roles in ``org_id`` grant ``action`` (read or crud) on ``resource``
    (read from the database; for the acting user use ``may``)."""
    actions = ["read", "crud"] if action == "read" else ["crud"]
    return bool(ctx.rows.value(_ALLOWED, user_id=user_id, org_id=org_id, resource=resource, actions=actions))


def may(ctx: ToolContext, org_id: str, resource: str, action: str) -> bool:
    """Whether the acting user's roles in ``org_id`` allow ``action`` on ``resource``."""
    return grants(ctx).may(org_id, resource, action)


def readable(ctx: ToolContext, resource: str) -> list[str]:
    """The organizations of the acting user's scope where they may read ``resource``."""
    memo = grants(ctx)
    return sorted(org for org in memo.orgs if memo.may(org, resource, "read"))


def require(
    ctx: ToolContext, resource: str, action: str, org_id: str | None = None, even_if_inactive: bool = False
) -> Row:
    """The acting user, if their roles allow ``action`` on ``resource`` in the organization
    (their own by default); otherwise 403. An inactive organization's records are read-only (409),
    except where access is being taken away (``even_if_inactive``)."""
    memo = grants(ctx)
    user = memo.user
    org = org_id or user["org_id"]
    if not memo.may(org, resource, action):
        roles = ", ".join(sorted(memo.roles.get(org, ()))) or "none"
        verb = "read" if action == "read" else "change"
        raise Forbidden(f"{user['id']} (roles: {roles}) may not {verb} {resource} records in {org}")
    if action != "read" and org in memo.inactive and not even_if_inactive:
        raise Conflict(
            f"organization {org} is inactive: its records can be read but not changed", error="inactive_organization"
        )
    return user


def require_somewhere(ctx: ToolContext, resource: str, action: str) -> Row:
    """The acting user, if their roles allow ``action`` on ``resource`` in at least one organization
    of their scope; otherwise 403, as ``require`` says it for their own organization. Tools whose
    organization follows from a record they look up call it first, so a user without the right
    anywhere is refused before any look-up."""
    memo = grants(ctx)
    if any(memo.may(org, resource, action) for org in memo.orgs):
        return memo.user
    return require(ctx, resource, action)


def require_role(ctx: ToolContext, role: str, org_id: str | None = None) -> Row:
    memo = grants(ctx)
    user = memo.user
    org = org_id or user["org_id"]
    held = memo.roles.get(org, frozenset())
    if role not in held and "admin" not in held:
        raise Forbidden(f"only a {role} may do this; {user['id']} is not one in {org}", error="role_required")
    return user


def target_org(ctx: ToolContext, org_id: str | None) -> str:
    """The organization a new record is created in when no record it refers to decides it: ``org_id``
    when given (404 unless the acting user holds a role there), else the acting user's own."""
    if org_id is None:
        return acting_user(ctx)["org_id"]
    if not in_scope(ctx, org_id):
        raise NotFound(f"organization {org_id!r} not found")
    return org_id


def get_in_scope(ctx: ToolContext, model: Any, key: Any, what: str, resource: str, action: str = "read") -> Row:
    """The row with this key, if it is in the acting user's scope and they may act on it; a row
    outside their scope is reported as not found, so nothing about it leaks."""
    row = ctx.rows.get(model, key)
    if row is None or not in_scope(ctx, row["org_id"]):
        raise NotFound(f"{what} {key!r} not found")
    require(ctx, resource, action, row["org_id"])
    return row


def same_org(org_id: str, model: Any, row: Row, what: str) -> Row:
    """``row`` (of ``model``) if it belongs to ``org_id`` (the organization of the record being
    written); else 400 cross_organization: a record only ever refers to records of its own organization."""
    if row["org_id"] != org_id:
        raise InvalidArgument(
            f"{what} {key_of(model, row)} belongs to {row['org_id']}, not to {org_id} (the organization of the "
            f"record written): a record only refers to records of its own organization",
            error="cross_organization",
        )
    return row


def related(ctx: ToolContext, model: Any, key: Any, what: str, org_id: str) -> Row:
    """A record a write refers to (caller, assignee, group, CI, service, article, ...): 404 if it does
    not exist or lies outside the acting user's scope, 400 cross_organization if it is in scope but of
    another organization than ``org_id``, the organization of the record being written. A person
    counts as of an organization they hold a role in: provider staff work on their clients' records,
    and the client's own people may refer to them there (though not look them up in the provider's
    directory)."""
    row = ctx.rows.get(model, key)
    if model is SysUser and row is not None and row["org_id"] != org_id and roles_of(ctx, row["id"], org_id):
        return row  # works there: provider staff can be referred to by the client's own people too
    if row is None or not in_scope(ctx, row["org_id"]):
        raise NotFound(f"{what} {key!r} not found")
    return same_org(org_id, model, row, what)


def seen_in_scope(ctx: ToolContext, user: Row) -> bool:
    """Whether a person is of the acting user's scope: of one of its organizations, or working in one
    (holding a role there, as provider staff do in their clients)."""
    return in_scope(ctx, user["org_id"]) or first_role_org(ctx, user["id"]) is not None


def person_in_scope(ctx: ToolContext, user_id: str) -> Row:
    """A user of the scope, or one who works in it (provider staff holding a role in a client of it);
    404 otherwise, as for an unknown id."""
    user = ctx.rows.get(SysUser, user_id)
    if user is None or not seen_in_scope(ctx, user):
        raise NotFound(f"user {user_id!r} not found")
    return user


def works_in(ctx: ToolContext, org_id: str, user: Row, what: str = "user") -> Row:
    """``user`` if they belong to ``org_id`` or hold a role there; else 400 cross_organization."""
    if user["org_id"] == org_id or roles_of(ctx, user["id"], org_id):
        return user
    return same_org(org_id, SysUser, user, what)


def find_one(
    ctx: ToolContext, statement: Statement, what: str, resource: str, org_id: str | None = None, **values: Any
) -> Row:
    """The first row of a select the acting user may read (of ``org_id`` alone, when given). The select
    limits its rows to the organizations bound as ``orgs`` (``one_of(Model.org_id, "orgs")``), so rows
    outside their scope are never looked at; rows in an organization where they may not read
    ``resource`` are skipped. 404 when there is none; 403 when every match in scope is one they may
    not read."""
    memo = grants(ctx)
    if org_id is not None and org_id not in memo.orgs:
        raise NotFound(f"organization {org_id!r} not found")
    orgs = sorted(memo.orgs) if org_id is None else [org_id]
    denied = None
    for row in ctx.rows.all(statement, **values, orgs=orgs):
        if memo.may(row["org_id"], resource, "read"):
            return row
        denied = denied or row["org_id"]
    if denied is not None:
        require(ctx, resource, "read", denied)
    raise NotFound(f"{what} not found")


def listed_orgs(ctx: ToolContext, resource: str, org_id: str | None = None) -> list[str]:
    """The organizations a listing of ``resource`` covers (bind them as ``orgs``): ``org_id`` alone when
    given (404 outside the acting user's scope, 403 where they may not read it), else every one of the
    scope where they may read it (403 when there is none)."""
    if org_id is not None:
        if not in_scope(ctx, org_id):
            raise NotFound(f"organization {org_id!r} not found")
        require(ctx, resource, "read", org_id)
        return [org_id]
    orgs = readable(ctx, resource)
    if not orgs:
        raise Forbidden(f"{acting_user(ctx)['id']} may not read {resource} records")
    return orgs


def audit(ctx: ToolContext, tool: str, action: str, model: Any, record: Row, fields: Iterable[str]) -> None:
    """Write the audit entry of a mutation: who, which tool, what, which record (of ``model``) and
    fields, when."""
    ctx.rows.insert(
        AuditEntry,
        {
            "org_id": record["org_id"],
            "actor_id": ctx.actor,
            "tool": tool,
            "action": action,
            "record_table": model.__table__.name,
            "record_id": key_of(model, record),
            "fields": sorted(fields),
            "created_at": ctx.timestamp,
        },
    )


def key_of(model: Any, record: Row) -> str:
    """The record's primary key as text (a composite key joined by /)."""
    return "/".join(str(record[c.name]) for c in model.__table__.primary_key.columns)


def apply_updates(
    ctx: ToolContext, model: Any, record: Row, updates: Mapping[str, Any], writable: Iterable[str]
) -> list[str]:
    """Set the given fields (only writable ones) on the record and in the database; returns the names
    of those that changed."""
    writable = set(writable)
    unknown = sorted(set(updates) - writable)
    if unknown:
        raise InvalidArgument(
            f"not writable here: {', '.join(unknown)}; writable: {', '.join(sorted(writable))}", error="invalid_field"
        )
    return ctx.rows.change(model, record, updates)


def filled(values: Mapping[str, Any]) -> list[str]:
    """The columns a new record sets (all but a surrogate ``id`` and empty ones), for its audit entry:
    ``values`` as given to ``ctx.rows.insert``."""
    return [name for name, value in values.items() if name != "id" and value is not None]


def priority_of(impact: int, urgency: int) -> int:
    """The policy's impact × urgency matrix: 1+1 → 1 (critical) … 3+3 → 5 (planning)."""
    return impact + urgency - 1


def later(timestamp: str, minutes: int) -> str:
    moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ") + timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
