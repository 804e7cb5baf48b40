"""World automation, part 2 of 3: calendar, sheets, help desk and projects.

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cal_events",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("organizer", sa.String(), nullable=False),
        sa.Column("start_at", sa.String(), nullable=False),
        sa.Column("end_at", sa.String(), nullable=False),
        sa.Column("location", sa.String(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('confirmed', 'cancelled')", name=op.f("ck_cal_events_status_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cal_events")),
        info={"id_format": "EVT-{:04d}"},
    )
    with op.batch_alter_table("cal_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cal_events_organizer"), ["organizer"], unique=False)
        batch_op.create_index(batch_op.f("ix_cal_events_start_at"), ["start_at"], unique=False)

    op.create_table(
        "hd_tickets",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("requester_email", sa.String(), nullable=False),
        sa.Column("requester_name", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("priority", sa.String(), nullable=False),
        sa.Column("assignee", sa.String(), nullable=True),
        sa.Column("tags", sa.String(), nullable=False),
        sa.Column("merged_into", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.Column("solved_at", sa.String(), nullable=True),
        sa.CheckConstraint("priority IN ('low', 'normal', 'high', 'urgent')", name=op.f("ck_hd_tickets_priority_enum")),
        sa.CheckConstraint(
            "status IN ('new', 'open', 'pending', 'solved', 'closed')", name=op.f("ck_hd_tickets_status_enum")
        ),
        sa.ForeignKeyConstraint(["merged_into"], ["hd_tickets.id"], name=op.f("fk_hd_tickets_merged_into_hd_tickets")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hd_tickets")),
        info={"id_format": "HD-{:04d}"},
    )
    with op.batch_alter_table("hd_tickets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hd_tickets_assignee"), ["assignee"], unique=False)
        batch_op.create_index(batch_op.f("ix_hd_tickets_requester_email"), ["requester_email"], unique=False)

    op.create_table(
        "prj_projects",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("due_date", sa.String(), nullable=True),
        sa.CheckConstraint(
            "status IN ('planning', 'active', 'on_hold', 'completed')", name=op.f("ck_prj_projects_status_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prj_projects")),
        info={"id_format": "PRJ-{:03d}"},
    )
    op.create_table(
        "sheet_spreadsheets",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sheet_spreadsheets")),
        info={"id_format": "SS-{:03d}"},
    )
    op.create_table(
        "cal_attendees",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("event_id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("response", sa.String(), nullable=False),
        sa.CheckConstraint(
            "response IN ('needs_action', 'accepted', 'declined', 'tentative')",
            name=op.f("ck_cal_attendees_response_enum"),
        ),
        sa.ForeignKeyConstraint(["event_id"], ["cal_events.id"], name=op.f("fk_cal_attendees_event_id_cal_events")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cal_attendees")),
        sa.UniqueConstraint("event_id", "email", name=op.f("uq_cal_attendees_event_id")),
        info={"id_format": "ATT-{:05d}"},
    )
    with op.batch_alter_table("cal_attendees", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cal_attendees_email"), ["email"], unique=False)
        batch_op.create_index(batch_op.f("ix_cal_attendees_event_id"), ["event_id"], unique=False)

    op.create_table(
        "hd_comments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("ticket_id", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["ticket_id"], ["hd_tickets.id"], name=op.f("fk_hd_comments_ticket_id_hd_tickets")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hd_comments")),
        info={"id_format": "HDC-{:05d}"},
    )
    with op.batch_alter_table("hd_comments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hd_comments_ticket_id"), ["ticket_id"], unique=False)

    op.create_table(
        "prj_tasks",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("project_id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("assignee", sa.String(), nullable=True),
        sa.Column("due_date", sa.String(), nullable=True),
        sa.Column("priority", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.Column("completed_at", sa.String(), nullable=True),
        sa.CheckConstraint("priority IN ('low', 'medium', 'high', 'urgent')", name=op.f("ck_prj_tasks_priority_enum")),
        sa.CheckConstraint(
            "status IN ('todo', 'in_progress', 'blocked', 'done')", name=op.f("ck_prj_tasks_status_enum")
        ),
        sa.ForeignKeyConstraint(["project_id"], ["prj_projects.id"], name=op.f("fk_prj_tasks_project_id_prj_projects")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prj_tasks")),
        info={"id_format": "TASK-{:04d}"},
    )
    with op.batch_alter_table("prj_tasks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prj_tasks_assignee"), ["assignee"], unique=False)
        batch_op.create_index(batch_op.f("ix_prj_tasks_project_id"), ["project_id"], unique=False)

    op.create_table(
        "sheet_worksheets",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("spreadsheet_id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("headers", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["spreadsheet_id"],
            ["sheet_spreadsheets.id"],
            name=op.f("fk_sheet_worksheets_spreadsheet_id_sheet_spreadsheets"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sheet_worksheets")),
        sa.UniqueConstraint("spreadsheet_id", "title", name=op.f("uq_sheet_worksheets_spreadsheet_id")),
        info={"id_format": "WS-{:03d}"},
    )
    with op.batch_alter_table("sheet_worksheets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sheet_worksheets_spreadsheet_id"), ["spreadsheet_id"], unique=False)

    op.create_table(
        "prj_comments",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("author", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["task_id"], ["prj_tasks.id"], name=op.f("fk_prj_comments_task_id_prj_tasks")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_prj_comments")),
        info={"id_format": "PC-{:05d}"},
    )
    with op.batch_alter_table("prj_comments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prj_comments_task_id"), ["task_id"], unique=False)

    op.create_table(
        "sheet_rows",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("worksheet_id", sa.String(), nullable=False),
        sa.Column("row_number", sa.Integer(), nullable=False),
        sa.Column("cells", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["worksheet_id"], ["sheet_worksheets.id"], name=op.f("fk_sheet_rows_worksheet_id_sheet_worksheets")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sheet_rows")),
        sa.UniqueConstraint("worksheet_id", "row_number", name=op.f("uq_sheet_rows_worksheet_id")),
        info={"id_format": "ROW-{:05d}"},
    )
    with op.batch_alter_table("sheet_rows", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sheet_rows_worksheet_id"), ["worksheet_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("sheet_rows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sheet_rows_worksheet_id"))

    op.drop_table("sheet_rows")
    with op.batch_alter_table("prj_comments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prj_comments_task_id"))

    op.drop_table("prj_comments")
    with op.batch_alter_table("sheet_worksheets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sheet_worksheets_spreadsheet_id"))

    op.drop_table("sheet_worksheets")
    with op.batch_alter_table("prj_tasks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prj_tasks_project_id"))
        batch_op.drop_index(batch_op.f("ix_prj_tasks_assignee"))

    op.drop_table("prj_tasks")
    with op.batch_alter_table("hd_comments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hd_comments_ticket_id"))

    op.drop_table("hd_comments")
    with op.batch_alter_table("cal_attendees", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cal_attendees_event_id"))
        batch_op.drop_index(batch_op.f("ix_cal_attendees_email"))

    op.drop_table("cal_attendees")
    op.drop_table("sheet_spreadsheets")
    op.drop_table("prj_projects")
    with op.batch_alter_table("hd_tickets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hd_tickets_requester_email"))
        batch_op.drop_index(batch_op.f("ix_hd_tickets_assignee"))

    op.drop_table("hd_tickets")
    with op.batch_alter_table("cal_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cal_events_start_at"))
        batch_op.drop_index(batch_op.f("ix_cal_events_organizer"))

    op.drop_table("cal_events")
