"""Identity tools: the organization, its locations, users (onboarding, changes, unlocking,
offboarding); roles and groups are in ``identity_access``.

Account work (creating users, granting and revoking their roles, offboarding) needs change rights
on users; group memberships need change rights on groups. The ``role`` resource covers the role
definitions and their permissions, which no tool changes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Boolean, bindparam, func, select

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
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, Statement, contains, one_of
from .common import (
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
    listed_orgs,
    readable,
    related,
    require,
    same_org,
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

_ORGS, _LOCATIONS, _USERS = Organization.__table__, Location.__table__, SysUser.__table__
_GROUPS, _INCIDENTS, _CIS = UserGroup.__table__, Incident.__table__, ConfigurationItem.__table__
_ORGS_LISTED = Statement.of(select(_ORGS).where(one_of(_ORGS.c.id, "orgs")).order_by(_ORGS.c.id))
_LOCATIONS_LISTED = Filtered(
    select(_LOCATIONS).where(one_of(_LOCATIONS.c.org_id, "orgs")),
    (_LOCATIONS.c.id,),
    name=contains(_LOCATIONS.c.name, "name"),
    city=func.lower(_LOCATIONS.c.city) == bindparam("city"),
    active=_LOCATIONS.c.active.is_(bindparam("active", type_=Boolean)),
)
_EMAIL_TAKEN = Statement.of(
    select(_USERS.c.id, _USERS.c.org_id, _USERS.c.name)
    .where(func.lower(_USERS.c.email) == bindparam("email"))
    .order_by(_USERS.c.id)
    .limit(1)
)
_USER_BY_EMAIL = Statement.of(
    select(_USERS)
    .where(func.lower(_USERS.c.email) == bindparam("email"), one_of(_USERS.c.org_id, "orgs"))
    .order_by(_USERS.c.id)
)
_USERS_NAMED = Pages.of(
    select(_USERS).where(one_of(_USERS.c.org_id, "orgs"), contains(_USERS.c.name, "name")).order_by(_USERS.c.id)
)
_USERS_LISTED = Filtered(
    select(_USERS).where(one_of(_USERS.c.org_id, "orgs")),
    (_USERS.c.id,),
    department=func.lower(_USERS.c.department) == bindparam("department"),
    location_id=_USERS.c.location_id == bindparam("location_id"),
    manager_id=_USERS.c.manager_id == bindparam("manager_id"),
    active=_USERS.c.active.is_(bindparam("active", type_=Boolean)),
    locked=_USERS.c.locked.is_(bindparam("locked", type_=Boolean)),
)
_OPEN_ASSIGNED = Statement.of(
    select(_INCIDENTS.c.id, _INCIDENTS.c.org_id, _INCIDENTS.c.assigned_to_id, _INCIDENTS.c.updated_at)
    .where(_INCIDENTS.c.assigned_to_id == bindparam("user_id"), one_of(_INCIDENTS.c.status, "statuses"))
    .order_by(_INCIDENTS.c.id)
)
_GROUPS_MANAGED = Statement.of(
    select(_GROUPS.c.id)
    .where(_GROUPS.c.manager_id == bindparam("user_id"), one_of(_GROUPS.c.org_id, "orgs"))
    .order_by(_GROUPS.c.id)
)
_CIS_OWNED = Statement.of(
    select(_CIS.c.id).where(_CIS.c.owner_id == bindparam("user_id"), one_of(_CIS.c.org_id, "orgs")).order_by(_CIS.c.id)
)


# --- helpers (member_user and org_location are shared with the other ITSM tool modules) ---------------


def member_user(ctx: ToolContext, user_id: str, org_id: str, what: str = "user") -> Row:
    """A user of ``org_id`` who is active: 404 if unknown or outside the acting user's scope, 400
    cross_organization if of another organization in it, 409 if inactive."""
    user = related(ctx, SysUser, user_id, what, org_id)
    if not user["active"]:
        raise Conflict(f"{what} {user_id} ({user['name']}) is not an active user", error="inactive_user")
    return user


def user_in_scope(ctx: ToolContext, user_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, SysUser, user_id, "user", "user", action)


def group_in_scope(ctx: ToolContext, group_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, UserGroup, group_id, "group", "group", action)


def org_location(ctx: ToolContext, location_id: str, org_id: str) -> Row:
    """A location of ``org_id`` where people and devices may be placed: 404 if unknown or out of scope,
    400 cross_organization if of another one, 409 inactive_location if the site is closed."""
    location = related(ctx, Location, location_id, "location", org_id)
    if not location["active"]:
        raise Conflict(
            f"location {location['id']} ({location['name']}) is inactive: nobody and nothing new is placed there",
            error="inactive_location",
        )
    return location


def active_group(group: Row, what: str = "group") -> Row:
    """``group`` if it is active; 409 inactive_group otherwise (an inactive group takes no new work,
    members, services or templates)."""
    if not group["active"]:
        raise Conflict(
            f"{what} {group['id']} ({group['name']}) is inactive: it takes no new work or members",
            error="inactive_group",
        )
    return group


def org_group(ctx: ToolContext, group_id: str, org_id: str, what: str = "group") -> Row:
    """An active group of ``org_id`` a record is given to: 404 if unknown or out of scope, 400
    cross_organization if of another organization, 409 inactive_group if inactive."""
    return active_group(related(ctx, UserGroup, group_id, what, org_id), what)


def role_by_id(ctx: ToolContext, role_id: str) -> Row:
    return ctx.rows.need(Role, role_id, "role")


def email_address(email: str) -> str:
    """The address normalised (lowercase), if it looks like one (400 invalid_value otherwise)."""
    email = email.strip().lower()
    local, _, domain = email.partition("@")
    if not local or "." not in domain or " " in email:
        raise InvalidArgument(f"{email!r} is not an email address", error="invalid_value")
    return email


def _email(ctx: ToolContext, email: str, except_user: str | None = None) -> str:
    """The address normalised (lowercase), if it looks like one and no other user has it."""
    email = email_address(email)
    taken = ctx.rows.one(_EMAIL_TAKEN, email=email)
    if taken is not None and taken["id"] != except_user:
        if not in_scope(ctx, taken["org_id"]):  # addresses are unique across the tenant; whose it is stays hidden
            raise Conflict(f"email {email} is already in use", error="duplicate")
        raise Conflict(f"email {email} already belongs to {taken['id']} ({taken['name']})", error="duplicate")
    return email


def _check_manager(ctx: ToolContext, user_id: str | None, manager_id: str, org_id: str) -> None:
    manager: Row | None = member_user(ctx, manager_id, org_id, "manager")
    seen = set()
    while manager is not None and manager["id"] not in seen:
        if manager["id"] == user_id:
            raise Conflict(f"{manager_id} reports (directly or not) to {user_id}", error="cycle")
        seen.add(manager["id"])
        manager = ctx.rows.get(SysUser, manager["manager_id"]) if manager["manager_id"] else None


def _user_view(ctx: ToolContext, user: Row) -> dict[str, Any]:
    location = ctx.rows.get(Location, user["location_id"]) if user["location_id"] else None
    manager = ctx.rows.get(SysUser, user["manager_id"]) if user["manager_id"] else None
    return {
        **user,
        "location_name": location["name"] if location else None,
        "manager_name": manager["name"] if manager else None,
    }


def grant_role(ctx: ToolContext, name: str, user: Row, role_id: str, org_id: str) -> Row:
    """Grant ``role_id`` in ``org_id``: the user's own organization or, when theirs is a provider,
    any other (a client they serve); else 400 cross_organization."""
    role_by_id(ctx, role_id)
    if org_id != user["org_id"] and ctx.rows.need(Organization, user["org_id"], "organization")["kind"] != "provider":
        raise InvalidArgument(
            f"{user['id']} belongs to {user['org_id']}: only a provider's staff hold roles in another organization",
            error="cross_organization",
        )
    if ctx.rows.get(UserRole, (user["id"], role_id, org_id)) is not None:
        raise Conflict(f"{user['id']} already holds role {role_id} in {org_id}", error="duplicate")
    grant = {"user_id": user["id"], "role_id": role_id, "org_id": org_id}
    ctx.rows.insert(UserRole, grant)
    audit(ctx, name, "create", UserRole, grant, grant)
    forget_grants(ctx)  # the acting user's own roles may have changed
    return grant


def join_group(ctx: ToolContext, name: str, group: Row, user: Row) -> Row:
    active_group(group)
    works_in(ctx, group["org_id"], user)
    if ctx.rows.get(GroupMember, (group["id"], user["id"])) is not None:
        raise Conflict(f"{user['id']} is already a member of {group['id']} ({group['name']})", error="duplicate")
    member = {"group_id": group["id"], "user_id": user["id"], "org_id": group["org_id"]}
    ctx.rows.insert(GroupMember, member)
    audit(ctx, name, "create", GroupMember, member, member)
    return member


# --- organization and locations -----------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/organization")
def get_organization(
    ctx: ToolContext,
    org_id: Annotated[str | None, Field(description="An organization id; yours when omitted")] = None,
) -> Any:
    """Look up an organization (yours by default): its name, kind and whether it is active."""
    org_id = org_id or acting_user(ctx)["org_id"]
    if not in_scope(ctx, org_id):
        raise NotFound(f"organization {org_id!r} not found")
    require(ctx, "organization", "read", org_id)
    return ctx.rows.need(Organization, org_id, "organization")


@tool(SVC, "GET", "/itsm/organizations")
def list_organizations(ctx: ToolContext) -> Any:
    """List the organizations in your scope (the ones you hold a role in), with their names, kinds and
    whether they are active: the org_id to give other tools."""
    return {"organizations": ctx.rows.all(_ORGS_LISTED, orgs=readable(ctx, "organization"))}


@tool(SVC, "GET", "/itsm/locations")
def list_locations(
    ctx: ToolContext,
    name_contains: Annotated[str | None, Field(description="Only locations whose name contains this text")] = None,
    city: Annotated[str | None, Field(description="Only locations in this city (case does not matter)")] = None,
    active: Annotated[bool | None, Field(description="Only open (true) or closed (false) locations")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the locations (offices, sites) of the organizations in your scope, with their address and
    whether they are active (open), optionally filtered."""
    return ctx.rows.page(
        _LOCATIONS_LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "location", org_id),
        name=name_contains or None,
        city=None if city is None else city.strip().lower(),
        active=active,
    )


