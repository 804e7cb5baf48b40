"""Chat tools: channels (public, private, direct messages), members, reading and searching
messages, posting as the acting employee, thread replies and edits of one's own messages."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import bindparam, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.chat import ChatChannel, ChatMember, ChatMessage
from ...schema.automation.mail import COMPANY_DOMAIN
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me

SERVICE = "automation.chat"

ChannelName = Annotated[str, Field(min_length=1, description="A channel name, e.g. sales or #sales")]
MessageId = Annotated[str, Field(description="A chat message id, e.g. CM-00012")]
MessageText = Annotated[Text, Field(max_length=4000, description="The message text")]
NewName = Annotated[
    str, Field(pattern=r"^#?[a-z0-9][a-z0-9_-]{0,79}$", description="Lowercase name: letters, digits, - and _")
]

_CHANNELS, _MEMBERS, _MESSAGES = ChatChannel.__table__, ChatMember.__table__, ChatMessage.__table__
NAMED = Statement.of(select(_CHANNELS).where(_CHANNELS.c.name == bindparam("name")))
MEMBERS = Statement.of(
    select(_MEMBERS.c.member_email)
    .where(_MEMBERS.c.channel_id == bindparam("channel_id"))
    .order_by(_MEMBERS.c.member_email)
)
# channels the acting employee (bound as "me") can see: public ones and those they are in
_VISIBLE = or_(
    _CHANNELS.c.is_private.is_(False),
    _CHANNELS.c.id.in_(select(_MEMBERS.c.channel_id).where(_MEMBERS.c.member_email == bindparam("me"))),
)
CHANNELS = Filtered(
    select(_CHANNELS).where(_VISIBLE),
    (_CHANNELS.c.name,),
    query=or_(contains(_CHANNELS.c.name, "query"), contains(_CHANNELS.c.topic, "query")),
    shared=_CHANNELS.c.is_direct.is_(False),
)
IN_CHANNEL = Filtered(
    select(_MESSAGES).where(_MESSAGES.c.channel_id == bindparam("channel_id")),
    (_MESSAGES.c.posted_at, _MESSAGES.c.id),
    thread=or_(_MESSAGES.c.id == bindparam("thread"), _MESSAGES.c.parent_id == bindparam("thread")),
)
SEARCHED = Filtered(
    select(_MESSAGES).where(_MESSAGES.c.channel_id.in_(select(_CHANNELS.c.id).where(_VISIBLE))),
    (_MESSAGES.c.posted_at.desc(), _MESSAGES.c.id.desc()),
    query=contains(_MESSAGES.c.text, "query"),
    channel_id=_MESSAGES.c.channel_id == bindparam("channel_id"),
    author=_MESSAGES.c.author_email == bindparam("author"),
)


def _colleague(email: str) -> str:
    email = email.lower()
    if not email.endswith("@" + COMPANY_DOMAIN):
        raise InvalidArgument(
            f"{email} is not a colleague: chat is for @{COMPANY_DOMAIN} people", error="not_a_colleague"
        )
    return email


def _is_member(ctx: ToolContext, channel: Row, email: str) -> bool:
    return ctx.rows.get(ChatMember, (channel["id"], email)) is not None


def _channel(ctx: ToolContext, name: str, action: str = "read") -> Row:
    """The channel by name; a private one only for its members (403 otherwise)."""
    channel = ctx.rows.one(NAMED, name=name.lower().lstrip("#"))
    if channel is None:
        raise NotFound(f"channel {name!r} not found")
    if channel["is_private"] and not _is_member(ctx, channel, me(ctx)):
        raise Forbidden(f"#{channel['name']} is private: only its members may {action} it", error="not_a_member")
    return channel


def _message(ctx: ToolContext, message_id: str) -> Row:
    message = ctx.rows.get(ChatMessage, message_id)
    if message is None:
        raise NotFound(f"chat message {message_id!r} not found")
    channel = ctx.rows.need(ChatChannel, message["channel_id"], "channel")
    if channel["is_private"] and not _is_member(ctx, channel, me(ctx)):
        raise NotFound(f"chat message {message_id!r} not found")
    return message


def _post(ctx: ToolContext, channel: Row, text: str, parent_id: str | None = None) -> Row:
    message = {
        "id": ctx.rows.next_id(ChatMessage),
        "channel_id": channel["id"],
        "author_email": me(ctx),
        "text": text,
        "parent_id": parent_id,
        "posted_at": ctx.timestamp,
        "edited_at": None,
    }
    ctx.rows.insert(ChatMessage, message)
    return message


def _join(ctx: ToolContext, channel: Row, email: str) -> Row:
    member = {"channel_id": channel["id"], "member_email": email, "joined_at": ctx.timestamp}
    ctx.rows.insert(ChatMember, member)
    return member


def _open(ctx: ToolContext, name: str, topic: str, private: bool, direct: bool) -> Row:
    """A new channel created by the acting employee."""
    channel = {
        "id": ctx.rows.next_id(ChatChannel),
        "name": name,
        "topic": topic,
        "is_private": private,
        "is_direct": direct,
        "created_by": me(ctx),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(ChatChannel, channel)
    return channel


@tool(SERVICE, "GET", "/chat/channels")
def chat_list_channels(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the channel's name or topic")] = None,
    include_direct: Annotated[bool, Field(description="Also list your direct-message channels")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List the team chat channels you can see (public ones and private ones you belong to)."""
    shared = None if include_direct else True
    return ctx.rows.page(CHANNELS, page, per_page, me=me(ctx), query=query, shared=shared)


