"""Change management: change requests, their lifecycle new → assess → authorize → scheduled →
implement → review → closed (or cancelled from any state but closed) with its gates, and the
approvals of the Change Advisory Board (CAB)."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, Forbidden, InvalidArgument
from ...schema.itsm.changes import (
    CHANGE_CATEGORIES,
    CHANGE_STATUSES,
    CLOSE_CODES,
    RISKS,
    ChangeApproval,
    ChangeRequest,
)
from ...schema.itsm.cmdb import ConfigurationItem
from ...schema.itsm.identity import GroupMember, SysUser, UserGroup
from ...schema.itsm.incidents import Incident
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    acting_user,
    apply_updates,
    audit,
    filled,
    get_in_scope,
    listed_orgs,
    related,
    require,
    same_org,
    target_org,
)
from .identity import active_group
from .incidents import incident_in_scope

ChangeId = Annotated[str, Field(description="The change number, e.g. CHG0000201")]
IncidentNumber = Annotated[str, Field(description="The incident number, e.g. INC0001001")]
ChangeStatus = Literal[CHANGE_STATUSES]  # type: ignore[valid-type]
Category = Literal[CHANGE_CATEGORIES]  # type: ignore[valid-type]
Risk = Literal[RISKS]  # type: ignore[valid-type]
CloseCode = Literal[CLOSE_CODES]  # type: ignore[valid-type]
Moment = Annotated[str, Field(description="A UTC time, e.g. 2026-05-20T22:00:00Z")]

CAB_GROUP = "Change Advisory Board"  # the group (GRP-005 in the seed) whose members approve changes
FLOW = ("new", "assess", "authorize", "scheduled", "implement", "review", "closed")
NEXT = dict(pairwise(FLOW))  # "closed" is reached only through close_change
TERMINAL = ("closed", "cancelled")
PLANS = ("implementation_plan", "test_plan", "backout_plan")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

_CHANGES, _GROUPS = ChangeRequest.__table__, UserGroup.__table__
LISTED = Filtered(
    select(_CHANGES),
    (_CHANGES.c.id,),
    orgs=one_of(_CHANGES.c.org_id, "orgs"),
    status=_CHANGES.c.status == bindparam("status"),
    category=_CHANGES.c.category == bindparam("category"),
    risk=_CHANGES.c.risk == bindparam("risk"),
    cab_required=_CHANGES.c.cab_required == bindparam("cab_required"),
    assignment_group_id=_CHANGES.c.assignment_group_id == bindparam("assignment_group_id"),
    requested_by_id=_CHANGES.c.requested_by_id == bindparam("requested_by_id"),
)
CAB_OF = Statement.of(
    select(_GROUPS.c.id)
    .where(_GROUPS.c.org_id == bindparam("org_id"), _GROUPS.c.name == bindparam("name"))
    .order_by(_GROUPS.c.id)
)


def needs_cab(category: str, risk: str, impact: int) -> bool:
    """The policy: a normal change with high risk or impact 1, and every emergency change, go to the CAB."""
    return (category == "normal" and (risk == "high" or impact == 1)) or category == "emergency"


def _change(ctx: ToolContext, change_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, ChangeRequest, change_id, "change request", "change", action)


def _open_change(ctx: ToolContext, change_id: str) -> Row:
    """A change the acting user may change, which must not be closed or cancelled."""
    change = _change(ctx, change_id, "crud")
    if change["status"] in TERMINAL:
        raise Conflict(f"change {change_id} is {change['status']} and takes no more changes", error="record_closed")
    return change


def _check_time(value: str, name: str) -> str:
    try:
        datetime.strptime(value, TIME_FORMAT)
    except ValueError:
        raise InvalidArgument(f"{name} must be a UTC time like 2026-05-20T22:00:00Z, got {value!r}") from None
    return value


def _in_org(ctx: ToolContext, model: type, key: str, org_id: str, what: str) -> Row:
    """A record the change refers to: 404 outside the acting user's scope, 400 cross_organization
    when of another organization than the change's."""
    return related(ctx, model, key, what, org_id)


