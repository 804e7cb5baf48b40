"""Service tools: business services and their offerings, the service catalog, and catalog
requests with their approval flow.

A request starts ``submitted``. An item that needs approval is approved (or rejected) by a
manager before it may be fulfilled; other items are fulfilled directly. Submitted or approved
requests may be cancelled. Fulfilled, rejected and cancelled requests are final.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Boolean, bindparam, func, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.identity import UserGroup
from ...schema.itsm.incidents import Incident, IncidentTemplate
from ...schema.itsm.services import (
    CRITICALITIES,
    REQUEST_STATUSES,
    SERVICE_STATUSES,
    CatalogItem,
    CatalogRequest,
    Service,
    ServiceOffering,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    apply_updates,
    audit,
    filled,
    find_one,
    get_in_scope,
    listed_orgs,
    related,
    require,
    require_role,
    target_org,
)
from .identity import member_user, org_group

ServiceId = Annotated[str, Field(description="A service id, e.g. SVC-001")]
ItemId = Annotated[str, Field(description="A catalog item id, e.g. CAT-001")]
RequestId = Annotated[str, Field(description="A catalog request number, e.g. REQ0000401")]
ServiceStatus = Literal[SERVICE_STATUSES]  # type: ignore[valid-type]
NewServiceStatus = Literal["operational", "degraded", "outage"]
Criticality = Literal[CRITICALITIES]  # type: ignore[valid-type]
RequestStatus = Literal[REQUEST_STATUSES]  # type: ignore[valid-type]
OPEN = ("submitted", "approved")
OPEN_INCIDENTS = ("new", "in_progress", "on_hold")
SVC = "itsm.services"

_SERVICES, _OFFERINGS = Service.__table__, ServiceOffering.__table__
_ITEMS, _REQUESTS = CatalogItem.__table__, CatalogRequest.__table__
_SERVICES_LISTED = Filtered(
    select(_SERVICES).where(one_of(_SERVICES.c.org_id, "orgs")),
    (_SERVICES.c.id,),
    status=_SERVICES.c.status == bindparam("status"),
    criticality=_SERVICES.c.criticality == bindparam("criticality"),
)
_SERVICE_NAME_TAKEN = Statement.of(
    select(_SERVICES.c.id)
    .where(_SERVICES.c.org_id == bindparam("org_id"), func.lower(_SERVICES.c.name) == bindparam("name"))
    .order_by(_SERVICES.c.id)
    .limit(1)
)
_INCIDENTS, _TEMPLATES = Incident.__table__, IncidentTemplate.__table__
_OPEN_ON_SERVICE = Statement.of(
    select(_INCIDENTS.c.id)
    .where(
        _INCIDENTS.c.service_id == bindparam("service_id"), _INCIDENTS.c.status.in_(("new", "in_progress", "on_hold"))
    )
    .order_by(_INCIDENTS.c.id)
)
_OPEN_ON_OFFERING = Statement.of(
    select(_INCIDENTS.c.id, _INCIDENTS.c.org_id, _INCIDENTS.c.service_id, _INCIDENTS.c.updated_at)
    .where(_INCIDENTS.c.offering_id == bindparam("offering_id"), _INCIDENTS.c.status.in_(OPEN_INCIDENTS))
    .order_by(_INCIDENTS.c.id)
)
_TEMPLATES_ON_SERVICE = Statement.of(
    select(_TEMPLATES.c.id)
    .where(_TEMPLATES.c.service_id == bindparam("service_id"), _TEMPLATES.c.active.is_(True))
    .order_by(_TEMPLATES.c.id)
)
_SERVICE_NAMED = Statement.of(
    select(_SERVICES)
    .where(func.lower(_SERVICES.c.name) == bindparam("name"), one_of(_SERVICES.c.org_id, "orgs"))
    .order_by(_SERVICES.c.id)
)
_OFFERINGS_LISTED = Filtered(
    select(_OFFERINGS).where(one_of(_OFFERINGS.c.org_id, "orgs")),
    (_OFFERINGS.c.id,),
    service_id=_OFFERINGS.c.service_id == bindparam("service_id"),
)
_ITEMS_LISTED = Filtered(
    select(_ITEMS).where(one_of(_ITEMS.c.org_id, "orgs")),
    (_ITEMS.c.id,),
    category=func.lower(_ITEMS.c.category) == bindparam("category"),
    active=_ITEMS.c.active.is_(bindparam("active", type_=Boolean)),
)
_REQUESTS_LISTED = Filtered(
    select(_REQUESTS).where(one_of(_REQUESTS.c.org_id, "orgs")),
    (_REQUESTS.c.id,),
    status=_REQUESTS.c.status == bindparam("status"),
    requested_for_id=_REQUESTS.c.requested_for_id == bindparam("requested_for_id"),
    requested_by_id=_REQUESTS.c.requested_by_id == bindparam("requested_by_id"),
    item_id=_REQUESTS.c.item_id == bindparam("item_id"),
)


def _request(ctx: ToolContext, request_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, CatalogRequest, request_id, "request", "request", action)


def _needs_approval(ctx: ToolContext, request: Row) -> bool:
    return ctx.rows.need(CatalogItem, request["item_id"])["needs_approval"]


def _request_view(ctx: ToolContext, request: Row) -> dict[str, Any]:
    item = ctx.rows.need(CatalogItem, request["item_id"])
    return {**request, "item_name": item["name"], "needs_approval": item["needs_approval"]}


def _move(ctx: ToolContext, name: str, request: Row, status: str, note: str | None) -> dict[str, Any]:
    """Set the request's status (and append ``note`` to its notes), with its audit entry."""
    updates: dict[str, Any] = {"status": status, "updated_at": ctx.timestamp}
    if note:
        updates["notes"] = f"{request['notes']}\n{note}" if request["notes"] else note
    changed = apply_updates(ctx, CatalogRequest, request, updates, updates)
    audit(ctx, name, "update", CatalogRequest, request, changed)
    return _request_view(ctx, request)


