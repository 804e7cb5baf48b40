"""Chat tools: channels (public, private, direct messages), members, reading and searching
messages, posting as the acting employee, thread replies and edits of one's own messages."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.chat import ChatChannel, ChatMember, ChatMessage
from ...schema.automation.mail import COMPANY_DOMAIN
from ..engine.dispatch import ToolContext, paged, row_dict
from ..engine.registry import Text, tool
from .common import Email, Page, PerPage, containing, me, where_given

SERVICE = "automation.chat"

ChannelName = Annotated[str, Field(min_length=1, description="A channel name, e.g. sales or #sales")]
MessageId = Annotated[str, Field(description="A chat message id, e.g. CM-00012")]
MessageText = Annotated[Text, Field(max_length=4000, description="The message text")]
NewName = Annotated[
    str, Field(pattern=r"^#?[a-z0-9][a-z0-9_-]{0,79}$", description="Lowercase name: letters, digits, - and _")
]


def _colleague(email: str) -> str:
    email = email.lower()
    if not email.endswith("@" + COMPANY_DOMAIN):
        raise InvalidArgument(
            f"{email} is not a colleague: chat is for @{COMPANY_DOMAIN} people", error="not_a_colleague"
        )
    return email


def _is_member(ctx: ToolContext, channel: ChatChannel, email: str) -> bool:
    return ctx.session.get(ChatMember, (channel.id, email)) is not None


def _channel(ctx: ToolContext, name: str, action: str = "read") -> ChatChannel:
    """The channel by name; a private one only for its members (403 otherwise)."""
    channel = ctx.session.scalar(select(ChatChannel).where(ChatChannel.name == name.lower().lstrip("#")))
    if channel is None:
        raise NotFound(f"channel {name!r} not found")
    if channel.is_private and not _is_member(ctx, channel, me(ctx)):
        raise Forbidden(f"#{channel.name} is private: only its members may {action} it", error="not_a_member")
    return channel


def _visible(ctx: ToolContext) -> Any:
    """A condition: channels the acting employee can see (public ones and those they are in)."""
    mine = select(ChatMember.channel_id).where(ChatMember.member_email == me(ctx))
    return or_(ChatChannel.is_private.is_(False), ChatChannel.id.in_(mine))


def _message(ctx: ToolContext, message_id: str) -> ChatMessage:
    message = ctx.session.get(ChatMessage, message_id)
    if message is None:
        raise NotFound(f"chat message {message_id!r} not found")
    channel = ctx.get(ChatChannel, message.channel_id, "channel")
    if channel.is_private and not _is_member(ctx, channel, me(ctx)):
        raise NotFound(f"chat message {message_id!r} not found")
    return message


def _post(ctx: ToolContext, channel: ChatChannel, text: str, parent_id: str | None = None) -> ChatMessage:
    message = ChatMessage(
        id=ctx.next_id(ChatMessage),
        channel_id=channel.id,
        author_email=me(ctx),
        text=text,
        parent_id=parent_id,
        posted_at=ctx.timestamp,
        edited_at=None,
    )
    ctx.session.add(message)
    return message


def _join(ctx: ToolContext, channel: ChatChannel, email: str) -> ChatMember:
    member = ChatMember(channel_id=channel.id, member_email=email, joined_at=ctx.timestamp)
    ctx.session.add(member)
    return member


@tool(SERVICE, "GET", "/chat/channels")
def chat_list_channels(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the channel's name or topic")] = None,
    include_direct: Annotated[bool, Field(description="Also list your direct-message channels")] = False,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List the team chat channels you can see (public ones and private ones you belong to)."""
    text = None if query is None else or_(containing(ChatChannel.name, query), containing(ChatChannel.topic, query))
    statement = where_given(
        select(ChatChannel).where(_visible(ctx)), text, None if include_direct else ChatChannel.is_direct.is_(False)
    )
    return paged(ctx, statement.order_by(ChatChannel.name), page, per_page)


@tool(SERVICE, "GET", "/chat/channels/{channel_name}")
def chat_get_channel(ctx: ToolContext, channel_name: ChannelName) -> dict[str, Any]:
    """Get a chat channel by name (e.g. "sales"), with its topic and members."""
    channel = _channel(ctx, channel_name)
    members = ctx.session.scalars(
        select(ChatMember.member_email).where(ChatMember.channel_id == channel.id).order_by(ChatMember.member_email)
    )
    return {**row_dict(channel), "members": list(members)}


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
    if ctx.session.scalar(select(ChatChannel).where(ChatChannel.name == name)) is not None:
        raise Conflict(f"channel #{name} already exists", error="duplicate_channel")
    emails = sorted({me(ctx)} | {_colleague(m) for m in members})
    channel = ChatChannel(
        id=ctx.next_id(ChatChannel),
        name=name,
        topic=topic.strip(),
        is_private=private,
        is_direct=False,
        created_by=me(ctx),
        created_at=ctx.timestamp,
    )
    ctx.session.add(channel)
    ctx.session.flush()
    for email in emails:
        _join(ctx, channel, email)
    return {**row_dict(channel), "members": emails}


