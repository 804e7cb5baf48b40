"""Mail tools: the acting employee's mailbox (list, search, read, threads), sending, replying,
forwarding, read flags, archiving and trash. A sent email is a row in the sender's sent folder and
an unread inbox row for each recipient at the company's domain."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument, NotFound
from ...schema.automation.hr import HrEmployee
from ...schema.automation.mail import COMPANY_DOMAIN, FOLDERS, MailMessage
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import Email, Page, PerPage, me

SERVICE = "automation.mail"

MessageId = Annotated[str, Field(description="A message id in your mailbox, e.g. MSG-00012")]
Folder = Literal[FOLDERS]  # type: ignore[valid-type]
Recipients = Annotated[list[Email], Field(description="Recipient email addresses")]
Subject = Annotated[Text, Field(max_length=300, description="The subject line")]
Body = Annotated[Text, Field(description="The message text")]

_MAIL, _STAFF = MailMessage.__table__, HrEmployee.__table__
_NEWEST = (_MAIL.c.sent_at.desc(), _MAIL.c.id.desc())
_MAILBOX = select(_MAIL).where(_MAIL.c.mailbox == bindparam("mailbox"))
_FOLDER = _MAIL.c.folder == bindparam("folder")
LISTED = Filtered(
    _MAILBOX,
    _NEWEST,
    folder=_FOLDER,
    from_address=contains(_MAIL.c.from_address, "from_address"),
    subject=contains(_MAIL.c.subject, "subject"),
    unread=_MAIL.c.read.is_(False),
)
_SEARCHED_IN = ("subject", "body", "from_address", "to_addresses", "cc_addresses")
SEARCHED = Filtered(
    _MAILBOX.where(or_(*(contains(_MAIL.c[column], "query") for column in _SEARCHED_IN))),
    _NEWEST,
    folder=_FOLDER,
)
THREAD = Statement.of(_MAILBOX.where(_MAIL.c.thread_id == bindparam("thread_id")).order_by(_MAIL.c.sent_at, _MAIL.c.id))
MAILBOXES = Statement.of(select(_MAIL.c.mailbox).where(one_of(_MAIL.c.mailbox, "addresses")).distinct())
# the company directory (HR) gives every current employee a mailbox, a new hire's included
_STAFF_EMAIL = func.lower(_STAFF.c.email)
STAFF = Statement.of(
    select(_STAFF_EMAIL.label("email")).where(_STAFF.c.status != "terminated", one_of(_STAFF_EMAIL, "addresses"))
)


def join(addresses: list[str]) -> str:
    """Addresses as stored: lowercase, without repeats, separated by ", "."""
    seen: list[str] = []
    for address in addresses:
        if address.lower() not in seen:
            seen.append(address.lower())
    return ", ".join(seen)


def split(addresses: str) -> list[str]:
    return [a for a in addresses.split(", ") if a]


def _mine(ctx: ToolContext, message_id: str) -> Row:
    message = ctx.rows.get(MailMessage, message_id)
    if message is None or message["mailbox"] != me(ctx):
        raise NotFound(f"message {message_id!r} not found in your mailbox")
    return message


def _deliver(
    ctx: ToolContext,
    to: list[str],
    cc: list[str],
    subject: str,
    body: str,
    thread_id: str | None = None,
    in_reply_to: str | None = None,
) -> Row:
    """Send as the acting employee: a sent row, then an inbox row per company recipient; the sent row."""
    sender = me(ctx)
    to_text, cc_text = join(to), join(cc)
    if not to_text:
        raise InvalidArgument("give at least one recipient", error="no_recipients")
    internal = [a for a in split(join(split(to_text) + split(cc_text))) if a.endswith("@" + COMPANY_DOMAIN)]
    known = {r["mailbox"] for r in ctx.rows.all(MAILBOXES, addresses=internal)}
    known |= {r["email"] for r in ctx.rows.all(STAFF, addresses=internal)}
    unknown = [a for a in internal if a not in known and a != sender]
    if unknown:
        raise NotFound(f"no mailbox at {COMPANY_DOMAIN} for {', '.join(unknown)}", error="unknown_mailbox")
    sent_id = ctx.rows.next_id(MailMessage)
    sent = {
        "id": sent_id,
        "mailbox": sender,
        "folder": "sent",
        "from_address": sender,
        "to_addresses": to_text,
        "cc_addresses": cc_text,
        "subject": subject,
        "body": body,
        "thread_id": thread_id or sent_id,
        "in_reply_to": in_reply_to,
        "sent_at": ctx.timestamp,
        "read": True,
    }
    ctx.rows.insert(MailMessage, sent)
    for address in internal:
        copy = {"id": ctx.rows.next_id(MailMessage), "mailbox": address, "folder": "inbox", "read": False}
        ctx.rows.insert(MailMessage, {**sent, **copy})
    return sent


def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


@tool(SERVICE, "GET", "/mail/messages")
def mail_list_messages(
    ctx: ToolContext,
    folder: Annotated[Folder | None, Field(description="inbox, sent, archive or trash; default: every folder")] = None,
    from_address: Annotated[str | None, Field(description="Text in the sender's address, e.g. harborview")] = None,
    subject: Annotated[str | None, Field(description="Text in the subject")] = None,
    unread_only: Annotated[bool, Field(description="Only messages not read yet")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List (read) the emails in your inbox or another folder, newest first, by sender, subject or unread."""
    return ctx.rows.page(
        LISTED,
        page,
        per_page,
        mailbox=me(ctx),
        folder=folder,
        from_address=from_address,
        subject=subject,
        unread=True if unread_only else None,
    )


