"""Calendar tools: events in a time range or of a person, one event with its attendees, new events
(the acting employee organizes them), changes, cancellation, invitations and responses, and free
time slots shared by several people."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.calendar import CalAttendee, CalEvent
from ..engine.dispatch import ToolContext, row_dict
from ..engine.registry import Text, tool
from .common import Email, Page, PerPage, apply_updates, containing, me, where_given

SERVICE = "automation.calendar"
FORMAT = "%Y-%m-%dT%H:%M:%SZ"

EventId = Annotated[str, Field(description="The event id, e.g. EVT-0012")]
DateTime = Annotated[
    str,
    Field(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
        description="A UTC date and time, e.g. 2026-09-16T14:00:00Z",
    ),
]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, e.g. 2026-09-16")]
Response = Literal["accepted", "declined", "tentative"]


def _moment(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, FORMAT)
    except ValueError:
        raise InvalidArgument(f"{field}: {value!r} is not a valid date and time", error="invalid_value") from None


def _check_range(start_at: str, end_at: str) -> None:
    if _moment(end_at, "end_at") <= _moment(start_at, "start_at"):
        raise InvalidArgument(f"end_at {end_at} must be after start_at {start_at}", error="invalid_range")


def _attendees(ctx: ToolContext, event_id: str) -> list[dict[str, Any]]:
    rows = ctx.session.scalars(select(CalAttendee).where(CalAttendee.event_id == event_id).order_by(CalAttendee.id))
    return [{"email": a.email, "response": a.response} for a in rows]


def _event(ctx: ToolContext, event: CalEvent) -> dict[str, Any]:
    return {**row_dict(event), "attendees": _attendees(ctx, event.id)}


def _attendee(ctx: ToolContext, event_id: str, email: str) -> CalAttendee | None:
    query = select(CalAttendee).where(CalAttendee.event_id == event_id, CalAttendee.email == email.lower())
    return ctx.session.scalars(query).first()


def _invite(ctx: ToolContext, event_id: str, email: str, response: str = "needs_action") -> CalAttendee:
    attendee = CalAttendee(id=ctx.next_id(CalAttendee), event_id=event_id, email=email.lower(), response=response)
    ctx.session.add(attendee)
    ctx.session.flush()
    return attendee


def _changeable(ctx: ToolContext, event_id: str) -> CalEvent:
    """The event, if the acting employee organizes it and it is not cancelled."""
    event = ctx.get(CalEvent, event_id, "event")
    if event.organizer != me(ctx):
        raise Forbidden(f"only the organizer ({event.organizer}) may change event {event.id}", error="not_organizer")
    if event.status == "cancelled":
        raise Conflict(f"event {event.id} is cancelled", error="event_cancelled")
    return event


@tool(SERVICE, "GET", "/calendar/events")
def cal_list_events(
    ctx: ToolContext,
    start: Annotated[DateTime | None, Field(description="Only events ending after this time")] = None,
    end: Annotated[DateTime | None, Field(description="Only events starting before this time")] = None,
    attendee: Annotated[Email | None, Field(description="Only events this person organizes or is invited to")] = None,
    organizer: Annotated[Email | None, Field(description="Only events this person organizes")] = None,
    query: Annotated[str | None, Field(description="Only events whose title or description contains this")] = None,
    include_cancelled: Annotated[bool, Field(description="Also list cancelled events")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List calendar events (meetings, out-of-office) in a time range or of a person, earliest first."""
    selected = where_given(
        select(CalEvent),
        CalEvent.end_at > start if start else None,
        CalEvent.start_at < end if end else None,
        CalEvent.organizer == organizer.lower() if organizer else None,
        or_(containing(CalEvent.title, query), containing(CalEvent.description, query)) if query else None,
        None if include_cancelled else CalEvent.status == "confirmed",
    )
    if attendee:
        invited = select(CalAttendee.event_id).where(CalAttendee.email == attendee.lower())
        selected = selected.where(or_(CalEvent.organizer == attendee.lower(), CalEvent.id.in_(invited)))
    selected = selected.order_by(CalEvent.start_at, CalEvent.id)
    total = ctx.session.scalar(select(func.count()).select_from(selected.subquery())) or 0
    events = ctx.session.scalars(selected.offset((page - 1) * per_page).limit(per_page))
    return {"page": page, "per_page": per_page, "total": total, "rows": [_event(ctx, e) for e in events]}


