"""Help desk tools: finding tickets by status, requester, assignee, tag or text, one ticket with its
conversation, new tickets, changes (status, priority, assignee, tags), public replies to the
requester and internal notes, solving and merging duplicates. Comments are by the acting employee."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.helpdesk import TICKET_PRIORITIES, TICKET_STATUSES, HdComment, HdTicket
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.helpdesk"
COMPANY_DOMAIN = "@lumenpine.example"
FINAL = ("closed",)

TicketId = Annotated[str, Field(description="The ticket id, e.g. HD-1012")]
Status = Literal[TICKET_STATUSES]  # type: ignore[valid-type]
Priority = Literal[TICKET_PRIORITIES]  # type: ignore[valid-type]
Tag = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[\w-]+$", description="A tag, e.g. damaged")]

_TICKETS = HdTicket.__table__
TICKETS = Filtered(
    select(_TICKETS),
    (_TICKETS.c.created_at.desc(), _TICKETS.c.id.desc()),
    status=_TICKETS.c.status == bindparam("status"),
    requester_email=_TICKETS.c.requester_email == bindparam("requester_email"),
    assignee=_TICKETS.c.assignee == bindparam("assignee"),
    priority=_TICKETS.c.priority == bindparam("priority"),
    tag=contains("," + _TICKETS.c.tags + ",", "tag"),  # bound as ",tag,"
    query=or_(contains(_TICKETS.c.subject, "query"), contains(_TICKETS.c.description, "query")),
    unassigned=_TICKETS.c.assignee.is_(None),
)


def _tags(tags: list[str]) -> str:
    return ",".join(sorted({t.lower() for t in tags}))


def _agent(email: str | None) -> str | None:
    """An assignee: a company employee's email (lowercase)."""
    if email is not None and not email.lower().endswith(COMPANY_DOMAIN):
        raise InvalidArgument(
            f"{email} is not a company employee; assign to an {COMPANY_DOMAIN} address", error="not_an_employee"
        )
    return None if email is None else email.lower()


def _open_ticket(ctx: ToolContext, ticket_id: str) -> Row:
    ticket = ctx.rows.need(HdTicket, ticket_id, "ticket")
    if ticket["status"] in FINAL:
        raise Conflict(f"ticket {ticket['id']} is closed and can no longer change", error="ticket_closed")
    return ticket


def _ticket(ctx: ToolContext, ticket: Row) -> dict[str, Any]:
    return {**ticket, "comments": ctx.rows.find(HdComment, ("created_at", "id"), ticket_id=ticket["id"])}


