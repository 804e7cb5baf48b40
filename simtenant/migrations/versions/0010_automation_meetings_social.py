"""World automation: the video meetings and social media scheduler apps.

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "soc_accounts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("network", sa.String(), nullable=False),
        sa.Column("handle", sa.String(), nullable=False),
        sa.Column("display_name", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("approver_email", sa.String(), nullable=False),
        sa.Column("followers", sa.Integer(), nullable=False),
        sa.Column("status_note", sa.String(), nullable=True),
        sa.Column("connected_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "network IN ('linkedin', 'instagram', 'facebook', 'x')", name=op.f("ck_soc_accounts_network_enum")
        ),
        sa.CheckConstraint(
            "status IN ('connected', 'disconnected', 'archived')", name=op.f("ck_soc_accounts_status_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_soc_accounts")),
        sa.UniqueConstraint("handle", name=op.f("uq_soc_accounts_handle")),
        info={"id_format": "SOC-{:02d}"},
    )
    op.create_table(
        "mtg_meetings",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("host_email", sa.String(), nullable=False),
        sa.Column("start_at", sa.String(), nullable=False),
        sa.Column("duration_minutes", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("agenda", sa.Text(), nullable=True),
        sa.Column("confidential", sa.Boolean(), nullable=False),
        sa.Column("auto_record", sa.Boolean(), nullable=False),
        sa.Column("join_url", sa.String(), nullable=False),
        sa.Column("calendar_event_id", sa.String(), nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('scheduled', 'ended', 'cancelled')", name=op.f("ck_mtg_meetings_status_enum")),
        sa.CheckConstraint("duration_minutes BETWEEN 5 AND 600", name=op.f("ck_mtg_meetings_duration_range")),
        sa.ForeignKeyConstraint(
            ["calendar_event_id"], ["cal_events.id"], name=op.f("fk_mtg_meetings_calendar_event_id_cal_events")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mtg_meetings")),
        info={"id_format": "MTG-{:04d}"},
    )
    with op.batch_alter_table("mtg_meetings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mtg_meetings_host_email"), ["host_email"], unique=False)
        batch_op.create_index(batch_op.f("ix_mtg_meetings_start_at"), ["start_at"], unique=False)

    op.create_table(
        "soc_posts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("account_id", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("media_url", sa.String(), nullable=True),
        sa.Column("link_url", sa.String(), nullable=True),
        sa.Column("campaign", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("scheduled_for", sa.String(), nullable=True),
        sa.Column("published_at", sa.String(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.Column("removed_reason", sa.Text(), nullable=True),
        sa.Column("failure_reason", sa.String(), nullable=True),
        sa.CheckConstraint(
            "status IN ('draft', 'pending_approval', 'approved', 'rejected', 'scheduled', 'published', 'failed', 'removed')",
            name=op.f("ck_soc_posts_status_enum"),
        ),
        sa.ForeignKeyConstraint(["account_id"], ["soc_accounts.id"], name=op.f("fk_soc_posts_account_id_soc_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_soc_posts")),
        info={"id_format": "POST-{:04d}"},
    )
    with op.batch_alter_table("soc_posts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_soc_posts_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_soc_posts_campaign"), ["campaign"], unique=False)

    op.create_table(
        "mtg_follow_ups",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("meeting_id", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("owner_email", sa.String(), nullable=False),
        sa.Column("due_date", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("completed_at", sa.String(), nullable=True),
        sa.CheckConstraint("status IN ('open', 'done', 'cancelled')", name=op.f("ck_mtg_follow_ups_status_enum")),
        sa.ForeignKeyConstraint(
            ["meeting_id"], ["mtg_meetings.id"], name=op.f("fk_mtg_follow_ups_meeting_id_mtg_meetings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mtg_follow_ups")),
        info={"id_format": "FU-{:04d}"},
    )
    with op.batch_alter_table("mtg_follow_ups", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mtg_follow_ups_meeting_id"), ["meeting_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_mtg_follow_ups_owner_email"), ["owner_email"], unique=False)

    op.create_table(
        "mtg_participants",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("meeting_id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("joined_at", sa.String(), nullable=True),
        sa.Column("minutes_attended", sa.Integer(), nullable=True),
        sa.CheckConstraint("role IN ('host', 'co_host', 'attendee')", name=op.f("ck_mtg_participants_role_enum")),
        sa.ForeignKeyConstraint(
            ["meeting_id"], ["mtg_meetings.id"], name=op.f("fk_mtg_participants_meeting_id_mtg_meetings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mtg_participants")),
        sa.UniqueConstraint("meeting_id", "email", name="meeting_email"),
        info={"id_format": "PAR-{:05d}"},
    )
    with op.batch_alter_table("mtg_participants", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mtg_participants_email"), ["email"], unique=False)
        batch_op.create_index(batch_op.f("ix_mtg_participants_meeting_id"), ["meeting_id"], unique=False)

    op.create_table(
        "mtg_recordings",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("meeting_id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("started_at", sa.String(), nullable=False),
        sa.Column("duration_minutes", sa.Integer(), nullable=False),
        sa.Column("size_mb", sa.Float(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("share_scope", sa.String(), nullable=False),
        sa.Column("share_url", sa.String(), nullable=True),
        sa.Column("legal_hold", sa.Boolean(), nullable=False),
        sa.Column("hold_reason", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("deleted_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "share_scope IN ('private', 'company', 'link')", name=op.f("ck_mtg_recordings_share_scope_enum")
        ),
        sa.CheckConstraint(
            "status IN ('processing', 'available', 'deleted')", name=op.f("ck_mtg_recordings_status_enum")
        ),
        sa.CheckConstraint("duration_minutes > 0", name=op.f("ck_mtg_recordings_duration_positive")),
        sa.ForeignKeyConstraint(
            ["meeting_id"], ["mtg_meetings.id"], name=op.f("fk_mtg_recordings_meeting_id_mtg_meetings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mtg_recordings")),
        info={"id_format": "REC-{:04d}"},
    )
    with op.batch_alter_table("mtg_recordings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mtg_recordings_meeting_id"), ["meeting_id"], unique=False)

    op.create_table(
        "mtg_transcripts",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("meeting_id", sa.String(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["meeting_id"], ["mtg_meetings.id"], name=op.f("fk_mtg_transcripts_meeting_id_mtg_meetings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mtg_transcripts")),
        sa.UniqueConstraint("meeting_id", name=op.f("uq_mtg_transcripts_meeting_id")),
        info={"id_format": "TRN-{:04d}"},
    )
    op.create_table(
        "soc_approvals",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("post_id", sa.String(), nullable=False),
        sa.Column("requested_by", sa.String(), nullable=False),
        sa.Column("requested_at", sa.String(), nullable=False),
        sa.Column("reviewer_email", sa.String(), nullable=False),
        sa.Column("decision", sa.String(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("decided_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "decision IN ('pending', 'approved', 'rejected', 'withdrawn')", name=op.f("ck_soc_approvals_decision_enum")
        ),
        sa.ForeignKeyConstraint(["post_id"], ["soc_posts.id"], name=op.f("fk_soc_approvals_post_id_soc_posts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_soc_approvals")),
        info={"id_format": "APR-{:04d}"},
    )
    with op.batch_alter_table("soc_approvals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_soc_approvals_post_id"), ["post_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_soc_approvals_reviewer_email"), ["reviewer_email"], unique=False)

    op.create_table(
        "soc_post_metrics",
        sa.Column("post_id", sa.String(), nullable=False),
        sa.Column("impressions", sa.Integer(), nullable=False),
        sa.Column("likes", sa.Integer(), nullable=False),
        sa.Column("comments", sa.Integer(), nullable=False),
        sa.Column("shares", sa.Integer(), nullable=False),
        sa.Column("clicks", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "impressions >= 0 AND likes >= 0 AND comments >= 0 AND shares >= 0 AND clicks >= 0",
            name=op.f("ck_soc_post_metrics_counts_nonneg"),
        ),
        sa.ForeignKeyConstraint(["post_id"], ["soc_posts.id"], name=op.f("fk_soc_post_metrics_post_id_soc_posts")),
        sa.PrimaryKeyConstraint("post_id", name=op.f("pk_soc_post_metrics")),
    )


def downgrade() -> None:
    op.drop_table("soc_post_metrics")
    with op.batch_alter_table("soc_approvals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_soc_approvals_reviewer_email"))
        batch_op.drop_index(batch_op.f("ix_soc_approvals_post_id"))

    op.drop_table("soc_approvals")
    op.drop_table("mtg_transcripts")
    with op.batch_alter_table("mtg_recordings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mtg_recordings_meeting_id"))

    op.drop_table("mtg_recordings")
    with op.batch_alter_table("mtg_participants", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mtg_participants_meeting_id"))
        batch_op.drop_index(batch_op.f("ix_mtg_participants_email"))

    op.drop_table("mtg_participants")
    with op.batch_alter_table("mtg_follow_ups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mtg_follow_ups_owner_email"))
        batch_op.drop_index(batch_op.f("ix_mtg_follow_ups_meeting_id"))

    op.drop_table("mtg_follow_ups")
    with op.batch_alter_table("soc_posts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_soc_posts_campaign"))
        batch_op.drop_index(batch_op.f("ix_soc_posts_account_id"))

    op.drop_table("soc_posts")
    with op.batch_alter_table("mtg_meetings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mtg_meetings_start_at"))
        batch_op.drop_index(batch_op.f("ix_mtg_meetings_host_email"))

    op.drop_table("mtg_meetings")
    op.drop_table("soc_accounts")
