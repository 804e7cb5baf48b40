"""Projects tools: the project board's projects, tasks by project, assignee, status or due date,
one task with its comments, new tasks, changes, completion, assignment and task comments (by the
acting employee)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.projects import (
    PROJECT_STATUSES,
    TASK_PRIORITIES,
    TASK_STATUSES,
    PrjComment,
    PrjProject,
    PrjTask,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.projects"
COMPANY_DOMAIN = "@lumenpine.example"

ProjectId = Annotated[str, Field(description="The project id, e.g. PRJ-002")]
TaskId = Annotated[str, Field(description="The task id, e.g. TASK-0014")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, e.g. 2026-09-30")]
ProjectStatus = Literal[PROJECT_STATUSES]  # type: ignore[valid-type]
TaskStatus = Literal[TASK_STATUSES]  # type: ignore[valid-type]
Priority = Literal[TASK_PRIORITIES]  # type: ignore[valid-type]

_PROJECTS, _TASKS = PrjProject.__table__, PrjTask.__table__
PROJECTS = Filtered(
    select(_PROJECTS),
    (_PROJECTS.c.id,),
    status=_PROJECTS.c.status == bindparam("status"),
    name=contains(_PROJECTS.c.name, "name"),
    owner=_PROJECTS.c.owner == bindparam("owner"),
)
TASKS = Filtered(
    select(_TASKS),
    (_TASKS.c.due_date.is_(None), _TASKS.c.due_date, _TASKS.c.id),
    project_id=_TASKS.c.project_id == bindparam("project_id"),
    assignee=_TASKS.c.assignee == bindparam("assignee"),
    status=_TASKS.c.status == bindparam("status"),
    open_only=_TASKS.c.status != "done",
    due_before=_TASKS.c.due_date <= bindparam("due_before"),
    priority=_TASKS.c.priority == bindparam("priority"),
    query=or_(contains(_TASKS.c.title, "query"), contains(_TASKS.c.description, "query")),
)


def _day(value: str | None, field: str) -> str | None:
    if value is not None:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise InvalidArgument(f"{field}: {value!r} is not a valid date", error="invalid_value") from None
    return value


def _member(email: str | None) -> str | None:
    if email is not None and not email.lower().endswith(COMPANY_DOMAIN):
        raise InvalidArgument(
            f"{email} is not a company employee; assign to an {COMPANY_DOMAIN} address", error="not_an_employee"
        )
    return None if email is None else email.lower()


def _comments(ctx: ToolContext, task_id: str) -> list[Row]:
    return ctx.rows.find(PrjComment, ("created_at", "id"), task_id=task_id)


def _status(ctx: ToolContext, task: Row, status: str) -> dict[str, Any]:
    """The columns that set a task's status (none when it has it already)."""
    if status == task["status"]:
        return {}
    return {"completed_at": ctx.timestamp if status == "done" else None, "status": status}