@tool(SERVICE, "GET", "/chat/channels/{channel_name}")
def chat_get_channel(ctx: ToolContext, channel_name: ChannelName) -> dict[str, Any]:
    """Get a chat channel by name (e.g. "sales"), with its topic and members."""
    channel = _channel(ctx, channel_name)
    members = ctx.rows.all(MEMBERS, channel_id=channel["id"])
    return {**channel, "members": [m["member_email"] for m in members]}


@tool(SERVICE, "POST", "/chat/channels")
def chat_create_channel(
    ctx: ToolContext,
    name: Annotated[NewName, Field(description="The new channel's name, lowercase, e.g. harborview-rollout")],
    topic: Annotated[str, Field(max_length=250, description="What the channel is for")] = "",
    private: Annotated[bool, Field(description="Private: only members see and post")] = False,
    members: Annotated[list[Email], Field(description="Colleagues to add as members (you are added)")] = [],  # noqa: B006
) -> dict[str, Any]:
    """Create a chat channel (public or private); you become a member, with the colleagues given."""
    name = name.lstrip("#")
    if name.startswith("dm-"):
        raise InvalidArgument("names starting with dm- are for direct messages", error="reserved_name")
    if ctx.rows.one(NAMED, name=name) is not None:
        raise Conflict(f"channel #{name} already exists", error="duplicate_channel")
    emails = sorted({me(ctx)} | {_colleague(m) for m in members})
    channel = _open(ctx, name, topic.strip(), private, False)
    for email in emails:
        _join(ctx, channel, email)
    return {**channel, "members": emails}


@tool(SERVICE, "POST", "/chat/channels/{channel_name}/members")
def chat_add_member(ctx: ToolContext, channel_name: ChannelName, email: Email) -> dict[str, Any]:
    """Add a colleague to a chat channel (a private channel's members may add others)."""
    channel = _channel(ctx, channel_name, "add members to")
    if channel["is_direct"]:
        raise Conflict("a direct-message channel has exactly two members", error="direct_channel")
    email = _colleague(email)
    if _is_member(ctx, channel, email):
        raise Conflict(f"{email} is already a member of #{channel['name']}", error="already_member")
    return _join(ctx, channel, email)


@tool(SERVICE, "GET", "/chat/channels/{channel_name}/messages")
def chat_list_messages(
    ctx: ToolContext,
    channel_name: ChannelName,
    thread_id: Annotated[str | None, Field(description="Only this thread: its first message id and replies")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """Read a channel's messages, oldest first (or one thread of it)."""
    channel = _channel(ctx, channel_name)
    return ctx.rows.page(IN_CHANNEL, page, per_page, channel_id=channel["id"], thread=thread_id)


@tool(SERVICE, "GET", "/chat/search")
def chat_search_messages(
    ctx: ToolContext,
    query: Annotated[Text | None, Field(description="Text to find in messages")] = None,
    channel_name: Annotated[str | None, Field(description="Only this channel")] = None,
    author_email: Annotated[str | None, Field(description="Only messages by this person")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """Search chat messages in the channels you can see by text, channel or author, newest first."""
    channel = None if channel_name is None else _channel(ctx, channel_name)
    return ctx.rows.page(
        SEARCHED,
        page,
        per_page,
        me=me(ctx),
        query=query,
        channel_id=None if channel is None else channel["id"],
        author=None if author_email is None else author_email.lower(),
    )


@tool(SERVICE, "POST", "/chat/channels/{channel_name}/messages")
def chat_post_message(ctx: ToolContext, channel_name: ChannelName, text: MessageText) -> dict[str, Any]:
    """Post a message as you in a chat channel (e.g. announce a won deal in #sales); private: members only."""
    channel = _channel(ctx, channel_name, "post in")
    return _post(ctx, channel, text)


@tool(SERVICE, "POST", "/chat/messages/{message_id}/replies")
def chat_reply_in_thread(ctx: ToolContext, message_id: MessageId, text: MessageText) -> dict[str, Any]:
    """Reply in the thread of a chat message (a reply to a reply joins the same thread)."""
    parent = _message(ctx, message_id)
    channel = ctx.rows.need(ChatChannel, parent["channel_id"], "channel")
    return _post(ctx, channel, text, parent["parent_id"] or parent["id"])


@tool(SERVICE, "POST", "/chat/direct/{email}")
def chat_send_direct_message(ctx: ToolContext, email: Email, text: MessageText) -> dict[str, Any]:
    """Send a direct (private) chat message to a colleague; opens your DM channel with them if needed."""
    other, sender = _colleague(email), me(ctx)
    if other == sender:
        raise InvalidArgument("a direct message goes to someone else", error="self_message")
    first, second = sorted((sender, other))
    name = f"dm-{first.split('@')[0]}--{second.split('@')[0]}"
    channel = ctx.rows.one(NAMED, name=name)
    if channel is None:
        channel = _open(ctx, name, "", True, True)
        _join(ctx, channel, first)
        _join(ctx, channel, second)
    return {**_post(ctx, channel, text), "channel_name": channel["name"]}


@tool(SERVICE, "PATCH", "/chat/messages/{message_id}")
def chat_edit_message(ctx: ToolContext, message_id: MessageId, text: MessageText) -> dict[str, Any]:
    """Edit the text of a chat message you posted."""
    message = _message(ctx, message_id)
    if message["author_email"] != me(ctx):
        raise Forbidden("you can only edit your own messages", error="not_author")
    if message["text"] == text:
        raise Conflict("the message already has this text", error="unchanged")
    ctx.rows.change(ChatMessage, message, {"text": text, "edited_at": ctx.timestamp})
    return message
