"""Shipping tools: carriers and their contract rates, rate quotes, shipments (labels for shop orders,
replacements, returns and ad-hoc parcels), voiding a label, tracking, and claims for lost or damaged
shipments. Buying a label for a shop order marks it fulfilled; voiding it undoes that."""

from __future__ import annotations

import hashlib
import re
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.automation.shipping import (
    CARRIER_STATUSES,
    CLAIM_KINDS,
    CLAIM_STATUSES,
    CLAIM_WINDOW_DAYS,
    SERVICES,
    SHIPMENT_STATUSES,
    WAREHOUSE,
    ShipCarrier,
    ShipClaim,
    ShipPackage,
    ShipService,
    ShipShipment,
    ShipTrackingEvent,
)
from ...schema.automation.store import StoreCustomer, StoreOrder, StoreOrderLine, StoreReturn, StoreVariant
from ..engine.dispatch import ToolContext
from ..engine.money import cents
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Page, PerPage, me, update_given
from .store import order_of, restock_units

SERVICE = "automation.shipping"
LOOSE_LB = 20.0  # units lighter than this are boxed together per order line; heavier ones one box each
ACTIVE_SHIPMENT = ("label_created", "in_transit", "out_for_delivery", "delivered", "exception")
REPLACEABLE = ("exception", "returned_to_sender")

CarrierId = Annotated[str, Field(description="A carrier id, e.g. CAR-01")]
ShipmentId = Annotated[str, Field(description="A shipment id, e.g. SHP-00012")]
Service = Literal[SERVICES]  # type: ignore[valid-type]
ShipmentStatus = Literal[SHIPMENT_STATUSES]  # type: ignore[valid-type]
Address = Annotated[
    str,
    Field(
        min_length=10,
        max_length=300,
        description="A US delivery address ending 'City, ST 12345', e.g. '88 SE Alder St, Portland, OR 97214'",
    ),
]
_STATE = re.compile(r",\s*([A-Z]{2})\s+(\d{5})(?:-\d{4})?\s*$")

_SHIPMENTS, _CARRIERS, _CLAIMS = ShipShipment.__table__, ShipCarrier.__table__, ShipClaim.__table__
SHIPMENTS = Filtered(
    select(_SHIPMENTS, _CARRIERS.c.name.label("carrier")).join(_CARRIERS, _CARRIERS.c.id == _SHIPMENTS.c.carrier_id),
    (_SHIPMENTS.c.created_at.desc(), _SHIPMENTS.c.id.desc()),
    order_id=_SHIPMENTS.c.order_id == bindparam("order_id"),
    status=_SHIPMENTS.c.status == bindparam("status"),
    carrier_id=_SHIPMENTS.c.carrier_id == bindparam("carrier_id"),
    direction=_SHIPMENTS.c.direction == bindparam("direction"),
    query=or_(
        contains(_SHIPMENTS.c.recipient_name, "query"),
        contains(_SHIPMENTS.c.address, "query"),
        contains(_SHIPMENTS.c.tracking_number, "query"),
        contains(_SHIPMENTS.c.reference, "query"),
    ),
)
CLAIMS = Filtered(
    select(_CLAIMS),
    (_CLAIMS.c.created_at.desc(), _CLAIMS.c.id.desc()),
    status=_CLAIMS.c.status == bindparam("status"),
    shipment_id=_CLAIMS.c.shipment_id == bindparam("shipment_id"),
)
BY_TRACKING = Statement.of(
    select(_SHIPMENTS).where(func.upper(_SHIPMENTS.c.tracking_number) == bindparam("tracking_number"))
)
TRACKING_TAKEN = Statement.of(select(_SHIPMENTS.c.id).where(_SHIPMENTS.c.tracking_number == bindparam("number")))
SHIPMENTS_OF_ORDER = Statement.of(
    select(_SHIPMENTS).where(_SHIPMENTS.c.order_id == bindparam("order_id")).order_by(_SHIPMENTS.c.id)
)
CARRIERS = Statement.of(select(_CARRIERS).order_by(_CARRIERS.c.id))
SHIPMENTS_TO_ZIP = Statement.of(  # labels without an order already bought to a ZIP code (bound as "% 97214")
    select(func.count().label("n")).where(
        _SHIPMENTS.c.order_id.is_(None), _SHIPMENTS.c.address.like(bindparam("pattern"))
    )
)


class PackageInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    weight_lb: float = Field(gt=0, le=5_000, allow_inf_nan=False, description="Packed weight, lb")
    contents: Text = Field(max_length=200, description="What is in it, e.g. '1 x LP-LNG-TK sample chair'")


def state_of(address: str) -> str:
    """The two-letter state an address ends with ('..., Portland, OR 97214' -> 'OR')."""
    found = _STATE.search(address)
    if found is None:
        raise InvalidArgument(
            f"address {address!r} must end with 'City, ST 12345' (a US state and ZIP code)", error="bad_address"
        )
    return found.group(1)


def zip_of(address: str) -> str:
    state_of(address)
    return _STATE.search(address).group(2)  # type: ignore[union-attr]


def tracking_number(code: str, key: str) -> str:
    """A carrier's tracking number for a label: its code and ten digits drawn from what the label is for
    (an order's, a return's, or a parcel's ZIP code, the service and how many labels went before it there),
    not from how the address is written nor what else was bought before it."""
    digits = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10**10
    return f"{code}{digits:010d}"


def order_packages(ctx: ToolContext, order_id: str, quantities: dict[str, int] | None = None) -> list[dict]:
    """The boxes of an order (or of ``quantities`` of its lines, by line id): each unit of 20 lb or more
    in a box of its own, the lighter units of a line together in one box."""
    boxes = []
    for line in ctx.rows.find(StoreOrderLine, ("id",), order_id=order_id):
        units = line["quantity"] if quantities is None else quantities.get(line["id"], 0)
        if units <= 0:
            continue
        weight = ctx.rows.need(StoreVariant, line["variant_id"], "variant")["weight_lb"]
        if weight >= LOOSE_LB:
            boxes += [{"weight_lb": weight, "contents": f"1 x {line['sku']}"} for _ in range(units)]
        else:
            boxes.append({"weight_lb": round(weight * units, 2), "contents": f"{units} x {line['sku']}"})
    return boxes


def _services(ctx: ToolContext, carrier_id: str) -> list[Row]:
    return ctx.rows.find(ShipService, ("service",), carrier_id=carrier_id)


def _quote(carrier: Row, service: Row, weights: list[float], state: str, today: str) -> dict[str, Any] | None:
    """What ``carrier``'s ``service`` charges for these boxes to ``state`` (None when it cannot take them)."""
    if carrier["status"] != "active":
        return None
    regions = {r.strip() for r in carrier["regions"].split(",") if r.strip()}
    if regions and state not in regions:
        return None
    if carrier["mode"] == "parcel" and max(weights) > carrier["max_package_lb"]:
        return None
    total = round(sum(weights), 2)
    cost = round(service["base_rate"] + service["per_lb"] * total, 2)
    arrives = date.fromisoformat(today) + timedelta(days=service["transit_days"])
    return {
        "carrier_id": carrier["id"],
        "carrier": carrier["name"],
        "service": service["service"],
        "cost": cost,
        "transit_days": service["transit_days"],
        "estimated_delivery": arrives.isoformat(),
        "total_weight_lb": total,
    }


def _why_not(carrier: Row, weights: list[float], state: str) -> str:
    if carrier["status"] != "active":
        return f"carrier {carrier['id']} ({carrier['name']}) is inactive"
    regions = {r.strip() for r in carrier["regions"].split(",") if r.strip()}
    if regions and state not in regions:
        return f"{carrier['name']} does not deliver to {state} (only {', '.join(sorted(regions))})"
    return (
        f"{carrier['name']} takes parcels up to {carrier['max_package_lb']:g} lb; the heaviest box is "
        f"{max(weights):g} lb: ship it by freight"
    )


def _shipment_view(ctx: ToolContext, shipment: Row) -> dict[str, Any]:
    carrier = ctx.rows.need(ShipCarrier, shipment["carrier_id"], "carrier")
    return {
        **shipment,
        "carrier": carrier["name"],
        "packages": ctx.rows.find(ShipPackage, ("id",), shipment_id=shipment["id"]),
        "events": ctx.rows.find(ShipTrackingEvent, ("occurred_at", "id"), shipment_id=shipment["id"]),
        "claims": ctx.rows.find(ShipClaim, ("id",), shipment_id=shipment["id"]),
    }


