"""Access tools: roles and what they permit (per organization), and groups with their members and
managers. Accounts are in ``identity``."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import func, select

from ...errors import Conflict, InvalidArgument, NotFound
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
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common_orm import (
    InOrg,
    Page,
    PerPage,
    allowed,
    apply_updates,
    audit,
    find_one,
    forget_grants,
    in_scope,
    person_in_scope,
    readable,
    require,
    require_somewhere,
    roles_of,
    scope,
    scoped,
    target_org,
)
from .identity import (
    SVC,
    Action,
    GroupId,
    Resource,
    RoleId,
    UserId,
    grant_role,
    group_in_scope,
    join_group,
    member_user,
    role_by_id,
    user_in_scope,
)

# --- roles and permissions ----------------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/roles")
def list_roles(ctx: ToolContext) -> Any:
    """List the roles (admin, manager, agent, reporter) and what each is for."""
    require_somewhere(ctx, "role", "read")  # the role definitions are shared by every organization
    return [row_dict(r) for r in ctx.session.scalars(select(Role).order_by(Role.id))]


@tool(SVC, "GET", "/itsm/roles/permissions")
def get_role_permissions(ctx: ToolContext, role_id: RoleId) -> Any:
    """List what a role permits: each resource with read or crud (create, change, delete)."""
    require_somewhere(ctx, "role", "read")
    role = role_by_id(ctx, role_id)
    query = (
        select(Permission)
        .join(RolePermission, RolePermission.permission_id == Permission.id)
        .where(RolePermission.role_id == role.id)
        .order_by(Permission.resource, Permission.action)
    )
    return {
        **row_dict(role),
        "permissions": [{"resource": p.resource, "action": p.action} for p in ctx.session.scalars(query)],
    }


RoleOrg = Annotated[
    str | None,
    Field(description="The organization the role is held in (one you hold a role in); the user's own when omitted"),
]


def _role_org(
    ctx: ToolContext, user: SysUser, org_id: str | None, resource: str, action: str, revoking: bool = False
) -> str:
    """The organization a role of ``user`` is looked up, granted or revoked in: ``org_id`` (404 outside
    the acting user's scope) or the user's own, once the acting user may ``action`` ``resource`` there
    (access can be taken away in an inactive organization too)."""
    if org_id is not None:
        org = target_org(ctx, org_id)
    elif in_scope(ctx, user.org_id):
        org = user.org_id
    else:  # someone working in the scope, seen through the first organization where they hold a role
        org = ctx.session.scalars(
            select(UserRole.org_id).where(UserRole.user_id == user.id, UserRole.org_id.in_(scope(ctx)))
        ).first()
    require(ctx, resource, action, org, even_if_inactive=revoking)
    return org


def _roles_view(ctx: ToolContext, user: SysUser, org: str) -> dict[str, Any]:
    return {"user_id": user.id, "org_id": org, "roles": roles_of(ctx.session, user.id, org)}


@tool(SVC, "GET", "/itsm/users/roles")
def get_user_roles(ctx: ToolContext, user_id: UserId, org_id: RoleOrg = None) -> Any:
    """List the roles a user holds in an organization (their own by default); without one, also the
    roles they hold in the other organizations of your scope (provider staff serve several)."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "role", "read")
    view = _roles_view(ctx, user, org)
    if org_id is None:
        elsewhere = [o for o in readable(ctx, "role") if o != org]
        held = ctx.session.execute(
            select(UserRole.org_id, UserRole.role_id)
            .where(UserRole.user_id == user.id, UserRole.org_id.in_(elsewhere))
            .order_by(UserRole.org_id, UserRole.role_id)
        )
        by_org: dict[str, list[str]] = {}
        for other, role in held:
            by_org.setdefault(other, []).append(role)
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
    permitted = user.active and not user.locked and allowed(ctx.session, user.id, org, resource, action)
    return {
        **_roles_view(ctx, user, org),
        "resource": resource,
        "action": action,
        "allowed": bool(permitted),
        "active": user.active,
        "locked": user.locked,
    }


@tool(SVC, "POST", "/itsm/users/roles/assign")
def assign_role(ctx: ToolContext, user_id: UserId, role_id: RoleId, org_id: RoleOrg = None) -> Any:
    """Grant a role to an active user in an organization: their own (the default), or, for a
    provider's staff, a client organization they are to serve."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "user", "crud")
    if not user.active:
        raise Conflict(f"{user.id} ({user.name}) is not an active user", error="inactive_user")
    grant_role(ctx, "assign_role", user, role_id, org)
    return _roles_view(ctx, user, org)


@tool(SVC, "POST", "/itsm/users/roles/revoke")
def revoke_role(ctx: ToolContext, user_id: UserId, role_id: RoleId, org_id: RoleOrg = None) -> Any:
    """Take a role away from a user in an organization (their own by default; an inactive one too)."""
    user = person_in_scope(ctx, user_id)
    org = _role_org(ctx, user, org_id, "user", "crud", revoking=True)
    grant = ctx.session.get(UserRole, (user.id, role_id, org))
    if grant is None:
        raise NotFound(f"{user.id} does not hold role {role_id!r} in {org}")
    audit(ctx, "revoke_role", "delete", grant, row_dict(grant))
    ctx.session.delete(grant)
    ctx.session.flush()
    forget_grants(ctx)
    return _roles_view(ctx, user, org)


# --- groups -------------------------------------------------------------------------------------------


def _group_view(ctx: ToolContext, group: UserGroup) -> dict[str, Any]:
    manager = ctx.session.get(SysUser, group.manager_id) if group.manager_id else None
    count = ctx.session.scalar(select(func.count()).select_from(GroupMember).where(GroupMember.group_id == group.id))
    return {**row_dict(group), "manager_name": manager.name if manager else None, "member_count": count}


@tool(SVC, "GET", "/itsm/groups")
def list_groups(ctx: ToolContext, org_id: InOrg = None, page: Page = 1, per_page: PerPage = 20) -> Any:
    """List the groups (teams such as Service Desk) of the organizations in your scope."""
    return paged(ctx, scoped(ctx, select(UserGroup), UserGroup, "group", org_id).order_by(UserGroup.id), page, per_page)


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
    exact = select(UserGroup).where(func.lower(UserGroup.name) == wanted).order_by(UserGroup.id)
    with contextlib.suppress(NotFound):
        return _group_view(ctx, find_one(ctx, exact, f"group named {name!r}", "group", org_id))
    prefixed = (
        select(UserGroup)
        .join(Organization, Organization.id == UserGroup.org_id)
        .where(func.lower(UserGroup.name) == func.lower(Organization.name) + " " + wanted)
        .order_by(UserGroup.id)
    )
    if org_id is None:
        orgs = {g.org_id for g in ctx.session.scalars(prefixed) if g.org_id in readable(ctx, "group")}
        if len(orgs) > 1:
            raise InvalidArgument(
                f"{len(orgs)} organizations have a group named {name!r} after them: give org_id",
                error="ambiguous_name",
            )
    return _group_view(ctx, find_one(ctx, prefixed, f"group named {name!r}", "group", org_id))


@tool(SVC, "GET", "/itsm/groups/members")
def list_group_members(ctx: ToolContext, group_id: GroupId, page: Page = 1, per_page: PerPage = 50) -> Any:
    """List a group's members (users), by id."""
    group = group_in_scope(ctx, group_id)
    query = select(SysUser).join(GroupMember, GroupMember.user_id == SysUser.id).where(GroupMember.group_id == group.id)
    return {"group": _group_view(ctx, group), **paged(ctx, query.order_by(SysUser.id), page, per_page)}


@tool(SVC, "GET", "/itsm/users/groups")
def list_user_groups(ctx: ToolContext, user_id: UserId) -> Any:
    """List the groups a user is a member of."""
    user = user_in_scope(ctx, user_id)
    require(ctx, "group", "read", user.org_id)
    query = (
        select(UserGroup)
        .join(GroupMember, GroupMember.group_id == UserGroup.id)
        .where(GroupMember.user_id == user.id)
        .order_by(UserGroup.id)
    )
    return {"user_id": user.id, "groups": [{"id": g.id, "name": g.name} for g in ctx.session.scalars(query)]}


@tool(SVC, "POST", "/itsm/groups/members/add")
def add_group_member(ctx: ToolContext, group_id: GroupId, user_id: UserId) -> Any:
    """Add an active user of the group's organization to the group."""
    group = group_in_scope(ctx, group_id, "crud")
    user = member_user(ctx, user_id, group.org_id)
    join_group(ctx, "add_group_member", group, user)
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/members/remove")
def remove_group_member(ctx: ToolContext, group_id: GroupId, user_id: UserId) -> Any:
    """Remove a user from a group."""
    group = group_in_scope(ctx, group_id, "crud")
    member = ctx.session.get(GroupMember, (group.id, user_id))
    if member is None:
        raise NotFound(f"{user_id!r} is not a member of {group.id} ({group.name})")
    audit(ctx, "remove_group_member", "delete", member, row_dict(member))
    ctx.session.delete(member)
    ctx.session.flush()
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/manager")
def set_group_manager(ctx: ToolContext, group_id: GroupId, manager_id: UserId) -> Any:
    """Make an active user of the group's organization the group's manager."""
    group = group_in_scope(ctx, group_id, "crud")
    member_user(ctx, manager_id, group.org_id, "manager")
    changed = apply_updates(group, {"manager_id": manager_id}, ["manager_id"])
    if changed:
        audit(ctx, "set_group_manager", "update", group, changed)
    return {**_group_view(ctx, group), "changed": changed}