@tool(SERVICE, "GET", "/mail/search")
def mail_search_messages(
    ctx: ToolContext,
    query: Annotated[Text, Field(description="Text to find in the subject, body, sender or recipients")],
    folder: Annotated[Folder | None, Field(description="Only this folder; default: every folder")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """Search your mailbox (inbox and every folder) for text in the subject, body or addresses, newest first."""
    return ctx.rows.page(SEARCHED, page, per_page, mailbox=me(ctx), query=query, folder=folder)


@tool(SERVICE, "GET", "/mail/messages/{message_id}")
def mail_get_message(ctx: ToolContext, message_id: MessageId) -> dict[str, Any]:
    """Read one email of your mailbox in full (does not change its read flag)."""
    return _mine(ctx, message_id)


@tool(SERVICE, "GET", "/mail/threads/{thread_id}")
def mail_get_thread(
    ctx: ToolContext, thread_id: Annotated[str, Field(description="A thread id, as messages give it")]
) -> dict[str, Any]:
    """Read an email conversation: the messages of one thread in your mailbox, oldest first."""
    messages = ctx.rows.all(THREAD, mailbox=me(ctx), thread_id=thread_id)
    if not messages:
        raise NotFound(f"thread {thread_id!r} not found in your mailbox")
    return {"thread_id": thread_id, "messages": messages}


@tool(SERVICE, "POST", "/mail/messages")
def mail_send_email(
    ctx: ToolContext,
    to: Recipients,
    subject: Subject,
    body: Body,
    cc: Annotated[list[Email], Field(description="Carbon-copy recipient addresses")] = [],  # noqa: B006
) -> dict[str, Any]:
    """Send a new email from you to customers, vendors or colleagues; returns the copy in your sent folder."""
    return _deliver(ctx, to, cc, subject, body)


@tool(SERVICE, "POST", "/mail/messages/{message_id}/reply")
def mail_reply_to_email(
    ctx: ToolContext,
    message_id: MessageId,
    body: Body,
    reply_all: Annotated[bool, Field(description="Also reply to every other recipient (reply all)")] = False,
) -> dict[str, Any]:
    """Reply to an email in your mailbox: same thread, subject "Re: ...", to its sender (or everyone with reply_all)."""
    original = _mine(ctx, message_id)
    sender = me(ctx)
    if original["from_address"] == sender:  # replying to your own message: it goes to its recipients again
        to, cc = split(original["to_addresses"]), split(original["cc_addresses"]) if reply_all else []
    else:
        to = [original["from_address"]]
        cc = []
        if reply_all:
            to += [a for a in split(original["to_addresses"]) if a != sender]
            cc = [a for a in split(original["cc_addresses"]) if a != sender]
    ctx.rows.change(MailMessage, original, {"read": True})
    subject = _prefixed("Re:", original["subject"])
    return _deliver(ctx, to, cc, subject, body, thread_id=original["thread_id"], in_reply_to=original["id"])


@tool(SERVICE, "POST", "/mail/messages/{message_id}/forward")
def mail_forward_email(
    ctx: ToolContext,
    message_id: MessageId,
    to: Recipients,
    note: Annotated[str | None, Field(description="Your text above the forwarded message")] = None,
    cc: Annotated[list[Email], Field(description="Carbon-copy recipient addresses")] = [],  # noqa: B006
) -> dict[str, Any]:
    """Forward an email of your mailbox to other people, with an optional note; subject "Fwd: ..."."""
    original = _mine(ctx, message_id)
    quoted = (
        "---------- Forwarded message ----------\n"
        f"From: {original['from_address']}\nDate: {original['sent_at']}\nSubject: {original['subject']}\n"
        f"To: {original['to_addresses']}\n\n{original['body']}"
    )
    body = f"{note.strip()}\n\n{quoted}" if note and note.strip() else quoted
    return _deliver(ctx, to, cc, _prefixed("Fwd:", original["subject"]), body)


@tool(SERVICE, "PATCH", "/mail/messages/{message_id}")
def mail_mark_message(
    ctx: ToolContext,
    message_id: MessageId,
    read: Annotated[bool, Field(description="true: mark as read; false: mark as unread")] = True,
) -> dict[str, Any]:
    """Mark an email in your mailbox as read or unread."""
    message = _mine(ctx, message_id)
    ctx.rows.change(MailMessage, message, {"read": read})
    return message


@tool(SERVICE, "POST", "/mail/messages/{message_id}/archive")
def mail_archive_message(ctx: ToolContext, message_id: MessageId) -> dict[str, Any]:
    """Archive an email of your mailbox (move it out of the inbox to the archive folder)."""
    message = _mine(ctx, message_id)
    if message["folder"] == "archive":
        raise Conflict(f"message {message['id']} is already archived", error="already_archived")
    ctx.rows.change(MailMessage, message, {"folder": "archive"})
    return message


@tool(SERVICE, "POST", "/mail/messages/{message_id}/trash")
def mail_trash_message(ctx: ToolContext, message_id: MessageId) -> dict[str, Any]:
    """Delete an email of your mailbox: move it to the trash folder (spam, junk)."""
    message = _mine(ctx, message_id)
    if message["folder"] == "trash":
        raise Conflict(f"message {message['id']} is already in the trash", error="already_in_trash")
    ctx.rows.change(MailMessage, message, {"folder": "trash"})
    return message
