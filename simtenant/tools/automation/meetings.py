"""Video meetings tools: the company's video calls (list, search, one with its participants,
recordings and follow-ups), scheduling, rescheduling and cancelling them (host only), inviting and
removing participants, recordings (sharing them with the company or by link, deleting them unless on
legal hold), transcripts (read and searched) and follow-ups (action items) agreed in a meeting."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, exists, false, func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.calendar import CalEvent
from ...schema.automation.hr import HrEmployee
from ...schema.automation.meetings import (
    FOLLOW_UP_STATUSES,
    MEETING_STATUSES,
    SHARE_SCOPES,
    MtgFollowUp,
    MtgMeeting,
    MtgParticipant,
    MtgRecording,
    MtgTranscript,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.meetings"
FORMAT = "%Y-%m-%dT%H:%M:%SZ"
MEET_URL = "https://meet.lumenpine.example"

MeetingId = Annotated[str, Field(description="A video call id, e.g. MTG-0004")]
RecordingId = Annotated[str, Field(description="A call recording id, e.g. REC-0003")]
FollowUpId = Annotated[str, Field(description="A follow-up (action item) id, e.g. FU-0002")]
DateTime = Annotated[
    str,
    Field(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", description="A UTC date and time, e.g. 2026-09-16T14:00:00Z"
    ),
]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Minutes = Annotated[int, Field(ge=5, le=600, description="Length of the call in minutes (5 to 600)")]
MeetingStatus = Literal[MEETING_STATUSES]  # type: ignore[valid-type]
Scope = Literal[SHARE_SCOPES]  # type: ignore[valid-type]
FollowUpStatus = Literal[FOLLOW_UP_STATUSES]  # type: ignore[valid-type]

_MEETINGS, _PEOPLE = MtgMeeting.__table__, MtgParticipant.__table__
_RECORDINGS, _TRANSCRIPTS = MtgRecording.__table__, MtgTranscript.__table__
_FOLLOW_UPS, _STAFF = MtgFollowUp.__table__, HrEmployee.__table__


def _invited(email_param: str) -> Any:
    """The meeting has the bound address among its participants."""
    return exists().where(_PEOPLE.c.meeting_id == _MEETINGS.c.id, _PEOPLE.c.email == bindparam(email_param))


MEETINGS = Filtered(
    select(_MEETINGS),
    (_MEETINGS.c.start_at.desc(), _MEETINGS.c.id.desc()),
    query=or_(contains(_MEETINGS.c.title, "query"), contains(_MEETINGS.c.agenda, "query")),
    host_email=_MEETINGS.c.host_email == bindparam("host_email"),
    participant=_invited("participant"),
    status=_MEETINGS.c.status == bindparam("status"),
    start_from=_MEETINGS.c.start_at >= bindparam("start_from"),
    start_to=_MEETINGS.c.start_at < bindparam("start_to"),
)
PARTICIPANTS = Statement.of(
    select(_PEOPLE.c.email, _PEOPLE.c.role, _PEOPLE.c.joined_at, _PEOPLE.c.minutes_attended)
    .where(_PEOPLE.c.meeting_id == bindparam("meeting_id"))
    .order_by(_PEOPLE.c.id)
)
PARTICIPANT = Statement.of(
    select(_PEOPLE).where(_PEOPLE.c.meeting_id == bindparam("meeting_id"), _PEOPLE.c.email == bindparam("email"))
)
_RECORDING_SUMMARY = (
    _RECORDINGS.c.id,
    _RECORDINGS.c.title,
    _RECORDINGS.c.started_at,
    _RECORDINGS.c.duration_minutes,
    _RECORDINGS.c.status,
    _RECORDINGS.c.share_scope,
    _RECORDINGS.c.legal_hold,
)
MEETING_RECORDINGS = Statement.of(
    select(*_RECORDING_SUMMARY)
    .where(_RECORDINGS.c.meeting_id == bindparam("meeting_id"))
    .order_by(_RECORDINGS.c.started_at, _RECORDINGS.c.id)
)
RECORDINGS = Filtered(
    select(_RECORDINGS, _MEETINGS.c.title.label("meeting_title"), _MEETINGS.c.host_email).join(
        _MEETINGS, _MEETINGS.c.id == _RECORDINGS.c.meeting_id
    ),
    (_RECORDINGS.c.started_at.desc(), _RECORDINGS.c.id.desc()),
    meeting_id=_RECORDINGS.c.meeting_id == bindparam("meeting_id"),
    query=or_(contains(_RECORDINGS.c.title, "query"), contains(_MEETINGS.c.title, "query")),
    share_scope=_RECORDINGS.c.share_scope == bindparam("share_scope"),
    live=_RECORDINGS.c.status != "deleted",
)
# a confidential meeting's transcript is searched only by its participants
TRANSCRIPTS = Filtered(
    select(
        _MEETINGS.c.id.label("meeting_id"),
        _MEETINGS.c.title,
        _MEETINGS.c.start_at,
        _MEETINGS.c.host_email,
        _TRANSCRIPTS.c.content,
    )
    .join(_TRANSCRIPTS, _TRANSCRIPTS.c.meeting_id == _MEETINGS.c.id)
    .where(or_(_MEETINGS.c.confidential == false(), _invited("me"))),
    (_MEETINGS.c.start_at.desc(), _MEETINGS.c.id.desc()),
    query=contains(_TRANSCRIPTS.c.content, "query"),
    meeting_id=_MEETINGS.c.id == bindparam("meeting_id"),
)
TRANSCRIPT_OF = Statement.of(select(_TRANSCRIPTS).where(_TRANSCRIPTS.c.meeting_id == bindparam("meeting_id")))
HAS_TRANSCRIPT = Statement.of(select(func.count()).where(_TRANSCRIPTS.c.meeting_id == bindparam("meeting_id")))
_DUE_ORDER = (_FOLLOW_UPS.c.due_date.is_(None), _FOLLOW_UPS.c.due_date, _FOLLOW_UPS.c.id)
MEETING_FOLLOW_UPS = Statement.of(
    select(_FOLLOW_UPS).where(_FOLLOW_UPS.c.meeting_id == bindparam("meeting_id")).order_by(*_DUE_ORDER)
)
FOLLOW_UPS = Filtered(
    select(_FOLLOW_UPS, _MEETINGS.c.title.label("meeting_title")).join(
        _MEETINGS, _MEETINGS.c.id == _FOLLOW_UPS.c.meeting_id
    ),
    _DUE_ORDER,
    meeting_id=_FOLLOW_UPS.c.meeting_id == bindparam("meeting_id"),
    owner_email=_FOLLOW_UPS.c.owner_email == bindparam("owner_email"),
    status=_FOLLOW_UPS.c.status == bindparam("status"),
    due_before=_FOLLOW_UPS.c.due_date <= bindparam("due_before"),
)
# a current employee (HR) with this address: they may own any follow-up
EMPLOYEE = Statement.of(
    select(_STAFF.c.id).where(func.lower(_STAFF.c.email) == bindparam("email"), _STAFF.c.status != "terminated")
)


def _lower(email: str | None) -> str | None:
    return None if email is None else email.lower()


def _moment(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, FORMAT)
    except ValueError:
        raise InvalidArgument(f"{field}: {value!r} is not a valid date and time", error="invalid_value") from None


def _future(ctx: ToolContext, start_at: str) -> str:
    if _moment(start_at, "start_at") <= _moment(ctx.timestamp, "now"):
        raise InvalidArgument(f"start_at {start_at} is not in the future (now: {ctx.timestamp})", error="past_start")
    return start_at


def _day(value: str | None, field: str) -> str | None:
    if value is not None:
        try:
            datetime.strptime(value, "%Y-%m-%d")
        except ValueError:
            raise InvalidArgument(f"{field}: {value!r} is not a valid date", error="invalid_value") from None
    return value


def _meeting(ctx: ToolContext, meeting_id: str) -> Row:
    return ctx.rows.need(MtgMeeting, meeting_id, "meeting")


def _role(ctx: ToolContext, meeting: Row) -> str | None:
    """The acting employee's role in the meeting (None when not invited)."""
    if meeting["host_email"] == me(ctx):
        return "host"
    found = ctx.rows.one(PARTICIPANT, meeting_id=meeting["id"], email=me(ctx))
    return None if found is None else found["role"]


