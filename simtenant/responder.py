"""Scripted counterparts: a party holds facts and reveals them when asked, with no model.

Any world can use it: a home-services customer behind a lead, an IT operator behind a task.
A fact has trigger phrases (synonyms included). A message asks for a fact when one of its
triggers occurs in it as whole words, ignoring case and punctuation. The reply is scripted:

- an asked fact not yet known to the agent is revealed, with the fact's own reveal text (two
  facts that share a reveal text, answered in one sentence, say it once);
- a *question* (a sentence ending in "?") about a fact the agent already has — given up front
  or revealed earlier — gets "I already told you …" and counts as redundant; a statement that
  merely mentions it (say, a quote repeating the distance) does not;
- a question that asks for nothing the party holds gets the fallback reply, and a message with
  no question and nothing asked gets an acknowledgement;
- a silent party (spam) never replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

FALLBACK = "Sorry, I'm not sure what you need from me. What would you like to know?"
ACKNOWLEDGE = "Okay, thanks for letting me know."
SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


@dataclass(frozen=True)
class Fact:
    key: str
    value: str  # what the party says it is, e.g. "about 12 miles"
    reveal: str  # the scripted reply that reveals it
    triggers: tuple[str, ...]
    known: bool = False  # the agent already has it (given up front, or revealed before)


@dataclass
class Reply:
    text: str | None  # None: the party does not reply
    revealed: list[str] = field(default_factory=list)
    redundant: list[str] = field(default_factory=list)


def normalize(text: str) -> str:
    """Lowercase words separated by single spaces, padded so phrases match on word boundaries."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def asks_for(text: str, fact: Fact) -> bool:
    words = normalize(text)
    return any(normalize(trigger) in words for trigger in fact.triggers if trigger.strip())


def questions(message: str) -> list[str]:
    return [s for s in (m.group().strip() for m in SENTENCE.finditer(message)) if s.endswith("?")]


def respond(message: str, facts: Sequence[Fact], silent: bool = False, fallback: str = FALLBACK) -> Reply:
    """The party's scripted reply to ``message``, and which facts it reveals or was asked again."""
    if silent:
        return Reply(text=None)
    asked_questions = questions(message)
    reply = Reply(text=None)
    parts: list[str] = []
    for fact in facts:
        if fact.known:
            if any(asks_for(q, fact) for q in asked_questions):
                reply.redundant.append(fact.key)
                parts.append(f"I already told you: {fact.value}.")
        elif asks_for(message, fact):
            reply.revealed.append(fact.key)
            parts.append(fact.reveal)
    if parts:
        reply.text = " ".join(dict.fromkeys(parts))  # facts revealed by one sentence say it once
    else:
        reply.text = fallback if asked_questions else ACKNOWLEDGE
    return reply
