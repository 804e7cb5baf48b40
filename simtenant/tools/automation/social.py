"""Social media scheduler tools: the company's social accounts, posts (draft -> sent for approval ->
approved or rejected -> scheduled -> published, or taken down), the approval queue, and the metrics of
published posts. The rules are the tools': a post is scheduled or published only once approved, it is
approved by the account's approver (never by its author), only to a connected account, and within the
network's length and media rules."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument
from ...schema.automation.hr import HrEmployee
from ...schema.automation.social import (
    ACCOUNT_STATUSES,
    DECISIONS,
    MAX_LENGTH,
    NEEDS_MEDIA,
    NETWORKS,
    POST_STATUSES,
    SocAccount,
    SocApproval,
    SocPost,
    SocPostMetrics,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.social"
FORMAT = "%Y-%m-%dT%H:%M:%SZ"

AccountId = Annotated[str, Field(description="A social account id, e.g. SOC-01")]
PostId = Annotated[str, Field(description="A social post id, e.g. POST-0012")]
Network = Literal[NETWORKS]  # type: ignore[valid-type]
AccountStatus = Literal[ACCOUNT_STATUSES]  # type: ignore[valid-type]
PostStatus = Literal[POST_STATUSES]  # type: ignore[valid-type]
Decision = Literal[DECISIONS]  # type: ignore[valid-type]
DateTime = Annotated[
    str,
    Field(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", description="A UTC date and time, e.g. 2026-10-01T15:00:00Z"
    ),
]
Url = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=500, description="A web address (https://...)")]
Campaign = Annotated[
    str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=60, description="A campaign label, e.g. fall-catalog-2026")
]

UNAPPROVED = ("draft", "pending_approval", "rejected")

_ACCOUNTS, _POSTS, _APPROVALS = SocAccount.__table__, SocPost.__table__, SocApproval.__table__
_METRICS, _STAFF = SocPostMetrics.__table__, HrEmployee.__table__
ACCOUNTS = Filtered(
    select(_ACCOUNTS),
    (_ACCOUNTS.c.id,),
    network=_ACCOUNTS.c.network == bindparam("network"),
    status=_ACCOUNTS.c.status == bindparam("status"),
    query=or_(contains(_ACCOUNTS.c.handle, "query"), contains(_ACCOUNTS.c.display_name, "query")),
)
POST_COUNTS = Statement.of(
    select(_POSTS.c.status, func.count().label("n"))
    .where(_POSTS.c.account_id == bindparam("account_id"))
    .group_by(_POSTS.c.status)
    .order_by(_POSTS.c.status)
)
_WITH_ACCOUNT = select(_POSTS, _ACCOUNTS.c.network, _ACCOUNTS.c.handle).join(
    _ACCOUNTS, _ACCOUNTS.c.id == _POSTS.c.account_id
)
POSTS = Filtered(
    _WITH_ACCOUNT,
    (_POSTS.c.created_at.desc(), _POSTS.c.id.desc()),
    account_id=_POSTS.c.account_id == bindparam("account_id"),
    network=_ACCOUNTS.c.network == bindparam("network"),
    status=_POSTS.c.status == bindparam("status"),
    campaign=_POSTS.c.campaign == bindparam("campaign"),
    query=contains(_POSTS.c.body, "query"),
    created_by=_POSTS.c.created_by == bindparam("created_by"),
)
APPROVALS_OF = Statement.of(
    select(_APPROVALS)
    .where(_APPROVALS.c.post_id == bindparam("post_id"))
    .order_by(_APPROVALS.c.requested_at, _APPROVALS.c.id)
)
PENDING_OF = Statement.of(
    select(_APPROVALS).where(_APPROVALS.c.post_id == bindparam("post_id"), _APPROVALS.c.decision == "pending")
)
APPROVALS = Filtered(
    select(
        _APPROVALS,
        _POSTS.c.account_id,
        _POSTS.c.body,
        _POSTS.c.campaign,
        _POSTS.c.status.label("post_status"),
        _ACCOUNTS.c.network,
        _ACCOUNTS.c.handle,
    )
    .join(_POSTS, _POSTS.c.id == _APPROVALS.c.post_id)
    .join(_ACCOUNTS, _ACCOUNTS.c.id == _POSTS.c.account_id),
    (_APPROVALS.c.requested_at, _APPROVALS.c.id),
    reviewer_email=_APPROVALS.c.reviewer_email == bindparam("reviewer_email"),
    decision=_APPROVALS.c.decision == bindparam("decision"),
    post_id=_APPROVALS.c.post_id == bindparam("post_id"),
)
_ENGAGEMENT = (_METRICS.c.likes + _METRICS.c.comments + _METRICS.c.shares).label("engagements")
REPORT = Filtered(
    select(
        _POSTS.c.id.label("post_id"),
        _POSTS.c.account_id,
        _ACCOUNTS.c.network,
        _ACCOUNTS.c.handle,
        _POSTS.c.campaign,
        _POSTS.c.status,
        _POSTS.c.published_at,
        _POSTS.c.body,
        _METRICS.c.impressions,
        _METRICS.c.likes,
        _METRICS.c.comments,
        _METRICS.c.shares,
        _METRICS.c.clicks,
        _ENGAGEMENT,
    )
    .join(_ACCOUNTS, _ACCOUNTS.c.id == _POSTS.c.account_id)
    .join(_METRICS, _METRICS.c.post_id == _POSTS.c.id),
    (_POSTS.c.published_at, _POSTS.c.id),
    account_id=_POSTS.c.account_id == bindparam("account_id"),
    campaign=_POSTS.c.campaign == bindparam("campaign"),
    published_from=_POSTS.c.published_at >= bindparam("published_from"),
    published_to=_POSTS.c.published_at < bindparam("published_to"),
    live=_POSTS.c.status == "published",
)
EMPLOYEE = Statement.of(
    select(_STAFF.c.id).where(func.lower(_STAFF.c.email) == bindparam("email"), _STAFF.c.status != "terminated")
)


def _lower(email: str | None) -> str | None:
    return None if email is None else email.lower()


def _account(ctx: ToolContext, account_id: str) -> Row:
    return ctx.rows.need(SocAccount, account_id, "social account")


def _post(ctx: ToolContext, post_id: str) -> Row:
    return ctx.rows.need(SocPost, post_id, "post")


def _connected(account: Row, action: str) -> None:
    if account["status"] != "connected":
        note = f" ({account['status_note']})" if account["status_note"] else ""
        raise Conflict(
            f"account {account['id']} ({account['network']} {account['handle']}) is {account['status']}{note}: "
            f"cannot {action} until it is reconnected",
            error=f"account_{account['status']}",
        )


def _check_content(account: Row, body: str, media_url: str | None) -> None:
    """The network's rules: its longest post, and an image or video where it needs one."""
    limit = MAX_LENGTH[account["network"]]
    if len(body) > limit:
        raise InvalidArgument(
            f"{account['network']} posts are at most {limit} characters; this one has {len(body)}", error="too_long"
        )
    if account["network"] in NEEDS_MEDIA and not media_url:
        raise InvalidArgument(f"{account['network']} posts need an image or video (media_url)", error="media_required")


