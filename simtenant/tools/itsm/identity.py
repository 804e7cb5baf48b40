"""Identity tools: the organization, its locations, users (onboarding, changes, unlocking,
offboarding), roles and what they permit, and groups with their members and managers.

Account work (creating users, granting and revoking their roles, offboarding) needs change rights
on users; group memberships need change rights on groups. The ``role`` resource covers the role
definitions and their permissions, which no tool changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import func, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import (
    ACTIONS,
    GroupMember,
    Location,
    Organization,
    Permission,
    Role,
    RolePermission,
    SysUser,
    UserGroup,
    UserRole,
)
from ...schema.itsm.incidents import Incident, IncidentWorkNote
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common import (
    RESOURCES,
    InOrg,
    OrgId,
    Page,
    PerPage,
    acting_user,
    allowed,
    apply_updates,
    audit,
    find_one,
    forget_grants,
    get_in_scope,
    in_scope,
    matching,
    person_in_scope,
    readable,
    related,
    require,
    require_somewhere,
    roles_of,
    same_org,
    scope,
    scoped,
    target_org,
    works_in,
)

UserId = Annotated[str, Field(description="A user id, e.g. USR-0003")]
GroupId = Annotated[str, Field(description="A group id, e.g. GRP-001")]
RoleId = Annotated[str, Field(description="A role id, e.g. agent (see list_roles)")]
LocationId = Annotated[str, Field(description="A location id, e.g. LOC-001")]
Resource = Literal[RESOURCES]  # type: ignore[valid-type]
Action = Literal[ACTIONS]  # type: ignore[valid-type]
OPEN_INCIDENT_STATUSES = ("new", "in_progress", "on_hold")
SVC = "itsm.identity"


# --- helpers (member_user and org_location are shared with the other ITSM tool modules) ---------------


def member_user(ctx: ToolContext, user_id: str, org_id: str, what: str = "user") -> SysUser:
    """A user of ``org_id`` who is active: 404 if unknown or outside the acting user's scope, 400
    cross_organization if of another organization in it, 409 if inactive."""
    user = related(ctx, SysUser, user_id, what, org_id)
    if not user.active:
        raise Conflict(f"{what} {user_id} ({user.name}) is not an active user", error="inactive_user")
    return user


def _user(ctx: ToolContext, user_id: str, action: str = "read") -> SysUser:
    return get_in_scope(ctx, SysUser, user_id, "user", "user", action)


def _group(ctx: ToolContext, group_id: str, action: str = "read") -> UserGroup:
    return get_in_scope(ctx, UserGroup, group_id, "group", "group", action)


def org_location(ctx: ToolContext, location_id: str, org_id: str) -> Location:
    """A location of ``org_id``: 404 if unknown or out of scope, 400 cross_organization if of another one."""
    return related(ctx, Location, location_id, "location", org_id)


def _role(ctx: ToolContext, role_id: str) -> Role:
    return ctx.get(Role, role_id, "role")


def _email(ctx: ToolContext, email: str, except_user: str | None = None) -> str:
    """The address normalised (lowercase), if it looks like one and no other user has it."""
    email = email.strip().lower()
    local, _, domain = email.partition("@")
    if not local or "." not in domain or " " in email:
        raise InvalidArgument(f"{email!r} is not an email address", error="invalid_value")
    taken = ctx.session.scalar(select(SysUser).where(func.lower(SysUser.email) == email))
    if taken is not None and taken.id != except_user:
        if not in_scope(ctx, taken.org_id):  # addresses are unique across the tenant; whose it is stays hidden
            raise Conflict(f"email {email} is already in use", error="duplicate")
        raise Conflict(f"email {email} already belongs to {taken.id} ({taken.name})", error="duplicate")
    return email


def _check_manager(ctx: ToolContext, user_id: str | None, manager_id: str, org_id: str) -> None:
    manager = member_user(ctx, manager_id, org_id, "manager")
    seen = set()
    while manager is not None and manager.id not in seen:
        if manager.id == user_id:
            raise Conflict(f"{manager_id} reports (directly or not) to {user_id}", error="cycle")
        seen.add(manager.id)
        manager = ctx.session.get(SysUser, manager.manager_id) if manager.manager_id else None


def _user_view(ctx: ToolContext, user: SysUser) -> dict[str, Any]:
    view = row_dict(user)
    location = ctx.session.get(Location, user.location_id) if user.location_id else None
    manager = ctx.session.get(SysUser, user.manager_id) if user.manager_id else None
    view["location_name"] = location.name if location else None
    view["manager_name"] = manager.name if manager else None
    return view


def _grant(ctx: ToolContext, name: str, user: SysUser, role_id: str, org_id: str) -> UserRole:
    """Grant ``role_id`` in ``org_id``: the user's own organization or, when theirs is a provider,
    any other (a client they serve); else 400 cross_organization."""
    _role(ctx, role_id)
    if org_id != user.org_id and ctx.get(Organization, user.org_id, "organization").kind != "provider":
        raise InvalidArgument(
            f"{user.id} belongs to {user.org_id}: only a provider's staff hold roles in another organization",
            error="cross_organization",
        )
    if ctx.session.get(UserRole, (user.id, role_id, org_id)) is not None:
        raise Conflict(f"{user.id} already holds role {role_id} in {org_id}", error="duplicate")
    grant = UserRole(user_id=user.id, role_id=role_id, org_id=org_id)
    ctx.session.add(grant)
    audit(ctx, name, "create", grant, row_dict(grant))
    forget_grants(ctx)  # the acting user's own roles may have changed
    return grant


def _join(ctx: ToolContext, name: str, group: UserGroup, user: SysUser) -> GroupMember:
    works_in(ctx.session, group.org_id, user)
    if ctx.session.get(GroupMember, (group.id, user.id)) is not None:
        raise Conflict(f"{user.id} is already a member of {group.id} ({group.name})", error="duplicate")
    member = GroupMember(group_id=group.id, user_id=user.id, org_id=group.org_id)
    ctx.session.add(member)
    audit(ctx, name, "create", member, row_dict(member))
    return member


# --- organization and locations -----------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/organization")
def get_organization(
    ctx: ToolContext,
    org_id: Annotated[str | None, Field(description="An organization id; yours when omitted")] = None,
) -> Any:
    """Look up an organization (yours by default): its name, kind and whether it is active."""
    org_id = org_id or acting_user(ctx).org_id
    if not in_scope(ctx, org_id):
        raise NotFound(f"organization {org_id!r} not found")
    require(ctx, "organization", "read", org_id)
    return row_dict(ctx.get(Organization, org_id, "organization"))


@tool(SVC, "GET", "/itsm/locations")
def list_locations(ctx: ToolContext, org_id: InOrg = None, page: Page = 1, per_page: PerPage = 20) -> Any:
    """List the locations (offices, sites) of the organizations in your scope."""
    return paged(ctx, scoped(ctx, select(Location), Location, "location", org_id).order_by(Location.id), page, per_page)


@tool(SVC, "GET", "/itsm/locations/get")
def get_location(ctx: ToolContext, location_id: LocationId) -> Any:
    """Look up one location by id."""
    return row_dict(get_in_scope(ctx, Location, location_id, "location", "location"))


# --- users --------------------------------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/users/get")
def get_user_by_id(ctx: ToolContext, user_id: UserId) -> Any:
    """Look up a user by id: name, email, title, department, location, manager, active and locked."""
    return _user_view(ctx, _user(ctx, user_id))


@tool(SVC, "GET", "/itsm/users/by-email")
def get_user_by_email(
    ctx: ToolContext, email: Annotated[Text, Field(description="The user's email address (case does not matter)")]
) -> Any:
    """Look up a user by email address."""
    query = select(SysUser).where(func.lower(SysUser.email) == email.lower())
    return _user_view(ctx, find_one(ctx, query, f"user with email {email!r}", "user"))


@tool(SVC, "GET", "/itsm/users/find")
def find_users_by_name(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="All or part of the user's name (case does not matter)")],
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Find users whose name contains the given text."""
    query = select(SysUser).where(func.lower(SysUser.name).contains(name.lower(), autoescape=True))
    return paged(ctx, scoped(ctx, query, SysUser, "user", org_id).order_by(SysUser.id), page, per_page)


