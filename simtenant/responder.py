"""Scripted counterparts: a party holds facts and reveals them when asked, with no model.

Any world can use it: a home-services customer behind a lead, an IT operator behind a task. A
message is read sentence by sentence. A sentence *asks* when it is a question (it ends with "?" or
opens like one: "what", "could you", "is it", …) or a request ("please tell me", "let me know",
"I'll need", "can you confirm", …); anything else is a statement. A fact has trigger phrases,
matched on word stems ("vehicle" matches "vehicles"); the reply is scripted:

- a fact the agent does not have yet is revealed only by an asking sentence that names it, with
  the fact's own reveal text (two facts that share it, answered at once, say it once);
- an asking sentence about a fact the agent already has (given up front or revealed before) is a
  question asked again, answered "As I said: …" and counted as redundant — unless it states the
  fact itself ("Is it the 24 panes, then?": a confirmation, answered "Yes, that's right.") or asks
  for something new beside it ("How many days will you need it for the concrete?": context);
- a question for permission ("Shall I go ahead?") asks about the plan the message lays out: it
  reveals what the whole message names;
- a closing question ("Anything else?", "Is there anything else I can do?") gets a closing reply;
- any other asking sentence gets a reply that the party does not know;
- a message that asks nothing is acknowledged, and reveals nothing, whatever words it contains;
- a silent party (spam) never replies.

``tells`` decides whether a message reports facts as done (an operator's ``done_when``): in its
statements, not in a question ("Should I close it?"), an intention ("I'll close it") or a condition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .facts import NUMBER_IN_TEXT, in_order, missing_facts, stems
from .facts import Fact as Told

FALLBACK = "Sorry, I don't know anything more about that than what I've told you."
ACKNOWLEDGE = "Okay, thanks for letting me know."
CLOSING = "No, that's everything from me. Thanks!"
CONFIRM = "Yes, that's right."
REPEAT = "As I said: {reveal}"
# A sentence ends at . ! ? followed by a space or the end (not inside 110.00, a.b@c.com or 2.5h), or at
# the end of a line: a line without a full stop is a sentence too.
SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+(?:[.!?]+|(?=\n)|$)")
QUESTION_OPENINGS = frozenset(
    "what which who whom whose when where why how can could would do does did is are was were should shall".split()
)
REQUEST = re.compile(  # a request for information inside a sentence, on normalized words
    r" (?:please|kindly|let (?:me|us) know|tell (?:me|us)|send (?:me|us)|give (?:me|us)|share|provide|advise"
    r"|confirm|wondering|need to know|(?:i|we)(?: still| also| just)?(?: ll| will| would| d)? need"
    r"|(?:i|we)(?: d| would) like to know|(?:could|can|would|will) you) "
)
NOT_REQUESTS = ("please note", "please find", "please see", "please be aware", "please feel free", "hesitate")
PERMISSION = re.compile(
    r" (?:(?:shall|should|may|can|could) (?:i|we) (?:go ahead|proceed|do (?:that|this|it|so))"
    r"|(?:shall|should|may|can) (?:i|we) |do you want me to|would you like me to|go ahead|proceed"
    r"|is (?:that|this|it) (?:ok|okay|alright|fine)|sounds? (?:good|ok|okay)|ok with (?:that|this)) "
)
CLOSINGS = (
    "anything else",
    "any other question",
    "anything more",
    "something else",
    "can i help",
    "else i can",
    "help with anything",
    "any further question",
)


@dataclass(frozen=True)
class Fact:
    key: str
    value: str  # what the party knows, e.g. "about 12 miles"
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


def sentences(message: str) -> list[str]:
    return [s for s in (m.group().strip() for m in SENTENCE.finditer(message)) if s]


BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def asks(message: str) -> list[str]:
    """The message's asking sentences; the items of a list that follows an asking line ending in ':'
    ("Could you tell me:" then "- the serial number") ask too."""
    found, listing = [], False
    for sentence in sentences(message):
        if listing and BULLET.match(sentence):
            found.append(sentence)
            continue
        listing = asking(sentence) and sentence.rstrip().endswith(":")
        if asking(sentence):
            found.append(sentence)
    return found


def questions(message: str) -> list[str]:
    """The sentences that end with a question mark."""
    return [s for s in sentences(message) if s.endswith("?")]


def asking(sentence: str) -> bool:
    """Whether the sentence asks something (a question or a request), rather than states."""
    if sentence.rstrip().endswith("?"):
        return True
    words = normalize(sentence)
    first = words.split()[0] if words.split() else ""
    if first in QUESTION_OPENINGS:
        return True
    if any(f" {phrase} " in words for phrase in NOT_REQUESTS):
        return False
    return REQUEST.search(words) is not None


def names(text: str, fact: Fact) -> bool:
    """Whether the text names the fact: one of its triggers, on word stems, in a row."""
    words = stems(text)
    for trigger in fact.triggers:
        wanted = stems(trigger)
        if wanted and in_order(wanted, words):
            return True
    return False


def asks_for(text: str, fact: Fact) -> bool:
    """Whether some asking sentence of ``text`` names the fact."""
    return any(names(s, fact) for s in asks(text))


def _states_value(sentence: str, fact: Fact) -> bool:
    """Whether the sentence states the fact's value itself (a confirmation, not a question again)."""
    numbers = [m.group() for m in NUMBER_IN_TEXT.finditer(fact.value)]
    if numbers:
        return not missing_facts(sentence, [numbers])
    wanted = set(stems(fact.value))
    return bool(wanted) and wanted <= set(stems(sentence))


