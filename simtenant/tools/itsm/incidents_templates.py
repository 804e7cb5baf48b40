"""Incident templates: creating a template and changing or withdrawing one (list_incident_templates
reads them; create_incident(template_id=...) uses them).

A template is incident configuration: it takes change rights on incidents and the manager role (an
admin qualifies) in its organization. Its name is unique within the organization; its group must be an
active group and its service a service of that organization that is not retired. An inactive template
cannot be used any more (409 inactive_template in create_incident).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, func, select

from ...errors import Conflict, InvalidArgument
from ...schema.itsm.identity import UserGroup
from ...schema.itsm.incidents import IncidentTemplate
from ...schema.itsm.services import Service
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Row, Statement
from .common import (
    OrgId,
    apply_updates,
    audit,
    filled,
    get_in_scope,
    related,
    require,
    require_role,
    require_somewhere,
    target_org,
)
from .identity import active_group
from .incidents import SERVICE, Category, Impact, Urgency

TemplateId = Annotated[str, Field(description="An incident template id, e.g. TPL-001")]

_TEMPLATES = IncidentTemplate.__table__
_NAME_TAKEN = Statement.of(
    select(_TEMPLATES.c.id)
    .where(_TEMPLATES.c.org_id == bindparam("org_id"), func.lower(_TEMPLATES.c.name) == bindparam("name"))
    .order_by(_TEMPLATES.c.id)
    .limit(1)
)


def _name(ctx: ToolContext, org_id: str, name: str, except_id: str | None = None) -> str:
    taken = ctx.rows.value(_NAME_TAKEN, org_id=org_id, name=name.lower())
    if taken is not None and taken != except_id:
        raise Conflict(f"{org_id} already has an incident template named {name!r}: {taken}", error="duplicate")
    return name


def _references(ctx: ToolContext, org_id: str, group_id: str | None, service_id: str | None) -> None:
    """The template's group (active) and service (not retired), both of its organization."""
    if group_id is not None:
        active_group(related(ctx, UserGroup, group_id, "group", org_id))
    if service_id is not None:
        service = related(ctx, Service, service_id, "service", org_id)
        if service["status"] == "retired":
            raise Conflict(
                f"service {service['id']} ({service['name']}) is retired: a template may not name it",
                error="retired_service",
            )


@tool(SERVICE, "POST", "/itsm/incidents/templates/create")
def create_incident_template(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="The template's name, unique within the organization")],
    short_description: Annotated[Text, Field(description="The short description incidents made from it get")],
    category: Annotated[Category, Field(description="The category incidents made from it get")],
    impact: Annotated[Impact, Field(description="Default impact 1-3")],
    urgency: Annotated[Urgency, Field(description="Default urgency 1-3")],
    assignment_group_id: Annotated[str | None, Field(description="Default assignment group (an active group)")] = None,
    service_id: Annotated[str | None, Field(description="Default affected service")] = None,
    org_id: OrgId = None,
) -> Any:
    """Create an incident template in an organization (yours by default; a client's org_id for a client's
    template): the defaults create_incident(template_id=...) fills in for a common incident. Managers
    only (change rights on incidents and the manager role there); the name must be new in that
    organization (409 duplicate)."""
    require_somewhere(ctx, "incident", "crud")
    org = target_org(ctx, org_id)
    require(ctx, "incident", "crud", org)
    require_role(ctx, "manager", org)
    _name(ctx, org, name)
    _references(ctx, org, assignment_group_id, service_id)
    template = {
        "id": ctx.rows.next_id(IncidentTemplate),
        "org_id": org,
        "name": name,
        "short_description": short_description,
        "category": category,
        "impact": impact,
        "urgency": urgency,
        "assignment_group_id": assignment_group_id,
        "service_id": service_id,
        "active": True,
    }
    ctx.rows.insert(IncidentTemplate, template)
    audit(ctx, "create_incident_template", "create", IncidentTemplate, template, filled(template))
    return template


@tool(SERVICE, "POST", "/itsm/incidents/templates/update")
def update_incident_template(
    ctx: ToolContext,
    template_id: TemplateId,
    name: Annotated[Text | None, Field(description="New name, unique within the organization")] = None,
    short_description: Annotated[Text | None, Field(description="New default short description")] = None,
    category: Annotated[Category | None, Field(description="New default category")] = None,
    impact: Annotated[Impact | None, Field(description="New default impact 1-3")] = None,
    urgency: Annotated[Urgency | None, Field(description="New default urgency 1-3")] = None,
    assignment_group_id: Annotated[str | None, Field(description="New default assignment group")] = None,
    service_id: Annotated[str | None, Field(description="New default affected service")] = None,
    active: Annotated[
        bool | None, Field(description="false withdraws the template (it can no longer be used); true restores it")
    ] = None,
) -> Any:
    """Change an incident template's defaults (only the fields given), or withdraw or restore it.
    Incidents already made from it do not change. Managers only (the manager role in its organization)."""
    template: Row = get_in_scope(ctx, IncidentTemplate, template_id, "incident template", "incident", "crud")
    require_role(ctx, "manager", template["org_id"])
    updates = {
        k: v
        for k, v in {
            "name": name,
            "short_description": short_description,
            "category": category,
            "impact": impact,
            "urgency": urgency,
            "assignment_group_id": assignment_group_id,
            "service_id": service_id,
            "active": active,
        }.items()
        if v is not None
    }
    if not updates:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if name is not None:
        _name(ctx, template["org_id"], name, except_id=template["id"])
    restored = active is True and not template["active"]  # a restored template must be usable again
    group = assignment_group_id if assignment_group_id is not None else template["assignment_group_id"]
    service = service_id if service_id is not None else template["service_id"]
    _references(
        ctx,
        template["org_id"],
        group if restored or group != template["assignment_group_id"] else None,
        service if restored or service != template["service_id"] else None,
    )
    changed = apply_updates(ctx, IncidentTemplate, template, updates, updates)
    if changed:
        audit(ctx, "update_incident_template", "update", IncidentTemplate, template, changed)
    return {**template, "changed": changed}
