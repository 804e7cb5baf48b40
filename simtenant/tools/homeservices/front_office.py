"""Front-office tools of a home-services business: the lead inbox, the pricing playbook,
messages to customers (answered by the scripted responder), quotes, triage and the report.

Every tool acts for the task's business (the acting identity) and sees only its leads.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select

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
from ..engine.dispatch import ToolContext, row_dict
from ..engine.money import cents
from ..engine.registry import Text, tool

LeadId = Annotated[str, Field(description="The lead id, as read_inbox lists it")]
LeadStatus = Literal[LEAD_STATUSES]  # type: ignore[valid-type]
CLOSED = ("DECLINED", "SPAM")


class QuoteLineInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    item_id: str = Field(description="A price item id from the pricing playbook")
    quantity: float = Field(gt=0, allow_inf_nan=False, description="How many units of the item (1 for flat items)")


def _business(ctx: ToolContext) -> Business:
    if ctx.actor is None:
        raise Forbidden("these tools act for a business, and the task names none", error="no_actor")
    return ctx.get(Business, ctx.actor, "business")


def _lead(ctx: ToolContext, lead_id: str) -> Lead:
    lead = ctx.session.get(Lead, lead_id)
    if lead is None or lead.business_id != _business(ctx).id:
        raise NotFound(f"lead {lead_id!r} not found in this inbox")
    return lead


def _say(ctx: ToolContext, lead_id: str, role: str, text: str, kind: str = "message") -> LeadMessage:
    message = LeadMessage(lead_id=lead_id, role=role, kind=kind, text=text, created_at=ctx.timestamp)
    ctx.session.add(message)
    ctx.session.flush()
    return message


@tool("homeservices", "GET", "/inbox")
def read_inbox(ctx: ToolContext) -> Any:
    """List every lead in the inbox, oldest first, with its status and the conversation so far."""
    business = _business(ctx)
    leads = ctx.session.scalars(select(Lead).where(Lead.business_id == business.id).order_by(Lead.received_at, Lead.id))
    said: dict[str, list[dict[str, Any]]] = {}  # every conversation of the inbox in one statement
    for m in ctx.session.scalars(
        select(LeadMessage).join(Lead).where(Lead.business_id == business.id).order_by(LeadMessage.id)
    ):
        said.setdefault(m.lead_id, []).append({"from": m.role, "kind": m.kind, "text": m.text})
    return {
        "business": business.name,
        "leads": [
            {
                "id": lead.id,
                "channel": lead.channel,
                "received_at": lead.received_at,
                "customer": lead.customer_name,
                "zip": lead.zip,
                "text": lead.text,
                "status": lead.status,
                "conversation": said.get(lead.id, []),
            }
            for lead in leads
        ],
    }


@tool("homeservices", "GET", "/playbook")
def get_pricing_playbook(ctx: ToolContext) -> Any:
    """The business profile, its service-area ZIP codes, its prices and the rules for when each applies."""
    business = _business(ctx)
    areas = ctx.session.scalars(
        select(ServiceArea).where(ServiceArea.business_id == business.id).order_by(ServiceArea.zip)
    )
    items = ctx.session.scalars(
        select(PriceItem).where(PriceItem.business_id == business.id).order_by(PriceItem.position, PriceItem.id)
    )
    return {
        "business": {k: v for k, v in row_dict(business).items()},
        "service_area": [{"zip": a.zip, "place": a.place} for a in areas],
        "price_items": [
            {k: v for k, v in row_dict(item).items() if k not in ("business_id", "position")} for item in items
        ],
    }


@tool("homeservices", "POST", "/leads/reply")
def reply_customer(
    ctx: ToolContext, lead_id: LeadId, message: Annotated[Text, Field(description="Your message to the customer")]
) -> Any:
    """Send a message to a lead's customer; their reply (if they answer) comes back at once."""
    lead = _lead(ctx, lead_id)
    asked = _say(ctx, lead.id, "agent", message)
    facts = list(ctx.session.scalars(select(LeadFact).where(LeadFact.lead_id == lead.id).order_by(LeadFact.key)))
    reply = respond(
        message,
        [
            Fact(
                key=f.key,
                value=f.value,
                reveal=f.reveal,
                triggers=tuple(f.triggers),
                known=f.given or f.revealed_message_id is not None,
            )
            for f in facts
        ],
        silent=lead.silent,
    )
    asked.redundant = bool(reply.redundant)
    answer = _say(ctx, lead.id, "customer", reply.text) if reply.text is not None else None
    for fact in facts:
        if fact.key in reply.revealed:
            fact.asked_message_id = fact.asked_message_id or asked.id
            if fact.available and answer is not None:
                fact.revealed_message_id = answer.id
    return {"lead_id": lead.id, "reply": reply.text}


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
    if lead.status in CLOSED:
        raise Conflict(f"lead {lead_id} is {lead.status}: it is not quoted", error="lead_closed")
    value = cents(total, "total")
    items = {}
    for line in line_items:
        item = ctx.session.get(PriceItem, line.item_id)
        if item is None or item.business_id != lead.business_id:
            raise InvalidArgument(
                f"price item {line.item_id!r} is not in this business's playbook", error="unknown_item"
            )
        items[line.item_id] = item
    lines_sum = sum(
        (Decimal(str(line.quantity)) * Decimal(str(items[line.item_id].amount)) for line in line_items), Decimal(0)
    ).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if lines_sum != value:
        raise InvalidArgument(
            f"the total {value:.2f} is not the sum of the lines ({lines_sum:.2f})", error="total_mismatch"
        )
    quote_id = ctx.next_id(Quote)
    lines = "; ".join(f"{items[line.item_id].name} x {line.quantity:g}" for line in line_items)
    message = _say(ctx, lead.id, "agent", f"Quote {quote_id}: {lines}. Total ${value:.2f}.", kind="quote")
    ctx.session.add(
        Quote(id=quote_id, lead_id=lead.id, message_id=message.id, total=float(value), created_at=ctx.timestamp)
    )
    for line in line_items:  # written after their quote by the one flush that ends the call (foreign-key order)
        unit = items[line.item_id].amount
        ctx.session.add(
            QuoteLine(
                quote_id=quote_id,
                price_item_id=line.item_id,
                quantity=line.quantity,
                unit_amount=unit,
                amount=round(line.quantity * unit, 2),
            )
        )
    return {"quote_id": quote_id, "lead_id": lead.id, "total": float(value), "message": message.text}