def _hosted(ctx: ToolContext, meeting: Row, action: str, co_host: bool = True) -> Row:
    """The meeting, if the acting employee hosts it (or co-hosts it, where ``co_host``)."""
    allowed = ("host", "co_host") if co_host else ("host",)
    if _role(ctx, meeting) not in allowed:
        who = "its host or a co-host" if co_host else "its host"
        raise Forbidden(f"only {who} ({meeting['host_email']} hosts {meeting['id']}) may {action}", error="not_host")
    return meeting


def _upcoming(ctx: ToolContext, meeting_id: str, action: str) -> Row:
    """A scheduled meeting the acting employee hosts or co-hosts."""
    meeting = _meeting(ctx, meeting_id)
    if meeting["status"] != "scheduled":
        raise Conflict(
            f"meeting {meeting['id']} is {meeting['status']}; only a scheduled one can change",
            error=f"meeting_{meeting['status']}",
        )
    return _hosted(ctx, meeting, action)


def _may_see(ctx: ToolContext, meeting: Row, what: str) -> None:
    """A confidential meeting's recordings and transcript are for its participants only."""
    if meeting["confidential"] and _role(ctx, meeting) is None:
        raise Forbidden(
            f"meeting {meeting['id']} is confidential: only its participants may see its {what}",
            error="not_a_participant",
        )


