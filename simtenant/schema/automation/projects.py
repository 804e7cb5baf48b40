"""Projects: a project board of projects, their tasks (status, assignee, due date, priority) and
comments on tasks."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

PROJECT_STATUSES = ("planning", "active", "on_hold", "completed")
TASK_STATUSES = ("todo", "in_progress", "blocked", "done")
TASK_PRIORITIES = ("low", "medium", "high", "urgent")


class PrjProject(Base):
    __tablename__ = "prj_projects"
    __table_args__ = (enum_check("status", PROJECT_STATUSES), {"info": {"id_format": "PRJ-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, info=TEXT)
    owner: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="active")
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    due_date: Mapped[str | None] = mapped_column(String)


class PrjTask(Base):
    """A task of a project; ``completed_at`` is set when it is done."""

    __tablename__ = "prj_tasks"
    __table_args__ = (
        enum_check("status", TASK_STATUSES),
        enum_check("priority", TASK_PRIORITIES),
        {"info": {"id_format": "TASK-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    project_id: Mapped[str] = mapped_column(ForeignKey("prj_projects.id"), index=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="todo")
    assignee: Mapped[str | None] = mapped_column(String, index=True)
    due_date: Mapped[str | None] = mapped_column(String)
    priority: Mapped[str] = mapped_column(String, default="medium")
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    completed_at: Mapped[str | None] = mapped_column(String)


class PrjComment(Base):
    __tablename__ = "prj_comments"
    __table_args__ = ({"info": {"id_format": "PC-{:05d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    task_id: Mapped[str] = mapped_column(ForeignKey("prj_tasks.id"), index=True)
    author: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    created_at: Mapped[str] = mapped_column(String)
