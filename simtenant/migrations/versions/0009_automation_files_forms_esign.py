"""World automation, part 4: file storage (files), forms and e-signature (esign).

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "esign_envelopes",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("reference", sa.String(), nullable=True),
        sa.Column("sender", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("expires_on", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("sent_at", sa.String(), nullable=True),
        sa.Column("completed_at", sa.String(), nullable=True),
        sa.Column("voided_reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('draft', 'sent', 'completed', 'declined', 'voided', 'expired')",
            name=op.f("ck_esign_envelopes_status_enum"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_esign_envelopes")),
        info={"id_format": "ENV-{:04d}"},
    )
    with op.batch_alter_table("esign_envelopes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_esign_envelopes_sender"), ["sender"], unique=False)

    op.create_table(
        "files_folders",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("parent_id", sa.String(), nullable=True),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("restricted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(
            ["parent_id"], ["files_folders.id"], name=op.f("fk_files_folders_parent_id_files_folders")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files_folders")),
        info={"id_format": "FLD-{:03d}"},
    )
    with op.batch_alter_table("files_folders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_folders_parent_id"), ["parent_id"], unique=False)

    op.create_table(
        "forms_forms",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("closes_on", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft', 'open', 'closed', 'archived')", name=op.f("ck_forms_forms_status_enum")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forms_forms")),
        info={"id_format": "FORM-{:03d}"},
    )
    op.create_table(
        "esign_recipients",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("envelope_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("routing_order", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("signed_at", sa.String(), nullable=True),
        sa.Column("declined_reason", sa.Text(), nullable=True),
        sa.Column("last_reminded_at", sa.String(), nullable=True),
        sa.CheckConstraint(
            "(role = 'signer' AND routing_order >= 1) OR (role = 'cc' AND routing_order IS NULL)",
            name=op.f("ck_esign_recipients_routing_order_of_signers"),
        ),
        sa.CheckConstraint("role IN ('signer', 'cc')", name=op.f("ck_esign_recipients_role_enum")),
        sa.CheckConstraint(
            "status IN ('waiting', 'sent', 'signed', 'declined')", name=op.f("ck_esign_recipients_status_enum")
        ),
        sa.ForeignKeyConstraint(
            ["envelope_id"], ["esign_envelopes.id"], name=op.f("fk_esign_recipients_envelope_id_esign_envelopes")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_esign_recipients")),
        info={"id_format": "RCP-{:04d}"},
    )
    with op.batch_alter_table("esign_recipients", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_esign_recipients_email"), ["email"], unique=False)
        batch_op.create_index(batch_op.f("ix_esign_recipients_envelope_id"), ["envelope_id"], unique=False)

    op.create_table(
        "files_files",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("folder_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("updated_at", sa.String(), nullable=False),
        sa.Column("updated_by", sa.String(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'archived', 'trashed')", name=op.f("ck_files_files_status_enum")),
        sa.CheckConstraint("version >= 1", name=op.f("ck_files_files_version_positive")),
        sa.ForeignKeyConstraint(
            ["folder_id"], ["files_folders.id"], name=op.f("fk_files_files_folder_id_files_folders")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files_files")),
        info={"id_format": "FILE-{:04d}"},
    )
    with op.batch_alter_table("files_files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_files_folder_id"), ["folder_id"], unique=False)

    op.create_table(
        "forms_questions",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("form_id", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("prompt", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("options", sa.Text(), nullable=True),
        sa.Column("required", sa.Boolean(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('short_text', 'long_text', 'single_choice', 'multiple_choice', 'number', 'date', 'email', 'rating')",
            name=op.f("ck_forms_questions_kind_enum"),
        ),
        sa.CheckConstraint("position >= 1", name=op.f("ck_forms_questions_position_positive")),
        sa.ForeignKeyConstraint(["form_id"], ["forms_forms.id"], name=op.f("fk_forms_questions_form_id_forms_forms")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forms_questions")),
        info={"id_format": "QST-{:04d}"},
    )
    with op.batch_alter_table("forms_questions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_forms_questions_form_id"), ["form_id"], unique=False)

    op.create_table(
        "forms_responses",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("form_id", sa.String(), nullable=False),
        sa.Column("respondent_email", sa.String(), nullable=False),
        sa.Column("respondent_name", sa.String(), nullable=True),
        sa.Column("submitted_at", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("review_note", sa.Text(), nullable=True),
        sa.Column("reviewed_by", sa.String(), nullable=True),
        sa.Column("reviewed_at", sa.String(), nullable=True),
        sa.CheckConstraint("status IN ('new', 'reviewed', 'spam')", name=op.f("ck_forms_responses_status_enum")),
        sa.ForeignKeyConstraint(["form_id"], ["forms_forms.id"], name=op.f("fk_forms_responses_form_id_forms_forms")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forms_responses")),
        info={"id_format": "RESP-{:04d}"},
    )
    with op.batch_alter_table("forms_responses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_forms_responses_form_id"), ["form_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_forms_responses_respondent_email"), ["respondent_email"], unique=False)

    op.create_table(
        "esign_documents",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("envelope_id", sa.String(), nullable=False),
        sa.Column("file_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["envelope_id"], ["esign_envelopes.id"], name=op.f("fk_esign_documents_envelope_id_esign_envelopes")
        ),
        sa.ForeignKeyConstraint(["file_id"], ["files_files.id"], name=op.f("fk_esign_documents_file_id_files_files")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_esign_documents")),
        info={"id_format": "EDOC-{:04d}"},
    )
    with op.batch_alter_table("esign_documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_esign_documents_envelope_id"), ["envelope_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_esign_documents_file_id"), ["file_id"], unique=False)

    op.create_table(
        "files_shares",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("file_id", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("shared_by", sa.String(), nullable=False),
        sa.Column("shared_at", sa.String(), nullable=False),
        sa.CheckConstraint("role IN ('viewer', 'commenter', 'editor')", name=op.f("ck_files_shares_role_enum")),
        sa.ForeignKeyConstraint(["file_id"], ["files_files.id"], name=op.f("fk_files_shares_file_id_files_files")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files_shares")),
        sa.UniqueConstraint("file_id", "email", name="file_email"),
        info={"id_format": "SHARE-{:04d}"},
    )
    with op.batch_alter_table("files_shares", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_shares_file_id"), ["file_id"], unique=False)

    op.create_table(
        "files_versions",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("file_id", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("saved_by", sa.String(), nullable=False),
        sa.Column("saved_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["file_id"], ["files_files.id"], name=op.f("fk_files_versions_file_id_files_files")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_files_versions")),
        sa.UniqueConstraint("file_id", "version", name="file_version"),
        info={"id_format": "FVER-{:04d}", "graded": False},
    )
    with op.batch_alter_table("files_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_files_versions_file_id"), ["file_id"], unique=False)

    op.create_table(
        "forms_answers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("response_id", sa.String(), nullable=False),
        sa.Column("question_id", sa.String(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"], ["forms_questions.id"], name=op.f("fk_forms_answers_question_id_forms_questions")
        ),
        sa.ForeignKeyConstraint(
            ["response_id"], ["forms_responses.id"], name=op.f("fk_forms_answers_response_id_forms_responses")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forms_answers")),
        sa.UniqueConstraint("response_id", "question_id", name="response_question"),
        info={"id_format": "ANS-{:05d}"},
    )
    with op.batch_alter_table("forms_answers", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_forms_answers_question_id"), ["question_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_forms_answers_response_id"), ["response_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("forms_answers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_forms_answers_response_id"))
        batch_op.drop_index(batch_op.f("ix_forms_answers_question_id"))

    op.drop_table("forms_answers")
    with op.batch_alter_table("files_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_versions_file_id"))

    op.drop_table("files_versions")
    with op.batch_alter_table("files_shares", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_shares_file_id"))

    op.drop_table("files_shares")
    with op.batch_alter_table("esign_documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_esign_documents_file_id"))
        batch_op.drop_index(batch_op.f("ix_esign_documents_envelope_id"))

    op.drop_table("esign_documents")
    with op.batch_alter_table("forms_responses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_forms_responses_respondent_email"))
        batch_op.drop_index(batch_op.f("ix_forms_responses_form_id"))

    op.drop_table("forms_responses")
    with op.batch_alter_table("forms_questions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_forms_questions_form_id"))

    op.drop_table("forms_questions")
    with op.batch_alter_table("files_files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_files_folder_id"))

    op.drop_table("files_files")
    with op.batch_alter_table("esign_recipients", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_esign_recipients_envelope_id"))
        batch_op.drop_index(batch_op.f("ix_esign_recipients_email"))

    op.drop_table("esign_recipients")
    op.drop_table("forms_forms")
    with op.batch_alter_table("files_folders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_files_folders_parent_id"))

    op.drop_table("files_folders")
    with op.batch_alter_table("esign_envelopes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_esign_envelopes_sender"))

    op.drop_table("esign_envelopes")
