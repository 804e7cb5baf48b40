"""Front-office tools of a home-services business: the lead inbox, the pricing playbook,
messages to customers (answered by the scripted responder), quotes, triage and the report.

Every tool acts for the task's business (the acting identity) and sees only its leads.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...responder import Fact, respond
from ...schema.homeservices.front_office import (
    LEAD_STATUSES,
    Business,
    Lead,
    LeadFact,
    LeadMessage,
    PriceItem,
    Quote,
    QuoteLine,
    Report,
    ServiceArea,
)
from ..engine.dispatch import ToolContext
from ..engine.money import cents
from ..engine.registry import Text, tool
from ..engine.rows import Row, Statement

LeadId = Annotated[str, Field(description="The lead id, as read_inbox lists it")]
LeadStatus = Literal[LEAD_STATUSES]  # type: ignore[valid-type]
CLOSED = ("DECLINED", "SPAM")


class QuoteLineInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    item_id: str = Field(description="A price item id from the pricing playbook")
    quantity: float = Field(gt=0, allow_inf_nan=False, description="How many units of the item (1 for flat items)")


_LEADS, _MESSAGES = Lead.__table__, LeadMessage.__table__
# every conversation of a business's inbox, in one statement
INBOX_MESSAGES = Statement.of(
    select(_MESSAGES.c.lead_id, _MESSAGES.c.role, _MESSAGES.c.kind, _MESSAGES.c.text)
    .join(_LEADS, _LEADS.c.id == _MESSAGES.c.lead_id)
    .where(_LEADS.c.business_id == bindparam("business_id"))
    .order_by(_MESSAGES.c.id)
)


def _business(ctx: ToolContext) -> Row:
    if ctx.actor is None:
        raise Forbidden("these tools act for a business, and the task names none", error="no_actor")
    return ctx.rows.need(Business, ctx.actor, "business")


def _lead(ctx: ToolContext, lead_id: str) -> Row:
    lead = ctx.rows.get(Lead, lead_id)
    if lead is None or lead["business_id"] != _business(ctx)["id"]:
        raise NotFound(f"lead {lead_id!r} not found in this inbox")
    return lead


def _say(ctx: ToolContext, lead_id: str, role: str, text: str, kind: str = "message", redundant: bool = False) -> int:
    """Add a message to a lead's conversation; its id."""
    message = {"lead_id": lead_id, "role": role, "kind": kind, "text": text, "created_at": ctx.timestamp}
    return ctx.rows.insert(LeadMessage, {**message, "redundant": redundant})


@tool("homeservices", "GET", "/inbox")
def read_inbox(ctx: ToolContext) -> Any:
    """List every lead in the inbox, oldest first, with its status and the conversation so far."""
    business = _business(ctx)
    leads = ctx.rows.find(Lead, ("received_at", "id"), business_id=business["id"])
    said: dict[str, list[dict[str, Any]]] = {}
    for m in ctx.rows.all(INBOX_MESSAGES, business_id=business["id"]):
        said.setdefault(m["lead_id"], []).append({"from": m["role"], "kind": m["kind"], "text": m["text"]})
    return {
        "business": business["name"],
        "leads": [
            {
                "id": lead["id"],
                "channel": lead["channel"],
                "received_at": lead["received_at"],
                "customer": lead["customer_name"],
                "zip": lead["zip"],
                "text": lead["text"],
                "status": lead["status"],
                "conversation": said.get(lead["id"], []),
            }
            for lead in leads
        ],
    }


@tool("homeservices", "GET", "/playbook")
def get_pricing_playbook(ctx: ToolContext) -> Any:
    """The business profile, its service-area ZIP codes, its prices and the rules for when each applies."""
    business = _business(ctx)
    areas = ctx.rows.find(ServiceArea, ("zip",), business_id=business["id"])
    items = ctx.rows.find(PriceItem, ("position", "id"), business_id=business["id"])
    return {
        "business": business,
        "service_area": [{"zip": a["zip"], "place": a["place"]} for a in areas],
        "price_items": [{k: v for k, v in item.items() if k not in ("business_id", "position")} for item in items],
    }


