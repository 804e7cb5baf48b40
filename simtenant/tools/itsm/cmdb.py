"""CMDB tools: configuration items (laptops, servers, applications, ...) and how they relate.

Serial numbers are unique (compared without regard to case). A CI is ``in_stock``, ``in_use``
(it then has an owner), ``in_maintenance`` or ``retired``: assigning an owner makes it in_use,
returning it to stock or retiring it clears the owner, and a retired CI is not changed again.
Relationships join two CIs of one organization, never a CI to itself, and never twice.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.itsm.cmdb import CI_CLASSES, CI_STATUSES, RELATIONS, CIRelationship, ConfigurationItem
from ...schema.itsm.identity import Location, SysUser
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    apply_updates,
    audit,
    find_one,
    get_in_scope,
    in_scope,
    listed_orgs,
    require,
    same_org,
    target_org,
)
from .identity import member_user, org_location

CiId = Annotated[str, Field(description="A configuration item id, e.g. CI-00001")]
CiClass = Literal[CI_CLASSES]  # type: ignore[valid-type]
CiStatus = Literal[CI_STATUSES]  # type: ignore[valid-type]
Relation = Literal[RELATIONS]  # type: ignore[valid-type]
SettableStatus = Literal["in_stock", "in_use", "in_maintenance"]
Cost = Annotated[float, Field(ge=0, allow_inf_nan=False, description="Purchase cost in dollars")]
SVC = "itsm.cmdb"

_CIS, _EDGES = ConfigurationItem.__table__, CIRelationship.__table__
_PARENTS, _CHILDREN = _CIS.alias("parent"), _CIS.alias("child")
_SERIAL_TAKEN = Statement.of(
    select(_CIS.c.id, _CIS.c.org_id, _CIS.c.name)
    .where(func.upper(_CIS.c.serial_number) == bindparam("serial"))
    .order_by(_CIS.c.id)
    .limit(1)
)
_CI_BY_SERIAL = Statement.of(
    select(_CIS)
    .where(func.upper(_CIS.c.serial_number) == bindparam("serial"), one_of(_CIS.c.org_id, "orgs"))
    .order_by(_CIS.c.id)
)
_CIS_LISTED = Filtered(
    select(_CIS).where(one_of(_CIS.c.org_id, "orgs")),
    (_CIS.c.id,),
    ci_class=_CIS.c.ci_class == bindparam("ci_class"),
    status=_CIS.c.status == bindparam("status"),
    owner_id=_CIS.c.owner_id == bindparam("owner_id"),
    location_id=_CIS.c.location_id == bindparam("location_id"),
    name=contains(_CIS.c.name, "name"),
)
_EDGE = Statement.of(
    select(_EDGES).where(
        _EDGES.c.parent_id == bindparam("parent_id"),
        _EDGES.c.child_id == bindparam("child_id"),
        _EDGES.c.kind == bindparam("kind"),
    )
)
_EDGES_OF = Statement.of(
    select(
        _EDGES.c.parent_id,
        _PARENTS.c.name.label("parent_name"),
        _EDGES.c.kind,
        _EDGES.c.child_id,
        _CHILDREN.c.name.label("child_name"),
    )
    .join(_PARENTS, _PARENTS.c.id == _EDGES.c.parent_id)
    .join(_CHILDREN, _CHILDREN.c.id == _EDGES.c.child_id)
    .where(or_(_EDGES.c.parent_id == bindparam("ci_id"), _EDGES.c.child_id == bindparam("ci_id")))
    .order_by(_EDGES.c.id)
)


def _ci(ctx: ToolContext, ci_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, ConfigurationItem, ci_id, "configuration item", "cmdb", action)


def _changeable(ctx: ToolContext, ci_id: str) -> Row:
    ci = _ci(ctx, ci_id, "crud")
    if ci["status"] == "retired":
        raise Conflict(f"{ci['id']} ({ci['name']}) is retired; it is not changed any more", error="illegal_transition")
    return ci


def _ci_view(ctx: ToolContext, ci: Row) -> dict[str, Any]:
    owner = ctx.rows.get(SysUser, ci["owner_id"]) if ci["owner_id"] else None
    location = ctx.rows.get(Location, ci["location_id"]) if ci["location_id"] else None
    return {
        **ci,
        "owner_name": owner["name"] if owner else None,
        "location_name": location["name"] if location else None,
    }


def _serial(ctx: ToolContext, serial: str, except_ci: str | None = None) -> str:
    """The serial number, if no other CI has it; 409 duplicate otherwise."""
    serial = serial.strip()
    taken = ctx.rows.one(_SERIAL_TAKEN, serial=serial.upper())
    if taken is not None and taken["id"] != except_ci:
        if not in_scope(ctx, taken["org_id"]):  # serials are unique across the tenant; whose it is stays hidden
            raise Conflict(f"serial number {serial} is already registered", error="duplicate")
        raise Conflict(
            f"serial number {serial} is already registered as {taken['id']} ({taken['name']})", error="duplicate"
        )
    return serial


def _edge(ctx: ToolContext, parent_id: str, child_id: str, kind: str) -> Row | None:
    """The relationship of this kind between the two CIs (either way round for connected_to)."""
    pairs = [(parent_id, child_id)] + ([(child_id, parent_id)] if kind == "connected_to" else [])
    for parent, child in pairs:
        found = ctx.rows.one(_EDGE, parent_id=parent, child_id=child, kind=kind)
        if found is not None:
            return found
    return None


@tool(SVC, "GET", "/itsm/cmdb/get")
def get_configuration_item(ctx: ToolContext, ci_id: CiId) -> Any:
    """Look up a configuration item: class, serial number, status, owner, location and cost."""
    return _ci_view(ctx, _ci(ctx, ci_id))


@tool(SVC, "GET", "/itsm/cmdb/by-serial")
def find_configuration_item_by_serial_number(
    ctx: ToolContext, serial_number: Annotated[Text, Field(description="The serial number (case does not matter)")]
) -> Any:
    """Find the configuration item with this serial number."""
    what = f"configuration item with serial number {serial_number!r}"
    return _ci_view(ctx, find_one(ctx, _CI_BY_SERIAL, what, "cmdb", serial=serial_number.upper()))


@tool(SVC, "GET", "/itsm/cmdb")
def list_configuration_items(
    ctx: ToolContext,
    ci_class: Annotated[CiClass | None, Field(description="Only CIs of this class")] = None,
    status: Annotated[CiStatus | None, Field(description="Only CIs with this status")] = None,
    owner_id: Annotated[str | None, Field(description="Only CIs owned by this user")] = None,
    location_id: Annotated[str | None, Field(description="Only CIs at this location")] = None,
    name: Annotated[str | None, Field(description="Only CIs whose name contains this text")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List configuration items, optionally filtered, by id."""
    return ctx.rows.page(
        _CIS_LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "cmdb", org_id),
        ci_class=ci_class,
        status=status,
        owner_id=owner_id,
        location_id=location_id,
        name=name,
    )


