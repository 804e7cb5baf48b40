"""Location tools: opening a site (a new location of an organization), changing its details, and
closing it (inactive) once nobody and nothing is left there.

Locations are changed by those with change rights on locations in the organization (managers and
admins; agents and reporters only read them). A site's name is unique within its organization. A
closed site keeps its history (users and devices that were there), but nobody is placed there and no
device is registered or moved there any more (409 inactive_location, in the user and CMDB tools).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import Location, SysUser
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Row, Statement
from .common import OrgId, apply_updates, audit, filled, get_in_scope, require, target_org
from .identity import SVC, LocationId

_LOCATIONS, _USERS, _CIS = Location.__table__, SysUser.__table__, ConfigurationItem.__table__
_NAME_TAKEN = Statement.of(
    select(_LOCATIONS.c.id, _LOCATIONS.c.name)
    .where(_LOCATIONS.c.org_id == bindparam("org_id"), func.lower(_LOCATIONS.c.name) == bindparam("name"))
    .order_by(_LOCATIONS.c.id)
    .limit(1)
)
_PEOPLE_THERE = Statement.of(
    select(_USERS.c.id)
    .where(_USERS.c.location_id == bindparam("location_id"), _USERS.c.active.is_(True))
    .order_by(_USERS.c.id)
)
_DEVICES_THERE = Statement.of(
    select(_CIS.c.id)
    .where(_CIS.c.location_id == bindparam("location_id"), _CIS.c.status != "retired")
    .order_by(_CIS.c.id)
)


def _unique_name(ctx: ToolContext, org_id: str, name: str, except_id: str | None = None) -> str:
    taken = ctx.rows.one(_NAME_TAKEN, org_id=org_id, name=name.lower())
    if taken is not None and taken["id"] != except_id:
        raise Conflict(f"{org_id} already has a location named {name!r}: {taken['id']}", error="duplicate")
    return name


def _still_there(ctx: ToolContext, location: Row) -> None:
    """Refuse to close a site while active users are based there or devices (not retired) are there."""
    people = [r["id"] for r in ctx.rows.all(_PEOPLE_THERE, location_id=location["id"])]
    devices = [r["id"] for r in ctx.rows.all(_DEVICES_THERE, location_id=location["id"])]
    if people or devices:
        parts = []
        if people:
            parts.append(f"{len(people)} active user(s) ({', '.join(people)})")
        if devices:
            parts.append(f"{len(devices)} configuration item(s) not retired ({', '.join(devices)})")
        raise Conflict(
            f"location {location['id']} ({location['name']}) still has {' and '.join(parts)}: move them first",
            error="in_use",
        )


@tool(SVC, "POST", "/itsm/locations/create")
def create_location(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The site's name, unique within the organization, e.g. Salem clinic")],
    city: Annotated[Text, Field(description="City")],
    country: Annotated[Text, Field(description="Country, e.g. United States")],
    address: Annotated[Text | None, Field(description="Street address, e.g. 410 Commercial St NE")] = None,
    org_id: OrgId = None,
) -> Any:
    """Create a location (a new office or site) in an organization (yours by default; give a client's
    org_id to open a site for that client). It opens active, so people and devices can be placed there.
    Needs change rights on locations there (managers); its name must be new in that organization (409
    duplicate)."""
    org = target_org(ctx, org_id)
    require(ctx, "location", "crud", org)
    _unique_name(ctx, org, name)
    location = {
        "id": ctx.rows.next_id(Location),
        "org_id": org,
        "name": name,
        "city": city,
        "country": country,
        "address": address,
        "active": True,
    }
    ctx.rows.insert(Location, location)
    audit(ctx, "create_location", "create", Location, location, filled(location))
    return location


@tool(SVC, "POST", "/itsm/locations/update")
def update_location(
    ctx: ToolContext,
    location_id: LocationId,
    name: Annotated[Text | None, Field(description="New name, unique within the organization")] = None,
    city: Annotated[Text | None, Field(description="New city")] = None,
    country: Annotated[Text | None, Field(description="New country")] = None,
    address: Annotated[Text | None, Field(description="New street address")] = None,
    active: Annotated[
        bool | None,
        Field(description="false closes the site (only once no active user or device is left there); true reopens it"),
    ] = None,
) -> Any:
    """Change a location's details (only the fields given), or close or reopen it. A site is closed
    (active false) only when no active user is based there and no configuration item other than a retired
    one is there (409 in_use: move them first); a closed site takes nobody and nothing new."""
    location = get_in_scope(ctx, Location, location_id, "location", "location", "crud")
    updates = {
        k: v
        for k, v in {"name": name, "city": city, "country": country, "address": address, "active": active}.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if name is not None:
        _unique_name(ctx, location["org_id"], name, except_id=location["id"])
    if active is False and location["active"]:
        _still_there(ctx, location)
    changed = apply_updates(ctx, Location, location, updates, updates)
    if changed:
        audit(ctx, "update_location", "update", Location, location, changed)
    return {**location, "changed": changed}