def _recording(ctx: ToolContext, recording_id: str) -> Row:
    return ctx.rows.need(MtgRecording, recording_id, "recording")


def _share_url(recording_id: str) -> str:
    token = hashlib.sha256(f"lumenpine-recording:{recording_id}".encode()).hexdigest()[:12]
    return f"{MEET_URL}/rec/{token}"


def _owner(ctx: ToolContext, meeting: Row, email: str) -> str:
    """A follow-up's owner: one of the meeting's participants, or a current employee."""
    email = email.lower()
    if email == meeting["host_email"] or ctx.rows.one(PARTICIPANT, meeting_id=meeting["id"], email=email):
        return email
    if ctx.rows.value(EMPLOYEE, email=email) is not None:
        return email
    raise InvalidArgument(
        f"{email} was not in meeting {meeting['id']} and is not a current employee: a follow-up is owned by a "
        "participant or a colleague",
        error="owner_not_eligible",
    )


def _full(ctx: ToolContext, meeting: Row) -> dict[str, Any]:
    return {
        **meeting,
        "participants": ctx.rows.all(PARTICIPANTS, meeting_id=meeting["id"]),
        "recordings": ctx.rows.all(MEETING_RECORDINGS, meeting_id=meeting["id"]),
        "has_transcript": bool(ctx.rows.value(HAS_TRANSCRIPT, meeting_id=meeting["id"])),
        "follow_ups": ctx.rows.all(MEETING_FOLLOW_UPS, meeting_id=meeting["id"]),
    }