@tool(SERVICE, "GET", "/calendar/events/{event_id}")
def cal_get_event(ctx: ToolContext, event_id: EventId) -> Any:
    """Get one calendar event with its time, place, description and attendees' responses."""
    return _event(ctx, ctx.get(CalEvent, event_id, "event"))


@tool(SERVICE, "POST", "/calendar/events")
def cal_create_event(
    ctx: ToolContext,
    title: Annotated[Text, Field(description="The event title")],
    start_at: Annotated[DateTime, Field(description="When it starts (UTC), e.g. 2026-09-16T14:00:00Z")],
    end_at: Annotated[DateTime, Field(description="When it ends (UTC), after start_at")],
    attendees: Annotated[
        list[Email] | None, Field(max_length=50, description="Email addresses of the people to invite")
    ] = None,
    location: Annotated[str | None, Field(description="Room, address or video link")] = None,
    description: Annotated[str | None, Field(description="Agenda or notes for the invitees")] = None,
) -> Any:
    """Schedule a meeting or event and invite people; the acting employee is the organizer."""
    _check_range(start_at, end_at)
    organizer = me(ctx).lower()
    event = CalEvent(
        id=ctx.next_id(CalEvent),
        title=title,
        organizer=organizer,
        start_at=start_at,
        end_at=end_at,
        location=location,
        description=description,
        status="confirmed",
        created_at=ctx.timestamp,
    )
    ctx.session.add(event)
    ctx.session.flush()
    _invite(ctx, event.id, organizer, "accepted")
    seen = {organizer}
    for email in attendees or []:
        if email.lower() not in seen:
            seen.add(email.lower())
            _invite(ctx, event.id, email)
    return _event(ctx, event)


@tool(SERVICE, "PATCH", "/calendar/events/{event_id}")
def cal_update_event(
    ctx: ToolContext,
    event_id: EventId,
    title: Annotated[Text | None, Field(description="A new title")] = None,
    start_at: Annotated[DateTime | None, Field(description="A new start time (UTC)")] = None,
    end_at: Annotated[DateTime | None, Field(description="A new end time (UTC)")] = None,
    location: Annotated[str | None, Field(description="A new location")] = None,
    description: Annotated[str | None, Field(description="A new description")] = None,
) -> Any:
    """Reschedule an event or change its title, location or description (organizer only)."""
    event = _changeable(ctx, event_id)
    _check_range(start_at or event.start_at, end_at or event.end_at)
    changed = apply_updates(
        event, title=title, start_at=start_at, end_at=end_at, location=location, description=description
    )
    return {**_event(ctx, event), "changed": changed}


@tool(SERVICE, "POST", "/calendar/events/{event_id}/cancel")
def cal_cancel_event(ctx: ToolContext, event_id: EventId) -> Any:
    """Cancel an event the acting employee organizes; attendees see it as cancelled."""
    event = _changeable(ctx, event_id)
    event.status = "cancelled"
    return _event(ctx, event)


@tool(SERVICE, "POST", "/calendar/events/{event_id}/attendees")
def cal_add_attendee(
    ctx: ToolContext, event_id: EventId, email: Annotated[Email, Field(description="Who to invite")]
) -> Any:
    """Invite one more person (an attendee) to an existing meeting or event (organizer only)."""
    event = _changeable(ctx, event_id)
    if _attendee(ctx, event.id, email) is not None:
        raise Conflict(f"{email} is already invited to {event.id}", error="already_invited")
    _invite(ctx, event.id, email)
    return _event(ctx, event)


