"""Problem management: problems (the causes behind incidents), their lifecycle
new → assessed → root_cause_analysis → fix_in_progress → resolved → closed, one step at a time,
their root cause and workaround, and the incidents linked to them."""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.itsm.identity import SysUser, UserGroup
from ...schema.itsm.incidents import Incident
from ...schema.itsm.problems import PROBLEM_STATUSES, Problem, ProblemIncident
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, one_of
from .common import (
    InOrg,
    OrgId,
    Page,
    PerPage,
    audit,
    filled,
    get_in_scope,
    listed_orgs,
    priority_of,
    related,
    require,
    same_org,
    target_org,
)
from .identity import active_group
from .incidents import incident_in_scope

ProblemId = Annotated[str, Field(description="The problem number, e.g. PRB0000101")]
IncidentNumber = Annotated[str, Field(description="The incident number, e.g. INC0001001")]
ProblemStatus = Literal[PROBLEM_STATUSES]  # type: ignore[valid-type]
Impact = Annotated[int, Field(ge=1, le=3, description="Impact: 1 high (many users), 2 medium, 3 low")]
Urgency = Annotated[int, Field(ge=1, le=3, description="Urgency: 1 high, 2 medium, 3 low")]

# The one step forward from each state; "closed" is reached only through close_problem.
NEXT = dict(pairwise(PROBLEM_STATUSES))

_PROBLEMS, _INCIDENTS, _LINKS = Problem.__table__, Incident.__table__, ProblemIncident.__table__
_LISTED = Filtered(
    select(_PROBLEMS),
    (_PROBLEMS.c.id,),
    orgs=one_of(_PROBLEMS.c.org_id, "orgs"),
    status=_PROBLEMS.c.status == bindparam("status"),
    priority=_PROBLEMS.c.priority == bindparam("priority"),
    assignment_group_id=_PROBLEMS.c.assignment_group_id == bindparam("assignment_group_id"),
    assigned_to_id=_PROBLEMS.c.assigned_to_id == bindparam("assigned_to_id"),
)
_LINKED_INCIDENTS = Pages.of(
    select(_INCIDENTS)
    .join(_LINKS, _LINKS.c.incident_id == _INCIDENTS.c.id)
    .where(_LINKS.c.problem_id == bindparam("problem_id"), one_of(_INCIDENTS.c.org_id, "orgs"))
    .order_by(_INCIDENTS.c.id)
)


def _problem(ctx: ToolContext, problem_id: str, action: str = "read") -> Row:
    return get_in_scope(ctx, Problem, problem_id, "problem", "problem", action)


def _open_problem(ctx: ToolContext, problem_id: str) -> Row:
    """A problem the acting user may change, which must not be closed."""
    problem = _problem(ctx, problem_id, "crud")
    if problem["status"] == "closed":
        raise Conflict(f"problem {problem_id} is closed and takes no more changes", error="record_closed")
    return problem


def _group_of(ctx: ToolContext, group_id: str, org_id: str) -> Row:
    return active_group(related(ctx, UserGroup, group_id, "group", org_id))


def _assignee(ctx: ToolContext, user_id: str, org_id: str) -> Row:
    user = related(ctx, SysUser, user_id, "user", org_id)
    if not user["active"]:
        raise Conflict(f"user {user_id} is inactive and cannot be assigned work", error="inactive_user")
    return user


def _change(ctx: ToolContext, tool_name: str, problem: Row, updates: dict[str, Any]) -> list[str]:
    """Apply ``updates``; when something changed, stamp updated_at and write the audit entry."""
    changed = [name for name, value in updates.items() if problem[name] != value]
    if changed:
        ctx.rows.change(Problem, problem, {**updates, "updated_at": ctx.timestamp})
        audit(ctx, tool_name, "update", Problem, problem, changed)
    return changed


def _view(ctx: ToolContext, problem: Row) -> dict[str, Any]:
    links = ctx.rows.find(ProblemIncident, problem_id=problem["id"])
    return {**problem, "incident_ids": sorted(link["incident_id"] for link in links)}


@tool("itsm.problems", "GET", "/itsm/problems/get")
def get_problem(ctx: ToolContext, problem_id: ProblemId) -> Any:
    """Get one problem by its number: status, priority, assignment, root cause, workaround and
    the numbers of its linked incidents."""
    return _view(ctx, _problem(ctx, problem_id))


