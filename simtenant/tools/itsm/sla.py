"""SLA tools: the SLA definitions and the SLA clocks of incidents. Clocks are started by
create_incident and completed by resolve_incident; the only manual start is for an open
incident that lacks its clocks.

An organization has at most one definition per priority and stage. Definitions are added and
changed by those with change rights on SLAs (managers), and their targets must stay consistent:
at one priority the response target is shorter than the resolution target, and at one stage a
lower priority never gets a tighter target than a higher one. A changed target applies to the
clocks started from then on; running clocks keep their breach time."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.sla import STAGES, SLADefinition
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, one_of
from .common import InOrg, OrgId, apply_updates, audit, filled, get_in_scope, listed_orgs, require, target_org
from .incidents import OPEN_STATUSES, IncidentNumber, clocks_of, incident_in_scope, start_clock

SERVICE = "itsm.sla"
Stage = Literal[STAGES]  # type: ignore[valid-type]

_DEFINITIONS = SLADefinition.__table__
_LISTED = Filtered(
    select(_DEFINITIONS),
    (_DEFINITIONS.c.priority, _DEFINITIONS.c.stage, _DEFINITIONS.c.id),
    orgs=one_of(_DEFINITIONS.c.org_id, "orgs"),
    priority=_DEFINITIONS.c.priority == bindparam("priority"),
    stage=_DEFINITIONS.c.stage == bindparam("stage"),
)


@tool(SERVICE, "GET", "/itsm/sla/definitions")
def list_sla_definitions(
    ctx: ToolContext,
    priority: Annotated[int | None, Field(ge=1, le=5, description="Only the SLAs of this priority")] = None,
    stage: Annotated[Stage | None, Field(description="Only response or only resolution SLAs")] = None,
    org_id: InOrg = None,
) -> Any:
    """List the SLA definitions: for each priority a response and a resolution target, in minutes."""
    orgs = listed_orgs(ctx, "sla", org_id)
    return {"definitions": ctx.rows.all(_LISTED, orgs=orgs, priority=priority, stage=stage)}


@tool(SERVICE, "GET", "/itsm/sla/incident")
def get_incident_slas(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """The SLA clocks of an incident: stage, state, start, breach time, completion and whether it
    breached; a running clock past its breach time is marked overdue."""
    incident = incident_in_scope(ctx, incident_number)
    require(ctx, "sla", "read", incident["org_id"])
    clocks = []
    for clock in clocks_of(ctx, incident["id"]):
        definition = ctx.rows.get(SLADefinition, clock["sla_id"])
        clocks.append(
            {
                **clock,
                "sla_name": definition["name"],
                "target_minutes": definition["target_minutes"],
                "overdue": clock["state"] == "in_progress" and ctx.timestamp > clock["breach_at"],
            }
        )
    return {"incident_id": incident["id"], "priority": incident["priority"], "slas": clocks}


@tool(SERVICE, "POST", "/itsm/sla/incident/link-new")
def link_new_incident_sla(ctx: ToolContext, incident_number: IncidentNumber) -> Any:
    """Start the missing SLA clocks of an open incident that lacks them: the response and
    resolution SLAs of its current priority, started now. Refused (409 duplicate) when the
    incident already has a clock for every stage."""
    incident = incident_in_scope(ctx, incident_number, "crud")
    if incident["status"] not in OPEN_STATUSES:
        raise Conflict(
            f"incident {incident['id']} is {incident['status']}; SLA clocks run on open incidents only",
            error="not_open",
        )
    held = {c["stage"] for c in clocks_of(ctx, incident["id"]) if c["state"] != "cancelled"}
    definitions = ctx.rows.find(SLADefinition, ("id",), org_id=incident["org_id"], priority=incident["priority"])
    missing = [d for d in definitions if d["stage"] not in held]
    if not missing:
        raise Conflict(f"incident {incident['id']} already has its SLA clocks", error="duplicate")
    clocks = [start_clock(ctx, "link_new_incident_sla", incident, d) for d in missing]
    return {"incident_id": incident["id"], "priority": incident["priority"], "slas": clocks}


SlaId = Annotated[str, Field(description="An SLA definition id, e.g. SLA-P2-RES")]
Minutes = Annotated[int, Field(ge=1, le=525600, description="The target in calendar minutes, e.g. 480 for 8 hours")]


def _consistent(ctx: ToolContext, org_id: str, sla_id: str | None, priority: int, stage: str, target: int) -> None:
    """Refuse a target that would make the organization's definitions inconsistent (409 inconsistent_targets)."""
    for other in ctx.rows.find(SLADefinition, ("priority", "stage"), org_id=org_id):
        if other["id"] == sla_id:
            continue
        theirs = other["target_minutes"]
        clash = None
        if other["priority"] == priority and other["stage"] != stage:
            response, resolution = (target, theirs) if stage == "response" else (theirs, target)
            if response >= resolution:
                clash = "at one priority the response target must be shorter than the resolution target"
        elif other["stage"] == stage and other["priority"] < priority and theirs > target:
            clash = f"a lower priority (P{priority}) may not get a tighter {stage} target than P{other['priority']}"
        elif other["stage"] == stage and other["priority"] > priority and theirs < target:
            clash = f"a higher priority (P{priority}) may not get a looser {stage} target than P{other['priority']}"
        if clash:
            raise Conflict(
                f"a P{priority} {stage} target of {target} minutes clashes with {other['id']} ({other['name']}, "
                f"{theirs} minutes): {clash}",
                error="inconsistent_targets",
            )