def _event(ctx: ToolContext, shipment_id: str, status: str, description: str) -> None:
    ctx.rows.insert(
        ShipTrackingEvent,
        {
            "id": ctx.rows.next_id(ShipTrackingEvent),
            "shipment_id": shipment_id,
            "occurred_at": ctx.timestamp,
            "status": status,
            "location": "Portland, OR",
            "description": description,
        },
    )


def _buy_label(
    ctx: ToolContext,
    carrier_id: str,
    service: str,
    boxes: list[dict],
    recipient: str,
    address: str,
    direction: str = "outbound",
    **links: Any,
) -> dict[str, Any]:
    """Buy a label: quote it (refused when the carrier cannot take it), write the shipment, its boxes and its
    first tracking event; the new shipment."""
    carrier = ctx.rows.need(ShipCarrier, carrier_id, "carrier")
    offered = {s["service"]: s for s in _services(ctx, carrier["id"])}
    if service not in offered:
        raise InvalidArgument(
            f"{carrier['name']} offers {', '.join(sorted(offered)) or 'no service'}, not {service}",
            error="service_not_offered",
        )
    weights = [box["weight_lb"] for box in boxes]
    state = state_of(address if direction == "outbound" else links.pop("origin"))
    quote = _quote(carrier, offered[service], weights, state, ctx.timestamp[:10])
    if quote is None:
        error = "carrier_inactive" if carrier["status"] != "active" else "carrier_cannot_take"
        raise Conflict(_why_not(carrier, weights, state), error=error)
    order_id, return_id = links.get("order_id"), links.get("return_id")
    if order_id:
        earlier = len(ctx.rows.all(SHIPMENTS_OF_ORDER, order_id=order_id))
        key = f"{order_id}|{return_id}|{service}|{earlier}"
    else:
        zip_code = zip_of(address)
        earlier = ctx.rows.value(SHIPMENTS_TO_ZIP, pattern=f"% {zip_code}")
        key = f"{zip_code}|{service}|{earlier}"
    number = tracking_number(carrier["code"], key)
    while ctx.rows.value(TRACKING_TAKEN, number=number) is not None:
        key += "+"
        number = tracking_number(carrier["code"], key)
    shipment = {
        "id": ctx.rows.next_id(ShipShipment),
        "order_id": order_id,
        "return_id": return_id,
        "replacement_of": links.get("replacement_of"),
        "carrier_id": carrier["id"],
        "service": service,
        "direction": direction,
        "tracking_number": number,
        "status": "label_created",
        "recipient_name": recipient,
        "address": address,
        "reference": links.get("reference"),
        "weight_lb": quote["total_weight_lb"],
        "cost": quote["cost"],
        "declared_value": round(links.get("declared_value") or 0.0, 2),
        "exception_reason": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "shipped_at": None,
        "estimated_delivery": quote["estimated_delivery"],
        "delivered_at": None,
    }
    ctx.rows.insert(ShipShipment, shipment)
    for box in boxes:
        ctx.rows.insert(ShipPackage, {"id": ctx.rows.next_id(ShipPackage), "shipment_id": shipment["id"], **box})
    _event(ctx, shipment["id"], "label_created", f"Shipping label created with {carrier['name']} ({service})")
    return _shipment_view(ctx, shipment)


# --- carriers and rates --------------------------------------------------------------------------


@tool(SERVICE, "GET", "/shipping/carriers")
def ship_list_carriers(ctx: ToolContext) -> Any:
    """List the shipping carriers we have accounts with, their services, contract rates, limits and regions."""
    carriers = ctx.rows.all(CARRIERS)
    return {"carriers": [{**c, "services": _services(ctx, c["id"])} for c in carriers]}