@tool("homeservices", "POST", "/leads/status")
def set_status(
    ctx: ToolContext,
    lead_id: LeadId,
    status: Annotated[LeadStatus, Field(description="NEED_INFO, QUOTED, DECLINED or SPAM (NEW only as it came in)")],
) -> Any:
    """Set a lead's triage status."""
    lead = _lead(ctx, lead_id)
    if status == "NEW" and lead.status != "NEW":
        raise Conflict(f"lead {lead_id} has been triaged; it cannot go back to NEW", error="illegal_transition")
    if status == "QUOTED":
        quoted = ctx.session.scalar(select(func.count()).select_from(Quote).where(Quote.lead_id == lead.id))
        if not quoted:
            raise Conflict(f"lead {lead_id} has no quote yet: send_quote first", error="not_quoted")
    previous, lead.status = lead.status, status
    return {"lead_id": lead.id, "previous_status": previous, "status": status}


@tool("homeservices", "POST", "/report", ends=True)
def final_report(
    ctx: ToolContext, summary: Annotated[str, Field(description="What you did with each lead, for the owner")]
) -> Any:
    """Hand the owner your end-of-shift report. This ends the episode."""
    business = _business(ctx)
    ctx.session.add(Report(business_id=business.id, summary=summary, created_at=ctx.timestamp))
    ctx.finish(summary)
    return {"received": True}
