"""Front-office tools of a home-services business: the lead inbox, the pricing playbook,
messages to customers (answered by the scripted responder), quotes, triage and the report.

Every tool acts for the task's business (the acting identity) and sees only its leads.

Customers are scripted (``simtenant.responder``); an adversarial one also follows its lead's
*twists* (``lead_twists``), on cue and deterministically: a customer who haggles over the first
quote (answered by a reply that restates the quoted total; a lower quote is refused while no detail
changed), one who changes a detail (answered by a new quote), one who pleads for an exception after
a decline (answered by any reply; a lead outside the service area is never quoted), and one who
answers one question a message (``leads.piecemeal``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...facts import states
from ...responder import CONFIRM, REPEAT, Fact, Reply, respond
from ...schema.homeservices.front_office import (
    LEAD_STATUSES,
    Business,
    Lead,
    LeadFact,
    LeadMessage,
    LeadTwist,
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
PIECEMEAL = "Sorry, one thing at a time. What was the other thing you needed?"
PRICE_AGAIN = "So what's your final price, then?"  # a haggler's answer to a reply that does not restate it


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
    facts = {f["key"]: f for f in ctx.rows.find(LeadFact, ("key",), lead_id=lead["id"])}
    twists = ctx.rows.find(LeadTwist, ("key",), lead_id=lead["id"])
    answered_before = ctx.rows.count(LeadMessage, lead_id=lead["id"], role="customer") > 0
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
            for f in facts.values()
        ],
        silent=lead["silent"],
    )
    asked = _say(ctx, lead["id"], "agent", message, redundant=bool(reply.redundant))
    if reply.text is None:  # a silent sender (spam): nothing is revealed, no twist plays
        return {"lead_id": lead["id"], "reply": None}
    told = list(reply.revealed)
    held = told[1:] if lead["piecemeal"] else []  # asked for, but not given in this answer
    told = told[: len(told) - len(held)]
    made = [t for t in twists if t["made_message_id"] is None and t["cue"] == "first_answer" and not answered_before]
    answered, extra = [], []
    for twist in twists:
        if twist["made_message_id"] is None or twist["answered_message_id"] is not None:
            continue
        if twist["kind"] == "exception":
            answered.append(twist)
        elif twist["kind"] == "haggle":
            if states(message, f"{_latest_quote(ctx, lead['id'])['total']:.2f}"):
                answered.append(twist)
            else:
                extra.append(PRICE_AGAIN)
    text = reply.text
    if held or made or answered or extra:
        text = _compose(reply, facts, told, held, [t["text"] for t in made] + [t["answer"] for t in answered] + extra)
    answer = _say(ctx, lead["id"], "customer", text)
    for key in reply.revealed:
        fact = facts[key]
        changes = {"asked_message_id": fact["asked_message_id"] or asked}
        if fact["available"] and key in told:
            changes["revealed_message_id"] = fact["revealed_message_id"] or answer
        ctx.rows.change(LeadFact, fact, changes)
    _make(ctx, made, facts, answer)
    for twist in answered:
        ctx.rows.change(LeadTwist, twist, {"answered_message_id": asked})
    return {"lead_id": lead["id"], "reply": text}


def _compose(reply: Reply, facts: dict[str, Row], told: list[str], held: list[str], said: list[str]) -> str:
    """A customer's answer when a twist plays or a piecemeal customer holds something back: what they
    tell, what they repeat, a confirmation, then what the twists make them say."""
    parts = [facts[key]["reveal"] for key in told]
    parts += [REPEAT.format(reveal=facts[key]["reveal"].strip()) for key in reply.redundant]
    if reply.text is not None and CONFIRM in reply.text:
        parts.append(CONFIRM)
    if held:
        parts.append(PIECEMEAL)
    return " ".join(dict.fromkeys([*parts, *said]))


def _make(ctx: ToolContext, made: list[Row], facts: dict[str, Row], message_id: int) -> None:
    """Record twists as made by the customer's message; a change sets the fact they changed."""
    for twist in made:
        ctx.rows.change(LeadTwist, twist, {"made_message_id": message_id})
        if twist["kind"] == "change":
            fact = facts[twist["fact_key"]]
            changes = {"value": twist["value"], "reveal": twist["reveal"]}
            if not fact["given"]:
                changes["revealed_message_id"] = fact["revealed_message_id"] or message_id
            ctx.rows.change(LeadFact, fact, changes)