@tool(SERVICE, "DELETE", "/calendar/events/{event_id}/attendees/{email}")
def cal_remove_attendee(
    ctx: ToolContext, event_id: EventId, email: Annotated[Email, Field(description="Who to uninvite")]
) -> Any:
    """Remove a person from an event's guest list (organizer only; not the organizer)."""
    event = _changeable(ctx, event_id)
    if email.lower() == event.organizer:
        raise Conflict("the organizer cannot be removed; cancel the event instead", error="organizer")
    attendee = _attendee(ctx, event.id, email)
    if attendee is None:
        raise NotFound(f"{email} is not invited to {event.id}")
    ctx.session.delete(attendee)
    ctx.session.flush()
    return _event(ctx, event)


@tool(SERVICE, "POST", "/calendar/events/{event_id}/respond")
def cal_respond_to_event(
    ctx: ToolContext,
    event_id: EventId,
    response: Annotated[Response, Field(description="accepted, declined or tentative")],
) -> Any:
    """Accept, decline or tentatively accept an invitation, as the acting employee."""
    event = ctx.get(CalEvent, event_id, "event")
    if event.status == "cancelled":
        raise Conflict(f"event {event.id} is cancelled", error="event_cancelled")
    attendee = _attendee(ctx, event.id, me(ctx))
    if attendee is None:
        raise Forbidden(f"{me(ctx)} is not invited to {event.id}", error="not_invited")
    attendee.response = response
    return _event(ctx, event)


@tool(SERVICE, "GET", "/calendar/free-slots")
def cal_find_free_slots(
    ctx: ToolContext,
    emails: Annotated[list[Email], Field(min_length=1, max_length=20, description="The people who must all be free")],
    date: Annotated[Day, Field(description="The day to search, e.g. 2026-09-16")],
    duration_minutes: Annotated[int, Field(ge=15, le=480, description="Length of the meeting in minutes")] = 30,
    day_start: Annotated[int, Field(ge=0, le=23, description="First working hour (UTC), default 9")] = 9,
    day_end: Annotated[int, Field(ge=1, le=24, description="End of the working day (UTC hour), default 17")] = 17,
) -> Any:
    """Find times on a day when all the given people are free (no confirmed event they have not declined)."""
    if day_end <= day_start:
        raise InvalidArgument("day_end must be after day_start", error="invalid_range")
    opens = _moment(f"{date}T00:00:00Z", "date") + timedelta(hours=day_start)
    closes = _moment(f"{date}T00:00:00Z", "date") + timedelta(hours=day_end)
    people = sorted({e.lower() for e in emails})
    busy_ids = select(CalAttendee.event_id).where(CalAttendee.email.in_(people), CalAttendee.response != "declined")
    query = select(CalEvent).where(
        CalEvent.status == "confirmed",
        CalEvent.id.in_(busy_ids),
        CalEvent.start_at < closes.strftime(FORMAT),
        CalEvent.end_at > opens.strftime(FORMAT),
    )
    busy = sorted((_moment(e.start_at, "start_at"), _moment(e.end_at, "end_at")) for e in ctx.session.scalars(query))
    slots, cursor, length = [], opens, timedelta(minutes=duration_minutes)
    while cursor + length <= closes:
        end = cursor + length
        clash = [b for b in busy if b[0] < end and b[1] > cursor]
        if clash:
            cursor = max(b[1] for b in clash)
            minute = (cursor.minute + 14) // 15 * 15  # back onto a quarter hour
            cursor = cursor.replace(minute=0, second=0) + timedelta(minutes=minute)
            continue
        slots.append({"start_at": cursor.strftime(FORMAT), "end_at": end.strftime(FORMAT)})
        cursor += timedelta(minutes=30)
    return {"date": date, "emails": people, "duration_minutes": duration_minutes, "slots": slots}