@tool("homeservices", "POST", "/leads/reply")
def reply_customer(
    ctx: ToolContext, lead_id: LeadId, message: Annotated[Text, Field(description="Your message to the customer")]
) -> Any:
    """Send a message to a lead's customer; their reply (if they answer) comes back at once."""
    lead = _lead(ctx, lead_id)
    facts = ctx.rows.find(LeadFact, ("key",), lead_id=lead["id"])
    reply = respond(
        message,
        [
            Fact(
                key=f["key"],
                value=f["value"],
                reveal=f["reveal"],
                triggers=tuple(f["triggers"]),
                known=f["given"] or f["revealed_message_id"] is not None,
            )
            for f in facts
        ],
        silent=lead["silent"],
    )
    asked = _say(ctx, lead["id"], "agent", message, redundant=bool(reply.redundant))
    answer = _say(ctx, lead["id"], "customer", reply.text) if reply.text is not None else None
    for fact in facts:
        if fact["key"] in reply.revealed:
            changes = {"asked_message_id": fact["asked_message_id"] or asked}
            if fact["available"] and answer is not None:
                changes["revealed_message_id"] = answer
            changed = {column: value for column, value in changes.items() if fact[column] != value}
            ctx.rows.update(LeadFact, (fact["lead_id"], fact["key"]), changed)
    return {"lead_id": lead["id"], "reply": reply.text}


@tool("homeservices", "POST", "/leads/quote")
def send_quote(
    ctx: ToolContext,
    lead_id: LeadId,
    line_items: Annotated[
        list[QuoteLineInput], Field(min_length=1, description="The playbook items charged, with quantities")
    ],
    total: Annotated[float, Field(ge=0, allow_inf_nan=False, description="The quote's total in dollars")],
) -> Any:
    """Send the customer a quote: line items from the pricing playbook and the total you computed.

    The total must be the sum of the lines (each line: quantity x the item's amount)."""
    lead = _lead(ctx, lead_id)
    if lead["status"] in CLOSED:
        raise Conflict(f"lead {lead_id} is {lead['status']}: it is not quoted", error="lead_closed")
    value = cents(total, "total")
    items = {}
    for line in line_items:
        item = ctx.rows.get(PriceItem, line.item_id)
        if item is None or item["business_id"] != lead["business_id"]:
            raise InvalidArgument(
                f"price item {line.item_id!r} is not in this business's playbook", error="unknown_item"
            )
        items[line.item_id] = item
    lines_sum = sum(
        (Decimal(str(line.quantity)) * Decimal(str(items[line.item_id]["amount"])) for line in line_items), Decimal(0)
    ).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if lines_sum != value:
        raise InvalidArgument(
            f"the total {value:.2f} is not the sum of the lines ({lines_sum:.2f})", error="total_mismatch"
        )
    quote_id = ctx.rows.next_id(Quote)
    lines = "; ".join(f"{items[line.item_id]['name']} x {line.quantity:g}" for line in line_items)
    text = f"Quote {quote_id}: {lines}. Total ${value:.2f}."
    message_id = _say(ctx, lead["id"], "agent", text, kind="quote")
    quote = {"id": quote_id, "lead_id": lead["id"], "message_id": message_id, "total": float(value)}
    ctx.rows.insert(Quote, {**quote, "created_at": ctx.timestamp})
    for line in line_items:
        unit = items[line.item_id]["amount"]
        ctx.rows.insert(
            QuoteLine,
            {
                "quote_id": quote_id,
                "price_item_id": line.item_id,
                "quantity": line.quantity,
                "unit_amount": unit,
                "amount": round(line.quantity * unit, 2),
            },
        )
    return {"quote_id": quote_id, "lead_id": lead["id"], "total": float(value), "message": text}


@tool("homeservices", "POST", "/leads/status")
def set_status(
    ctx: ToolContext,
    lead_id: LeadId,
    status: Annotated[LeadStatus, Field(description="NEED_INFO, QUOTED, DECLINED or SPAM (NEW only as it came in)")],
) -> Any:
    """Set a lead's triage status."""
    lead = _lead(ctx, lead_id)
    previous = lead["status"]
    if status == "NEW" and previous != "NEW":
        raise Conflict(f"lead {lead_id} has been triaged; it cannot go back to NEW", error="illegal_transition")
    if status == "QUOTED" and not ctx.rows.count(Quote, lead_id=lead["id"]):
        raise Conflict(f"lead {lead_id} has no quote yet: send_quote first", error="not_quoted")
    if status != previous:
        ctx.rows.update(Lead, lead["id"], {"status": status})
    return {"lead_id": lead["id"], "previous_status": previous, "status": status}


@tool("homeservices", "POST", "/report", ends=True)
def final_report(
    ctx: ToolContext, summary: Annotated[str, Field(description="What you did with each lead, for the owner")]
) -> Any:
    """Hand the owner your end-of-shift report. This ends the episode."""
    business = _business(ctx)
    ctx.rows.insert(Report, {"business_id": business["id"], "summary": summary, "created_at": ctx.timestamp})
    ctx.finish(summary)
    return {"received": True}