@tool(SERVICE, "POST", "/chat/channels/{channel_name}/members")
def chat_add_member(ctx: ToolContext, channel_name: ChannelName, email: Email) -> dict[str, Any]:
    """Add a colleague to a chat channel (a private channel's members may add others)."""
    channel = _channel(ctx, channel_name, "add members to")
    if channel.is_direct:
        raise Conflict("a direct-message channel has exactly two members", error="direct_channel")
    email = _colleague(email)
    if _is_member(ctx, channel, email):
        raise Conflict(f"{email} is already a member of #{channel.name}", error="already_member")
    return row_dict(_join(ctx, channel, email))


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
    thread = None if thread_id is None else or_(ChatMessage.id == thread_id, ChatMessage.parent_id == thread_id)
    statement = where_given(select(ChatMessage).where(ChatMessage.channel_id == channel.id), thread)
    return paged(ctx, statement.order_by(ChatMessage.posted_at, ChatMessage.id), page, per_page)


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
    visible = select(ChatChannel.id).where(_visible(ctx))
    statement = where_given(
        select(ChatMessage).where(ChatMessage.channel_id.in_(visible)),
        containing(ChatMessage.text, query),
        None if channel is None else ChatMessage.channel_id == channel.id,
        None if author_email is None else ChatMessage.author_email == author_email.lower(),
    )
    return paged(ctx, statement.order_by(ChatMessage.posted_at.desc(), ChatMessage.id.desc()), page, per_page)


@tool(SERVICE, "POST", "/chat/channels/{channel_name}/messages")
def chat_post_message(ctx: ToolContext, channel_name: ChannelName, text: MessageText) -> dict[str, Any]:
    """Post a message as you in a chat channel (e.g. announce a won deal in #sales); private: members only."""
    channel = _channel(ctx, channel_name, "post in")
    return row_dict(_post(ctx, channel, text))


@tool(SERVICE, "POST", "/chat/messages/{message_id}/replies")
def chat_reply_in_thread(ctx: ToolContext, message_id: MessageId, text: MessageText) -> dict[str, Any]:
    """Reply in the thread of a chat message (a reply to a reply joins the same thread)."""
    parent = _message(ctx, message_id)
    channel = ctx.get(ChatChannel, parent.channel_id, "channel")
    return row_dict(_post(ctx, channel, text, parent.parent_id or parent.id))


@tool(SERVICE, "POST", "/chat/direct/{email}")
def chat_send_direct_message(ctx: ToolContext, email: Email, text: MessageText) -> dict[str, Any]:
    """Send a direct (private) chat message to a colleague; opens your DM channel with them if needed."""
    other, sender = _colleague(email), me(ctx)
    if other == sender:
        raise InvalidArgument("a direct message goes to someone else", error="self_message")
    first, second = sorted((sender, other))
    name = f"dm-{first.split('@')[0]}--{second.split('@')[0]}"
    channel = ctx.session.scalar(select(ChatChannel).where(ChatChannel.name == name))
    if channel is None:
        channel = ChatChannel(
            id=ctx.next_id(ChatChannel),
            name=name,
            topic="",
            is_private=True,
            is_direct=True,
            created_by=sender,
            created_at=ctx.timestamp,
        )
        ctx.session.add(channel)
        ctx.session.flush()
        _join(ctx, channel, first)
        _join(ctx, channel, second)
    return {**row_dict(_post(ctx, channel, text)), "channel_name": channel.name}


@tool(SERVICE, "PATCH", "/chat/messages/{message_id}")
def chat_edit_message(ctx: ToolContext, message_id: MessageId, text: MessageText) -> dict[str, Any]:
    """Edit the text of a chat message you posted."""
    message = _message(ctx, message_id)
    if message.author_email != me(ctx):
        raise Forbidden("you can only edit your own messages", error="not_author")
    if message.text == text:
        raise Conflict("the message already has this text", error="unchanged")
    message.text = text
    message.edited_at = ctx.timestamp
    return row_dict(message)