@tool(SERVICE, "GET", "/projects")
def prj_list_projects(
    ctx: ToolContext,
    status: Annotated[ProjectStatus | None, Field(description="Only projects in this status")] = None,
    name: Annotated[str | None, Field(description="Only projects whose name contains this")] = None,
    owner: Annotated[Email | None, Field(description="Only projects this person owns")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List the projects on the project board with their owner and status."""
    return ctx.rows.page(
        PROJECTS, page, per_page, status=status or None, name=name, owner=owner.lower() if owner else None
    )


@tool(SERVICE, "GET", "/projects/{project_id}")
def prj_get_project(ctx: ToolContext, project_id: ProjectId) -> Any:
    """Get a project with all its tasks (status, assignee, due date) and a count of tasks by status."""
    project = ctx.rows.need(PrjProject, project_id, "project")
    tasks = ctx.rows.find(PrjTask, ("id",), project_id=project["id"])
    counts = {s: sum(1 for t in tasks if t["status"] == s) for s in TASK_STATUSES}
    return {**project, "task_counts": counts, "tasks": tasks}


@tool(SERVICE, "PATCH", "/projects/{project_id}")
def prj_update_project(
    ctx: ToolContext,
    project_id: ProjectId,
    name: Annotated[Text | None, Field(description="A new name")] = None,
    owner: Annotated[Email | None, Field(description="The new owner, an employee's email")] = None,
    status: Annotated[ProjectStatus | None, Field(description="planning, active, on_hold or completed")] = None,
    due_date: Annotated[Day | None, Field(description="A new due date, e.g. 2026-12-15")] = None,
) -> Any:
    """Change a project's name, owner, status or due date (hand a project over to a new owner)."""
    project = ctx.rows.need(PrjProject, project_id, "project")
    changed = update_given(
        ctx, PrjProject, project, name=name, owner=_member(owner), status=status, due_date=_day(due_date, "due_date")
    )
    return {**project, "changed": changed}


@tool(SERVICE, "GET", "/projects/tasks")
def prj_list_tasks(
    ctx: ToolContext,
    project_id: Annotated[str | None, Field(description="Only tasks of this project, e.g. PRJ-002")] = None,
    assignee: Annotated[Email | None, Field(description="Only tasks assigned to this person")] = None,
    status: Annotated[TaskStatus | None, Field(description="Only tasks in this status")] = None,
    open_only: Annotated[bool, Field(description="Only tasks not done yet")] = False,
    due_before: Annotated[Day | None, Field(description="Only tasks due on or before this date")] = None,
    priority: Annotated[Priority | None, Field(description="Only tasks of this priority")] = None,
    query: Annotated[str | None, Field(description="Only tasks whose title or description contains this")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List tasks by project, assignee, status, priority or due date (overdue work), soonest due first."""
    return ctx.rows.page(
        TASKS,
        page,
        per_page,
        project_id=project_id or None,
        assignee=assignee.lower() if assignee else None,
        status=status or None,
        open_only=True if open_only else None,
        due_before=_day(due_before, "due_before") if due_before else None,
        priority=priority or None,
        query=query or None,
    )


@tool(SERVICE, "GET", "/projects/tasks/{task_id}")
def prj_get_task(ctx: ToolContext, task_id: TaskId) -> Any:
    """Get one task with its project name and comments."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    project = ctx.rows.need(PrjProject, task["project_id"], "project")
    return {**task, "project_name": project["name"], "comments": _comments(ctx, task["id"])}


@tool(SERVICE, "POST", "/projects/{project_id}/tasks")
def prj_create_task(
    ctx: ToolContext,
    project_id: ProjectId,
    title: Annotated[Text, Field(description="What needs doing")],
    description: Annotated[str | None, Field(description="Details of the task")] = None,
    assignee: Annotated[Email | None, Field(description="Who does it (company email)")] = None,
    due_date: Annotated[Day | None, Field(description="When it is due, e.g. 2026-09-30")] = None,
    priority: Annotated[Priority, Field(description="low, medium, high or urgent")] = "medium",
    status: Annotated[TaskStatus, Field(description="Starting status, usually todo")] = "todo",
) -> Any:
    """Add a new task (to-do) to a project, optionally assigned and with a due date."""
    project = ctx.rows.need(PrjProject, project_id, "project")
    if project["status"] == "completed":
        raise Conflict(f"project {project['id']} is completed; it takes no new tasks", error="project_completed")
    task = {
        "id": ctx.rows.next_id(PrjTask),
        "project_id": project["id"],
        "title": title,
        "description": description,
        "status": status,
        "assignee": _member(assignee),
        "due_date": _day(due_date, "due_date"),
        "priority": priority,
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
        "completed_at": ctx.timestamp if status == "done" else None,
    }
    ctx.rows.insert(PrjTask, task)
    return task


@tool(SERVICE, "PATCH", "/projects/tasks/{task_id}")
def prj_update_task(
    ctx: ToolContext,
    task_id: TaskId,
    title: Annotated[Text | None, Field(description="A new title")] = None,
    description: Annotated[str | None, Field(description="A new description")] = None,
    status: Annotated[TaskStatus | None, Field(description="todo, in_progress, blocked or done")] = None,
    due_date: Annotated[Day | None, Field(description="A new due date, e.g. 2026-09-30")] = None,
    priority: Annotated[Priority | None, Field(description="low, medium, high or urgent")] = None,
) -> Any:
    """Change a task's title, description, status, due date or priority."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    fields = {"title": title, "description": description, "due_date": _day(due_date, "due_date"), "priority": priority}
    if status is None and all(v is None for v in fields.values()):
        raise InvalidArgument("give at least one field to change", error="missing_field")
    values = {k: v for k, v in fields.items() if v is not None and task[k] != v}
    changed = list(values)
    if status is not None and status != task["status"]:
        values.update(_status(ctx, task, status))
        changed.append("status")
    if changed:
        values["updated_at"] = ctx.timestamp
    ctx.rows.change(PrjTask, task, values)
    return {**task, "changed": changed}


@tool(SERVICE, "POST", "/projects/tasks/{task_id}/complete")
def prj_complete_task(ctx: ToolContext, task_id: TaskId) -> Any:
    """Mark a task done (complete it)."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    if task["status"] == "done":
        raise Conflict(f"task {task['id']} is already done", error="already_done")
    ctx.rows.change(PrjTask, task, {**_status(ctx, task, "done"), "updated_at": ctx.timestamp})
    return task


@tool(SERVICE, "POST", "/projects/tasks/{task_id}/assign")
def prj_assign_task(
    ctx: ToolContext,
    task_id: TaskId,
    assignee: Annotated[Email | None, Field(description="Who does it (company email); null to unassign")],
) -> Any:
    """Assign a task to a person (or unassign it with null)."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    if task["status"] == "done":
        raise Conflict(f"task {task['id']} is done; reopen it before reassigning", error="task_done")
    ctx.rows.change(PrjTask, task, {"assignee": _member(assignee), "updated_at": ctx.timestamp})
    return task


@tool(SERVICE, "POST", "/projects/tasks/{task_id}/comments")
def prj_add_comment(
    ctx: ToolContext, task_id: TaskId, body: Annotated[Text, Field(description="The comment text")]
) -> Any:
    """Comment on a task (a status update, a question or a hand-off note)."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    comment_id = ctx.rows.next_id(PrjComment)
    comment = {"id": comment_id, "task_id": task["id"], "author": me(ctx), "body": body, "created_at": ctx.timestamp}
    ctx.rows.insert(PrjComment, comment)
    return comment


@tool(SERVICE, "GET", "/projects/tasks/{task_id}/comments")
def prj_list_comments(ctx: ToolContext, task_id: TaskId) -> Any:
    """List a task's comments, oldest first."""
    task = ctx.rows.need(PrjTask, task_id, "task")
    return {"task_id": task["id"], "comments": _comments(ctx, task["id"])}
