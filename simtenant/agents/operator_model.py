"""A chat model that plays a task's operator, in place of the scripted responder.

``send_message_to_user`` asks it when the episode has one (``episode.operator_model``). It is
prompted with the operator's persona, their private facts (to disclose only when asked), their
opening, the conversation so far and the agent's new message, and told to say ###STOP### once the
work is confirmed done. Which facts a reply revealed is read from the reply (a fact's value in
it, on word boundaries); which known facts the agent asked for again is judged by the scripted
responder's rules, so ``_messages`` keeps the same meaning either way.

A model that cannot answer is an infrastructure failure: the call is refused with a 503
``operator_unavailable`` and ``failure`` says why, so the agent's run ends with ``infra_ok`` false.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import SimtenantError
from ..responder import Fact, Reply, normalize, respond
from ..task import Operator
from ..tools.engine.harness import STOP
from .chat import ChatClient, Endpoint, EndpointFailure

INSTRUCTIONS = """You play a person who asked an assistant (an AI agent) for help with some work. Stay in \
character throughout.

Who you are: {persona}

You opened the conversation with this request:
"{opening}"

What you know privately. Tell one of these only when the assistant asks for it (or plainly needs \
it to go on); never volunteer the rest, and never invent other facts:
{facts}

{done_when}Rules:
- Reply with your next message only, in your own voice, in a few sentences at most.
- Answer what you are asked. Do not do the assistant's work or tell it how to do its job.
- If you are asked something you do not know, say you do not know.
- When the assistant tells you the work is done and it is what you asked for, thank them briefly \
and end your message with {stop}. Never write {stop} otherwise."""


class OperatorUnavailable(SimtenantError):
    code = 503
    error = "operator_unavailable"


class OperatorModel:
    """The operator as a chat model: ``reply`` answers one agent message."""

    def __init__(self, endpoint: Endpoint, client: ChatClient | None = None) -> None:
        self.client = client or ChatClient(endpoint)
        self.failure: str | None = None

    def prompt(
        self, operator: Operator, facts: Sequence[Fact], history: Sequence[tuple[str, str]], message: str
    ) -> list[dict[str, str]]:
        lines = []
        for fact in facts:
            told = " (you have already told them this)" if fact.known else ""
            lines.append(f'- {fact.key}: {fact.value}{told}. When asked, you could say: "{fact.reveal}"')
        told = "; ".join(" or ".join([f] if isinstance(f, str) else f) for f in operator.done_when)
        done_when = f"The work is done when the assistant tells you: {told}.\n\n" if told else ""
        system = INSTRUCTIONS.format(
            persona=operator.persona.strip(),
            opening=operator.opening.strip(),
            facts="\n".join(lines) or "- (nothing beyond your request)",
            done_when=done_when,
            stop=STOP,
        )
        said = [f"{'you' if role == 'user' else 'assistant'}: {content}" for role, content in history]
        conversation = "\n\n".join(said) or "(nothing yet)"
        user = (
            f"The conversation so far:\n\n{conversation}\n\n"
            f"The assistant's new message:\n\n{message}\n\nWrite your reply."
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def reply(
        self, operator: Operator, facts: Sequence[Fact], history: Sequence[tuple[str, str]], message: str
    ) -> Reply:
        """The operator's reply to the agent's ``message``; a failing model raises a 503."""
        if self.failure:
            raise OperatorUnavailable(f"the operator model failed earlier: {self.failure}")
        try:
            answer = self.client.complete(self.prompt(operator, facts, history, message))
            text = (getattr(answer, "content", None) or "").strip()
            if not text:
                raise EndpointFailure(f"{self.client.endpoint.model} answered with no text")
        except EndpointFailure as exc:
            self.failure = str(exc)
            raise OperatorUnavailable(f"the operator model failed: {exc}") from None
        said = normalize(text)
        revealed = [f.key for f in facts if not f.known and normalize(f.value).strip() and normalize(f.value) in said]
        return Reply(text=text, revealed=revealed, redundant=respond(message, facts).redundant)