@tool("itsm.problems", "GET", "/itsm/problems")
def list_problems(
    ctx: ToolContext,
    status: Annotated[ProblemStatus | None, Field(description="Only problems in this state")] = None,
    priority: Annotated[int | None, Field(ge=1, le=5, description="Only problems of this priority (1-5)")] = None,
    assignment_group_id: Annotated[str | None, Field(description="Only problems assigned to this group")] = None,
    assigned_to_id: Annotated[str | None, Field(description="Only problems assigned to this user")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List problems, by number, with optional filters."""
    return ctx.rows.page(
        _LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "problem", org_id),
        status=status,
        priority=priority,
        assignment_group_id=assignment_group_id,
        assigned_to_id=assigned_to_id,
    )


@tool("itsm.problems", "POST", "/itsm/problems")
def create_problem(
    ctx: ToolContext,
    short_description: Annotated[Text, Field(description="One-line summary of the problem")],
    impact: Impact,
    urgency: Urgency,
    description: Annotated[Text | None, Field(description="Longer description")] = None,
    assignment_group_id: Annotated[str | None, Field(description="The group to work on it, e.g. GRP-003")] = None,
    assigned_to_id: Annotated[str | None, Field(description="The user to work on it (active)")] = None,
    org_id: OrgId = None,
) -> Any:
    """Open a problem in state new, in an organization (yours by default); its group and assignee must
    be of that organization (400 cross_organization). Its priority follows from impact × urgency
    (1 critical … 5 planning)."""
    org = target_org(ctx, org_id)
    require(ctx, "problem", "crud", org)
    if assignment_group_id is not None:
        _group_of(ctx, assignment_group_id, org)
    if assigned_to_id is not None:
        _assignee(ctx, assigned_to_id, org)
    problem = {
        "id": ctx.rows.next_id(Problem),
        "org_id": org,
        "short_description": short_description,
        "description": description,
        "status": "new",
        "priority": priority_of(impact, urgency),
        "assignment_group_id": assignment_group_id,
        "assigned_to_id": assigned_to_id,
        "root_cause": None,
        "workaround": None,
        "opened_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(Problem, problem)
    audit(ctx, "create_problem", "create", Problem, problem, filled(problem))
    return _view(ctx, problem)


@tool("itsm.problems", "POST", "/itsm/problems/update")
def update_problem(
    ctx: ToolContext,
    problem_id: ProblemId,
    short_description: Annotated[Text | None, Field(description="New one-line summary")] = None,
    description: Annotated[Text | None, Field(description="New description")] = None,
    impact: Annotated[int | None, Field(ge=1, le=3, description="New impact (give urgency too)")] = None,
    urgency: Annotated[int | None, Field(ge=1, le=3, description="New urgency (give impact too)")] = None,
    assignment_group_id: Annotated[str | None, Field(description="New assignment group")] = None,
    assigned_to_id: Annotated[str | None, Field(description="New assignee (active user)")] = None,
    root_cause: Annotated[Text | None, Field(description="The root cause found")] = None,
) -> Any:
    """Change a problem's details (not its state: see advance_problem). Impact and urgency are
    given together and recompute the priority."""
    problem = _open_problem(ctx, problem_id)
    if (impact is None) != (urgency is None):
        raise InvalidArgument("give impact and urgency together: the priority follows from both", error="missing_field")
    if assignment_group_id is not None:
        _group_of(ctx, assignment_group_id, problem["org_id"])
    if assigned_to_id is not None:
        _assignee(ctx, assigned_to_id, problem["org_id"])
    updates = {
        "short_description": short_description,
        "description": description,
        "assignment_group_id": assignment_group_id,
        "assigned_to_id": assigned_to_id,
        "root_cause": root_cause,
        "priority": priority_of(impact, urgency) if impact is not None and urgency is not None else None,
    }
    given = {k: v for k, v in updates.items() if v is not None}
    if not given:
        raise InvalidArgument("nothing to update: give at least one field", error="missing_field")
    changed = _change(ctx, "update_problem", problem, given)
    return {**_view(ctx, problem), "changed": sorted(changed)}


@tool("itsm.problems", "POST", "/itsm/problems/advance")
def advance_problem(
    ctx: ToolContext,
    problem_id: ProblemId,
    status: Annotated[ProblemStatus, Field(description="The next state: exactly one step forward")],
    root_cause: Annotated[Text | None, Field(description="The root cause (needed to reach resolved)")] = None,
) -> Any:
    """Move a problem one step along new → assessed → root_cause_analysis → fix_in_progress →
    resolved. Reaching resolved needs a root cause (given here or already recorded). Closing is
    close_problem."""
    problem = _problem(ctx, problem_id, "crud")
    expected = NEXT.get(problem["status"])
    if status != expected or status == "closed":
        hint = {None: "it is closed", "closed": "use close_problem"}.get(expected, f"the next state is {expected}")
        raise Conflict(
            f"problem {problem_id} cannot go from {problem['status']} to {status} ({hint})",
            error="illegal_transition",
        )
    if status == "resolved" and root_cause is None and not problem["root_cause"]:
        raise InvalidArgument(f"problem {problem_id} needs a root_cause to be resolved", error="missing_field")
    previous = problem["status"]
    _change(ctx, "advance_problem", problem, {"status": status, **({"root_cause": root_cause} if root_cause else {})})
    return {**_view(ctx, problem), "previous_status": previous}


@tool("itsm.problems", "POST", "/itsm/problems/workaround")
def set_problem_workaround(
    ctx: ToolContext,
    problem_id: ProblemId,
    workaround: Annotated[Text, Field(description="How users can work around the problem until it is fixed")],
) -> Any:
    """Record (or replace) a problem's workaround."""
    problem = _open_problem(ctx, problem_id)
    _change(ctx, "set_problem_workaround", problem, {"workaround": workaround})
    return _view(ctx, problem)


@tool("itsm.problems", "POST", "/itsm/problems/link-incident")
def link_incident_to_problem(ctx: ToolContext, problem_id: ProblemId, incident_number: IncidentNumber) -> Any:
    """Link an incident to the problem that causes it, of the same organization (the incident's
    problem is set too). An incident belongs to at most one problem."""
    problem = _open_problem(ctx, problem_id)
    incident = incident_in_scope(ctx, incident_number, "crud")
    same_org(problem["org_id"], Incident, incident, "incident")
    linked = ctx.rows.get(ProblemIncident, (problem["id"], incident["id"])) is not None
    if linked or incident["problem_id"] == problem["id"]:
        raise Conflict(f"incident {incident_number} is already linked to problem {problem_id}", error="duplicate")
    if incident["problem_id"] is not None:
        raise Conflict(
            f"incident {incident_number} is already linked to problem {incident['problem_id']}; unlink it first",
            error="already_linked",
        )
    link = {"problem_id": problem["id"], "incident_id": incident["id"], "org_id": problem["org_id"]}
    ctx.rows.insert(ProblemIncident, link)
    ctx.rows.change(Incident, incident, {"problem_id": problem["id"], "updated_at": ctx.timestamp})
    audit(ctx, "link_incident_to_problem", "create", ProblemIncident, link, filled(link))
    audit(ctx, "link_incident_to_problem", "update", Incident, incident, ["problem_id"])
    return {"problem_id": problem["id"], "incident_id": incident["id"], "linked": True}


@tool("itsm.problems", "POST", "/itsm/problems/unlink-incident")
def unlink_incident_from_problem(ctx: ToolContext, problem_id: ProblemId, incident_number: IncidentNumber) -> Any:
    """Remove the link between an incident and a problem (the incident's problem is cleared)."""
    problem = _open_problem(ctx, problem_id)
    incident = incident_in_scope(ctx, incident_number, "crud")
    link = ctx.rows.get(ProblemIncident, (problem["id"], incident["id"]))
    if link is None:
        raise NotFound(f"incident {incident_number} is not linked to problem {problem_id}")
    audit(ctx, "unlink_incident_from_problem", "delete", ProblemIncident, link, filled(link))
    ctx.rows.delete(ProblemIncident, (problem["id"], incident["id"]))
    if incident["problem_id"] == problem["id"]:
        ctx.rows.change(Incident, incident, {"problem_id": None, "updated_at": ctx.timestamp})
        audit(ctx, "unlink_incident_from_problem", "update", Incident, incident, ["problem_id"])
    return {"problem_id": problem["id"], "incident_id": incident["id"], "linked": False}


@tool("itsm.problems", "GET", "/itsm/problems/incidents")
def list_problem_incidents(ctx: ToolContext, problem_id: ProblemId, page: Page = 1, per_page: PerPage = 20) -> Any:
    """List the incidents linked to a problem, by number."""
    problem = _problem(ctx, problem_id)
    orgs = listed_orgs(ctx, "incident")
    return {
        "problem_id": problem["id"],
        **ctx.rows.page(_LINKED_INCIDENTS, page, per_page, problem_id=problem["id"], orgs=orgs),
    }


@tool("itsm.problems", "POST", "/itsm/problems/close")
def close_problem(ctx: ToolContext, problem_id: ProblemId) -> Any:
    """Close a resolved problem (resolved → closed); a closed problem takes no more changes."""
    problem = _problem(ctx, problem_id, "crud")
    if problem["status"] != "resolved":
        raise Conflict(
            f"problem {problem_id} is {problem['status']}: only a resolved problem can be closed",
            error="illegal_transition",
        )
    ctx.rows.change(Problem, problem, {"status": "closed", "updated_at": ctx.timestamp})
    audit(ctx, "close_problem", "update", Problem, problem, ["status"])
    return {**_view(ctx, problem), "previous_status": "resolved"}
