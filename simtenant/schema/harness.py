"""Harness tables: the episode's own record. Never graded."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, enum_check

EPISODE_STATUSES = ("running", "finished")


class EpisodeRecord(Base):
    """One row: which task this file is an episode of, and how it ended."""

    __tablename__ = "_episode"
    __table_args__ = (enum_check("status", EPISODE_STATUSES),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    task: Mapped[str] = mapped_column(String)
    world: Mapped[str] = mapped_column(String)
    snapshot_hash: Mapped[str] = mapped_column(String)
    scale: Mapped[int] = mapped_column(Integer, default=1)
    task_hash: Mapped[str] = mapped_column(String)
    current_time: Mapped[str] = mapped_column(String)
    actor: Mapped[str | None] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, default="running")
    answer: Mapped[str | None] = mapped_column(Text)


class CallRecord(Base):
    """Every call the episode received, in order, with its outcome."""

    __tablename__ = "_calls"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    tool: Mapped[str] = mapped_column(String)
    args: Mapped[str] = mapped_column(Text)
    ok: Mapped[bool] = mapped_column(Boolean)
    result: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    reward: Mapped[float | None] = mapped_column(Float)


class MessageRecord(Base):
    """Messages between the agent and the task's user (the operator); a user message lists the
    facts it revealed, an agent message the known facts it asked for again."""

    __tablename__ = "_messages"
    __table_args__ = (enum_check("role", ("agent", "user")),)

    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    role: Mapped[str] = mapped_column(String)
    content: Mapped[str] = mapped_column(Text)
    revealed: Mapped[Any] = mapped_column(JSON(none_as_null=True), nullable=True)
    redundant: Mapped[Any] = mapped_column(JSON(none_as_null=True), nullable=True)


class ChangeRecord(Base):
    """Keys of world rows written during the episode, kept by triggers the snapshot builder adds.

    ``pk`` is the primary key as a JSON array. The grader diffs only these rows, so its cost
    follows what the episode changed, not the size of the world.
    """

    __tablename__ = "_changes"

    tbl: Mapped[str] = mapped_column(String, primary_key=True)
    pk: Mapped[str] = mapped_column(String, primary_key=True)


class JudgmentRecord(Base):
    """A judge model's verdict on one graded item (only when a judge was asked)."""

    __tablename__ = "_judgments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    key: Mapped[str] = mapped_column(String)
    model: Mapped[str] = mapped_column(String)
    verdict: Mapped[str] = mapped_column(String)
    score: Mapped[float] = mapped_column(Float)
    reasoning: Mapped[str] = mapped_column(Text)


class SequenceRecord(Base):
    """Next number of each id sequence, so created ids are deterministic."""

    __tablename__ = "_sequences"

    name: Mapped[str] = mapped_column(String, primary_key=True)
    next_value: Mapped[int] = mapped_column(Integer)
