"""Identity tools: the organization, its locations, users (onboarding, changes, unlocking,
offboarding); roles and groups are in ``identity_access``.

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
    Role,
    SysUser,
    UserGroup,
    UserRole,
)
from ...schema.itsm.incidents import Incident, IncidentWorkNote
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common_orm import (
    RESOURCES,
    InOrg,
    OrgId,
    Page,
    PerPage,
    acting_user,
    apply_updates,
    audit,
    find_one,
    forget_grants,
    get_in_scope,
    in_scope,
    matching,
    readable,
    related,
    require,
    same_org,
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


def user_in_scope(ctx: ToolContext, user_id: str, action: str = "read") -> SysUser:
    return get_in_scope(ctx, SysUser, user_id, "user", "user", action)


def group_in_scope(ctx: ToolContext, group_id: str, action: str = "read") -> UserGroup:
    return get_in_scope(ctx, UserGroup, group_id, "group", "group", action)


def org_location(ctx: ToolContext, location_id: str, org_id: str) -> Location:
    """A location of ``org_id``: 404 if unknown or out of scope, 400 cross_organization if of another one."""
    return related(ctx, Location, location_id, "location", org_id)


def role_by_id(ctx: ToolContext, role_id: str) -> Role:
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


def grant_role(ctx: ToolContext, name: str, user: SysUser, role_id: str, org_id: str) -> UserRole:
    """Grant ``role_id`` in ``org_id``: the user's own organization or, when theirs is a provider,
    any other (a client they serve); else 400 cross_organization."""
    role_by_id(ctx, role_id)
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


def join_group(ctx: ToolContext, name: str, group: UserGroup, user: SysUser) -> GroupMember:
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


@tool(SVC, "GET", "/itsm/organizations")
def list_organizations(ctx: ToolContext) -> Any:
    """List the organizations in your scope (the ones you hold a role in), with their names, kinds and
    whether they are active: the org_id to give other tools."""
    orgs = [ctx.session.get(Organization, org_id) for org_id in readable(ctx, "organization")]
    return {"organizations": [row_dict(org) for org in orgs if org is not None]}


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
    return _user_view(ctx, user_in_scope(ctx, user_id))


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
    groups = [same_org(org, group_in_scope(ctx, g, "crud"), "group") for g in group_ids]
    email = _email(ctx, email)
    if location_id is not None:
        org_location(ctx, location_id, org)
    if manager_id is not None:
        _check_manager(ctx, None, manager_id, org)
    for role_id in role_ids:
        role_by_id(ctx, role_id)
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
        grant_role(ctx, "onboard_user", user, role_id, user.org_id)
    for group in groups:
        join_group(ctx, "onboard_user", group, user)
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
    user = user_in_scope(ctx, user_id, "crud")
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
    user = user_in_scope(ctx, user_id, "crud")
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
    user = user_in_scope(ctx, user_id, "crud")
    if not verified:
        raise Conflict("verify the user's identity before unlocking the account", error="identity_not_verified")
    if not user.active:
        raise Conflict(f"{user.id} ({user.name}) is not an active user", error="inactive_user")
    if not user.locked:
        raise Conflict(f"{user.id} ({user.name}) is not locked", error="not_locked")
    user.locked = False
    audit(ctx, "unlock_user", "update", user, ["locked"])
    return _user_view(ctx, user)