@tool(SERVICE, "PATCH", "/shipping/carriers/{carrier_id}")
def ship_update_carrier(
    ctx: ToolContext,
    carrier_id: CarrierId,
    status: Annotated[
        Literal[CARRIER_STATUSES] | None,  # type: ignore[valid-type]
        Field(description="active or inactive (no new labels)"),
    ] = None,
    note: Annotated[Text | None, Field(description="A note on the carrier account")] = None,
) -> Any:
    """Activate or deactivate a carrier account, or change its note."""
    carrier = ctx.rows.need(ShipCarrier, carrier_id, "carrier")
    update_given(ctx, ShipCarrier, carrier, status=status, note=note)
    return {**carrier, "services": _services(ctx, carrier["id"])}


@tool(SERVICE, "GET", "/shipping/rates")
def ship_get_rates(
    ctx: ToolContext,
    order_id: Annotated[
        str | None, Field(description="Quote shipping a shop order to its address, e.g. SO-1045")
    ] = None,
    package_weights: Annotated[
        list[Annotated[float, Field(gt=0, le=5_000, allow_inf_nan=False)]] | None,
        Field(max_length=50, description="Or the weight of each box, lb (with address)"),
    ] = None,
    address: Annotated[Address | None, Field(description="Where the boxes go (with package_weights)")] = None,
) -> Any:
    """Get shipping rate quotes (cost, transit days, estimated delivery) from every active carrier that can
    take the shipment, cheapest first: for a shop order, or for boxes of given weights to an address."""
    if order_id is not None:
        if package_weights is not None or address is not None:
            raise InvalidArgument("give an order_id, or package_weights with an address", error="conflicting_fields")
        order = order_of(ctx, order_id)
        weights = [box["weight_lb"] for box in order_packages(ctx, order["id"])]
        address = order["shipping_address"]
    elif package_weights and address:
        weights = list(package_weights)
    else:
        raise InvalidArgument("give an order_id, or package_weights with an address", error="missing_field")
    state = state_of(address)
    quotes = []
    for carrier in ctx.rows.all(CARRIERS):
        for service in _services(ctx, carrier["id"]):
            quote = _quote(carrier, service, weights, state, ctx.timestamp[:10])
            if quote is not None:
                quotes.append(quote)
    quotes.sort(key=lambda q: (q["cost"], q["carrier_id"], q["service"]))
    return {"address": address, "package_weights": weights, "quotes": quotes}