def _closing(sentence: str) -> bool:
    words = normalize(sentence)
    return any(f" {phrase} " in words for phrase in CLOSINGS)


def respond(
    message: str, facts: Sequence[Fact], silent: bool = False, fallback: str = FALLBACK, closing: str = CLOSING
) -> Reply:
    """The party's scripted reply to ``message``, and which facts it reveals or was asked again."""
    if silent:
        return Reply(text=None)
    reply = Reply(text=None)
    reveals: list[str] = []
    repeats: list[str] = []
    others: list[str] = []
    proposal = " ".join(sentences(message))
    for sentence in asks(message):
        # "Shall I go ahead?" after a plan asks about the plan: the message's facts are what it names
        named = [
            fact for fact in facts if names(proposal if PERMISSION.search(normalize(sentence)) else sentence, fact)
        ]
        answered = bool(named)
        asks_new = any(not fact.known for fact in named)
        for fact in named:
            if not fact.known:
                if fact.key not in reply.revealed:
                    reply.revealed.append(fact.key)
                    reveals.append(fact.reveal)
            elif asks_new:
                continue  # context for the new question ("How many days for the concrete?"), not asked again
            elif _states_value(sentence, fact):
                others.append(CONFIRM)
            elif fact.key not in reply.redundant:
                reply.redundant.append(fact.key)
                repeats.append(REPEAT.format(reveal=fact.reveal.strip()))
        if not answered and not sentence.rstrip().endswith(":"):  # a list's lead-in is answered by its items
            others.append(closing if _closing(sentence) else fallback)
    order = {fact.key: position for position, fact in enumerate(facts)}
    reply.revealed.sort(key=order.__getitem__)
    reveals = [f.reveal for f in facts if f.key in reply.revealed]
    parts = [*reveals, *repeats, *others]
    reply.text = " ".join(dict.fromkeys(parts)) if parts else ACKNOWLEDGE  # one sentence said once
    return reply


INTENT = re.compile(  # a clause that opens with an intention: "I'll close it", "let me", "I'm closing it now"
    r"^ (?:(?:ok|okay|so|now|next|then|and|also|first|great|sure) )*"
    r"(?:(?:i|we) (?:ll|will|can|could|would|d|am going to|m going to|are going to|re going to)(?= |$)(?! t | not )"
    r"|let me|let us|shall i|about to|(?:i m|i am|we re|we are) (?:now |just )?\w+ing )"
)  # "I can't" is not an intention, nor "I cancelled" or "I did"; "the numbers I'm giving you" does not open its clause
CONDITIONS = ("if", "once", "before", "when", "after", "as soon as")
CLAUSE = re.compile(r"[,;:](?=\s)|[–—]|\s-\s")  # not inside 22:00 or 7,800


def reported(sentence: str) -> list[str]:
    """The clauses of a sentence that report what is so: none of a question or of a sentence opened
    by a condition ("Once it is approved, …"), and not a clause that opens with an intention ("I'll
    close it", "…, I'm assigning it now")."""
    if sentence.rstrip().endswith("?") or any(normalize(sentence).startswith(f" {w} ") for w in CONDITIONS):
        return []
    return [clause for clause in CLAUSE.split(sentence) if not INTENT.search(normalize(clause))]


def reports(sentence: str) -> bool:
    """Whether the whole sentence reports what is so (every clause of it)."""
    return len(reported(sentence)) == len(CLAUSE.split(sentence))


def tells(message: str, facts: list[Told]) -> bool:
    """Whether what ``message`` reports (not its questions, intentions or conditions) states every
    one of ``facts``."""
    statements = "\n".join(clause for s in sentences(message) for clause in reported(s))
    return bool(facts) and not missing_facts(statements, facts)