@tool(SVC, "POST", "/itsm/cmdb/register")
def register_configuration_item(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The CI's name, e.g. LT-BOS-0042")],
    ci_class: CiClass,
    serial_number: Annotated[Text | None, Field(description="Its serial number; unique")] = None,
    location_id: Annotated[str | None, Field(description="Where it is, e.g. LOC-001")] = None,
    owner_id: Annotated[str | None, Field(description="Who uses it (then it is in_use; else in_stock)")] = None,
    cost: Cost = 0.0,
    org_id: OrgId = None,
) -> Any:
    """Register a new configuration item in an organization's CMDB (yours by default); its location
    and owner must be of that organization (400 cross_organization)."""
    org = target_org(ctx, org_id)
    require(ctx, "cmdb", "crud", org)
    serial = _serial(ctx, serial_number) if serial_number is not None else None
    if location_id is not None:
        org_location(ctx, location_id, org)
    if owner_id is not None:
        member_user(ctx, owner_id, org, "owner")
    ci = {
        "id": ctx.rows.next_id(ConfigurationItem),
        "org_id": org,
        "name": name,
        "ci_class": ci_class,
        "serial_number": serial,
        "status": "in_use" if owner_id else "in_stock",
        "owner_id": owner_id,
        "location_id": location_id,
        "cost": float(cost),
    }
    ctx.rows.insert(ConfigurationItem, ci)
    audit(ctx, "register_configuration_item", "create", ConfigurationItem, ci, ci)
    return _ci_view(ctx, ci)


@tool(SVC, "POST", "/itsm/cmdb/update")
def update_configuration_item(
    ctx: ToolContext,
    ci_id: CiId,
    name: Annotated[Text | None, Field(description="New name")] = None,
    serial_number: Annotated[Text | None, Field(description="New serial number; unique")] = None,
    location_id: Annotated[str | None, Field(description="New location id")] = None,
    cost: Annotated[Cost | None, Field(description="New cost in dollars")] = None,
    status: Annotated[
        SettableStatus | None,
        Field(description="in_stock (clears the owner), in_use (needs an owner) or in_maintenance"),
    ] = None,
) -> Any:
    """Change a configuration item's fields (only those given). Use assign_configuration_item to give it
    an owner and retire_configuration_item to retire it."""
    ci = _changeable(ctx, ci_id)
    updates: dict[str, Any] = {
        k: v
        for k, v in {"name": name, "location_id": location_id, "cost": cost, "status": status}.items()
        if v is not None
    }
    if serial_number is not None:
        updates["serial_number"] = _serial(ctx, serial_number, except_ci=ci["id"])
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if location_id is not None:
        org_location(ctx, location_id, ci["org_id"])
    if status == "in_use" and ci["owner_id"] is None:
        raise Conflict(f"{ci['id']} has no owner: use assign_configuration_item", error="no_owner")
    if status == "in_stock":
        updates["owner_id"] = None
    if cost is not None:
        updates["cost"] = float(cost)
    changed = apply_updates(ctx, ConfigurationItem, ci, updates, updates)
    if changed:
        audit(ctx, "update_configuration_item", "update", ConfigurationItem, ci, changed)
    return {**_ci_view(ctx, ci), "changed": sorted(changed)}


