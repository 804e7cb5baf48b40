"""Social media scheduler: the company's connected social accounts, the posts written for them
(drafted, sent for approval, approved or rejected, scheduled, published, taken down), the approval
requests of each post, and the metrics of published posts."""

from __future__ import annotations

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

NETWORKS = ("linkedin", "instagram", "facebook", "x")
ACCOUNT_STATUSES = ("connected", "disconnected", "archived")
POST_STATUSES = ("draft", "pending_approval", "approved", "rejected", "scheduled", "published", "failed", "removed")
DECISIONS = ("pending", "approved", "rejected", "withdrawn")
# the longest post each network takes, and the networks where a post needs an image or video
MAX_LENGTH = {"linkedin": 3000, "instagram": 2200, "facebook": 5000, "x": 280}
NEEDS_MEDIA = ("instagram",)


class SocAccount(Base):
    """A social media account (page or profile) of the company; posts to it are approved by its approver."""

    __tablename__ = "soc_accounts"
    __table_args__ = (
        enum_check("network", NETWORKS),
        enum_check("status", ACCOUNT_STATUSES),
        {"info": {"id_format": "SOC-{:02d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    network: Mapped[str] = mapped_column(String)
    handle: Mapped[str] = mapped_column(String, unique=True)
    display_name: Mapped[str] = mapped_column(String, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="connected")
    approver_email: Mapped[str] = mapped_column(String)
    followers: Mapped[int] = mapped_column(Integer, default=0)
    status_note: Mapped[str | None] = mapped_column(String, info=TEXT)
    connected_at: Mapped[str] = mapped_column(String)


class SocPost(Base):
    """A post for one account. ``campaign`` is a free label grouping posts (e.g. fall-catalog-2026)."""

    __tablename__ = "soc_posts"
    __table_args__ = (enum_check("status", POST_STATUSES), {"info": {"id_format": "POST-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("soc_accounts.id"), index=True)
    body: Mapped[str] = mapped_column(Text, info=TEXT)
    # what a post carries besides its text is the author's choice too: graded as text (by the facts a task
    # gives, any value where the gold left it empty)
    media_url: Mapped[str | None] = mapped_column(String, info=TEXT)
    link_url: Mapped[str | None] = mapped_column(String, info=TEXT)
    campaign: Mapped[str | None] = mapped_column(String, index=True, info=TEXT)
    status: Mapped[str] = mapped_column(String, default="draft")
    scheduled_for: Mapped[str | None] = mapped_column(String)
    published_at: Mapped[str | None] = mapped_column(String)
    created_by: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    removed_reason: Mapped[str | None] = mapped_column(Text, info=TEXT)
    failure_reason: Mapped[str | None] = mapped_column(String, info=TEXT)


class SocApproval(Base):
    """One request to approve a post, and the reviewer's decision (``withdrawn`` when the post was
    edited before a decision)."""

    __tablename__ = "soc_approvals"
    __table_args__ = (enum_check("decision", DECISIONS), {"info": {"id_format": "APR-{:04d}"}})

    id: Mapped[str] = mapped_column(String, primary_key=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("soc_posts.id"), index=True)
    requested_by: Mapped[str] = mapped_column(String)
    requested_at: Mapped[str] = mapped_column(String)
    reviewer_email: Mapped[str] = mapped_column(String, index=True)
    decision: Mapped[str] = mapped_column(String, default="pending")
    comment: Mapped[str | None] = mapped_column(Text, info=TEXT)
    decided_at: Mapped[str | None] = mapped_column(String)


class SocPostMetrics(Base):
    """The latest totals of a published post (counted from when it was published)."""

    __tablename__ = "soc_post_metrics"
    __table_args__ = (
        CheckConstraint(
            "impressions >= 0 AND likes >= 0 AND comments >= 0 AND shares >= 0 AND clicks >= 0", name="counts_nonneg"
        ),
    )

    post_id: Mapped[str] = mapped_column(ForeignKey("soc_posts.id"), primary_key=True)
    impressions: Mapped[int] = mapped_column(Integer, default=0)
    likes: Mapped[int] = mapped_column(Integer, default=0)
    comments: Mapped[int] = mapped_column(Integer, default=0)
    shares: Mapped[int] = mapped_column(Integer, default=0)
    clicks: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[str] = mapped_column(String)
