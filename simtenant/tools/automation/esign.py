"""E-signature tools: envelopes (drafted from drive files, sent for signing, reminded, voided), their
documents and recipients (signers in routing order, cc), and signing or declining as the acting
employee.

The rules the tools enforce: only an envelope's sender changes, sends, reminds or voids it; its
documents and recipients change only while it is a draft (a recipient who has not signed yet may
still be corrected); signers sign in routing order (the next order's turn comes when every signer of
the one before has signed), and the envelope is completed when the last has signed, when its cc
recipients get their copy; one decline declines it. A signer at the company must be a current
employee, and a signer is reminded at most once a day."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, exists, func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.esign import ENVELOPE_STATUSES, RECIPIENT_ROLES, EsignDocument, EsignEnvelope, EsignRecipient
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, contains
from .common import Email, Page, PerPage, me
from .files import current_employee, seen_file

SERVICE = "automation.esign"

EnvelopeId = Annotated[str, Field(description="An envelope id, e.g. ENV-0004")]
DocumentId = Annotated[str, Field(description="A document id of an envelope, e.g. EDOC-0007")]
RecipientId = Annotated[str, Field(description="A recipient id of an envelope, e.g. RCP-0012")]
EnvelopeStatus = Literal[ENVELOPE_STATUSES]  # type: ignore[valid-type]
Role = Literal[RECIPIENT_ROLES]  # type: ignore[valid-type]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Order = Annotated[
    int, Field(ge=1, le=20, description="A signer's turn: 1 signs first; signers sharing a number sign in parallel")
]
Name = Annotated[Text, Field(max_length=120, description="The person's full name")]


class NewRecipient(BaseModel):
    """A recipient of a new envelope."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Name
    email: Email
    role: Annotated[Role, Field(description="signer (signs) or cc (gets the completed copy)")] = "signer"
    routing_order: Annotated[
        int | None, Field(ge=1, le=20, description="A signer's turn (1 signs first; default 1); none for a cc")
    ] = None


_ENVELOPES, _RECIPIENTS = EsignEnvelope.__table__, EsignRecipient.__table__
_DOCUMENTS = EsignDocument.__table__
ENVELOPES = Filtered(
    select(_ENVELOPES),
    (_ENVELOPES.c.created_at.desc(), _ENVELOPES.c.id.desc()),
    query=or_(
        contains(_ENVELOPES.c.subject, "query"),
        contains(func.coalesce(_ENVELOPES.c.reference, ""), "query"),
        exists(
            select(_DOCUMENTS.c.id).where(
                _DOCUMENTS.c.envelope_id == _ENVELOPES.c.id, contains(_DOCUMENTS.c.name, "query")
            )
        ),
    ),
    status=_ENVELOPES.c.status == bindparam("status"),
    sender=_ENVELOPES.c.sender == bindparam("sender"),
    recipient=exists(
        select(_RECIPIENTS.c.id).where(
            _RECIPIENTS.c.envelope_id == _ENVELOPES.c.id,
            or_(contains(_RECIPIENTS.c.email, "recipient"), contains(_RECIPIENTS.c.name, "recipient")),
        )
    ),
    awaiting=exists(
        select(_RECIPIENTS.c.id).where(
            _RECIPIENTS.c.envelope_id == _ENVELOPES.c.id,
            _RECIPIENTS.c.email == bindparam("awaiting"),
            _RECIPIENTS.c.role == "signer",
            _RECIPIENTS.c.status == "sent",
        )
    ),
)


def _envelope(ctx: ToolContext, envelope_id: str) -> Row:
    return ctx.rows.need(EsignEnvelope, envelope_id, "envelope")


def _recipients(ctx: ToolContext, envelope_id: str) -> list[Row]:
    return ctx.rows.find(EsignRecipient, ("routing_order", "id"), envelope_id=envelope_id)


def _documents(ctx: ToolContext, envelope_id: str) -> list[Row]:
    return ctx.rows.find(EsignDocument, ("id",), envelope_id=envelope_id)


def _shown(ctx: ToolContext, envelope: Row) -> dict[str, Any]:
    recipients = _recipients(ctx, envelope["id"])
    return {
        **envelope,
        "documents": [{k: d[k] for k in ("id", "name", "file_id")} for d in _documents(ctx, envelope["id"])],
        "recipients": recipients,
        "waiting_on": [r["email"] for r in recipients if r["role"] == "signer" and r["status"] == "sent"],
    }


