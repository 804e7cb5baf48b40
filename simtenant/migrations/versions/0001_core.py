"""The harness tables every tenant file has: the episode's own record.

Revision ID: 0001
Revises:
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = ("core",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "_calls",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("tool", sa.String(), nullable=False),
        sa.Column("args", sa.Text(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("reward", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk__calls")),
    )
    op.create_table(
        "_changes",
        sa.Column("tbl", sa.String(), nullable=False),
        sa.Column("pk", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("tbl", "pk", name=op.f("pk__changes")),
    )
    op.create_table(
        "_episode",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task", sa.String(), nullable=False),
        sa.Column("world", sa.String(), nullable=False),
        sa.Column("snapshot_hash", sa.String(), nullable=False),
        sa.Column("scale", sa.Integer(), nullable=False),
        sa.Column("task_hash", sa.String(), nullable=False),
        sa.Column("current_time", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('running', 'finished')", name=op.f("ck__episode_status_enum")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk__episode")),
    )
    op.create_table(
        "_messages",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("revealed", sa.JSON(), nullable=True),
        sa.Column("redundant", sa.JSON(), nullable=True),
        sa.CheckConstraint("role IN ('agent', 'user')", name=op.f("ck__messages_role_enum")),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk__messages")),
    )
    op.create_table(
        "_judgments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("verdict", sa.String(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("reasoning", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk__judgments")),
    )
    op.create_table(
        "_sequences",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("next_value", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk__sequences")),
    )


def downgrade() -> None:
    op.drop_table("_sequences")
    op.drop_table("_judgments")
    op.drop_table("_messages")
    op.drop_table("_episode")
    op.drop_table("_changes")
    op.drop_table("_calls")
    # ### end Alembic commands ###
