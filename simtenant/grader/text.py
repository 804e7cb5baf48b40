"""Comparing free text and finding facts in answers, deterministically.

Fuzzy text rule: both texts are lowercased and split into alphanumeric
tokens; common stop words are dropped. The actual text passes when at least
``threshold`` (default 0.5) of the expected text's distinct tokens occur in it.
An expected text with no tokens passes only an actual text with none.

Facts in answers are found on word boundaries; a fact that is a number
matches a number in the answer of the same value ("99" matches "$99.00",
"10" matches neither "100" nor "2010").
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
    ]
)
TOKEN = re.compile(r"[a-z0-9]+")
NUMBER_FACT = re.compile(r"^[$€£]?\s*-?\d[\d,]*(?:\.\d+)?%?$")
NUMBER_IN_TEXT = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w]|\.\d)")
DEFAULT_THRESHOLD = 0.5


def tokens(text: str | None) -> set[str]:
    return {t for t in TOKEN.findall((text or "").lower()) if t not in STOP_WORDS}


def text_overlap(expected: str | None, actual: str | None) -> float:
    """The share of the expected text's tokens that the actual text contains."""
    wanted = tokens(expected)
    if not wanted:
        return 1.0 if not tokens(actual) else 0.0
    return len(wanted & tokens(actual)) / len(wanted)


def text_matches(expected: str | None, actual: str | None, threshold: float = DEFAULT_THRESHOLD) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    return text_overlap(expected, actual) >= threshold


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[$€£,%\s]", "", text))
    except InvalidOperation:
        return None


def states_fact(answer: str, fact: str) -> bool:
    """Whether ``answer`` states ``fact`` (see the module docstring for the rule)."""
    fact = fact.strip()
    if NUMBER_FACT.match(fact):
        target = _number(fact)
        return any(_number(m.group()) == target for m in NUMBER_IN_TEXT.finditer(answer))
    words = r"\s+".join(re.escape(part) for part in fact.split())
    return re.search(rf"(?<!\w){words}(?!\w)", answer, flags=re.IGNORECASE) is not None