def _decidable(ctx: ToolContext, request_id: str, verb: str) -> Row:
    """A submitted request for an item that needs approval, decided by a manager."""
    request = _request(ctx, request_id, "crud")
    require_role(ctx, "manager", request["org_id"])
    if request["status"] != "submitted":
        raise Conflict(
            f"request {request['id']} is {request['status']}; only submitted ones are {verb}",
            error="illegal_transition",
        )
    if not _needs_approval(ctx, request):
        raise Conflict(
            f"request {request['id']}'s item needs no approval: fulfil it directly", error="approval_not_required"
        )
    return request


# --- services -----------------------------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/services")
def list_services(
    ctx: ToolContext,
    status: Annotated[ServiceStatus | None, Field(description="Only services with this status")] = None,
    criticality: Annotated[Criticality | None, Field(description="Only services of this criticality")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the business services (Email, VPN, ...) with their status, criticality and owner group."""
    orgs = listed_orgs(ctx, "service", org_id)
    return ctx.rows.page(_SERVICES_LISTED, page, per_page, orgs=orgs, status=status, criticality=criticality)


@tool(SVC, "GET", "/itsm/services/by-name")
def get_service_by_name(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The service's name (case does not matter)")],
    org_id: InOrg = None,
) -> Any:
    """Look up a service by name (names repeat across organizations: give org_id to pick one), with
    its status, owner group and offerings."""
    service = find_one(ctx, _SERVICE_NAMED, f"service named {name!r}", "service", org_id, name=name.lower())
    group = ctx.rows.get(UserGroup, service["owner_group_id"]) if service["owner_group_id"] else None
    offerings = ctx.rows.find(ServiceOffering, ("id",), service_id=service["id"])
    return {
        **service,
        "owner_group_name": group["name"] if group else None,
        "offerings": [{"id": o["id"], "name": o["name"]} for o in offerings],
    }


@tool(SVC, "GET", "/itsm/services/offerings")
def list_service_offerings(
    ctx: ToolContext,
    service_id: Annotated[str | None, Field(description="Only the offerings of this service")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List service offerings (the variants of a service users consume)."""
    orgs = listed_orgs(ctx, "service", org_id)
    return ctx.rows.page(_OFFERINGS_LISTED, page, per_page, orgs=orgs, service_id=service_id)


def live_service(service: Row) -> Row:
    """``service`` unless it is retired (409 record_closed: retiring is final)."""
    if service["status"] == "retired":
        raise Conflict(
            f"service {service['id']} ({service['name']}) is retired: retiring is final, it takes no more changes",
            error="record_closed",
        )
    return service


def _service_name(ctx: ToolContext, org_id: str, name: str, except_id: str | None = None) -> str:
    taken = ctx.rows.value(_SERVICE_NAME_TAKEN, org_id=org_id, name=name.lower())
    if taken is not None and taken != except_id:
        raise Conflict(f"{org_id} already has a service named {name!r}: {taken}", error="duplicate")
    return name


@tool(SVC, "POST", "/itsm/services/status")
def update_service_status(ctx: ToolContext, service_id: ServiceId, status: ServiceStatus) -> Any:
    """Set a service's status: operational, degraded, outage or retired. Retiring is final, and is
    refused while open incidents or active incident templates still name the service (409 in_use:
    move them to the service that replaces it first)."""
    service = live_service(get_in_scope(ctx, Service, service_id, "service", "service", "crud"))
    if status == "retired":
        incidents = [r["id"] for r in ctx.rows.all(_OPEN_ON_SERVICE, service_id=service["id"])]
        templates = [r["id"] for r in ctx.rows.all(_TEMPLATES_ON_SERVICE, service_id=service["id"])]
        if incidents or templates:
            named = ", ".join(incidents + templates)
            raise Conflict(
                f"service {service['id']} ({service['name']}) is still named by open incidents or active templates "
                f"({named}): move them to another service before retiring it",
                error="in_use",
            )
    changed = apply_updates(ctx, Service, service, {"status": status}, ["status"])
    if changed:
        audit(ctx, "update_service_status", "update", Service, service, changed)
    return {**service, "changed": changed}


@tool(SVC, "POST", "/itsm/services/create")
def create_service(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The service's name, unique within the organization")],
    owner_group_id: Annotated[
        str | None, Field(description="The active group that owns the service and works its incidents")
    ] = None,
    description: Annotated[Text | None, Field(description="What the service is and who uses it")] = None,
    criticality: Annotated[Criticality, Field(description="How much the business depends on it")] = "medium",
    status: Annotated[NewServiceStatus, Field(description="Its status to begin with")] = "operational",
    org_id: OrgId = None,
) -> Any:
    """Create a business service in an organization (yours by default; a client's org_id for a client's
    service). Needs change rights on services there (managers); the name must be new in that organization
    (409 duplicate) and the owner group an active group of it."""
    org = target_org(ctx, org_id)
    require(ctx, "service", "crud", org)
    _service_name(ctx, org, name)
    if owner_group_id is not None:
        org_group(ctx, owner_group_id, org, "owner group")
    service = {
        "id": ctx.rows.next_id(Service),
        "org_id": org,
        "name": name,
        "owner_group_id": owner_group_id,
        "status": status,
        "description": description,
        "criticality": criticality,
    }
    ctx.rows.insert(Service, service)
    audit(ctx, "create_service", "create", Service, service, filled(service))
    return service


@tool(SVC, "POST", "/itsm/services/update")
def update_service(
    ctx: ToolContext,
    service_id: ServiceId,
    name: Annotated[Text | None, Field(description="New name, unique within the organization")] = None,
    owner_group_id: Annotated[str | None, Field(description="New owner group (an active group)")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    criticality: Annotated[Criticality | None, Field(description="New criticality")] = None,
) -> Any:
    """Change a service's name, owner group, description or criticality (only the fields given; its
    status: update_service_status). A retired service takes no changes (409 record_closed)."""
    service = live_service(get_in_scope(ctx, Service, service_id, "service", "service", "crud"))
    updates = {
        k: v
        for k, v in {
            "name": name,
            "owner_group_id": owner_group_id,
            "description": description,
            "criticality": criticality,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if name is not None:
        _service_name(ctx, service["org_id"], name, except_id=service["id"])
    if owner_group_id is not None and owner_group_id != service["owner_group_id"]:
        org_group(ctx, owner_group_id, service["org_id"], "owner group")
    changed = apply_updates(ctx, Service, service, updates, updates)
    if changed:
        audit(ctx, "update_service", "update", Service, service, changed)
    return {**service, "changed": changed}


@tool(SVC, "POST", "/itsm/services/offerings/update")
def update_service_offering(
    ctx: ToolContext,
    offering_id: Annotated[str, Field(description="A service offering id, e.g. OFR-009")],
    service_id: Annotated[
        str | None, Field(description="The service it moves to (of the same organization, not retired)")
    ] = None,
    name: Annotated[Text | None, Field(description="New name")] = None,
) -> Any:
    """Rename a service offering, or move it to another service of its organization (a successor
    service taking it over). Its open incidents move with it: each gets the new service (their audit
    entries show it); closed ones keep their history. Needs change rights on services."""
    offering = get_in_scope(ctx, ServiceOffering, offering_id, "service offering", "service", "crud")
    if service_id is None and name is None:
        raise InvalidArgument("give the service it moves to, or a new name", error="missing_field")
    updates: dict[str, Any] = {"name": name} if name is not None else {}
    moved: list[str] = []
    if service_id is not None and service_id != offering["service_id"]:
        target = live_service(related(ctx, Service, service_id, "service", offering["org_id"]))
        updates["service_id"] = target["id"]
        for incident in ctx.rows.all(_OPEN_ON_OFFERING, offering_id=offering["id"]):
            ctx.rows.change(Incident, incident, {"service_id": target["id"], "updated_at": ctx.timestamp})
            audit(ctx, "update_service_offering", "update", Incident, incident, ["service_id", "updated_at"])
            moved.append(incident["id"])
    changed = apply_updates(ctx, ServiceOffering, offering, updates, updates)
    if changed:
        audit(ctx, "update_service_offering", "update", ServiceOffering, offering, changed)
    return {**offering, "changed": changed, "incidents_moved": moved}


# --- the catalog --------------------------------------------------------------------------------------


@tool(SVC, "GET", "/itsm/catalog")
def list_catalog_items(
    ctx: ToolContext,
    category: Annotated[str | None, Field(description="Only items of this category (e.g. hardware)")] = None,
    active: Annotated[bool | None, Field(description="Only items that can (true) or cannot (false) be ordered")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List the service catalog: what users can request, its price, and whether it needs approval."""
    return ctx.rows.page(
        _ITEMS_LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "catalog", org_id),
        category=None if category is None else category.lower(),
        active=active,
    )


@tool(SVC, "GET", "/itsm/catalog/get")
def get_catalog_item(ctx: ToolContext, item_id: ItemId) -> Any:
    """Look up one catalog item by id."""
    return get_in_scope(ctx, CatalogItem, item_id, "catalog item", "catalog")


@tool(SVC, "POST", "/itsm/requests/create")
def request_catalog_item(
    ctx: ToolContext,
    item_id: ItemId,
    requested_for_id: Annotated[str, Field(description="The user the item is for (user id)")],
    quantity: Annotated[int, Field(ge=1, description="How many (at least 1)")] = 1,
    notes: Annotated[Text | None, Field(description="Anything the fulfilment group should know")] = None,
) -> Any:
    """Request a catalog item for a user. Items that need approval wait for a manager's approve_request;
    others can be fulfilled at once."""
    item = get_in_scope(ctx, CatalogItem, item_id, "catalog item", "catalog")
    actor = require(ctx, "request", "crud", item["org_id"])
    if not item["active"]:
        raise Conflict(f"catalog item {item['id']} ({item['name']}) is not offered any more", error="inactive_item")
    member_user(ctx, requested_for_id, item["org_id"], "requested_for user")
    request = {
        "id": ctx.rows.next_id(CatalogRequest),
        "org_id": item["org_id"],
        "item_id": item["id"],
        "requested_for_id": requested_for_id,
        "requested_by_id": actor["id"],
        "quantity": quantity,
        "status": "submitted",
        "notes": notes,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(CatalogRequest, request)
    audit(ctx, "request_catalog_item", "create", CatalogRequest, request, request)
    return _request_view(ctx, request)


@tool(SVC, "POST", "/itsm/requests/approve")
def approve_request(
    ctx: ToolContext,
    request_id: RequestId,
    comments: Annotated[Text | None, Field(description="Optional approval comments")] = None,
) -> Any:
    """Approve a submitted request for an item that needs approval (managers only)."""
    request = _decidable(ctx, request_id, "approved")
    return _move(ctx, "approve_request", request, "approved", comments and f"Approved: {comments}")


@tool(SVC, "POST", "/itsm/requests/reject")
def reject_request(
    ctx: ToolContext, request_id: RequestId, reason: Annotated[Text, Field(description="Why it is rejected")]
) -> Any:
    """Reject a submitted request for an item that needs approval (managers only)."""
    request = _decidable(ctx, request_id, "rejected")
    return _move(ctx, "reject_request", request, "rejected", f"Rejected: {reason}")


@tool(SVC, "POST", "/itsm/requests/fulfil")
def fulfil_request(
    ctx: ToolContext,
    request_id: RequestId,
    notes: Annotated[Text | None, Field(description="Optional fulfilment notes")] = None,
) -> Any:
    """Mark a request fulfilled: an approved one, or a submitted one whose item needs no approval."""
    request = _request(ctx, request_id, "crud")
    if request["status"] not in OPEN:
        raise Conflict(
            f"request {request['id']} is {request['status']}; it cannot be fulfilled", error="illegal_transition"
        )
    if request["status"] == "submitted" and _needs_approval(ctx, request):
        raise Conflict(f"request {request['id']} needs a manager's approval first", error="not_approved")
    return _move(ctx, "fulfil_request", request, "fulfilled", notes and f"Fulfilled: {notes}")


@tool(SVC, "POST", "/itsm/requests/cancel")
def cancel_request(
    ctx: ToolContext, request_id: RequestId, reason: Annotated[Text, Field(description="Why it is cancelled")]
) -> Any:
    """Cancel a submitted or approved request."""
    request = _request(ctx, request_id, "crud")
    if request["status"] not in OPEN:
        raise Conflict(
            f"request {request['id']} is {request['status']}; it cannot be cancelled", error="illegal_transition"
        )
    return _move(ctx, "cancel_request", request, "cancelled", f"Cancelled: {reason}")


@tool(SVC, "GET", "/itsm/requests/get")
def get_request(ctx: ToolContext, request_id: RequestId) -> Any:
    """Look up a catalog request by number: item, for whom, by whom, quantity, status and notes."""
    return _request_view(ctx, _request(ctx, request_id))


@tool(SVC, "GET", "/itsm/requests")
def list_requests(
    ctx: ToolContext,
    status: Annotated[RequestStatus | None, Field(description="Only requests with this status")] = None,
    requested_for_id: Annotated[str | None, Field(description="Only requests for this user")] = None,
    requested_by_id: Annotated[str | None, Field(description="Only requests made by this user")] = None,
    item_id: Annotated[str | None, Field(description="Only requests for this catalog item")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List catalog requests, optionally filtered, by number."""
    return ctx.rows.page(
        _REQUESTS_LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "request", org_id),
        status=status,
        requested_for_id=requested_for_id,
        requested_by_id=requested_by_id,
        item_id=item_id,
    )
