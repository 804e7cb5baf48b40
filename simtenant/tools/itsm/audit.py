"""The audit trail: every mutating ITSM tool writes who changed which record, which fields, and when."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, select

from ...schema.itsm.audit import AuditEntry
from ..engine.dispatch import ToolContext
from ..engine.registry import tool
from ..engine.rows import Filtered, one_of
from .common import InOrg, Page, PerPage, listed_orgs

_ENTRIES = AuditEntry.__table__
LISTED = Filtered(
    select(_ENTRIES),
    (_ENTRIES.c.id,),
    orgs=one_of(_ENTRIES.c.org_id, "orgs"),
    record_table=_ENTRIES.c.record_table == bindparam("record_table"),
    record_id=_ENTRIES.c.record_id == bindparam("record_id"),
    actor_id=_ENTRIES.c.actor_id == bindparam("actor_id"),
    tool=_ENTRIES.c.tool == bindparam("tool"),
)


@tool("itsm.audit", "GET", "/itsm/audit")
def list_audit_entries(
    ctx: ToolContext,
    record_table: Annotated[str | None, Field(description="Only entries about this table, e.g. incidents")] = None,
    record_id: Annotated[str | None, Field(description="Only entries about this record, e.g. INC0001001")] = None,
    actor_id: Annotated[str | None, Field(description="Only changes made by this user")] = None,
    tool_name: Annotated[str | None, Field(description="Only changes made through this tool")] = None,
    org_id: InOrg = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List audit entries, oldest first: who changed which record through which tool, the fields, and when."""
    return ctx.rows.page(
        LISTED,
        page,
        per_page,
        orgs=listed_orgs(ctx, "audit", org_id),
        record_table=record_table,
        record_id=record_id,
        actor_id=actor_id,
        tool=tool_name,
    )