@tool(SVC, "POST", "/itsm/cmdb/assign")
def assign_configuration_item(
    ctx: ToolContext,
    ci_id: CiId,
    owner_id: Annotated[str, Field(description="The user who will use it")],
    location_id: Annotated[str | None, Field(description="Where it will be, if that changes")] = None,
) -> Any:
    """Assign a configuration item to an active user; it becomes in_use."""
    ci = _changeable(ctx, ci_id)
    member_user(ctx, owner_id, ci["org_id"], "owner")
    updates: dict[str, Any] = {"owner_id": owner_id, "status": "in_use"}
    if location_id is not None:
        org_location(ctx, location_id, ci["org_id"])
        updates["location_id"] = location_id
    changed = apply_updates(ctx, ConfigurationItem, ci, updates, updates)
    if changed:
        audit(ctx, "assign_configuration_item", "update", ConfigurationItem, ci, changed)
    return {**_ci_view(ctx, ci), "changed": sorted(changed)}


@tool(SVC, "POST", "/itsm/cmdb/retire")
def retire_configuration_item(ctx: ToolContext, ci_id: CiId) -> Any:
    """Retire a configuration item: its status becomes retired and its owner is cleared."""
    ci = _changeable(ctx, ci_id)
    changed = apply_updates(ctx, ConfigurationItem, ci, {"status": "retired", "owner_id": None}, ["status", "owner_id"])
    audit(ctx, "retire_configuration_item", "update", ConfigurationItem, ci, changed)
    return {**_ci_view(ctx, ci), "changed": sorted(changed)}


@tool(SVC, "GET", "/itsm/cmdb/relationships")
def list_ci_relationships(ctx: ToolContext, ci_id: CiId) -> Any:
    """List a CI's relationships both ways: what it depends on / runs on / connects to, and the reverse."""
    ci = _ci(ctx, ci_id)
    return {"ci_id": ci["id"], "relationships": ctx.rows.all(_EDGES_OF, ci_id=ci["id"])}


@tool(SVC, "POST", "/itsm/cmdb/relationships/add")
def add_ci_relationship(
    ctx: ToolContext,
    parent_id: Annotated[str, Field(description="The CI that depends on / runs on / connects to the child")],
    child_id: Annotated[str, Field(description="The other CI")],
    kind: Annotated[Relation, Field(description="depends_on, runs_on or connected_to")],
) -> Any:
    """Record that one CI depends on, runs on, or is connected to another of the same organization
    (400 cross_organization otherwise)."""
    if parent_id == child_id:
        raise InvalidArgument("a CI cannot be related to itself", error="invalid_value")
    parent = _ci(ctx, parent_id, "crud")
    child = same_org(parent["org_id"], ConfigurationItem, _ci(ctx, child_id), "configuration item")
    existing = _edge(ctx, parent["id"], child["id"], kind)
    if existing is not None:
        raise Conflict(f"{existing['parent_id']} {kind} {existing['child_id']} is already recorded", error="duplicate")
    edge = {"org_id": parent["org_id"], "parent_id": parent["id"], "child_id": child["id"], "kind": kind}
    edge = {"id": ctx.rows.insert(CIRelationship, edge), **edge}
    audit(ctx, "add_ci_relationship", "create", CIRelationship, edge, edge)
    return edge


@tool(SVC, "POST", "/itsm/cmdb/relationships/remove")
def remove_ci_relationship(
    ctx: ToolContext,
    parent_id: Annotated[str, Field(description="The relationship's parent CI")],
    child_id: Annotated[str, Field(description="The relationship's child CI")],
    kind: Relation,
) -> Any:
    """Remove a relationship between two CIs."""
    parent = _ci(ctx, parent_id, "crud")
    edge = _edge(ctx, parent["id"], child_id, kind)
    if edge is None:
        raise NotFound(f"no {kind} relationship between {parent['id']} and {child_id!r}")
    audit(ctx, "remove_ci_relationship", "delete", CIRelationship, edge, edge)
    ctx.rows.delete(CIRelationship, edge["id"])
    return {"removed": edge}
