"""The audit trail: every mutating ITSM tool writes who changed which record, which fields, and when."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import select

from ...schema.itsm.audit import AuditEntry
from ..engine.dispatch import ToolContext, paged
from ..engine.registry import tool
from .common_orm import InOrg, Page, PerPage, matching, scoped


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
    query = scoped(ctx, select(AuditEntry), AuditEntry, "audit", org_id)
    query = matching(
        query,
        (AuditEntry.record_table, record_table),
        (AuditEntry.record_id, record_id),
        (AuditEntry.actor_id, actor_id),
        (AuditEntry.tool, tool_name),
    )
    return paged(ctx, query.order_by(AuditEntry.id), page, per_page)