@tool(SVC, "GET", "/itsm/locations/get")
def get_location(ctx: ToolContext, location_id: LocationId) -> Any:
    """Look up one location by id."""
    return get_in_scope(ctx, Location, location_id, "location", "location")


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
    user = find_one(ctx, _USER_BY_EMAIL, f"user with email {email!r}", "user", email=email.lower())
    return _user_view(ctx, user)


@tool(SVC, "GET", "/itsm/users/find")
def find_users_by_name(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="All or part of the user's name (case does not matter)")],
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Find users whose name contains the given text."""
    return ctx.rows.page(_USERS_NAMED, page, per_page, orgs=listed_orgs(ctx, "user", org_id), name=name)


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
    return ctx.rows.page(
        _USERS_LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "user", org_id),
        department=None if department is None else department.lower(),
        location_id=location_id,
        manager_id=manager_id,
        active=active,
        locked=locked,
    )


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
    groups = [active_group(same_org(org, UserGroup, group_in_scope(ctx, g, "crud"), "group")) for g in group_ids]
    email = _email(ctx, email)
    if location_id is not None:
        org_location(ctx, location_id, org)
    if manager_id is not None:
        _check_manager(ctx, None, manager_id, org)
    for role_id in role_ids:
        role_by_id(ctx, role_id)
    user = {
        "id": ctx.rows.next_id(SysUser),
        "org_id": org,
        "name": name,
        "email": email,
        "title": title,
        "department": department,
        "location_id": location_id,
        "manager_id": manager_id,
        "active": True,
        "locked": False,
    }
    ctx.rows.insert(SysUser, user)
    audit(ctx, "onboard_user", "create", SysUser, user, user)
    for role_id in role_ids:
        grant_role(ctx, "onboard_user", user, role_id, user["org_id"])
    for group in groups:
        join_group(ctx, "onboard_user", group, user)
    return {**_user_view(ctx, user), "roles": role_ids, "groups": [g["id"] for g in groups]}


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
        updates["email"] = _email(ctx, email, except_user=user["id"])
    if location_id is not None:
        org_location(ctx, location_id, user["org_id"])
    if manager_id is not None:
        _check_manager(ctx, user["id"], manager_id, user["org_id"])
    changed = apply_updates(ctx, SysUser, user, updates, updates)
    if changed:
        audit(ctx, "update_user", "update", SysUser, user, changed)
    return {**_user_view(ctx, user), "changed": sorted(changed)}


@tool(SVC, "POST", "/itsm/users/offboard")
def offboard_user(ctx: ToolContext, user_id: UserId) -> Any:
    """Offboard a user: deactivate the account, remove all of their roles and group memberships, and
    unassign their open incidents (each gets a work note)."""
    actor = acting_user(ctx)
    user = user_in_scope(ctx, user_id, "crud")
    if user["id"] == actor["id"]:
        raise Conflict("you cannot offboard yourself", error="self_offboard")
    if not user["active"]:
        raise Conflict(f"{user['id']} ({user['name']}) is already inactive", error="inactive_user")
    grants = ctx.rows.find(UserRole, ("role_id", "org_id"), user_id=user["id"])
    members = ctx.rows.find(GroupMember, ("group_id",), user_id=user["id"])
    incidents = ctx.rows.all(_OPEN_ASSIGNED, user_id=user["id"], statuses=list(OPEN_INCIDENT_STATUSES))
    for resource, records in (("user", grants), ("group", members), ("incident", incidents)):
        for org in sorted({r["org_id"] for r in records}):
            if not in_scope(ctx, org):  # which organization it is stays hidden
                raise Forbidden(
                    f"{user['id']} holds {resource} records in an organization outside your scope; "
                    "they cannot be offboarded by you"
                )
            require(ctx, resource, "crud", org)
    ctx.rows.change(SysUser, user, {"active": False})
    audit(ctx, "offboard_user", "update", SysUser, user, ["active"])
    for grant in grants:
        audit(ctx, "offboard_user", "delete", UserRole, grant, grant)
        ctx.rows.delete(UserRole, (grant["user_id"], grant["role_id"], grant["org_id"]))
    for member in members:
        audit(ctx, "offboard_user", "delete", GroupMember, member, member)
        ctx.rows.delete(GroupMember, (member["group_id"], member["user_id"]))
    for incident in incidents:
        ctx.rows.change(Incident, incident, {"assigned_to_id": None, "updated_at": ctx.timestamp})
        audit(ctx, "offboard_user", "update", Incident, incident, ["assigned_to_id", "updated_at"])
        note = {
            "org_id": incident["org_id"],
            "incident_id": incident["id"],
            "author_id": actor["id"],
            "note": f"Unassigned: the assignee {user['id']} ({user['name']}) was offboarded; "
            f"previous assignee {user['id']}.",
            "created_at": ctx.timestamp,
        }
        note = {"id": ctx.rows.insert(IncidentWorkNote, note), **note}
        audit(ctx, "offboard_user", "create", IncidentWorkNote, note, note)
    forget_grants(ctx)
    managed = ctx.rows.all(_GROUPS_MANAGED, user_id=user["id"], orgs=readable(ctx, "group"))
    owned = ctx.rows.all(_CIS_OWNED, user_id=user["id"], orgs=readable(ctx, "cmdb"))
    return {
        "user": _user_view(ctx, user),
        "roles_removed": [g["role_id"] for g in grants],
        "groups_removed": [m["group_id"] for m in members],
        "incidents_unassigned": [i["id"] for i in incidents],
        "still_manages_groups": [g["id"] for g in managed],
        "still_owns_configuration_items": [c["id"] for c in owned],
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
    if not user["active"]:
        raise Conflict(f"{user['id']} ({user['name']}) is not an active user", error="inactive_user")
    if not user["locked"]:
        raise Conflict(f"{user['id']} ({user['name']}) is not locked", error="not_locked")
    ctx.rows.change(SysUser, user, {"locked": False})
    audit(ctx, "unlock_user", "update", SysUser, user, ["locked"])
    return _user_view(ctx, user)