def _latest_quote(ctx: ToolContext, lead_id: str) -> Row:
    return ctx.rows.find(Quote, ("id",), lead_id=lead_id)[-1]


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
    if lead["zip"] is not None and ctx.rows.get(ServiceArea, (lead["business_id"], lead["zip"])) is None:
        raise Conflict(
            f"lead {lead_id} is in ZIP {lead['zip']}, outside the service area: decline it, do not quote it",
            error="outside_service_area",
        )
    value = cents(total, "total")
    items = {}
    for line in line_items:
        item = ctx.rows.get(PriceItem, line.item_id)
        if item is None or item["business_id"] != lead["business_id"]:
            raise InvalidArgument(
                f"price item {line.item_id!r} is not in this business's playbook", error="unknown_item"
            )
        if item["unit"] == "flat" and line.quantity != 1:
            raise InvalidArgument(
                f"price item {line.item_id} is a flat charge: its quantity is 1, not {line.quantity:g}",
                error="flat_item_quantity",
            )
        items[line.item_id] = item
    lines_sum = sum(
        (Decimal(str(line.quantity)) * Decimal(str(items[line.item_id]["amount"])) for line in line_items), Decimal(0)
    ).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if lines_sum != value:
        raise InvalidArgument(
            f"the total {value:.2f} is not the sum of the lines ({lines_sum:.2f})", error="total_mismatch"
        )
    twists = ctx.rows.find(LeadTwist, ("key",), lead_id=lead["id"])
    quoted = ctx.rows.find(Quote, ("id",), lead_id=lead["id"])
    _hold_the_price(lead_id, twists, quoted, value)
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
    # the customer answers a quote only when a twist says so: the first quote cues it, a new quote answers
    # a change they made
    answered = [t for t in twists if t["kind"] == "change" and t["made_message_id"] and not t["answered_message_id"]]
    made = [t for t in twists if t["made_message_id"] is None and t["cue"] == "quote" and not quoted]
    reply = None
    if not lead["silent"] and (answered or made):
        reply = " ".join(dict.fromkeys([*(t["answer"] for t in answered), *(t["text"] for t in made)]))
        answer = _say(ctx, lead["id"], "customer", reply)
        for twist in answered:
            ctx.rows.change(LeadTwist, twist, {"answered_message_id": message_id})
        facts = {f["key"]: f for f in ctx.rows.find(LeadFact, ("key",), lead_id=lead["id"])}
        _make(ctx, made, facts, answer)
    return {"quote_id": quote_id, "lead_id": lead["id"], "total": float(value), "message": text, "reply": reply}


def _hold_the_price(lead_id: str, twists: list[Row], quoted: list[Row], total: Decimal) -> None:
    """A customer who haggled is not quoted lower unless they changed a detail in the same answer or
    since (the playbook price stands: no discounts, no price matches)."""
    for haggle in twists:
        if haggle["kind"] != "haggle" or haggle["made_message_id"] is None:
            continue
        changed = any(
            t["kind"] == "change" and (t["made_message_id"] or 0) >= haggle["made_message_id"] for t in twists
        )
        if not changed and total < Decimal(str(quoted[-1]["total"])).quantize(Decimal("0.01")):
            raise Conflict(
                f"the customer of lead {lead_id} asked for a lower price, but the playbook price stands (no "
                f"discounts or price matches) and nothing about the job changed: reply to them restating the "
                f"quoted total ({quoted[-1]['total']:.2f}) instead of quoting lower",
                error="price_stands",
            )


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