def _comment(ctx: ToolContext, ticket_id: str, body: str, public: bool) -> Row:
    """Write a comment by the acting employee (the caller sets the ticket's ``updated_at``)."""
    comment = {
        "id": ctx.rows.next_id(HdComment),
        "ticket_id": ticket_id,
        "author": me(ctx),
        "body": body,
        "public": public,
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(HdComment, comment)
    return comment


@tool(SERVICE, "GET", "/helpdesk/tickets")
def hd_list_tickets(
    ctx: ToolContext,
    status: Annotated[Status | None, Field(description="Only tickets in this status")] = None,
    requester_email: Annotated[Email | None, Field(description="Only tickets from this customer")] = None,
    assignee: Annotated[Email | None, Field(description="Only tickets assigned to this agent")] = None,
    priority: Annotated[Priority | None, Field(description="Only tickets of this priority")] = None,
    tag: Annotated[Tag | None, Field(description="Only tickets with this tag")] = None,
    query: Annotated[str | None, Field(description="Only tickets whose subject or description contains this")] = None,
    unassigned: Annotated[bool, Field(description="Only tickets nobody is assigned to")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """Search support tickets by status, requester, assignee, priority, tag or text, newest first."""
    return ctx.rows.page(
        TICKETS,
        page,
        per_page,
        status=status or None,
        requester_email=requester_email.lower() if requester_email else None,
        assignee=assignee.lower() if assignee else None,
        priority=priority or None,
        tag=f",{tag.lower()}," if tag else None,
        query=query or None,
        unassigned=unassigned or None,
    )


@tool(SERVICE, "GET", "/helpdesk/tickets/{ticket_id}")
def hd_get_ticket(ctx: ToolContext, ticket_id: TicketId) -> Any:
    """Get a support ticket with its whole conversation (public replies and internal notes)."""
    return _ticket(ctx, ctx.rows.need(HdTicket, ticket_id, "ticket"))


@tool(SERVICE, "POST", "/helpdesk/tickets")
def hd_create_ticket(
    ctx: ToolContext,
    requester_email: Annotated[Email, Field(description="The customer's email address")],
    requester_name: Annotated[Text, Field(description="The customer's name")],
    subject: Annotated[Text, Field(description="A one-line summary of the problem")],
    description: Annotated[Text, Field(description="The customer's request in full")],
    priority: Annotated[Priority, Field(description="low, normal, high or urgent")] = "normal",
    assignee: Annotated[Email | None, Field(description="The support agent to assign (company email)")] = None,
    tags: Annotated[list[Tag] | None, Field(max_length=20, description='Tags, e.g. ["damaged", "order"]')] = None,
) -> Any:
    """Open a new support ticket for a customer; it is new, or open when assigned at once."""
    ticket = {
        "id": ctx.rows.next_id(HdTicket),
        "requester_email": requester_email.lower(),
        "requester_name": requester_name,
        "subject": subject,
        "description": description,
        "status": "open" if assignee else "new",
        "priority": priority,
        "assignee": _agent(assignee),
        "tags": _tags(tags or []),
        "merged_into": None,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
        "solved_at": None,
    }
    ctx.rows.insert(HdTicket, ticket)
    return _ticket(ctx, ticket)


@tool(SERVICE, "PATCH", "/helpdesk/tickets/{ticket_id}")
def hd_update_ticket(
    ctx: ToolContext,
    ticket_id: TicketId,
    status: Annotated[
        Literal["open", "pending", "closed"] | None,
        Field(description="open (being worked), pending (waiting on the customer) or closed (only once solved)"),
    ] = None,
    priority: Annotated[Priority | None, Field(description="low, normal, high or urgent")] = None,
    assignee: Annotated[Email | None, Field(description="The support agent to assign (company email)")] = None,
    tags: Annotated[list[Tag] | None, Field(max_length=20, description="The ticket's tags (replaces all)")] = None,
) -> Any:
    """Change a ticket's status, priority, assignee or tags (to solve it use hd_solve_ticket)."""
    ticket = _open_ticket(ctx, ticket_id)
    if status == "closed" and ticket["status"] != "solved":
        raise Conflict(
            f"ticket {ticket['id']} is {ticket['status']}; only a solved ticket can be closed", error="not_solved"
        )
    updates: dict[str, Any] = {"status": status, "priority": priority, "assignee": _agent(assignee)}
    updates["tags"] = None if tags is None else _tags(tags)
    after: dict[str, Any] = {}
    if status in ("open", "pending") and ticket["status"] == "solved":
        after["solved_at"] = None  # reopened
    if assignee and ticket["status"] == "new" and status is None:
        updates["status"] = "open"
    changed = update_given(ctx, HdTicket, ticket, **updates)
    if changed:
        after["updated_at"] = ctx.timestamp
    ctx.rows.change(HdTicket, ticket, after)
    return {**_ticket(ctx, ticket), "changed": changed}


@tool(SERVICE, "POST", "/helpdesk/tickets/{ticket_id}/comments")
def hd_add_comment(
    ctx: ToolContext,
    ticket_id: TicketId,
    body: Annotated[Text, Field(description="The text of the reply or note")],
    public: Annotated[
        bool, Field(description="true: a public reply emailed to the requester; false: an internal note")
    ] = True,
) -> Any:
    """Reply to the customer on a ticket (public) or add an internal note only agents see."""
    ticket = _open_ticket(ctx, ticket_id)
    comment = _comment(ctx, ticket["id"], body, public)
    updated = {"updated_at": ctx.timestamp}
    if public and ticket["status"] == "new":
        updated["status"] = "open"
    ctx.rows.change(HdTicket, ticket, updated)
    return {**comment, "ticket_status": ticket["status"]}


@tool(SERVICE, "POST", "/helpdesk/tickets/{ticket_id}/solve")
def hd_solve_ticket(
    ctx: ToolContext,
    ticket_id: TicketId,
    comment: Annotated[
        str | None, Field(description="A closing public reply to the customer (needed if none was sent yet)")
    ] = None,
) -> Any:
    """Mark a ticket solved, with a final public reply to the customer; it needs at least one public reply."""
    ticket = _open_ticket(ctx, ticket_id)
    if ticket["status"] == "solved":
        raise Conflict(f"ticket {ticket['id']} is already solved", error="already_solved")
    text = (comment or "").strip()
    if not text and not ctx.rows.count(HdComment, ticket_id=ticket["id"], public=True):
        raise Conflict(
            f"ticket {ticket['id']} has no public reply yet: give a comment telling the customer the resolution",
            error="reply_required",
        )
    if text:
        _comment(ctx, ticket["id"], text, True)
    ctx.rows.change(HdTicket, ticket, {"status": "solved", "solved_at": ctx.timestamp, "updated_at": ctx.timestamp})
    return _ticket(ctx, ticket)


@tool(SERVICE, "POST", "/helpdesk/tickets/{ticket_id}/merge")
def hd_merge_ticket(
    ctx: ToolContext,
    ticket_id: TicketId,
    into_ticket_id: Annotated[str, Field(description="The ticket to keep, that the duplicate is merged into")],
) -> Any:
    """Merge a duplicate ticket into another one: the duplicate is closed and points to the kept ticket."""
    duplicate = _open_ticket(ctx, ticket_id)
    kept = _open_ticket(ctx, into_ticket_id)
    if kept["id"] == duplicate["id"]:
        raise InvalidArgument("a ticket cannot be merged into itself", error="same_ticket")
    if kept["status"] == "solved":
        raise Conflict(f"ticket {kept['id']} is solved; merge into an unsolved ticket", error="target_solved")
    _comment(ctx, duplicate["id"], f"Merged into {kept['id']}: {kept['subject']}", False)
    _comment(
        ctx,
        kept["id"],
        f"{duplicate['id']} ({duplicate['subject']}) was merged into this ticket.\n\n{duplicate['description']}",
        False,
    )
    closed = {"updated_at": ctx.timestamp, "status": "closed", "merged_into": kept["id"]}
    ctx.rows.change(HdTicket, duplicate, closed)
    ctx.rows.change(HdTicket, kept, {"updated_at": ctx.timestamp})
    return {"merged": duplicate, "into": _ticket(ctx, kept)}


@tool(SERVICE, "POST", "/helpdesk/tickets/{ticket_id}/assign")
def hd_assign_ticket(
    ctx: ToolContext,
    ticket_id: TicketId,
    assignee: Annotated[Email, Field(description="The support agent to assign (company email)")],
) -> Any:
    """Assign a ticket to a support agent; a new ticket becomes open."""
    ticket = _open_ticket(ctx, ticket_id)
    assigned = {"assignee": _agent(assignee), "updated_at": ctx.timestamp}
    if ticket["status"] == "new":
        assigned["status"] = "open"
    ctx.rows.change(HdTicket, ticket, assigned)
    return ticket


@tool(SERVICE, "POST", "/helpdesk/tickets/{ticket_id}/tags")
def hd_tag_ticket(
    ctx: ToolContext,
    ticket_id: TicketId,
    add: Annotated[list[Tag] | None, Field(max_length=20, description="Tags to add")] = None,
    remove: Annotated[list[Tag] | None, Field(max_length=20, description="Tags to remove")] = None,
) -> Any:
    """Add tags to a ticket or remove some, keeping the others."""
    ticket = _open_ticket(ctx, ticket_id)
    if not add and not remove:
        raise InvalidArgument("give tags to add or to remove", error="missing_field")
    current = {t for t in ticket["tags"].split(",") if t}
    missing = sorted({t.lower() for t in remove or []} - current)
    if missing:
        raise InvalidArgument(f"ticket {ticket['id']} has no tag(s) {', '.join(missing)}", error="unknown_tag")
    tags = _tags(sorted((current | {t.lower() for t in add or []}) - {t.lower() for t in remove or []}))
    if tags != ticket["tags"]:
        ctx.rows.change(HdTicket, ticket, {"tags": tags, "updated_at": ctx.timestamp})
    return ticket
