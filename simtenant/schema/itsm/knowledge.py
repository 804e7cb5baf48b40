"""Knowledge articles and their links to incidents."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

ARTICLE_STATES = ("draft", "review", "published", "retired")
VISIBILITIES = ("internal", "public")
LINK_KINDS = ("suggested", "applied", "resolution")


class KnowledgeArticle(Base):
    __tablename__ = "knowledge_articles"
    __table_args__ = (
        enum_check("state", ARTICLE_STATES),
        enum_check("visibility", VISIBILITIES),
        {"info": {"id_format": "KB{:07d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    title: Mapped[str] = mapped_column(String, info=TEXT)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    category: Mapped[str] = mapped_column(String)
    keywords: Mapped[str] = mapped_column(String, default="")
    state: Mapped[str] = mapped_column(String, default="draft")
    visibility: Mapped[str] = mapped_column(String, default="internal")
    author_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"))
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)


class IncidentKnowledge(Base):
    __tablename__ = "incident_knowledge"
    __table_args__ = (enum_check("relation", LINK_KINDS),)

    incident_id: Mapped[str] = mapped_column(ForeignKey("incidents.id"), primary_key=True)
    article_id: Mapped[str] = mapped_column(ForeignKey("knowledge_articles.id"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    relation: Mapped[str] = mapped_column(String)