def _moment(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, FORMAT)
    except ValueError:
        raise InvalidArgument(f"{field}: {value!r} is not a valid date and time", error="invalid_value") from None


def _in_status(post: Row, allowed: tuple[str, ...], action: str) -> None:
    if post["status"] not in allowed and "approved" in allowed and post["status"] in UNAPPROVED:
        raise Forbidden(
            f"post {post['id']} is {post['status']}: a post is {action} only once its account's approver has approved "
            "it (send it with soc_submit_post_for_approval)",
            error="not_approved",
        )
    if post["status"] not in allowed:
        raise Conflict(
            f"post {post['id']} is {post['status']}; only a post that is {' or '.join(allowed)} can be {action}",
            error=f"post_{post['status']}",
        )


def _full(ctx: ToolContext, post: Row) -> dict[str, Any]:
    account = _account(ctx, post["account_id"])
    return {
        **post,
        "account": {k: account[k] for k in ("id", "network", "handle", "display_name", "status", "approver_email")},
        "approvals": ctx.rows.all(APPROVALS_OF, post_id=post["id"]),
        "metrics": ctx.rows.get(SocPostMetrics, post["id"]),
    }


# --- accounts ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/social/accounts")
def soc_list_accounts(
    ctx: ToolContext,
    network: Annotated[Network | None, Field(description="linkedin, instagram, facebook or x")] = None,
    status: Annotated[AccountStatus | None, Field(description="connected, disconnected or archived")] = None,
    query: Annotated[str | None, Field(description="Text in the handle or display name")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List the company's social media accounts (LinkedIn, Instagram, Facebook, X) and whether each is connected."""
    return ctx.rows.page(ACCOUNTS, page, per_page, network=network, status=status, query=query)


@tool(SERVICE, "GET", "/social/accounts/{account_id}")
def soc_get_account(ctx: ToolContext, account_id: AccountId) -> dict[str, Any]:
    """Get one social media account: its network, handle, status, approver and how many posts it has by status."""
    account = _account(ctx, account_id)
    counts = {r["status"]: r["n"] for r in ctx.rows.all(POST_COUNTS, account_id=account["id"])}
    return {**account, "posts_by_status": counts}


# --- posts ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/social/posts")
def soc_list_posts(
    ctx: ToolContext,
    account_id: Annotated[str | None, Field(description="Only posts of this account id")] = None,
    network: Annotated[Network | None, Field(description="Only posts on this network")] = None,
    status: Annotated[
        PostStatus | None,
        Field(description="draft, pending_approval, approved, rejected, scheduled, published, failed or removed"),
    ] = None,
    campaign: Annotated[str | None, Field(description="Only posts with this campaign label")] = None,
    query: Annotated[str | None, Field(description="Text in the post")] = None,
    created_by: Annotated[str | None, Field(description="Only posts written by this employee (email)")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search social media posts, newest first, by account, network, status, campaign, text or author."""
    return ctx.rows.page(
        POSTS,
        page,
        per_page,
        account_id=account_id,
        network=network,
        status=status,
        campaign=campaign,
        query=query,
        created_by=_lower(created_by),
    )


@tool(SERVICE, "GET", "/social/posts/{post_id}")
def soc_get_post(ctx: ToolContext, post_id: PostId) -> dict[str, Any]:
    """Get one social post with its account, its approval requests and decisions, and its metrics once published."""
    return _full(ctx, _post(ctx, post_id))


@tool(SERVICE, "POST", "/social/posts")
def soc_create_post(
    ctx: ToolContext,
    account_id: AccountId,
    body: Annotated[Text, Field(description="The text of the post")],
    media_url: Annotated[Url | None, Field(description="An image or video to attach (Instagram needs one)")] = None,
    link_url: Annotated[Url | None, Field(description="A link to attach")] = None,
    campaign: Annotated[Campaign | None, Field(description="A campaign label grouping posts")] = None,
) -> dict[str, Any]:
    """Write a new social media post as a draft for one account (X: at most 280 characters; Instagram needs media).

    A draft is sent for approval before it can go out."""
    account = _account(ctx, account_id)
    if account["status"] == "archived":
        raise Conflict(f"account {account['id']} ({account['handle']}) is archived", error="account_archived")
    _check_content(account, body, media_url)
    post = {
        "id": ctx.rows.next_id(SocPost),
        "account_id": account["id"],
        "body": body,
        "media_url": media_url,
        "link_url": link_url,
        "campaign": campaign,
        "status": "draft",
        "scheduled_for": None,
        "published_at": None,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
        "removed_reason": None,
        "failure_reason": None,
    }
    ctx.rows.insert(SocPost, post)
    return post


@tool(SERVICE, "PATCH", "/social/posts/{post_id}")
def soc_update_post(
    ctx: ToolContext,
    post_id: PostId,
    body: Annotated[Text | None, Field(description="New text of the post")] = None,
    media_url: Annotated[Url | None, Field(description="New image or video")] = None,
    link_url: Annotated[Url | None, Field(description="New link")] = None,
    campaign: Annotated[Campaign | None, Field(description="New campaign label")] = None,
) -> dict[str, Any]:
    """Edit a post that is not published yet: its text, media, link or campaign.

    An edited post goes back to draft: a pending approval is withdrawn and an approval or a publish time
    is voided, so it must be sent for approval again."""
    post = _post(ctx, post_id)
    _in_status(post, ("draft", "pending_approval", "approved", "rejected", "scheduled", "failed"), "edited")
    account = _account(ctx, post["account_id"])
    _check_content(account, body if body is not None else post["body"], media_url or post["media_url"])
    changed = update_given(ctx, SocPost, post, body=body, media_url=media_url, link_url=link_url, campaign=campaign)
    if changed:
        for pending in ctx.rows.all(PENDING_OF, post_id=post["id"]):
            ctx.rows.change(SocApproval, pending, {"decision": "withdrawn", "decided_at": ctx.timestamp})
        back = {"status": "draft", "scheduled_for": None, "failure_reason": None, "updated_at": ctx.timestamp}
        ctx.rows.change(SocPost, post, back)
    return {**post, "changed": changed}


@tool(SERVICE, "POST", "/social/posts/{post_id}/submit")
def soc_submit_post_for_approval(
    ctx: ToolContext,
    post_id: PostId,
    reviewer_email: Annotated[
        Email | None,
        Field(description="Who reviews it: the account's approver (default); another colleague only when you are it"),
    ] = None,
) -> dict[str, Any]:
    """Send a draft (or rejected) social post to the account's approver for review before it can go out.

    Nobody approves their own post."""
    post = _post(ctx, post_id)
    _in_status(post, ("draft", "rejected"), "sent for approval")
    account = _account(ctx, post["account_id"])
    author, approver = post["created_by"], account["approver_email"]
    reviewer = (reviewer_email or approver).lower()
    if reviewer == author:
        raise Forbidden(
            f"nobody approves their own post: {author} wrote {post['id']}"
            + ("; name another colleague as reviewer_email" if author == approver else ""),
            error="own_post",
        )
    if reviewer != approver and author != approver:
        raise Forbidden(
            f"posts to {account['handle']} are approved by {approver}, not {reviewer}", error="not_account_approver"
        )
    if ctx.rows.value(EMPLOYEE, email=reviewer) is None:
        raise InvalidArgument(f"{reviewer} is not a current employee", error="unknown_reviewer")
    approval = {
        "id": ctx.rows.next_id(SocApproval),
        "post_id": post["id"],
        "requested_by": me(ctx),
        "requested_at": ctx.timestamp,
        "reviewer_email": reviewer,
        "decision": "pending",
        "comment": None,
        "decided_at": None,
    }
    ctx.rows.insert(SocApproval, approval)
    ctx.rows.change(SocPost, post, {"status": "pending_approval", "updated_at": ctx.timestamp})
    return {**post, "approval": approval}


@tool(SERVICE, "GET", "/social/approvals")
def soc_list_approvals(
    ctx: ToolContext,
    reviewer_email: Annotated[str | None, Field(description="Only posts sent to this reviewer (email)")] = None,
    decision: Annotated[
        Decision | None, Field(description="pending (the queue), approved, rejected or withdrawn")
    ] = None,
    post_id: Annotated[str | None, Field(description="Only the approvals of this post id")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List the social posts waiting for approval (the approval queue), oldest first, or past approval decisions."""
    return ctx.rows.page(
        APPROVALS, page, per_page, reviewer_email=_lower(reviewer_email), decision=decision, post_id=post_id
    )


def _decide(ctx: ToolContext, post_id: str, outcome: str, comment: str | None) -> dict[str, Any]:
    """Record the acting reviewer's decision on a post waiting for their approval."""
    post = _post(ctx, post_id)
    _in_status(post, ("pending_approval",), outcome)
    pending = ctx.rows.one(PENDING_OF, post_id=post["id"])
    if pending is None or pending["reviewer_email"] != me(ctx):
        reviewer = pending["reviewer_email"] if pending else "nobody"
        raise Forbidden(f"post {post['id']} waits for {reviewer}'s approval, not yours", error="not_reviewer")
    text = comment.strip() if comment and comment.strip() else None
    ctx.rows.change(SocApproval, pending, {"decision": outcome, "comment": text, "decided_at": ctx.timestamp})
    ctx.rows.change(SocPost, post, {"status": outcome, "updated_at": ctx.timestamp})
    return {**post, "approval": pending}


@tool(SERVICE, "POST", "/social/posts/{post_id}/approve")
def soc_approve_post(
    ctx: ToolContext,
    post_id: PostId,
    comment: Annotated[str | None, Field(description="An optional comment to the author")] = None,
) -> dict[str, Any]:
    """Approve a social media post sent to you for approval.

    Only the reviewer it was sent to may approve it."""
    return _decide(ctx, post_id, "approved", comment)


@tool(SERVICE, "POST", "/social/posts/{post_id}/reject")
def soc_reject_post(
    ctx: ToolContext,
    post_id: PostId,
    comment: Annotated[Text, Field(description="What the author must fix")],
) -> dict[str, Any]:
    """Reject a social media post sent to you for approval, saying what to fix; the author edits and resends it.

    Only the reviewer it was sent to may reject it."""
    return _decide(ctx, post_id, "rejected", comment)


@tool(SERVICE, "POST", "/social/posts/{post_id}/schedule")
def soc_schedule_post(
    ctx: ToolContext,
    post_id: PostId,
    publish_at: Annotated[DateTime, Field(description="When to publish it (UTC), in the future")],
) -> dict[str, Any]:
    """Schedule an approved social post to publish at a time (or move its time); its account must be connected."""
    post = _post(ctx, post_id)
    _in_status(post, ("approved", "scheduled", "failed"), "scheduled")
    _connected(_account(ctx, post["account_id"]), "schedule posts to it")
    if _moment(publish_at, "publish_at") <= _moment(ctx.timestamp, "now"):
        raise InvalidArgument(f"publish_at {publish_at} is not in the future (now: {ctx.timestamp})", error="past_time")
    scheduled = {
        "status": "scheduled",
        "scheduled_for": publish_at,
        "failure_reason": None,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.change(SocPost, post, scheduled)
    return post


@tool(SERVICE, "POST", "/social/posts/{post_id}/unschedule")
def soc_unschedule_post(ctx: ToolContext, post_id: PostId) -> dict[str, Any]:
    """Take a scheduled social post off the schedule (pause it): it stays approved, with no publish time."""
    post = _post(ctx, post_id)
    _in_status(post, ("scheduled",), "unscheduled")
    ctx.rows.change(SocPost, post, {"status": "approved", "scheduled_for": None, "updated_at": ctx.timestamp})
    return post


@tool(SERVICE, "POST", "/social/posts/{post_id}/publish")
def soc_publish_post_now(ctx: ToolContext, post_id: PostId) -> dict[str, Any]:
    """Publish an approved social post right now (also one set for a later time); its account must be connected."""
    post = _post(ctx, post_id)
    _in_status(post, ("approved", "scheduled", "failed"), "published")
    _connected(_account(ctx, post["account_id"]), "publish to it")
    published = {
        "status": "published",
        "published_at": ctx.timestamp,
        "failure_reason": None,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.change(SocPost, post, published)
    zero = {"impressions": 0, "likes": 0, "comments": 0, "shares": 0, "clicks": 0}
    ctx.rows.insert(SocPostMetrics, {"post_id": post["id"], **zero, "updated_at": ctx.timestamp})
    return post


@tool(SERVICE, "DELETE", "/social/posts/{post_id}")
def soc_delete_post(ctx: ToolContext, post_id: PostId) -> dict[str, Any]:
    """Delete a social post that was never published (a draft, or one waiting or approved) with its approvals.

    A published post is taken down instead (soc_take_down_post)."""
    post = _post(ctx, post_id)
    if post["status"] in ("published", "removed"):
        raise Conflict(
            f"post {post['id']} is {post['status']}: take a published post down instead of deleting it",
            error=f"post_{post['status']}",
        )
    for approval in ctx.rows.all(APPROVALS_OF, post_id=post["id"]):
        ctx.rows.delete(SocApproval, approval["id"])
    ctx.rows.delete(SocPost, post["id"])
    return {"deleted": post["id"]}


@tool(SERVICE, "POST", "/social/posts/{post_id}/take-down")
def soc_take_down_post(
    ctx: ToolContext,
    post_id: PostId,
    reason: Annotated[Text, Field(description="Why it is taken down (kept with the post)")],
) -> dict[str, Any]:
    """Take down (remove) a published social post from the network, with the reason; its metrics are kept."""
    post = _post(ctx, post_id)
    _in_status(post, ("published",), "taken down")
    ctx.rows.change(SocPost, post, {"status": "removed", "removed_reason": reason, "updated_at": ctx.timestamp})
    return post


# --- metrics -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/social/metrics")
def soc_metrics_report(
    ctx: ToolContext,
    account_id: Annotated[str | None, Field(description="Only posts of this account id")] = None,
    campaign: Annotated[str | None, Field(description="Only posts with this campaign label")] = None,
    published_from: Annotated[DateTime | None, Field(description="Only posts published at or after this time")] = None,
    published_to: Annotated[DateTime | None, Field(description="Only posts published before this time")] = None,
    include_removed: Annotated[bool, Field(description="Also count posts taken down since")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """Social media metrics (analytics) of published posts: how many impressions, likes, comments, shares and clicks
    each got, its engagement, and the totals."""
    values = {
        "account_id": account_id,
        "campaign": campaign,
        "published_from": published_from,
        "published_to": published_to,
        "live": None if include_removed else True,
    }
    every = ctx.rows.all(REPORT, **values)
    found = ctx.rows.page(REPORT, page, per_page, **values)
    for row in found["rows"]:
        row["engagement_rate"] = round(100 * row["engagements"] / row["impressions"], 2) if row["impressions"] else 0.0
    totals = {
        k: sum(r[k] for r in every) for k in ("impressions", "likes", "comments", "shares", "clicks", "engagements")
    }
    totals["engagement_rate"] = (
        round(100 * totals["engagements"] / totals["impressions"], 2) if totals["impressions"] else 0.0
    )
    return {**found, "totals": {"posts": len(every), **totals}}
