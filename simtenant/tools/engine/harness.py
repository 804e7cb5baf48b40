"""Harness tools offered beside every world's own: ending the episode, and (for tasks with a
user) talking to the operator, who is scripted by the responder (or played by a chat model when the
episode has an ``operator_model``, see ``simtenant.agents.operator_model``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import select

from ...errors import NotFound
from ...responder import Fact, respond, tells
from ...schema.harness import MessageRecord
from .dispatch import ToolContext
from .registry import Text, tool

STOP = "###STOP###"


@tool("harness", "POST", "/finish", ends=True)
def finish(ctx: ToolContext, answer: Annotated[str, Field(description="Your final answer or report")] = "") -> Any:
    """End the episode and give your final answer. No further calls are taken after it."""
    ctx.finish(answer)
    return {"finished": True}


IDENTITY = "_identity"  # who the operator is: any operator says so when asked (not a fact any task grades)


def _identity(persona: str, known: set[str]) -> Fact:
    name = persona.strip().split(",")[0].split(".")[0].strip()
    triggers = ("who are you", "your name", "who am i speaking", "who is this", "identify yourself", "are you")
    return Fact(IDENTITY, name, f"This is {name}.", triggers, known=IDENTITY in known)


@tool("harness", "POST", "/message-user")
def send_message_to_user(
    ctx: ToolContext, message: Annotated[Text, Field(description="Your message to the person you work for")]
) -> Any:
    """Send a message to the person you are working for (the operator); their reply comes back.

    They answer what you ask. Once you tell them the work is done they answer ###STOP###, which ends the
    episode: no further calls are taken, and no finish is needed."""
    operator = ctx.episode.task.user
    if operator is None:
        raise NotFound("this task has no user to message", error="no_user")
    said = ctx.session.scalars(select(MessageRecord.revealed).where(MessageRecord.role == "user"))
    known = {key for revealed in said if revealed for key in revealed}
    facts = [Fact(f.key, f.value, f.reveal, tuple(f.triggers), known=f.key in known) for f in operator.facts]
    facts.append(_identity(operator.persona, known))
    model = getattr(ctx.episode, "operator_model", None)  # a chat model playing the operator, if any
    if model is not None:
        history = ctx.session.execute(select(MessageRecord.role, MessageRecord.content).order_by(MessageRecord.seq))
        reply = model.reply(operator, facts, [(role, content) for role, content in history], message)
        text, done = reply.text, STOP in reply.text
    else:  # done once everything the agent has reported, in this message or before, tells the outcome
        before = ctx.session.scalars(select(MessageRecord.content).where(MessageRecord.role == "agent"))
        done = tells("\n".join([*before, message]), operator.done_when)
        closing = "No, that's all. Let me know once it's done, please."
        reply = respond(message, facts, closing=closing)
        text = f"Thanks, that's everything I needed. {STOP}" if done else reply.text
    ctx.session.add(MessageRecord(role="agent", content=message, redundant=reply.redundant or None))
    ctx.session.add(MessageRecord(role="user", content=text, revealed=reply.revealed or None))
    if done:
        ctx.finish(message)
    return {"reply": text}
