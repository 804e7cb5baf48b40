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
from .rows import Statement

STOP = "###STOP###"
_MESSAGES = MessageRecord.__table__
_REVEALED = Statement.of(select(_MESSAGES.c.revealed).where(_MESSAGES.c.role == "user").order_by(_MESSAGES.c.seq))
_TOLD = Statement.of(select(_MESSAGES.c.content).where(_MESSAGES.c.role == "agent").order_by(_MESSAGES.c.seq))
_HISTORY = Statement.of(select(_MESSAGES.c.role, _MESSAGES.c.content).order_by(_MESSAGES.c.seq))


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
    known = {key for said in ctx.rows.all(_REVEALED) if said["revealed"] for key in said["revealed"]}
    facts = [Fact(f.key, f.value, f.reveal, tuple(f.triggers), known=f.key in known) for f in operator.facts]
    facts.append(_identity(operator.persona, known))
    model = getattr(ctx.episode, "operator_model", None)  # a chat model playing the operator, if any
    if model is not None:
        history = [(said["role"], said["content"]) for said in ctx.rows.all(_HISTORY)]
        reply = model.reply(operator, facts, history, message)
        text, done = reply.text, STOP in reply.text
    else:  # done once everything the agent has reported, in this message or before, tells the outcome
        before = [said["content"] for said in ctx.rows.all(_TOLD)]
        done = tells("\n".join([*before, message]), operator.done_when)
        closing = "No, that's all. Let me know once it's done, please."
        reply = respond(message, facts, closing=closing)
        text = f"Thanks, that's everything I needed. {STOP}" if done else reply.text
    ctx.rows.insert(MessageRecord, {"role": "agent", "content": message, "redundant": reply.redundant or None})
    ctx.rows.insert(MessageRecord, {"role": "user", "content": text, "revealed": reply.revealed or None})
    if done:
        ctx.finish(message)
    return {"reply": text}