# --- meetings ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/meetings")
def mtg_list_video_calls(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the call's title or agenda")] = None,
    host_email: Annotated[str | None, Field(description="Only calls this employee hosts")] = None,
    participant: Annotated[str | None, Field(description="Only calls this person (email) was invited to")] = None,
    status: Annotated[MeetingStatus | None, Field(description="scheduled, ended or cancelled")] = None,
    start_from: Annotated[DateTime | None, Field(description="Only calls starting at or after this time")] = None,
    start_to: Annotated[DateTime | None, Field(description="Only calls starting before this time")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search video calls by title, host, participant, status or date, newest first."""
    return ctx.rows.page(
        MEETINGS,
        page,
        per_page,
        query=query,
        host_email=_lower(host_email),
        participant=_lower(participant),
        status=status,
        start_from=start_from,
        start_to=start_to,
    )


@tool(SERVICE, "GET", "/meetings/{call_id}")
def mtg_get_video_call(ctx: ToolContext, call_id: MeetingId) -> dict[str, Any]:
    """Get one video call with its participants (and who attended), recordings, transcript and follow-ups."""
    return _full(ctx, _meeting(ctx, call_id))


@tool(SERVICE, "POST", "/meetings")
def mtg_schedule_video_call(
    ctx: ToolContext,
    title: Annotated[Text, Field(max_length=200, description="The call's title")],
    start_at: Annotated[DateTime, Field(description="When it starts (UTC), in the future")],
    duration_minutes: Minutes = 30,
    participants: Annotated[list[Email], Field(max_length=100, description="Who to invite (emails; you host it)")] = [],  # noqa: B006
    agenda: Annotated[str | None, Field(description="The agenda, shown in the invitation")] = None,
    auto_record: Annotated[bool, Field(description="Record to the cloud automatically when it starts")] = False,
    confidential: Annotated[
        bool, Field(description="Confidential: recordings and transcript for participants only, never shared by link")
    ] = False,
    calendar_event_id: Annotated[
        str | None, Field(description="The calendar event this video call belongs to, e.g. EVT-0015")
    ] = None,
) -> dict[str, Any]:
    """Set up a video call (a Zoom-style call with a join link) at a time and invite participants; you host it."""
    _future(ctx, start_at)
    if calendar_event_id is not None:
        ctx.rows.need(CalEvent, calendar_event_id, "calendar event")
    host = me(ctx)
    meeting_id = ctx.rows.next_id(MtgMeeting)
    meeting = {
        "id": meeting_id,
        "title": title,
        "host_email": host,
        "start_at": start_at,
        "duration_minutes": duration_minutes,
        "status": "scheduled",
        "agenda": agenda.strip() if agenda and agenda.strip() else None,
        "confidential": confidential,
        "auto_record": auto_record,
        "join_url": f"{MEET_URL}/j/{meeting_id.lower()}",
        "calendar_event_id": calendar_event_id,
        "cancel_reason": None,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(MtgMeeting, meeting)
    _add(ctx, meeting_id, host, "host")
    for email in dict.fromkeys(e.lower() for e in participants):
        if email != host:
            _add(ctx, meeting_id, email, "attendee")
    return _full(ctx, meeting)


def _add(ctx: ToolContext, meeting_id: str, email: str, role: str) -> None:
    ctx.rows.insert(
        MtgParticipant,
        {"id": ctx.rows.next_id(MtgParticipant), "meeting_id": meeting_id, "email": email, "role": role},
    )


@tool(SERVICE, "PATCH", "/meetings/{call_id}")
def mtg_update_video_call(
    ctx: ToolContext,
    call_id: MeetingId,
    title: Annotated[Text | None, Field(max_length=200, description="New title")] = None,
    start_at: Annotated[DateTime | None, Field(description="New start time (UTC), in the future")] = None,
    duration_minutes: Annotated[Minutes | None, Field(description="New length in minutes")] = None,
    agenda: Annotated[Text | None, Field(description="New agenda")] = None,
    auto_record: Annotated[bool | None, Field(description="Record to the cloud automatically")] = None,
) -> dict[str, Any]:
    """Move an upcoming video call to another time or change its title, length or agenda.

    Only its host or a co-host may; participants keep their invitation and the join link stays the same."""
    meeting = _upcoming(ctx, call_id, "change it")
    if start_at is not None:
        _future(ctx, start_at)
    changed = update_given(
        ctx,
        MtgMeeting,
        meeting,
        title=title,
        start_at=start_at,
        duration_minutes=duration_minutes,
        agenda=agenda,
        auto_record=auto_record,
    )
    if changed:
        ctx.rows.change(MtgMeeting, meeting, {"updated_at": ctx.timestamp})
    return {**_full(ctx, meeting), "changed": changed}


@tool(SERVICE, "POST", "/meetings/{call_id}/cancel")
def mtg_cancel_video_call(
    ctx: ToolContext,
    call_id: MeetingId,
    reason: Annotated[str | None, Field(description="Why it is cancelled (shown to participants)")] = None,
) -> dict[str, Any]:
    """Call off an upcoming video call (its host only); participants see it as cancelled."""
    meeting = _meeting(ctx, call_id)
    if meeting["status"] != "scheduled":
        raise Conflict(f"meeting {meeting['id']} is {meeting['status']}", error=f"meeting_{meeting['status']}")
    _hosted(ctx, meeting, "cancel it", co_host=False)
    text = reason.strip() if reason and reason.strip() else None
    ctx.rows.change(MtgMeeting, meeting, {"status": "cancelled", "cancel_reason": text, "updated_at": ctx.timestamp})
    return meeting


@tool(SERVICE, "POST", "/meetings/{call_id}/participants")
def mtg_add_participants(
    ctx: ToolContext,
    call_id: MeetingId,
    emails: Annotated[list[Email], Field(min_length=1, max_length=100, description="Who to invite (emails)")],
    role: Annotated[
        Literal["attendee", "co_host"], Field(description="attendee (default) or co_host (may change the call)")
    ] = "attendee",
) -> dict[str, Any]:
    """Add participants to an upcoming video call, as attendees or co-hosts (host or co-host only)."""
    meeting = _upcoming(ctx, call_id, "invite people")
    wanted = list(dict.fromkeys(e.lower() for e in emails))
    already = [
        e for e in wanted if e == meeting["host_email"] or ctx.rows.one(PARTICIPANT, meeting_id=meeting["id"], email=e)
    ]
    if already:
        raise Conflict(f"already invited to {meeting['id']}: {', '.join(already)}", error="already_invited")
    for email in wanted:
        _add(ctx, meeting["id"], email, role)
    ctx.rows.change(MtgMeeting, meeting, {"updated_at": ctx.timestamp})
    return _full(ctx, meeting)


@tool(SERVICE, "DELETE", "/meetings/{call_id}/participants/{email}")
def mtg_remove_participant(
    ctx: ToolContext,
    call_id: MeetingId,
    email: Annotated[Email, Field(description="The participant to remove (not the host)")],
) -> dict[str, Any]:
    """Remove a participant from an upcoming video call (host or co-host only; not the host)."""
    meeting = _upcoming(ctx, call_id, "remove people")
    email = email.lower()
    if email == meeting["host_email"]:
        raise InvalidArgument("the host cannot be removed; cancel the meeting instead", error="is_host")
    found = ctx.rows.one(PARTICIPANT, meeting_id=meeting["id"], email=email)
    if found is None:
        raise NotFound(f"{email} is not invited to {meeting['id']}", error="not_invited")
    ctx.rows.delete(MtgParticipant, found["id"])
    ctx.rows.change(MtgMeeting, meeting, {"updated_at": ctx.timestamp})
    return _full(ctx, meeting)


# --- recordings ----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/meetings/recordings")
def mtg_list_recordings(
    ctx: ToolContext,
    call_id: Annotated[str | None, Field(description="Only recordings of this call id")] = None,
    query: Annotated[str | None, Field(description="Text in the recording's or the call's title")] = None,
    share_scope: Annotated[Scope | None, Field(description="Only recordings shared this way")] = None,
    include_deleted: Annotated[bool, Field(description="Also list deleted recordings")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List the cloud recordings of video calls, newest first, by call, title or how they are shared."""
    return ctx.rows.page(
        RECORDINGS,
        page,
        per_page,
        meeting_id=call_id,
        query=query,
        share_scope=share_scope,
        live=None if include_deleted else True,
    )


@tool(SERVICE, "GET", "/meetings/recordings/{recording_id}")
def mtg_get_recording(ctx: ToolContext, recording_id: RecordingId) -> dict[str, Any]:
    """Get one video call recording: its length, status, legal hold and how it is shared (with its link, if any)."""
    recording = _recording(ctx, recording_id)
    meeting = _meeting(ctx, recording["meeting_id"])
    _may_see(ctx, meeting, "recordings")
    return {**recording, "meeting_title": meeting["title"], "confidential": meeting["confidential"]}


@tool(SERVICE, "POST", "/meetings/recordings/{recording_id}/share")
def mtg_share_recording(
    ctx: ToolContext,
    recording_id: RecordingId,
    scope: Annotated[
        Scope,
        Field(description="private (host and co-hosts only), company (every employee) or link (anyone with the link)"),
    ],
) -> dict[str, Any]:
    """Share a video call recording with the company or by a public link, or make it private again (host or co-host).

    A confidential call's recordings are never shared by link; the link is returned as share_url."""
    recording = _recording(ctx, recording_id)
    meeting = _hosted(ctx, _meeting(ctx, recording["meeting_id"]), "share its recordings")
    if recording["status"] != "available":
        raise Conflict(
            f"recording {recording['id']} is {recording['status']}", error=f"recording_{recording['status']}"
        )
    if scope == "link" and meeting["confidential"]:
        raise Forbidden(
            f"meeting {meeting['id']} is confidential: its recordings cannot be shared by link",
            error="confidential_meeting",
        )
    url = _share_url(recording["id"]) if scope == "link" else None
    changed = ctx.rows.change(MtgRecording, recording, {"share_scope": scope, "share_url": url})
    return {**recording, "changed": bool(changed)}


@tool(SERVICE, "DELETE", "/meetings/recordings/{recording_id}")
def mtg_delete_recording(ctx: ToolContext, recording_id: RecordingId) -> dict[str, Any]:
    """Delete a video call recording (its host only); a recording on legal hold cannot be deleted."""
    recording = _recording(ctx, recording_id)
    _hosted(ctx, _meeting(ctx, recording["meeting_id"]), "delete its recordings", co_host=False)
    if recording["status"] == "deleted":
        raise Conflict(f"recording {recording['id']} is already deleted", error="recording_deleted")
    if recording["legal_hold"]:
        raise Forbidden(
            f"recording {recording['id']} is on legal hold ({recording['hold_reason'] or 'no reason given'}): "
            "it cannot be deleted while the hold lasts",
            error="legal_hold",
        )
    deleted = {"status": "deleted", "deleted_at": ctx.timestamp, "share_scope": "private", "share_url": None}
    ctx.rows.change(MtgRecording, recording, deleted)
    return recording


# --- transcripts ---------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/meetings/{call_id}/transcript")
def mtg_get_transcript(ctx: ToolContext, call_id: MeetingId) -> dict[str, Any]:
    """Read the transcript of a video call: who said what, line by line with times."""
    meeting = _meeting(ctx, call_id)
    _may_see(ctx, meeting, "transcript")
    transcript = ctx.rows.one(TRANSCRIPT_OF, meeting_id=meeting["id"])
    if transcript is None:
        raise NotFound(f"meeting {meeting['id']} has no transcript", error="no_transcript")
    return {**transcript, "title": meeting["title"], "start_at": meeting["start_at"]}


@tool(SERVICE, "GET", "/meetings/transcripts/search")
def mtg_search_transcripts(
    ctx: ToolContext,
    query: Annotated[Text, Field(description="Words said in the call, e.g. 'floor plan'")],
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """Search what was said in video calls: the calls whose transcript mentions the text, with the lines."""
    found = ctx.rows.page(TRANSCRIPTS, page, per_page, query=query, me=me(ctx))
    needle = query.lower()
    rows = []
    for row in found["rows"]:
        lines = [line for line in row.pop("content").splitlines() if needle in line.lower()]
        rows.append({**row, "lines": lines})
    return {**found, "rows": rows}


# --- follow-ups ----------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/meetings/follow-ups")
def mtg_list_follow_ups(
    ctx: ToolContext,
    call_id: Annotated[str | None, Field(description="Only follow-ups of this call id")] = None,
    owner_email: Annotated[str | None, Field(description="Only follow-ups this person owns")] = None,
    status: Annotated[FollowUpStatus | None, Field(description="open, done or cancelled")] = None,
    due_before: Annotated[Day | None, Field(description="Only follow-ups due on or before this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List the follow-ups (action items) of video calls, earliest due first, by call, owner, status or due date."""
    return ctx.rows.page(
        FOLLOW_UPS,
        page,
        per_page,
        meeting_id=call_id,
        owner_email=_lower(owner_email),
        status=status,
        due_before=due_before,
    )


@tool(SERVICE, "POST", "/meetings/{call_id}/follow-ups")
def mtg_create_follow_up(
    ctx: ToolContext,
    call_id: MeetingId,
    description: Annotated[Text, Field(description="What was agreed to be done")],
    owner_email: Annotated[Email, Field(description="Who does it: a participant of the call or a colleague")],
    due_date: Annotated[Day | None, Field(description="By when, YYYY-MM-DD (not in the past)")] = None,
) -> dict[str, Any]:
    """Log a follow-up (action item) agreed in a video call, with its owner and due date."""
    meeting = _meeting(ctx, call_id)
    if meeting["status"] == "cancelled":
        raise Conflict(f"meeting {meeting['id']} was cancelled", error="meeting_cancelled")
    owner = _owner(ctx, meeting, owner_email)
    if _day(due_date, "due_date") is not None and due_date < ctx.timestamp[:10]:
        raise InvalidArgument(f"due_date {due_date} is in the past", error="past_due_date")
    follow_up = {
        "id": ctx.rows.next_id(MtgFollowUp),
        "meeting_id": meeting["id"],
        "description": description,
        "owner_email": owner,
        "due_date": due_date,
        "status": "open",
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "completed_at": None,
    }
    ctx.rows.insert(MtgFollowUp, follow_up)
    return follow_up


@tool(SERVICE, "PATCH", "/meetings/follow-ups/{follow_up_id}")
def mtg_update_follow_up(
    ctx: ToolContext,
    follow_up_id: FollowUpId,
    description: Annotated[Text | None, Field(description="New description")] = None,
    owner_email: Annotated[Email | None, Field(description="New owner: a participant or a colleague")] = None,
    due_date: Annotated[Day | None, Field(description="New due date, YYYY-MM-DD")] = None,
    status: Annotated[FollowUpStatus | None, Field(description="open, done (completed) or cancelled")] = None,
) -> dict[str, Any]:
    """Update a video call's follow-up (action item): mark it done or cancelled, reassign it or change its due date."""
    follow_up = ctx.rows.need(MtgFollowUp, follow_up_id, "follow-up")
    meeting = _meeting(ctx, follow_up["meeting_id"])
    owner = None if owner_email is None else _owner(ctx, meeting, owner_email)
    _day(due_date, "due_date")
    changed = update_given(
        ctx, MtgFollowUp, follow_up, description=description, owner_email=owner, due_date=due_date, status=status
    )
    if "status" in changed:
        completed = ctx.timestamp if follow_up["status"] == "done" else None
        ctx.rows.change(MtgFollowUp, follow_up, {"completed_at": completed})
    return {**follow_up, "changed": changed}