@tool(SVC, "GET", "/itsm/users")
def list_users(
    ctx: ToolContext,
    department: Annotated[str | None, Field(description="Only users of this department")] = None,
    location_id: Annotated[str | None, Field(description="Only users at this location")] = None,
    manager_id: Annotated[str | None, Field(description="Only users reporting to this manager")] = None,
    active: Annotated[bool | None, Field(description="Only active (true) or inactive (false) users")] = None,
    locked: Annotated[bool | None, Field(description="Only locked (true) or unlocked (false) accounts")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the users of the organizations in your scope, optionally filtered, by id."""
    query = scoped(ctx, select(SysUser), SysUser, "user", org_id)
    if department is not None:
        query = query.where(func.lower(SysUser.department) == department.lower())
    query = matching(query, (SysUser.location_id, location_id), (SysUser.manager_id, manager_id))
    for column, flag in ((SysUser.active, active), (SysUser.locked, locked)):
        if flag is not None:
            query = query.where(column.is_(flag))
    return paged(ctx, query.order_by(SysUser.id), page, per_page)


@tool(SVC, "POST", "/itsm/users/onboard")
def onboard_user(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="Full name")],
    email: Annotated[Text, Field(description="Email address; must not belong to another user")],
    title: Annotated[Text | None, Field(description="Job title")] = None,
    department: Annotated[Text | None, Field(description="Department")] = None,
    location_id: Annotated[str | None, Field(description="Where they work, e.g. LOC-001")] = None,
    manager_id: Annotated[str | None, Field(description="Their manager's user id")] = None,
    role_ids: Annotated[list[str], Field(description="Roles to grant, e.g. ['agent']")] = [],  # noqa: B006
    group_ids: Annotated[list[str], Field(description="Groups to add them to, e.g. ['GRP-001']")] = [],  # noqa: B006
    org_id: OrgId = None,
) -> Any:
    """Onboard a new user in an organization (yours by default): create the account, grant its roles
    there and add it to its groups, all in one call. Its location, manager and groups must be of
    that organization (400 cross_organization)."""
    org = target_org(ctx, org_id)
    require(ctx, "user", "crud", org)
    role_ids, group_ids = list(dict.fromkeys(role_ids)), list(dict.fromkeys(group_ids))
    groups = [same_org(org, _group(ctx, g, "crud"), "group") for g in group_ids]
    email = _email(ctx, email)
    if location_id is not None:
        org_location(ctx, location_id, org)
    if manager_id is not None:
        _check_manager(ctx, None, manager_id, org)
    for role_id in role_ids:
        _role(ctx, role_id)
    user = SysUser(
        id=ctx.next_id(SysUser),
        org_id=org,
        name=name,
        email=email,
        title=title,
        department=department,
        location_id=location_id,
        manager_id=manager_id,
        active=True,
        locked=False,
    )
    ctx.session.add(user)
    ctx.session.flush()
    audit(ctx, "onboard_user", "create", user, row_dict(user))
    for role_id in role_ids:
        _grant(ctx, "onboard_user", user, role_id, user.org_id)
    for group in groups:
        _join(ctx, "onboard_user", group, user)
    return {**_user_view(ctx, user), "roles": role_ids, "groups": [g.id for g in groups]}


@tool(SVC, "POST", "/itsm/users/update")
def update_user(
    ctx: ToolContext,
    user_id: UserId,
    name: Annotated[Text | None, Field(description="New full name")] = None,
    email: Annotated[Text | None, Field(description="New email address; must not belong to another user")] = None,
    title: Annotated[Text | None, Field(description="New job title")] = None,
    department: Annotated[Text | None, Field(description="New department")] = None,
    location_id: Annotated[str | None, Field(description="New location id")] = None,
    manager_id: Annotated[str | None, Field(description="New manager's user id")] = None,
) -> Any:
    """Change a user's profile fields (only those given). Use offboard_user to deactivate and
    unlock_user to unlock."""
    user = _user(ctx, user_id, "crud")
    updates = {
        k: v
        for k, v in {
            "name": name,
            "email": email,
            "title": title,
            "department": department,
            "location_id": location_id,
            "manager_id": manager_id,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if email is not None:
        updates["email"] = _email(ctx, email, except_user=user.id)
    if location_id is not None:
        org_location(ctx, location_id, user.org_id)
    if manager_id is not None:
        _check_manager(ctx, user.id, manager_id, user.org_id)
    changed = apply_updates(user, updates, updates)
    if changed:
        audit(ctx, "update_user", "update", user, changed)
    return {**_user_view(ctx, user), "changed": sorted(changed)}


@tool(SVC, "POST", "/itsm/users/offboard")
def offboard_user(ctx: ToolContext, user_id: UserId) -> Any:
    """Offboard a user: deactivate the account, remove all of their roles and group memberships, and
    unassign their open incidents (each gets a work note)."""
    actor = acting_user(ctx)
    user = _user(ctx, user_id, "crud")
    if user.id == actor.id:
        raise Conflict("you cannot offboard yourself", error="self_offboard")
    if not user.active:
        raise Conflict(f"{user.id} ({user.name}) is already inactive", error="inactive_user")
    grants = list(ctx.session.scalars(select(UserRole).where(UserRole.user_id == user.id).order_by(UserRole.role_id)))
    members = list(
        ctx.session.scalars(select(GroupMember).where(GroupMember.user_id == user.id).order_by(GroupMember.group_id))
    )
    incidents = list(
        ctx.session.scalars(
            select(Incident)
            .where(Incident.assigned_to_id == user.id, Incident.status.in_(OPEN_INCIDENT_STATUSES))
            .order_by(Incident.id)
        )
    )
    for resource, records in (("user", grants), ("group", members), ("incident", incidents)):
        for org in sorted({r.org_id for r in records}):
            if not in_scope(ctx, org):  # which organization it is stays hidden
                raise Forbidden(
                    f"{user.id} holds {resource} records in an organization outside your scope; "
                    "they cannot be offboarded by you"
                )
            require(ctx, resource, "crud", org)
    user.active = False
    audit(ctx, "offboard_user", "update", user, ["active"])
    for record in [*grants, *members]:
        audit(ctx, "offboard_user", "delete", record, row_dict(record))
        ctx.session.delete(record)
    for incident in incidents:
        incident.assigned_to_id, incident.updated_at = None, ctx.timestamp
        audit(ctx, "offboard_user", "update", incident, ["assigned_to_id", "updated_at"])
        note = IncidentWorkNote(
            org_id=incident.org_id,
            incident_id=incident.id,
            author_id=actor.id,
            note=f"Unassigned: the assignee {user.id} ({user.name}) was offboarded; previous assignee {user.id}.",
            created_at=ctx.timestamp,
        )
        ctx.session.add(note)
        ctx.session.flush()
        audit(ctx, "offboard_user", "create", note, row_dict(note))
    forget_grants(ctx)
    orgs = readable(ctx, "group")
    managed = ctx.session.scalars(
        select(UserGroup.id).where(UserGroup.manager_id == user.id, UserGroup.org_id.in_(orgs)).order_by(UserGroup.id)
    )
    owned = ctx.session.scalars(
        select(ConfigurationItem.id)
        .where(ConfigurationItem.owner_id == user.id, ConfigurationItem.org_id.in_(readable(ctx, "cmdb")))
        .order_by(ConfigurationItem.id)
    )
    return {
        "user": _user_view(ctx, user),
        "roles_removed": [g.role_id for g in grants],
        "groups_removed": [m.group_id for m in members],
        "incidents_unassigned": [i.id for i in incidents],
        "still_manages_groups": list(managed),
        "still_owns_configuration_items": list(owned),
    }


@tool(SVC, "POST", "/itsm/users/unlock")
def unlock_user(
    ctx: ToolContext,
    user_id: UserId,
    verified: Annotated[
        bool, Field(description="True only if you have verified the requester's identity as the policy requires")
    ],
) -> Any:
    """Unlock a locked user account. Refused unless the requester's identity has been verified."""
    user = _user(ctx, user_id, "crud")
    if not verified:
        raise Conflict("verify the user's identity before unlocking the account", error="identity_not_verified")
    if not user.active:
        raise Conflict(f"{user.id} ({user.name}) is not an active user", error="inactive_user")
    if not user.locked:
        raise Conflict(f"{user.id} ({user.name}) is not locked", error="not_locked")
    user.locked = False
    audit(ctx, "unlock_user", "update", user, ["locked"])
    return _user_view(ctx, user)


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
    role = _role(ctx, role_id)
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
    _grant(ctx, "assign_role", user, role_id, org)
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
    email, manager and member count."""
    query = select(UserGroup).where(func.lower(UserGroup.name) == name.lower()).order_by(UserGroup.id)
    return _group_view(ctx, find_one(ctx, query, f"group named {name!r}", "group", org_id))


@tool(SVC, "GET", "/itsm/groups/members")
def list_group_members(ctx: ToolContext, group_id: GroupId, page: Page = 1, per_page: PerPage = 50) -> Any:
    """List a group's members (users), by id."""
    group = _group(ctx, group_id)
    query = select(SysUser).join(GroupMember, GroupMember.user_id == SysUser.id).where(GroupMember.group_id == group.id)
    return {"group": _group_view(ctx, group), **paged(ctx, query.order_by(SysUser.id), page, per_page)}


@tool(SVC, "GET", "/itsm/users/groups")
def list_user_groups(ctx: ToolContext, user_id: UserId) -> Any:
    """List the groups a user is a member of."""
    user = _user(ctx, user_id)
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
    group = _group(ctx, group_id, "crud")
    user = member_user(ctx, user_id, group.org_id)
    _join(ctx, "add_group_member", group, user)
    return _group_view(ctx, group)


@tool(SVC, "POST", "/itsm/groups/members/remove")
def remove_group_member(ctx: ToolContext, group_id: GroupId, user_id: UserId) -> Any:
    """Remove a user from a group."""
    group = _group(ctx, group_id, "crud")
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
    group = _group(ctx, group_id, "crud")
    member_user(ctx, manager_id, group.org_id, "manager")
    changed = apply_updates(group, {"manager_id": manager_id}, ["manager_id"])
    if changed:
        audit(ctx, "set_group_manager", "update", group, changed)
    return {**_group_view(ctx, group), "changed": changed}