def _sent_by_me(ctx: ToolContext, envelope_id: str) -> Row:
    envelope = _envelope(ctx, envelope_id)
    if envelope["sender"] != me(ctx):
        raise Forbidden(
            f"envelope {envelope['id']} was sent by {envelope['sender']}: only its sender may change, send, remind "
            "or void it",
            error="not_the_sender",
        )
    return envelope


def _draft(ctx: ToolContext, envelope_id: str) -> Row:
    envelope = _sent_by_me(ctx, envelope_id)
    if envelope["status"] != "draft":
        raise Conflict(
            f"envelope {envelope['id']} is {envelope['status']}: its documents and recipients change only in a draft",
            error="envelope_not_draft",
        )
    return envelope


def _document(ctx: ToolContext, envelope: Row, file_id: str) -> Row:
    """A new document of ``envelope``: the text of a drive file the acting employee can see, as it is now."""
    file, _, _ = seen_file(ctx, file_id)
    if file["status"] == "trashed":
        raise Conflict(f"file {file['id']} is in the trash", error="file_trashed")
    if any(d["file_id"] == file["id"] for d in _documents(ctx, envelope["id"])):
        raise Conflict(f"envelope {envelope['id']} already holds {file['id']}", error="duplicate_document")
    document = {
        "id": ctx.rows.next_id(EsignDocument),
        "envelope_id": envelope["id"],
        "file_id": file["id"],
        "name": file["name"],
        "content": file["content"],
    }
    ctx.rows.insert(EsignDocument, document)
    return document


def _recipient(ctx: ToolContext, envelope: Row, new: NewRecipient) -> Row:
    email = current_employee(ctx, new.email, "signer")
    if any(r["email"] == email for r in _recipients(ctx, envelope["id"])):
        raise Conflict(f"{email} is already a recipient of {envelope['id']}", error="duplicate_recipient")
    if new.role == "cc" and new.routing_order is not None:
        raise InvalidArgument("a cc gets the completed copy: give no routing order", error="cc_has_no_order")
    recipient = {
        "id": ctx.rows.next_id(EsignRecipient),
        "envelope_id": envelope["id"],
        "name": new.name,
        "email": email,
        "role": new.role,
        "routing_order": (new.routing_order or 1) if new.role == "signer" else None,
        "status": "waiting",
        "signed_at": None,
        "declined_reason": None,
        "last_reminded_at": None,
    }
    ctx.rows.insert(EsignRecipient, recipient)
    return recipient


def _future(ctx: ToolContext, day: str | None) -> str | None:
    if day is not None:
        try:
            datetime.strptime(day, "%Y-%m-%d")
        except ValueError:
            raise InvalidArgument(f"expires_on: {day!r} is not a valid date", error="invalid_value") from None
        if day <= ctx.timestamp[:10]:
            raise InvalidArgument(f"expires_on {day} is not after today", error="expiry_past")
    return day


def _advance(ctx: ToolContext, envelope: Row) -> None:
    """Give the next routing order its turn once every signer before it has signed; complete the
    envelope when none is left (its cc recipients are then sent their copy)."""
    recipients = _recipients(ctx, envelope["id"])
    signers = [r for r in recipients if r["role"] == "signer"]
    if any(r["status"] == "sent" for r in signers):
        return
    waiting = [r for r in signers if r["status"] == "waiting"]
    if waiting:
        turn = min(r["routing_order"] for r in waiting)
        for signer in waiting:
            if signer["routing_order"] == turn:
                ctx.rows.change(EsignRecipient, signer, {"status": "sent"})
        return
    ctx.rows.change(EsignEnvelope, envelope, {"status": "completed", "completed_at": ctx.timestamp})
    for cc in recipients:
        if cc["role"] == "cc":
            ctx.rows.change(EsignRecipient, cc, {"status": "sent"})


def _my_turn(ctx: ToolContext, envelope_id: str) -> tuple[Row, Row]:
    """The envelope and the acting employee's signer row, when it is their turn to sign."""
    envelope = _envelope(ctx, envelope_id)
    mine = [r for r in _recipients(ctx, envelope["id"]) if r["email"] == me(ctx) and r["role"] == "signer"]
    if not mine:
        raise Forbidden(f"you are not a signer of envelope {envelope['id']}", error="not_a_signer")
    if envelope["status"] != "sent":
        raise Conflict(f"envelope {envelope['id']} is {envelope['status']}, not out for signature", error="not_sent")
    if envelope["expires_on"] is not None and envelope["expires_on"] < ctx.timestamp[:10]:
        raise Conflict(f"envelope {envelope['id']} expired on {envelope['expires_on']}", error="envelope_expired")
    signer = mine[0]
    if signer["status"] == "waiting":
        raise Conflict(
            f"it is not your turn on {envelope['id']}: earlier signers (routing order below "
            f"{signer['routing_order']}) have not all signed",
            error="not_your_turn",
        )
    if signer["status"] != "sent":
        raise Conflict(
            f"you have {signer['status']} envelope {envelope['id']} already", error=f"already_{signer['status']}"
        )
    return envelope, signer


