"""Forms: forms (surveys, sign-up and request forms) with their questions in order, the responses
people submitted, and each response's answers. A response is triaged: new, reviewed or spam."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import IGNORE, TEXT, Base, enum_check

FORM_STATUSES = ("draft", "open", "closed", "archived")
QUESTION_KINDS = ("short_text", "long_text", "single_choice", "multiple_choice", "number", "date", "email", "rating")
CHOICE_KINDS = ("single_choice", "multiple_choice")
RESPONSE_STATUSES = ("new", "reviewed", "spam")


class FormsForm(Base):
    """A form; only an open form takes responses (until ``closes_on``, when it has one)."""

    __tablename__ = "forms_forms"
    __table_args__ = (enum_check("status", FORM_STATUSES), {"info": {"id_format": "FORM-{:03d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    owner: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="draft")
    closes_on: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class FormsQuestion(Base):
    """A question of a form at ``position`` (1 first). ``options`` is a JSON list of the choices of a
    choice question (null otherwise); a rating is a whole number from 1 to 5."""

    __tablename__ = "forms_questions"
    __table_args__ = (
        enum_check("kind", QUESTION_KINDS),
        CheckConstraint("position >= 1", name="position_positive"),
        {"info": {"id_format": "QST-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    form_id: Mapped[str] = mapped_column(ForeignKey("forms_forms.id"), index=True)
    # where a question sits follows from the others (which of two added first is the calls' order)
    position: Mapped[int] = mapped_column(Integer, info=IGNORE)
    prompt: Mapped[str] = mapped_column(String, info=TEXT)
    kind: Mapped[str] = mapped_column(String)
    options: Mapped[str | None] = mapped_column(Text)
    required: Mapped[bool] = mapped_column(Boolean, default=False)


class FormsResponse(Base):
    """A submitted response, and its triage: ``new`` until someone marks it ``reviewed`` (handled) or
    ``spam``, with an optional note."""

    __tablename__ = "forms_responses"
    __table_args__ = (enum_check("status", RESPONSE_STATUSES), {"info": {"id_format": "RESP-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    form_id: Mapped[str] = mapped_column(ForeignKey("forms_forms.id"), index=True)
    respondent_email: Mapped[str] = mapped_column(String, index=True)
    respondent_name: Mapped[str | None] = mapped_column(String)
    submitted_at: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="new")
    # the triage is the status; a note beside it is commentary, whatever it says
    review_note: Mapped[str | None] = mapped_column(Text, info=IGNORE)
    reviewed_by: Mapped[str | None] = mapped_column(String)
    reviewed_at: Mapped[str | None] = mapped_column(String)


class FormsAnswer(Base):
    """One response's answer to one question, as text (a multiple choice: its choices joined by "; ")."""

    __tablename__ = "forms_answers"
    __table_args__ = (
        UniqueConstraint("response_id", "question_id", name="response_question"),
        {"info": {"id_format": "ANS-{:05d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    response_id: Mapped[str] = mapped_column(ForeignKey("forms_responses.id"), index=True)
    question_id: Mapped[str] = mapped_column(ForeignKey("forms_questions.id"), index=True)
    value: Mapped[str] = mapped_column(Text)
