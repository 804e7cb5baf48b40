"""Calendar tools: events in a time range or of a person, one event with its attendees, new events
(the acting employee organizes them), changes, cancellation, invitations and responses, and free
time slots shared by several people."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.calendar import CalAttendee, CalEvent
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import Email, Page, PerPage, me, update_given

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

_EVENTS, _ATTENDEES = CalEvent.__table__, CalAttendee.__table__
_CONFIRMED = _EVENTS.c.status == "confirmed"
EVENTS = Filtered(
    select(_EVENTS),
    (_EVENTS.c.start_at, _EVENTS.c.id),
    start=_EVENTS.c.end_at > bindparam("start"),
    end=_EVENTS.c.start_at < bindparam("end"),
    organizer=_EVENTS.c.organizer == bindparam("organizer"),
    query=or_(contains(_EVENTS.c.title, "query"), contains(_EVENTS.c.description, "query")),
    confirmed=_CONFIRMED,
    attendee=or_(
        _EVENTS.c.organizer == bindparam("attendee"),
        _EVENTS.c.id.in_(select(_ATTENDEES.c.event_id).where(_ATTENDEES.c.email == bindparam("attendee"))),
    ),
)
ATTENDEES = Statement.of(
    select(_ATTENDEES.c.email, _ATTENDEES.c.response)
    .where(_ATTENDEES.c.event_id == bindparam("event_id"))
    .order_by(_ATTENDEES.c.id)
)
ATTENDEE = Statement.of(
    select(_ATTENDEES).where(_ATTENDEES.c.event_id == bindparam("event_id"), _ATTENDEES.c.email == bindparam("email"))
)
_BUSY_IDS = select(_ATTENDEES.c.event_id).where(
    one_of(_ATTENDEES.c.email, "people"), _ATTENDEES.c.response != "declined"
)
BUSY = Statement.of(
    select(_EVENTS.c.start_at, _EVENTS.c.end_at).where(
        _CONFIRMED,
        _EVENTS.c.id.in_(_BUSY_IDS),
        _EVENTS.c.start_at < bindparam("closes"),
        _EVENTS.c.end_at > bindparam("opens"),
    )
)


def _moment(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, FORMAT)
    except ValueError:
        raise InvalidArgument(f"{field}: {value!r} is not a valid date and time", error="invalid_value") from None


def _check_range(start_at: str, end_at: str) -> None:
    if _moment(end_at, "end_at") <= _moment(start_at, "start_at"):
        raise InvalidArgument(f"end_at {end_at} must be after start_at {start_at}", error="invalid_range")


def _event(ctx: ToolContext, event: Row) -> dict[str, Any]:
    return {**event, "attendees": ctx.rows.all(ATTENDEES, event_id=event["id"])}


def _attendee(ctx: ToolContext, event_id: str, email: str) -> Row | None:
    return ctx.rows.one(ATTENDEE, event_id=event_id, email=email.lower())


def _invite(ctx: ToolContext, event_id: str, email: str, response: str = "needs_action") -> None:
    attendee = {"id": ctx.rows.next_id(CalAttendee), "event_id": event_id, "email": email.lower(), "response": response}
    ctx.rows.insert(CalAttendee, attendee)


def _changeable(ctx: ToolContext, event_id: str) -> Row:
    """The event, if the acting employee organizes it and it is not cancelled."""
    event = ctx.rows.need(CalEvent, event_id, "event")
    if event["organizer"] != me(ctx):
        raise Forbidden(
            f"only the organizer ({event['organizer']}) may change event {event['id']}", error="not_organizer"
        )
    if event["status"] == "cancelled":
        raise Conflict(f"event {event['id']} is cancelled", error="event_cancelled")
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
    found = ctx.rows.page(
        EVENTS,
        page,
        per_page,
        start=start or None,
        end=end or None,
        organizer=organizer.lower() if organizer else None,
        query=query or None,
        confirmed=None if include_cancelled else True,
        attendee=attendee.lower() if attendee else None,
    )
    return {**found, "rows": [_event(ctx, e) for e in found["rows"]]}


@tool(SERVICE, "GET", "/calendar/events/{event_id}")
def cal_get_event(ctx: ToolContext, event_id: EventId) -> Any:
    """Get one calendar event with its time, place, description and attendees' responses."""
    return _event(ctx, ctx.rows.need(CalEvent, event_id, "event"))


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
    event = {
        "id": ctx.rows.next_id(CalEvent),
        "title": title,
        "organizer": organizer,
        "start_at": start_at,
        "end_at": end_at,
        "location": location,
        "description": description,
        "status": "confirmed",
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(CalEvent, event)
    _invite(ctx, event["id"], organizer, "accepted")
    seen = {organizer}
    for email in attendees or []:
        if email.lower() not in seen:
            seen.add(email.lower())
            _invite(ctx, event["id"], email)
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
    _check_range(start_at or event["start_at"], end_at or event["end_at"])
    changed = update_given(
        ctx, CalEvent, event, title=title, start_at=start_at, end_at=end_at, location=location, description=description
    )
    return {**_event(ctx, event), "changed": changed}


@tool(SERVICE, "POST", "/calendar/events/{event_id}/cancel")
def cal_cancel_event(ctx: ToolContext, event_id: EventId) -> Any:
    """Cancel an event the acting employee organizes; attendees see it as cancelled."""
    event = _changeable(ctx, event_id)
    ctx.rows.change(CalEvent, event, {"status": "cancelled"})
    return _event(ctx, event)


@tool(SERVICE, "POST", "/calendar/events/{event_id}/attendees")
def cal_add_attendee(
    ctx: ToolContext, event_id: EventId, email: Annotated[Email, Field(description="Who to invite")]
) -> Any:
    """Invite one more person (an attendee) to an existing meeting or event (organizer only)."""
    event = _changeable(ctx, event_id)
    if _attendee(ctx, event["id"], email) is not None:
        raise Conflict(f"{email} is already invited to {event['id']}", error="already_invited")
    _invite(ctx, event["id"], email)
    return _event(ctx, event)


@tool(SERVICE, "DELETE", "/calendar/events/{event_id}/attendees/{email}")
def cal_remove_attendee(
    ctx: ToolContext, event_id: EventId, email: Annotated[Email, Field(description="Who to uninvite")]
) -> Any:
    """Remove a person from an event's guest list (organizer only; not the organizer)."""
    event = _changeable(ctx, event_id)
    if email.lower() == event["organizer"]:
        raise Conflict("the organizer cannot be removed; cancel the event instead", error="organizer")
    attendee = _attendee(ctx, event["id"], email)
    if attendee is None:
        raise NotFound(f"{email} is not invited to {event['id']}")
    ctx.rows.delete(CalAttendee, attendee["id"])
    return _event(ctx, event)


@tool(SERVICE, "POST", "/calendar/events/{event_id}/respond")
def cal_respond_to_event(
    ctx: ToolContext,
    event_id: EventId,
    response: Annotated[Response, Field(description="accepted, declined or tentative")],
) -> Any:
    """Accept, decline or tentatively accept an invitation, as the acting employee."""
    event = ctx.rows.need(CalEvent, event_id, "event")
    if event["status"] == "cancelled":
        raise Conflict(f"event {event['id']} is cancelled", error="event_cancelled")
    attendee = _attendee(ctx, event["id"], me(ctx))
    if attendee is None:
        raise Forbidden(f"{me(ctx)} is not invited to {event['id']}", error="not_invited")
    ctx.rows.change(CalAttendee, attendee, {"response": response})
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
    events = ctx.rows.all(BUSY, people=people, closes=closes.strftime(FORMAT), opens=opens.strftime(FORMAT))
    busy = sorted((_moment(e["start_at"], "start_at"), _moment(e["end_at"], "end_at")) for e in events)
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