# --- shipments -----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/shipping/shipments")
def ship_list_shipments(
    ctx: ToolContext,
    order_id: Annotated[str | None, Field(description="Only shipments of this shop order, e.g. SO-1012")] = None,
    status: Annotated[
        ShipmentStatus | None,
        Field(
            description="label_created, in_transit, out_for_delivery, delivered, exception, "
            "returned_to_sender or voided"
        ),
    ] = None,
    carrier_id: Annotated[str | None, Field(description="Only this carrier's shipments")] = None,
    direction: Annotated[
        Literal["outbound", "return"] | None, Field(description="outbound, or return (customer returns)")
    ] = None,
    query: Annotated[
        str | None, Field(description="Text in the recipient, address, tracking number or reference")
    ] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List or search shipments, newest first: which are stuck in exception (lost, delayed), in transit or
    delivered, by order, status, carrier, direction, recipient or tracking number."""
    return ctx.rows.page(
        SHIPMENTS,
        page,
        per_page,
        order_id=order_id,
        status=status,
        carrier_id=carrier_id,
        direction=direction,
        query=query,
    )


@tool(SERVICE, "GET", "/shipping/shipments/{shipment_id}")
def ship_get_shipment(ctx: ToolContext, shipment_id: ShipmentId) -> Any:
    """Get one shipment with its carrier, packages, tracking events (scans) and any claim."""
    return _shipment_view(ctx, ctx.rows.need(ShipShipment, shipment_id, "shipment"))


@tool(SERVICE, "GET", "/shipping/track/{tracking_number}")
def ship_track_shipment(
    ctx: ToolContext,
    tracking_number: Annotated[str, Field(min_length=4, max_length=40, description="A tracking number")],
) -> Any:
    """Track a package by its tracking number: where the shipment is, its status and every carrier scan."""
    shipment = ctx.rows.one(BY_TRACKING, tracking_number=tracking_number.strip().upper())
    if shipment is None:
        raise NotFound(f"no shipment with tracking number {tracking_number!r}")
    return _shipment_view(ctx, shipment)


@tool(SERVICE, "POST", "/shipping/shipments")
def ship_create_shipment_label(
    ctx: ToolContext,
    carrier_id: CarrierId,
    service: Annotated[Service, Field(description="ground, express or freight (as the carrier offers)")],
    order_id: Annotated[
        str | None,
        Field(description="The shop order shipped (to its shipping address, its lines boxed automatically)"),
    ] = None,
    replacement_of: Annotated[
        str | None,
        Field(description="For a replacement: the order's lost, damaged or returned shipment it replaces"),
    ] = None,
    recipient_name: Annotated[
        Text | None, Field(max_length=120, description="Without an order: who receives it")
    ] = None,
    address: Annotated[Address | None, Field(description="Without an order: where it goes")] = None,
    packages: Annotated[
        list[PackageInput] | None, Field(max_length=50, description="Without an order: the boxes")
    ] = None,
    reference: Annotated[Text | None, Field(description="A reference printed on the label, e.g. a deal or PO")] = None,
    declared_value: Annotated[
        float | None, Field(ge=0, le=1_000_000, allow_inf_nan=False, description="Value declared (without an order)")
    ] = None,
) -> Any:
    """Ship an order: create a shipment and buy its shipping label with a carrier, for a paid shop order (it
    becomes fulfilled), a replacement of a lost one, or any parcel (samples, documents) to an address.

    An order on hold or not yet paid (capture its payment first) is refused."""
    if order_id is None:
        if replacement_of is not None:
            raise InvalidArgument("a replacement is for a shop order: give its order_id", error="missing_field")
        if not (recipient_name and address and packages):
            raise InvalidArgument("without an order, give recipient_name, address and packages", error="missing_field")
        boxes = [{"weight_lb": p.weight_lb, "contents": p.contents} for p in packages]
        value = 0.0 if declared_value is None else float(cents(declared_value, "declared_value"))
        return _buy_label(
            ctx, carrier_id, service, boxes, recipient_name, address, reference=reference, declared_value=value
        )
    if recipient_name is not None or address is not None or packages is not None or declared_value is not None:
        raise InvalidArgument(
            "an order ships to its own shipping address with its own lines: change the address with "
            "store_update_order, and leave recipient_name, address, packages and declared_value out",
            error="conflicting_fields",
        )
    order = order_of(ctx, order_id)
    if order["status"] == "cancelled":
        raise Conflict(f"order {order_id} is cancelled", error="order_cancelled")
    if order["on_hold"]:
        raise Conflict(f"order {order_id} is on hold: {order['hold_reason']}", error="order_on_hold")
    if order["payment_status"] not in ("paid", "partially_refunded"):
        raise Conflict(
            f"order {order_id} is {order['payment_status']}: capture its payment before shipping", error="not_paid"
        )
    if replacement_of is None and order["fulfillment_status"] != "unfulfilled":
        raise Conflict(
            f"order {order_id} is already {order['fulfillment_status']}; a second shipment is a replacement "
            "(give replacement_of)",
            error="already_fulfilled",
        )
    if replacement_of is not None:
        lost = ctx.rows.need(ShipShipment, replacement_of, "shipment")
        if lost["order_id"] != order["id"] or lost["direction"] != "outbound":
            raise InvalidArgument(f"{replacement_of} is not an outbound shipment of {order_id}", error="not_this_order")
        claimed = ctx.rows.find(ShipClaim, ("id",), shipment_id=lost["id"])
        if lost["status"] not in REPLACEABLE and not claimed:
            raise Conflict(
                f"shipment {replacement_of} is {lost['status']}: only a lost (exception), returned or claimed "
                "shipment is replaced",
                error="not_replaceable",
            )
        for other in ctx.rows.all(SHIPMENTS_OF_ORDER, order_id=order["id"]):
            if other["replacement_of"] == lost["id"] and other["status"] != "voided":
                raise Conflict(f"{replacement_of} was already replaced by {other['id']}", error="already_replaced")
        for line in ctx.rows.find(StoreOrderLine, ("id",), order_id=order["id"]):
            restock_units(ctx, line["variant_id"], -line["quantity"])
    customer = ctx.rows.need(StoreCustomer, order["customer_id"], "customer")
    worth = round(order["subtotal"] - order["discount_total"], 2)
    shipment = _buy_label(
        ctx,
        carrier_id,
        service,
        order_packages(ctx, order["id"]),
        customer["name"],
        order["shipping_address"],
        order_id=order["id"],
        replacement_of=replacement_of,
        reference=reference or (f"Replacement for {replacement_of}" if replacement_of else f"Order {order['id']}"),
        declared_value=worth,
    )
    if replacement_of is None:
        ctx.rows.change(StoreOrder, order, {"fulfillment_status": "fulfilled", "fulfilled_at": ctx.timestamp})
    return shipment


@tool(SERVICE, "PATCH", "/shipping/shipments/{shipment_id}")
def ship_update_shipment(
    ctx: ToolContext,
    shipment_id: ShipmentId,
    service: Annotated[Service | None, Field(description="Upgrade or change the service (re-rated)")] = None,
    reference: Annotated[Text | None, Field(description="New reference printed on the label")] = None,
) -> Any:
    """Change the service level (e.g. upgrade to express; the cost is re-rated) or the reference of a shipment
    whose label is not yet picked up. Its address cannot change: void the label and buy a new one."""
    shipment = ctx.rows.need(ShipShipment, shipment_id, "shipment")
    if shipment["status"] != "label_created":
        raise Conflict(f"shipment {shipment_id} is {shipment['status']}: the carrier has it", error="already_shipped")
    changes: dict[str, Any] = {}
    if service is not None and service != shipment["service"]:
        carrier = ctx.rows.need(ShipCarrier, shipment["carrier_id"], "carrier")
        offered = {s["service"]: s for s in _services(ctx, carrier["id"])}
        if service not in offered:
            raise InvalidArgument(f"{carrier['name']} does not offer {service}", error="service_not_offered")
        weights = [p["weight_lb"] for p in ctx.rows.find(ShipPackage, ("id",), shipment_id=shipment["id"])]
        where = shipment["address"]
        if shipment["direction"] == "return" and shipment["order_id"]:  # picked up at the customer's
            where = order_of(ctx, shipment["order_id"])["shipping_address"]
        state = state_of(where)
        quote = _quote(carrier, offered[service], weights, state, ctx.timestamp[:10])
        if quote is None:
            raise Conflict(_why_not(carrier, weights, state), error="carrier_cannot_take")
        changes.update(service=service, cost=quote["cost"], estimated_delivery=quote["estimated_delivery"])
    if reference is not None:
        changes["reference"] = reference
    if not changes:
        raise InvalidArgument("give a new service or reference", error="missing_field")
    ctx.rows.change(ShipShipment, shipment, changes)
    return _shipment_view(ctx, shipment)


@tool(SERVICE, "POST", "/shipping/shipments/{shipment_id}/void")
def ship_cancel_shipment(ctx: ToolContext, shipment_id: ShipmentId) -> Any:
    """Void (cancel) a shipping label that the carrier has not picked up yet; its shop order is unfulfilled again
    (to change the delivery address, void the label, change the order's address and buy a new one)."""
    shipment = ctx.rows.need(ShipShipment, shipment_id, "shipment")
    if shipment["status"] != "label_created":
        raise Conflict(
            f"shipment {shipment_id} is {shipment['status']}: only a label not yet picked up can be voided",
            error="already_shipped",
        )
    ctx.rows.change(ShipShipment, shipment, {"status": "voided"})
    _event(ctx, shipment["id"], "voided", "Shipping label voided")
    if shipment["order_id"] and shipment["direction"] == "outbound":
        order = order_of(ctx, shipment["order_id"])
        if shipment["replacement_of"] is not None:
            for line in ctx.rows.find(StoreOrderLine, ("id",), order_id=order["id"]):
                restock_units(ctx, line["variant_id"], line["quantity"])
        else:
            ctx.rows.change(StoreOrder, order, {"fulfillment_status": "unfulfilled", "fulfilled_at": None})
    return _shipment_view(ctx, shipment)


@tool(SERVICE, "POST", "/shipping/returns/{return_id}/label")
def ship_create_return_label(
    ctx: ToolContext,
    return_id: Annotated[str, Field(description="The shop return (RMA) the label is for, e.g. RMA-0004")],
    carrier_id: Annotated[str, Field(description="The carrier (default CAR-01, ShipFast Parcel)")] = "CAR-01",
    service: Annotated[Service, Field(description="ground (default), express or freight")] = "ground",
) -> Any:
    """Create a prepaid return shipping label for a shop return (RMA): from the customer back to our warehouse."""
    rma = ctx.rows.need(StoreReturn, return_id, "return")
    if rma["status"] != "approved":
        raise Conflict(f"return {return_id} is {rma['status']}: no label needed", error="not_awaited")
    for other in ctx.rows.find(ShipShipment, ("id",), return_id=rma["id"]):
        if other["status"] != "voided":
            raise Conflict(f"return {return_id} already has label {other['id']}", error="label_exists")
    order = order_of(ctx, rma["order_id"])
    boxes = order_packages(ctx, order["id"], {rma["line_id"]: rma["quantity"]})
    line = ctx.rows.need(StoreOrderLine, rma["line_id"], "order line")
    return _buy_label(
        ctx,
        carrier_id,
        service,
        boxes,
        "Lumen & Pine Returns",
        WAREHOUSE,
        direction="return",
        origin=order["shipping_address"],
        order_id=order["id"],
        return_id=rma["id"],
        reference=f"Return {rma['id']} from {order['id']}",
        declared_value=round(line["unit_price"] * rma["quantity"], 2),
    )


# --- claims --------------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/shipping/shipments/{shipment_id}/claims")
def ship_file_claim(
    ctx: ToolContext,
    shipment_id: ShipmentId,
    kind: Annotated[
        Literal[CLAIM_KINDS],  # type: ignore[valid-type]
        Field(description="lost (never delivered: the shipment is in exception) or damaged (delivered broken)"),
    ],
    amount: Annotated[
        float, Field(gt=0, le=1_000_000, allow_inf_nan=False, description="Amount claimed, USD (up to declared value)")
    ],
    description: Annotated[Text, Field(description="What happened, for the carrier")],
) -> Any:
    """File a claim with the carrier for a lost or damaged shipment, within 60 days of the label, up to its
    declared value; one claim per shipment."""
    shipment = ctx.rows.need(ShipShipment, shipment_id, "shipment")
    if kind == "lost" and shipment["status"] != "exception":
        raise Conflict(
            f"shipment {shipment_id} is {shipment['status']}: a lost claim is for a shipment in exception",
            error="not_lost",
        )
    if kind == "damaged" and shipment["status"] != "delivered":
        raise Conflict(
            f"shipment {shipment_id} is {shipment['status']}: a damage claim is for a delivered shipment",
            error="not_delivered",
        )
    age = (date.fromisoformat(ctx.timestamp[:10]) - date.fromisoformat(shipment["created_at"][:10])).days
    if age > CLAIM_WINDOW_DAYS:
        raise Conflict(f"the label is {age} days old: claims are filed within {CLAIM_WINDOW_DAYS}", error="too_late")
    if any(c["status"] != "denied" for c in ctx.rows.find(ShipClaim, ("id",), shipment_id=shipment["id"])):
        raise Conflict(f"shipment {shipment_id} already has a claim", error="claim_exists")
    value = float(cents(amount))
    if value > shipment["declared_value"]:
        raise Conflict(
            f"the declared value of {shipment_id} is {shipment['declared_value']:.2f}", error="over_declared_value"
        )
    claim = {
        "id": ctx.rows.next_id(ShipClaim),
        "shipment_id": shipment["id"],
        "kind": kind,
        "amount": value,
        "description": description,
        "status": "open",
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(ShipClaim, claim)
    return claim


@tool(SERVICE, "GET", "/shipping/claims")
def ship_list_claims(
    ctx: ToolContext,
    status: Annotated[
        Literal[CLAIM_STATUSES] | None,  # type: ignore[valid-type]
        Field(description="open, approved, denied or paid"),
    ] = None,
    shipment_id: Annotated[str | None, Field(description="Only claims of this shipment")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List carrier claims for lost or damaged shipments, newest first."""
    return ctx.rows.page(CLAIMS, page, per_page, status=status, shipment_id=shipment_id)