# --- envelopes ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/esign/envelopes")
def esign_list_envelopes(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the subject, reference or a document's name")] = None,
    status: Annotated[
        EnvelopeStatus | None,
        Field(description="Only envelopes in this status: draft, sent, completed, declined, voided or expired"),
    ] = None,
    recipient: Annotated[
        str | None, Field(description="Text in a recipient's (signer's or cc's) email or name")
    ] = None,
    sender: Annotated[Email | None, Field(description="Only envelopes sent by this employee")] = None,
    awaiting_my_signature: Annotated[bool, Field(description="Only envelopes waiting for you to sign now")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search e-signature envelopes (agreements and contracts sent for signing: signed yet or
    not?), newest first, by subject, status, recipient or sender, or those awaiting your signature."""
    return ctx.rows.page(
        ENVELOPES,
        page,
        per_page,
        query=query,
        status=status,
        recipient=recipient,
        sender=sender.lower() if sender else None,
        awaiting=me(ctx) if awaiting_my_signature else None,
    )


@tool(SERVICE, "GET", "/esign/envelopes/{envelope_id}")
def esign_get_envelope(ctx: ToolContext, envelope_id: EnvelopeId) -> dict[str, Any]:
    """Get one envelope: its status, documents, and each recipient's role, routing order and signing
    status (who it is waiting on)."""
    return _shown(ctx, _envelope(ctx, envelope_id))


@tool(SERVICE, "GET", "/esign/documents/{document_id}")
def esign_get_document(ctx: ToolContext, document_id: DocumentId) -> dict[str, Any]:
    """Read the text of a document in an envelope (what the signers sign)."""
    return ctx.rows.need(EsignDocument, document_id, "document")


@tool(SERVICE, "POST", "/esign/envelopes")
def esign_create_envelope(
    ctx: ToolContext,
    subject: Annotated[Text, Field(max_length=200, description="The envelope's subject, as recipients see it")],
    file_ids: Annotated[
        list[str], Field(min_length=1, max_length=10, description="The drive files to sign, e.g. ['FILE-0005']")
    ],
    recipients: Annotated[
        list[NewRecipient],
        Field(min_length=1, max_length=20, description="Signers (with routing order) and cc recipients"),
    ],
    message: Annotated[str | None, Field(description="A message to the recipients")] = None,
    reference: Annotated[str | None, Field(description="What it belongs to, e.g. a CRM deal id DEAL-0006")] = None,
    expires_on: Annotated[Day | None, Field(description="The last day it can be signed, YYYY-MM-DD")] = None,
) -> dict[str, Any]:
    """Create an envelope to send documents for e-signature: a draft with drive files as documents and
    its signers (in routing order) and cc recipients; send it with esign_send_envelope."""
    envelope = {
        "id": ctx.rows.next_id(EsignEnvelope),
        "subject": subject,
        "message": message,
        "reference": reference,
        "sender": me(ctx),
        "status": "draft",
        "expires_on": _future(ctx, expires_on),
        "created_at": ctx.timestamp,
        "sent_at": None,
        "completed_at": None,
        "voided_reason": None,
    }
    ctx.rows.insert(EsignEnvelope, envelope)
    for file_id in file_ids:
        _document(ctx, envelope, file_id)
    for new in recipients:
        _recipient(ctx, envelope, new)
    return _shown(ctx, envelope)


@tool(SERVICE, "PATCH", "/esign/envelopes/{envelope_id}")
def esign_update_envelope(
    ctx: ToolContext,
    envelope_id: EnvelopeId,
    subject: Annotated[Text | None, Field(max_length=200, description="A new subject (draft only)")] = None,
    message: Annotated[Text | None, Field(description="A new message to the recipients (draft only)")] = None,
    reference: Annotated[Text | None, Field(description="A new reference (draft only)")] = None,
    expires_on: Annotated[Day | None, Field(description="A new last day to sign (a sent envelope too)")] = None,
) -> dict[str, Any]:
    """Change a draft envelope's subject, message or reference, or a draft or sent one's expiry date (sender only)."""
    envelope = _sent_by_me(ctx, envelope_id)
    values = {"subject": subject, "message": message, "reference": reference, "expires_on": _future(ctx, expires_on)}
    given = {k: v for k, v in values.items() if v is not None}
    if not given:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if envelope["status"] not in ("draft", "sent") or (envelope["status"] == "sent" and set(given) - {"expires_on"}):
        raise Conflict(
            f"envelope {envelope['id']} is {envelope['status']}: only a draft changes (a sent one: its expiry)",
            error="envelope_not_draft",
        )
    changed = ctx.rows.change(EsignEnvelope, envelope, given)
    return {**_shown(ctx, envelope), "changed": changed}


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/documents")
def esign_add_document(
    ctx: ToolContext,
    envelope_id: EnvelopeId,
    file_id: Annotated[str, Field(description="The drive file to add, e.g. FILE-0005")],
) -> dict[str, Any]:
    """Add a drive file as a document of a draft envelope (sender only)."""
    envelope = _draft(ctx, envelope_id)
    document = _document(ctx, envelope, file_id)
    return {k: document[k] for k in ("id", "envelope_id", "file_id", "name")}


@tool(SERVICE, "DELETE", "/esign/envelopes/{envelope_id}/documents/{document_id}")
def esign_remove_document(ctx: ToolContext, envelope_id: EnvelopeId, document_id: DocumentId) -> dict[str, Any]:
    """Remove a document from a draft envelope (sender only)."""
    envelope = _draft(ctx, envelope_id)
    document = ctx.rows.get(EsignDocument, document_id)
    if document is None or document["envelope_id"] != envelope["id"]:
        raise NotFound(f"envelope {envelope['id']} has no document {document_id!r}")
    ctx.rows.delete(EsignDocument, document["id"])
    return {"removed": document["id"], "envelope_id": envelope["id"]}


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/recipients")
def esign_add_recipient(
    ctx: ToolContext,
    envelope_id: EnvelopeId,
    name: Name,
    email: Annotated[Email, Field(description="The recipient's email address")],
    role: Annotated[Role, Field(description="signer (signs) or cc (gets the completed copy)")] = "signer",
    routing_order: Annotated[
        int | None, Field(ge=1, le=20, description="A signer's turn (1 signs first; default 1); none for a cc")
    ] = None,
) -> dict[str, Any]:
    """Add a signer (with their routing order) or a cc recipient to a draft envelope (sender only)."""
    envelope = _draft(ctx, envelope_id)
    new = NewRecipient(name=name, email=email, role=role, routing_order=routing_order)
    return _recipient(ctx, envelope, new)


@tool(SERVICE, "PATCH", "/esign/recipients/{recipient_id}")
def esign_update_recipient(
    ctx: ToolContext,
    recipient_id: RecipientId,
    name: Annotated[Name | None, Field(description="The corrected name")] = None,
    email: Annotated[Email | None, Field(description="The corrected email address")] = None,
    routing_order: Annotated[Order | None, Field(description="A new routing order (a draft's signer only)")] = None,
) -> dict[str, Any]:
    """Correct (fix) a signer's or cc recipient's wrong name or email address on an envelope (also once
    sent, while they have not signed: it goes to the corrected address), or a draft signer's routing
    order (sender only)."""
    recipient = ctx.rows.need(EsignRecipient, recipient_id, "recipient")
    envelope = _sent_by_me(ctx, recipient["envelope_id"])
    if name is None and email is None and routing_order is None:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if envelope["status"] not in ("draft", "sent"):
        raise Conflict(f"envelope {envelope['id']} is {envelope['status']}", error="envelope_closed")
    if envelope["status"] == "sent" and routing_order is not None:
        raise Conflict(f"envelope {envelope['id']} is sent: its routing order is fixed", error="envelope_not_draft")
    if recipient["status"] in ("signed", "declined"):
        raise Conflict(
            f"{recipient['email']} has {recipient['status']} already", error=f"recipient_{recipient['status']}"
        )
    if routing_order is not None and recipient["role"] == "cc":
        raise InvalidArgument("a cc gets the completed copy: it has no routing order", error="cc_has_no_order")
    values: dict[str, Any] = {"name": name, "routing_order": routing_order}
    if email is not None:
        email = current_employee(ctx, email, "signer")
        others = [r for r in _recipients(ctx, envelope["id"]) if r["id"] != recipient["id"]]
        if any(r["email"] == email for r in others):
            raise Conflict(f"{email} is already a recipient of {envelope['id']}", error="duplicate_recipient")
        values["email"] = email
    changed = ctx.rows.change(EsignRecipient, recipient, {k: v for k, v in values.items() if v is not None})
    return {**recipient, "changed": changed}


@tool(SERVICE, "DELETE", "/esign/recipients/{recipient_id}")
def esign_remove_recipient(ctx: ToolContext, recipient_id: RecipientId) -> dict[str, Any]:
    """Remove a signer or cc recipient from a draft envelope (sender only)."""
    recipient = ctx.rows.need(EsignRecipient, recipient_id, "recipient")
    envelope = _draft(ctx, recipient["envelope_id"])
    ctx.rows.delete(EsignRecipient, recipient["id"])
    return {"removed": recipient["id"], "email": recipient["email"], "envelope_id": envelope["id"]}


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/send")
def esign_send_envelope(ctx: ToolContext, envelope_id: EnvelopeId) -> dict[str, Any]:
    """Send a draft envelope out for signature: the first routing order's signers are asked to sign
    (sender only; it needs a document and a signer)."""
    envelope = _draft(ctx, envelope_id)
    if not _documents(ctx, envelope["id"]):
        raise Conflict(f"envelope {envelope['id']} has no document", error="no_documents")
    if not any(r["role"] == "signer" for r in _recipients(ctx, envelope["id"])):
        raise Conflict(f"envelope {envelope['id']} has no signer", error="no_signers")
    if envelope["expires_on"] is not None and envelope["expires_on"] <= ctx.timestamp[:10]:
        raise Conflict(f"envelope {envelope['id']} expires on {envelope['expires_on']}", error="expiry_past")
    ctx.rows.change(EsignEnvelope, envelope, {"status": "sent", "sent_at": ctx.timestamp})
    _advance(ctx, envelope)
    return _shown(ctx, envelope)


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/remind")
def esign_send_reminder(ctx: ToolContext, envelope_id: EnvelopeId) -> dict[str, Any]:
    """Remind (nudge) the signers whose turn it is on a sent envelope to sign it; once a day at most (sender only)."""
    envelope = _sent_by_me(ctx, envelope_id)
    if envelope["status"] != "sent":
        raise Conflict(f"envelope {envelope['id']} is {envelope['status']}, not out for signature", error="not_sent")
    due = [r for r in _recipients(ctx, envelope["id"]) if r["role"] == "signer" and r["status"] == "sent"]
    day_ago = (ctx.now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    recent = [r["email"] for r in due if r["last_reminded_at"] is not None and r["last_reminded_at"] > day_ago]
    if recent:
        raise Conflict(
            f"{', '.join(recent)} {'was' if len(recent) == 1 else 'were'} reminded less than a day ago",
            error="already_reminded",
        )
    for signer in due:
        ctx.rows.change(EsignRecipient, signer, {"last_reminded_at": ctx.timestamp})
    return {"envelope_id": envelope["id"], "reminded": [r["email"] for r in due]}


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/void")
def esign_void_envelope(
    ctx: ToolContext,
    envelope_id: EnvelopeId,
    reason: Annotated[Text, Field(description="Why it is voided (recipients see it)")],
) -> dict[str, Any]:
    """Void (cancel, withdraw) a draft or sent envelope so it can no longer be signed, with a reason
    (sender only; a completed one cannot be voided)."""
    envelope = _sent_by_me(ctx, envelope_id)
    if envelope["status"] not in ("draft", "sent"):
        raise Conflict(
            f"envelope {envelope['id']} is {envelope['status']}: it cannot be voided", error="envelope_closed"
        )
    ctx.rows.change(EsignEnvelope, envelope, {"status": "voided", "voided_reason": reason})
    return _shown(ctx, envelope)


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/sign")
def esign_sign_envelope(ctx: ToolContext, envelope_id: EnvelopeId) -> dict[str, Any]:
    """Sign (countersign) an envelope waiting for your signature, when it is your turn as a signer."""
    envelope, signer = _my_turn(ctx, envelope_id)
    ctx.rows.change(EsignRecipient, signer, {"status": "signed", "signed_at": ctx.timestamp})
    _advance(ctx, envelope)
    return _shown(ctx, envelope)


@tool(SERVICE, "POST", "/esign/envelopes/{envelope_id}/decline")
def esign_decline_envelope(
    ctx: ToolContext,
    envelope_id: EnvelopeId,
    reason: Annotated[Text, Field(description="Why you decline to sign (the sender sees it)")],
) -> dict[str, Any]:
    """Decline (refuse, reject) to sign an envelope as yourself, with the reason; the envelope is declined."""
    envelope, signer = _my_turn(ctx, envelope_id)
    ctx.rows.change(EsignRecipient, signer, {"status": "declined", "declined_reason": reason})
    ctx.rows.change(EsignEnvelope, envelope, {"status": "declined"})
    return _shown(ctx, envelope)