@tool(SERVICE, "POST", "/itsm/sla/definitions/create")
def create_sla_definition(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="Its name, e.g. P4 Low - response")],
    priority: Annotated[int, Field(ge=1, le=5, description="The priority it applies to, 1 critical … 5 planning")],
    stage: Annotated[Stage, Field(description="response or resolution")],
    target_minutes: Minutes,
    org_id: OrgId = None,
) -> Any:
    """Add an SLA definition to an organization (yours by default; a client's org_id for a client's SLA):
    the response or resolution target of one priority. Incidents of that priority created from then on get
    a clock of it. Needs change rights on SLAs there (managers). One definition per priority and stage (409
    duplicate: change the existing one instead), and the targets must stay consistent (409
    inconsistent_targets)."""
    org = target_org(ctx, org_id)
    require(ctx, "sla", "crud", org)
    existing = ctx.rows.find(SLADefinition, ("id",), org_id=org, priority=priority, stage=stage)
    if existing:
        raise Conflict(
            f"{org} already has a P{priority} {stage} SLA: {existing[0]['id']} ({existing[0]['name']}, "
            f"{existing[0]['target_minutes']} minutes); change it with update_sla_definition",
            error="duplicate",
        )
    _consistent(ctx, org, None, priority, stage, target_minutes)
    definition = {
        "id": ctx.rows.next_id(SLADefinition),
        "org_id": org,
        "name": name,
        "priority": priority,
        "stage": stage,
        "target_minutes": target_minutes,
    }
    ctx.rows.insert(SLADefinition, definition)
    audit(ctx, "create_sla_definition", "create", SLADefinition, definition, filled(definition))
    return definition


@tool(SERVICE, "POST", "/itsm/sla/definitions/update")
def update_sla_definition(
    ctx: ToolContext,
    sla_id: SlaId,
    name: Annotated[Text | None, Field(description="New name")] = None,
    target_minutes: Annotated[Minutes | None, Field(description="New target in calendar minutes")] = None,
) -> Any:
    """Change an SLA definition's target or name (its priority and stage stay: they say what it is). The
    new target applies to clocks started from then on; running clocks keep their breach time. The targets
    must stay consistent (409 inconsistent_targets). Needs change rights on SLAs (managers)."""
    definition: Row = get_in_scope(ctx, SLADefinition, sla_id, "SLA definition", "sla", "crud")
    updates = {k: v for k, v in {"name": name, "target_minutes": target_minutes}.items() if v is not None}
    if not updates:
        raise InvalidArgument("give a new target_minutes or name", error="missing_field")
    if target_minutes is not None:
        _consistent(
            ctx, definition["org_id"], definition["id"], definition["priority"], definition["stage"], target_minutes
        )
    changed = apply_updates(ctx, SLADefinition, definition, updates, updates)
    if changed:
        audit(ctx, "update_sla_definition", "update", SLADefinition, definition, changed)
    return {**definition, "changed": changed}