def _approvals(ctx: ToolContext, change_id: str) -> list[Row]:
    return ctx.rows.find(ChangeApproval, ("id",), change_id=change_id)


def _view(ctx: ToolContext, change: Row) -> dict[str, Any]:
    return {**change, "approvals": _approvals(ctx, change["id"])}


def _touch(ctx: ToolContext, change: Row) -> None:
    """Stamp the change as updated now."""
    ctx.rows.change(ChangeRequest, change, {"updated_at": ctx.timestamp})


def _moved(ctx: ToolContext, tool_name: str, change: Row, updates: dict[str, Any]) -> dict[str, Any]:
    previous = change["status"]
    changed = apply_updates(ctx, ChangeRequest, change, updates, updates)
    _touch(ctx, change)
    audit(ctx, tool_name, "update", ChangeRequest, change, changed)
    return {**_view(ctx, change), "previous_status": previous}


@tool("itsm.changes", "GET", "/itsm/changes/get")
def get_change_request(ctx: ToolContext, change_id: ChangeId) -> Any:
    """Get one change request by its number, with its plans, schedule and CAB approvals."""
    return _view(ctx, _change(ctx, change_id))


@tool("itsm.changes", "GET", "/itsm/changes")
def list_change_requests(
    ctx: ToolContext,
    status: Annotated[ChangeStatus | None, Field(description="Only changes in this state")] = None,
    category: Annotated[Category | None, Field(description="Only changes of this category")] = None,
    risk: Annotated[Risk | None, Field(description="Only changes of this risk")] = None,
    cab_required: Annotated[bool | None, Field(description="Only changes that do (or do not) need the CAB")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only changes assigned to this group")] = None,
    requested_by_id: Annotated[str | None, Field(description="Only changes requested by this user")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List change requests, by number, with optional filters."""
    return ctx.rows.page(
        LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "change", org_id),
        status=status,
        category=category,
        risk=risk,
        cab_required=cab_required,
        assignment_group_id=assignment_group_id,
        requested_by_id=requested_by_id,
    )


@tool("itsm.changes", "POST", "/itsm/changes")
def create_change_request(
    ctx: ToolContext,
    short_description: Annotated[Text, Field(description="One-line summary of the change")],
    category: Annotated[Category, Field(description="standard (pre-approved), normal or emergency")],
    risk: Annotated[Risk, Field(description="The assessed risk")],
    impact: Annotated[int, Field(ge=1, le=3, description="Impact: 1 high, 2 medium, 3 low")],
    description: Annotated[Text | None, Field(description="Longer description")] = None,
    requested_by_id: Annotated[str | None, Field(description="Who asks for it (default: the acting user)")] = None,
    assignment_group_id: Annotated[str | None, Field(description="The group implementing it, e.g. GRP-002")] = None,
    ci_id: Annotated[str | None, Field(description="The configuration item changed, e.g. CI-00012")] = None,
    implementation_plan: Annotated[Text | None, Field(description="How the change is made")] = None,
    test_plan: Annotated[Text | None, Field(description="How the change is verified")] = None,
    backout_plan: Annotated[Text | None, Field(description="How the change is undone if it fails")] = None,
    start_at: Annotated[Moment | None, Field(description="Planned start, UTC")] = None,
    end_at: Annotated[Moment | None, Field(description="Planned end, UTC, after the start")] = None,
    org_id: OrgId = None,
) -> Any:
    """Raise a change request in state new, in an organization (yours by default); the requester,
    group and CI given must be of that organization (400 cross_organization). Whether the CAB must
    approve it is computed: normal changes with high risk or impact 1, and every emergency change."""
    org = target_org(ctx, org_id)
    user = require(ctx, "change", "crud", org)
    if requested_by_id is not None:
        requester = _in_org(ctx, SysUser, requested_by_id, org, "user")
        if not requester["active"]:
            raise Conflict(f"user {requested_by_id} is inactive", error="inactive_user")
    if assignment_group_id is not None:
        active_group(_in_org(ctx, UserGroup, assignment_group_id, org, "group"))
    if ci_id is not None:
        _in_org(ctx, ConfigurationItem, ci_id, org, "configuration item")
    for name, value in (("start_at", start_at), ("end_at", end_at)):
        if value is not None:
            _check_time(value, name)
    if start_at is not None and end_at is not None and start_at >= end_at:
        raise InvalidArgument(f"end_at {end_at} must be after start_at {start_at}", error="invalid_value")
    values = {
        "id": ctx.rows.next_id(ChangeRequest),
        "org_id": org,
        "short_description": short_description,
        "description": description,
        "category": category,
        "risk": risk,
        "impact": impact,
        "cab_required": needs_cab(category, risk, impact),
        "status": "new",
        "requested_by_id": requested_by_id or user["id"],
        "assignment_group_id": assignment_group_id,
        "ci_id": ci_id,
        "start_at": start_at,
        "end_at": end_at,
        "implementation_plan": implementation_plan,
        "test_plan": test_plan,
        "backout_plan": backout_plan,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(ChangeRequest, values)
    change = ctx.rows.need(ChangeRequest, values["id"], "change request")
    audit(ctx, "create_change_request", "create", ChangeRequest, change, filled(values))
    return _view(ctx, change)


@tool("itsm.changes", "POST", "/itsm/changes/update")
def update_change_request(
    ctx: ToolContext,
    change_id: ChangeId,
    short_description: Annotated[Text | None, Field(description="New one-line summary")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    implementation_plan: Annotated[Text | None, Field(description="How the change is made")] = None,
    test_plan: Annotated[Text | None, Field(description="How the change is verified")] = None,
    backout_plan: Annotated[Text | None, Field(description="How the change is undone if it fails")] = None,
    start_at: Annotated[Moment | None, Field(description="Planned start, UTC")] = None,
    end_at: Annotated[Moment | None, Field(description="Planned end, UTC, after the start")] = None,
    assignment_group_id: Annotated[str | None, Field(description="New implementing group")] = None,
    ci_id: Annotated[str | None, Field(description="New configuration item")] = None,
    category: Annotated[Category | None, Field(description="New category (recomputes cab_required)")] = None,
    risk: Annotated[Risk | None, Field(description="New risk (recomputes cab_required)")] = None,
    impact: Annotated[int | None, Field(ge=1, le=3, description="New impact (recomputes cab_required)")] = None,
) -> Any:
    """Change a change request's description, plans, schedule, group, CI, category, risk or
    impact (not its state: see advance_change). Whether the CAB is required is recomputed."""
    change = _open_change(ctx, change_id)
    given = {
        k: v
        for k, v in {
            "short_description": short_description,
            "description": description,
            "implementation_plan": implementation_plan,
            "test_plan": test_plan,
            "backout_plan": backout_plan,
            "start_at": start_at,
            "end_at": end_at,
            "assignment_group_id": assignment_group_id,
            "ci_id": ci_id,
            "category": category,
            "risk": risk,
            "impact": impact,
        }.items()
        if v is not None
    }
    if not given:
        raise InvalidArgument("nothing to update: give at least one field", error="missing_field")
    for name in ("start_at", "end_at"):
        if name in given:
            _check_time(given[name], name)
    start, end = given.get("start_at", change["start_at"]), given.get("end_at", change["end_at"])
    if start is not None and end is not None and start >= end:
        raise InvalidArgument(f"end_at {end} must be after start_at {start}", error="invalid_value")
    if assignment_group_id is not None:
        active_group(_in_org(ctx, UserGroup, assignment_group_id, change["org_id"], "group"))
    if ci_id is not None:
        _in_org(ctx, ConfigurationItem, ci_id, change["org_id"], "configuration item")
    if given.keys() & {"category", "risk", "impact"}:
        given["cab_required"] = needs_cab(
            given.get("category", change["category"]),
            given.get("risk", change["risk"]),
            given.get("impact", change["impact"]),
        )
    changed = apply_updates(ctx, ChangeRequest, change, given, given)
    if changed:
        _touch(ctx, change)
        audit(ctx, "update_change_request", "update", ChangeRequest, change, changed)
    return {**_view(ctx, change), "changed": sorted(changed)}


@tool("itsm.changes", "POST", "/itsm/changes/advance")
def advance_change(
    ctx: ToolContext,
    change_id: ChangeId,
    status: Annotated[ChangeStatus, Field(description="The next state: exactly one step forward")],
) -> Any:
    """Move a change one step along new → assess → authorize → scheduled → implement → review.
    Gates: leaving assess needs the implementation, test and backout plans; leaving authorize, when
    the CAB is required, needs at least one approval and every approval approved; entering
    scheduled needs start_at before end_at. Closing is close_change, cancelling cancel_change."""
    change = _change(ctx, change_id, "crud")
    current = change["status"]
    expected = NEXT.get(current)
    if status != expected or status == "closed":
        hint = {None: f"it is {current}", "closed": "use close_change"}.get(expected, f"the next state is {expected}")
        if status == "cancelled" and current not in TERMINAL:
            hint = "use cancel_change"
        raise Conflict(f"change {change_id} cannot go from {current} to {status} ({hint})", error="illegal_transition")
    if current == "assess":
        missing = [p for p in PLANS if not change[p]]
        if missing:
            raise Conflict(
                f"change {change_id} cannot leave assess without its plans; missing: {', '.join(missing)}",
                error="missing_plans",
            )
    if current == "authorize" and change["cab_required"]:
        approvals = _approvals(ctx, change["id"])
        pending = [f"{a['approver_id']} ({a['state']})" for a in approvals if a["state"] != "approved"]
        if not approvals or pending:
            reason = "no CAB approval was requested" if not approvals else "not approved by " + ", ".join(pending)
            raise Conflict(f"change {change_id} needs the CAB's approval: {reason}", error="not_approved")
    start, end = change["start_at"], change["end_at"]
    if status == "scheduled" and not (start and end and start < end):
        raise Conflict(
            f"change {change_id} needs start_at before end_at to be scheduled (start_at {start}, end_at {end})",
            error="missing_schedule",
        )
    return _moved(ctx, "advance_change", change, {"status": status})


@tool("itsm.changes", "POST", "/itsm/changes/cancel")
def cancel_change(
    ctx: ToolContext,
    change_id: ChangeId,
    reason: Annotated[Text, Field(description="Why the change is cancelled (kept in the close notes)")],
) -> Any:
    """Cancel a change, from any state but closed."""
    change = _change(ctx, change_id, "crud")
    if change["status"] in TERMINAL:
        raise Conflict(f"change {change_id} is already {change['status']}", error="illegal_transition")
    return _moved(ctx, "cancel_change", change, {"status": "cancelled", "close_notes": reason})


@tool("itsm.changes", "POST", "/itsm/changes/close")
def close_change(
    ctx: ToolContext,
    change_id: ChangeId,
    close_code: Annotated[CloseCode, Field(description="How the change went")],
    close_notes: Annotated[Text, Field(description="What was done and what was learnt")],
) -> Any:
    """Close a change that is in review (review → closed), with its close code and notes."""
    change = _change(ctx, change_id, "crud")
    if change["status"] != "review":
        raise Conflict(
            f"change {change_id} is {change['status']}: only a change in review can be closed",
            error="illegal_transition",
        )
    return _moved(
        ctx, "close_change", change, {"status": "closed", "close_code": close_code, "close_notes": close_notes}
    )


@tool("itsm.changes", "POST", "/itsm/changes/approvals/request")
def request_change_approval(
    ctx: ToolContext,
    change_id: ChangeId,
    approver_id: Annotated[str, Field(description="The approver: an active member of the Change Advisory Board")],
) -> Any:
    """Ask a member of the Change Advisory Board (CAB) to approve a change."""
    change = _open_change(ctx, change_id)
    approver = _in_org(ctx, SysUser, approver_id, change["org_id"], "user")
    cab = ctx.rows.value(CAB_OF, org_id=change["org_id"], name=CAB_GROUP)
    if cab is None or ctx.rows.get(GroupMember, (cab, approver["id"])) is None:
        raise Conflict(f"{approver_id} is not a member of the {CAB_GROUP}", error="not_cab_member")
    if not approver["active"]:
        raise Conflict(f"{approver_id} is inactive", error="inactive_user")
    if any(a["approver_id"] == approver["id"] for a in _approvals(ctx, change["id"])):
        raise Conflict(f"{approver_id} has already been asked to approve change {change_id}", error="duplicate")
    values = {
        "org_id": change["org_id"],
        "change_id": change["id"],
        "approver_id": approver["id"],
        "state": "requested",
    }
    approval = ctx.rows.need(ChangeApproval, ctx.rows.insert(ChangeApproval, values), "change approval")
    audit(ctx, "request_change_approval", "create", ChangeApproval, approval, filled(values))
    return approval


def _decide(ctx: ToolContext, tool_name: str, change_id: str, state: str, comments: str | None) -> Any:
    change = _open_change(ctx, change_id)
    me = acting_user(ctx)
    mine = [a for a in _approvals(ctx, change["id"]) if a["approver_id"] == me["id"]]
    if not mine:
        raise Forbidden(f"{me['id']} is not an approver of change {change_id}", error="not_approver")
    approval = mine[0]
    if approval["state"] != "requested":
        raise Conflict(f"{me['id']} already {approval['state']} change {change_id}", error="already_decided")
    updates: dict[str, Any] = {"state": state, "decided_at": ctx.timestamp}
    if comments is not None:
        updates["comments"] = comments
    changed = apply_updates(ctx, ChangeApproval, approval, updates, updates)
    audit(ctx, tool_name, "update", ChangeApproval, approval, changed)
    return approval


@tool("itsm.changes", "POST", "/itsm/changes/approvals/approve")
def approve_change(
    ctx: ToolContext,
    change_id: ChangeId,
    comments: Annotated[Text | None, Field(description="Remarks for the record")] = None,
) -> Any:
    """Approve a change, as the acting user, who must be one of its requested approvers."""
    return _decide(ctx, "approve_change", change_id, "approved", comments)


@tool("itsm.changes", "POST", "/itsm/changes/approvals/reject")
def reject_change(
    ctx: ToolContext,
    change_id: ChangeId,
    comments: Annotated[Text, Field(description="Why the change is rejected")],
) -> Any:
    """Reject a change, as the acting user, who must be one of its requested approvers. A rejected
    approval keeps the change from leaving authorize."""
    return _decide(ctx, "reject_change", change_id, "rejected", comments)


@tool("itsm.changes", "GET", "/itsm/changes/approvals")
def list_change_approvals(ctx: ToolContext, change_id: ChangeId) -> Any:
    """List a change's CAB approvals: approver, state (requested, approved, rejected), comments."""
    change = _change(ctx, change_id)
    return {
        "change_id": change["id"],
        "cab_required": change["cab_required"],
        "approvals": _approvals(ctx, change["id"]),
    }


@tool("itsm.changes", "POST", "/itsm/changes/link-incident")
def link_change_to_incident(ctx: ToolContext, change_id: ChangeId, incident_number: IncidentNumber) -> Any:
    """Record that an incident is related to (e.g. caused by) a change of its organization: sets the
    incident's change."""
    change = _change(ctx, change_id)
    incident = incident_in_scope(ctx, incident_number, "crud")
    same_org(incident["org_id"], ChangeRequest, change, "change request")
    if incident["change_id"] == change["id"]:
        raise Conflict(f"incident {incident_number} is already linked to change {change_id}", error="duplicate")
    if incident["change_id"] is not None:
        raise Conflict(
            f"incident {incident_number} is already linked to change {incident['change_id']}", error="already_linked"
        )
    ctx.rows.change(Incident, incident, {"change_id": change["id"], "updated_at": ctx.timestamp})
    audit(ctx, "link_change_to_incident", "update", Incident, incident, ["change_id"])
    return {"change_id": change["id"], "incident_id": incident["id"], "linked": True}
