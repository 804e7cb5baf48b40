"""Access tools: roles and what they permit (per organization), and groups with their members and
managers. Accounts are in ``identity``."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import Boolean, bindparam, func, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.itsm.changes import ChangeRequest
from ...schema.itsm.identity import (
    GroupMember,
    Organization,
    Permission,
    Role,
    RolePermission,
    SysUser,
    UserGroup,
    UserRole,
)
from ...schema.itsm.incidents import Incident, IncidentTemplate
from ...schema.itsm.problems import Problem
from ...schema.itsm.services import CatalogItem, Service
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, Statement, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    allowed,
    apply_updates,
    audit,
    filled,
    find_one,
    forget_grants,
    in_scope,
    listed_orgs,
    person_in_scope,
    readable,
    require,
    require_somewhere,
    roles_of,
    scope,
    target_org,
)
from .identity import (
    SVC,
    Action,
    GroupId,
    Resource,
    RoleId,
    UserId,
    email_address,
    grant_role,
    group_in_scope,
    join_group,
    member_user,
    role_by_id,
    user_in_scope,
)

_PERMISSIONS, _LINKS, _ROLES = Permission.__table__, RolePermission.__table__, UserRole.__table__
_ORGS, _USERS, _GROUPS, _MEMBERS = Organization.__table__, SysUser.__table__, UserGroup.__table__, GroupMember.__table__
_PERMITTED = Statement.of(
    select(_PERMISSIONS.c.resource, _PERMISSIONS.c.action)
    .join(_LINKS, _LINKS.c.permission_id == _PERMISSIONS.c.id)
    .where(_LINKS.c.role_id == bindparam("role_id"))
    .order_by(_PERMISSIONS.c.resource, _PERMISSIONS.c.action)
)
# the organization a role of someone working in the scope is seen through: the first in the order of
# the user_roles key (role, then organization)
_SEEN_THROUGH = Statement.of(
    select(_ROLES.c.org_id)
    .where(_ROLES.c.user_id == bindparam("user_id"), one_of(_ROLES.c.org_id, "orgs"))
    .order_by(_ROLES.c.role_id, _ROLES.c.org_id)
    .limit(1)
)
_HELD_IN = Statement.of(
    select(_ROLES.c.org_id, _ROLES.c.role_id)
    .where(_ROLES.c.user_id == bindparam("user_id"), one_of(_ROLES.c.org_id, "orgs"))
    .order_by(_ROLES.c.org_id, _ROLES.c.role_id)
)
_GROUPS_LISTED = Filtered(
    select(_GROUPS).where(one_of(_GROUPS.c.org_id, "orgs")),
    (_GROUPS.c.id,),
    active=_GROUPS.c.active.is_(bindparam("active", type_=Boolean)),
)
_GROUP_NAME_TAKEN = Statement.of(
    select(_GROUPS.c.id)
    .where(_GROUPS.c.org_id == bindparam("org_id"), func.lower(_GROUPS.c.name) == bindparam("name"))
    .order_by(_GROUPS.c.id)
    .limit(1)
)
_GROUP_EMAIL_TAKEN = Statement.of(
    select(_GROUPS.c.id)
    .where(_GROUPS.c.org_id == bindparam("org_id"), func.lower(_GROUPS.c.email) == bindparam("email"))
    .order_by(_GROUPS.c.id)
    .limit(1)
)


def _count(model: Any, *where: Any) -> Statement:
    table = model.__table__
    return Statement.of(select(func.count()).select_from(table).where(*where))


_INCIDENTS, _PROBLEMS, _CHANGES = Incident.__table__, Problem.__table__, ChangeRequest.__table__
_SERVICES, _TEMPLATES, _ITEMS = Service.__table__, IncidentTemplate.__table__, CatalogItem.__table__
# what still hangs on a group: a group is deactivated only when every count is 0
_GROUP_WORK = {
    "open incidents": _count(
        Incident,
        _INCIDENTS.c.assignment_group_id == bindparam("group_id"),
        _INCIDENTS.c.status.in_(("new", "in_progress", "on_hold")),
    ),
    "open problems": _count(
        Problem, _PROBLEMS.c.assignment_group_id == bindparam("group_id"), _PROBLEMS.c.status != "closed"
    ),
    "open changes": _count(
        ChangeRequest,
        _CHANGES.c.assignment_group_id == bindparam("group_id"),
        _CHANGES.c.status.not_in(("closed", "cancelled")),
    ),
    "services it owns": _count(
        Service, _SERVICES.c.owner_group_id == bindparam("group_id"), _SERVICES.c.status != "retired"
    ),
    "active incident templates": _count(
        IncidentTemplate, _TEMPLATES.c.assignment_group_id == bindparam("group_id"), _TEMPLATES.c.active.is_(True)
    ),
    "active catalog items": _count(
        CatalogItem, _ITEMS.c.fulfillment_group_id == bindparam("group_id"), _ITEMS.c.active.is_(True)
    ),
}
_GROUP_NAMED = Statement.of(
    select(_GROUPS)
    .where(func.lower(_GROUPS.c.name) == bindparam("name"), one_of(_GROUPS.c.org_id, "orgs"))
    .order_by(_GROUPS.c.id)
)
_GROUP_NAMED_AFTER_ORG = Statement.of(
    select(_GROUPS)
    .join(_ORGS, _ORGS.c.id == _GROUPS.c.org_id)
    .where(
        func.lower(_GROUPS.c.name) == func.lower(_ORGS.c.name) + " " + bindparam("name"),
        one_of(_GROUPS.c.org_id, "orgs"),
    )
    .order_by(_GROUPS.c.id)
)
_GROUP_MEMBERS = Pages.of(
    select(_USERS)
    .join(_MEMBERS, _MEMBERS.c.user_id == _USERS.c.id)
    .where(_MEMBERS.c.group_id == bindparam("group_id"))
    .order_by(_USERS.c.id)
)
_GROUPS_OF = Statement.of(
    select(_GROUPS.c.id, _GROUPS.c.name)
    .join(_MEMBERS, _MEMBERS.c.group_id == _GROUPS.c.id)
    .where(_MEMBERS.c.user_id == bindparam("user_id"), one_of(_GROUPS.c.org_id, "orgs"))
    .order_by(_GROUPS.c.id)
)

# --- roles and permissions ----------------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/roles")
def list_roles(ctx: ToolContext) -> Any:
    """List the roles (admin, manager, agent, reporter) and what each is for."""
    require_somewhere(ctx, "role", "read")  # the role definitions are shared by every organization
    return ctx.rows.find(Role, ("id",))


@tool(SVC, "GET", "/itsm/roles/permissions")
def get_role_permissions(ctx: ToolContext, role_id: RoleId) -> Any:
    """List what a role permits: each resource with read or crud (create, change, delete)."""
    require_somewhere(ctx, "role", "read")
    role = role_by_id(ctx, role_id)
    return {**role, "permissions": ctx.rows.all(_PERMITTED, role_id=role["id"])}


RoleOrg = Annotated[
    str | None,
    Field(description="The organization the role is held in (one you hold a role in); the user's own when omitted"),
]


def _role_org(
    ctx: ToolContext, user: Row, org_id: str | None, resource: str, action: str, revoking: bool = False
) -> str:
    """The organization a role of ``user`` is looked up, granted or revoked in: ``org_id`` (404 outside
    the acting user's scope) or the user's own, once the acting user may ``action`` ``resource`` there
    (access can be taken away in an inactive organization too)."""
    if org_id is not None:
        org = target_org(ctx, org_id)
    elif in_scope(ctx, user["org_id"]):
        org = user["org_id"]
    else:  # someone working in the scope, seen through the first organization where they hold a role
        org = ctx.rows.value(_SEEN_THROUGH, user_id=user["id"], orgs=scope(ctx))
    require(ctx, resource, action, org, even_if_inactive=revoking)
    return org


def _roles_view(ctx: ToolContext, user: Row, org: str) -> dict[str, Any]:
    return {"user_id": user["id"], "org_id": org, "roles": roles_of(ctx, user["id"], org)}


@tool(SVC, "GET", "/itsm/users/roles")
def get_user_roles(ctx: ToolContext, user_id: UserId, org_id: RoleOrg = None) -> Any:
    """List the roles a user holds in an organization (their own by default); without one, also the
    roles they hold in the other organizations of your scope (provider staff serve several)."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "role", "read")
    view = _roles_view(ctx, user, org)
    if org_id is None:
        elsewhere = [o for o in readable(ctx, "role") if o != org]
        by_org: dict[str, list[str]] = {}
        for held in ctx.rows.all(_HELD_IN, user_id=user["id"], orgs=elsewhere):
            by_org.setdefault(held["org_id"], []).append(held["role_id"])
        view["other_organizations"] = [{"org_id": o, "roles": r} for o, r in by_org.items()]
    return view


@tool(SVC, "GET", "/itsm/users/check-permission")
def check_user_permission(
    ctx: ToolContext, user_id: UserId, resource: Resource, action: Action, org_id: RoleOrg = None
) -> Any:
    """Whether a user's roles in an organization (their own by default) allow an action (read, or
    crud: create/change/delete) on a resource."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "role", "read")
    permitted = user["active"] and not user["locked"] and allowed(ctx, user["id"], org, resource, action)
    return {
        **_roles_view(ctx, user, org),
        "resource": resource,
        "action": action,
        "allowed": bool(permitted),
        "active": user["active"],
        "locked": user["locked"],
    }


@tool(SVC, "POST", "/itsm/users/roles/assign")
def assign_role(ctx: ToolContext, user_id: UserId, role_id: RoleId, org_id: RoleOrg = None) -> Any:
    """Grant a role to an active user in an organization: their own (the default), or, for a
    provider's staff, a client organization they are to serve."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "user", "crud")
    if not user["active"]:
        raise Conflict(f"{user['id']} ({user['name']}) is not an active user", error="inactive_user")
    grant_role(ctx, "assign_role", user, role_id, org)
    return _roles_view(ctx, user, org)


@tool(SVC, "POST", "/itsm/users/roles/revoke")
def revoke_role(ctx: ToolContext, user_id: UserId, role_id: RoleId, org_id: RoleOrg = None) -> Any:
    """Take a role away from a user in an organization (their own by default; an inactive one too)."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "user", "crud", revoking=True)
    key = (user["id"], role_id, org)
    grant = ctx.rows.get(UserRole, key)
    if grant is None:
        raise NotFound(f"{user['id']} does not hold role {role_id!r} in {org}")
    audit(ctx, "revoke_role", "delete", UserRole, grant, grant)
    ctx.rows.delete(UserRole, key)
    forget_grants(ctx)
    return _roles_view(ctx, user, org)


# --- groups -------------------------------------------------------------------------------------------


def _group_view(ctx: ToolContext, group: Row) -> dict[str, Any]:
    manager = ctx.rows.get(SysUser, group["manager_id"]) if group["manager_id"] else None
    count = ctx.rows.count(GroupMember, group_id=group["id"])
    return {**group, "manager_name": manager["name"] if manager else None, "member_count": count}


@tool(SVC, "GET", "/itsm/groups")
def list_groups(
    ctx: ToolContext,
    active: Annotated[bool | None, Field(description="Only active (true) or inactive (false) groups")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the groups (teams such as Service Desk) of the organizations in your scope."""
    return ctx.rows.page(_GROUPS_LISTED, page, per_page, orgs=listed_orgs(ctx, "group", org_id), active=active)


@tool(SVC, "GET", "/itsm/groups/by-name")
def get_group_by_name(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The group's name (case does not matter)")],
    org_id: InOrg = None,
) -> Any:
    """Look up a group by name (names repeat across organizations: give org_id to pick one): its id,
    email, manager and member count. A group named after its organization ("Acme Service Desk") is
    found by the rest of its name too ("Service Desk")."""
    wanted = name.strip().lower()
    what = f"group named {name!r}"
    with contextlib.suppress(NotFound):
        return _group_view(ctx, find_one(ctx, _GROUP_NAMED, what, "group", org_id, name=wanted))
    if org_id is None:
        found = ctx.rows.all(_GROUP_NAMED_AFTER_ORG, name=wanted, orgs=readable(ctx, "group"))
        orgs = {g["org_id"] for g in found}
        if len(orgs) > 1:
            raise InvalidArgument(
                f"{len(orgs)} organizations have a group named {name!r} after them: give org_id",
                error="ambiguous_name",
            )
    return _group_view(ctx, find_one(ctx, _GROUP_NAMED_AFTER_ORG, what, "group", org_id, name=wanted))


@tool(SVC, "GET", "/itsm/groups/members")
def list_group_members(ctx: ToolContext, group_id: GroupId, page: Page = 1, per_page: PerPage = 50) -> Any:
    """List a group's members (users), by id."""
    group = group_in_scope(ctx, group_id)
    return {"group": _group_view(ctx, group), **ctx.rows.page(_GROUP_MEMBERS, page, per_page, group_id=group["id"])}


@tool(SVC, "GET", "/itsm/users/groups")
def list_user_groups(ctx: ToolContext, user_id: UserId) -> Any:
    """List the groups a user is a member of (in the organizations where you may see groups)."""
    user = user_in_scope(ctx, user_id)
    require(ctx, "group", "read", user["org_id"])
    groups = ctx.rows.all(_GROUPS_OF, user_id=user["id"], orgs=readable(ctx, "group"))
    return {"user_id": user["id"], "groups": groups}


@tool(SVC, "POST", "/itsm/groups/members/add")
def add_group_member(ctx: ToolContext, group_id: GroupId, user_id: UserId) -> Any:
    """Add an active user of the group's organization to the group."""
    group = group_in_scope(ctx, group_id, "crud")
    user = member_user(ctx, user_id, group["org_id"])
    join_group(ctx, "add_group_member", group, user)
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/members/remove")
def remove_group_member(ctx: ToolContext, group_id: GroupId, user_id: UserId) -> Any:
    """Remove a user from a group."""
    group = group_in_scope(ctx, group_id, "crud")
    member = ctx.rows.get(GroupMember, (group["id"], user_id))
    if member is None:
        raise NotFound(f"{user_id!r} is not a member of {group['id']} ({group['name']})")
    audit(ctx, "remove_group_member", "delete", GroupMember, member, member)
    ctx.rows.delete(GroupMember, (group["id"], user_id))
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/manager")
def set_group_manager(ctx: ToolContext, group_id: GroupId, manager_id: UserId) -> Any:
    """Make an active user of the group's organization the group's manager."""
    group = group_in_scope(ctx, group_id, "crud")
    member_user(ctx, manager_id, group["org_id"], "manager")
    changed = apply_updates(ctx, UserGroup, group, {"manager_id": manager_id}, ["manager_id"])
    if changed:
        audit(ctx, "set_group_manager", "update", UserGroup, group, changed)
    return {**_group_view(ctx, group), "changed": changed}


def _group_name(ctx: ToolContext, org_id: str, name: str, except_id: str | None = None) -> str:
    taken = ctx.rows.value(_GROUP_NAME_TAKEN, org_id=org_id, name=name.lower())
    if taken is not None and taken != except_id:
        raise Conflict(f"{org_id} already has a group named {name!r}: {taken}", error="duplicate")
    return name


def _group_email(ctx: ToolContext, org_id: str, email: str, except_id: str | None = None) -> str:
    email = email_address(email)
    taken = ctx.rows.value(_GROUP_EMAIL_TAKEN, org_id=org_id, email=email)
    if taken is not None and taken != except_id:
        raise Conflict(f"group {taken} already has the email address {email}", error="duplicate")
    return email


@tool(SVC, "POST", "/itsm/groups/create")
def create_group(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The group's name, unique within the organization")],
    email: Annotated[Text | None, Field(description="The group's shared mailbox, e.g. oncall@example.com")] = None,
    manager_id: Annotated[str | None, Field(description="Its manager: an active user of the organization")] = None,
    description: Annotated[Text | None, Field(description="What the group does")] = None,
    org_id: OrgId = None,
) -> Any:
    """Create a group (a team work is assigned to) in an organization (yours by default; a client's
    org_id for a client's group), active and without members: add them with add_group_member. Needs
    change rights on groups there; the name (and email) must be new in that organization (409 duplicate)."""
    org = target_org(ctx, org_id)
    require(ctx, "group", "crud", org)
    _group_name(ctx, org, name)
    if email is not None:
        email = _group_email(ctx, org, email)
    if manager_id is not None:
        member_user(ctx, manager_id, org, "manager")
    group = {
        "id": ctx.rows.next_id(UserGroup),
        "org_id": org,
        "name": name,
        "email": email,
        "manager_id": manager_id,
        "description": description,
        "active": True,
    }
    ctx.rows.insert(UserGroup, group)
    audit(ctx, "create_group", "create", UserGroup, group, filled(group))
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/update")
def update_group(
    ctx: ToolContext,
    group_id: GroupId,
    name: Annotated[Text | None, Field(description="New name, unique within the organization")] = None,
    email: Annotated[Text | None, Field(description="New shared mailbox")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    active: Annotated[
        bool | None,
        Field(
            description="false deactivates the group (only once no open work, service, template or item is "
            "left on it); true reactivates it"
        ),
    ] = None,
) -> Any:
    """Change a group's name, email or description (only the fields given), or deactivate or reactivate
    it (its manager: set_group_manager; its members: add_group_member, remove_group_member). A group is
    deactivated only when no open incident, problem or change is assigned to it and it owns no service,
    active incident template or active catalog item (409 in_use); an inactive group takes no new work,
    members, services or templates (409 inactive_group)."""
    group = group_in_scope(ctx, group_id, "crud")
    updates: dict[str, Any] = {
        k: v
        for k, v in {"name": name, "email": email, "description": description, "active": active}.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if name is not None:
        _group_name(ctx, group["org_id"], name, except_id=group["id"])
    if email is not None:
        updates["email"] = _group_email(ctx, group["org_id"], email, except_id=group["id"])
    if active is False and group["active"]:
        left = {what: ctx.rows.value(query, group_id=group["id"]) for what, query in _GROUP_WORK.items()}
        left = {what: count for what, count in left.items() if count}
        if left:
            listed = ", ".join(f"{count} {what}" for what, count in left.items())
            raise Conflict(
                f"group {group['id']} ({group['name']}) still has {listed}: move them to another group first",
                error="in_use",
            )
    changed = apply_updates(ctx, UserGroup, group, updates, updates)
    if changed:
        audit(ctx, "update_group", "update", UserGroup, group, changed)
    return {**_group_view(ctx, group), "changed": changed}
