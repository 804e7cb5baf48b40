"""Free text, graded by what it must say: facts, matched deterministically.

A *fact* is something a text must state: a record id, a number, a date, a time, a name, or a key
term. A fact given as a list is stated by any of its alternatives. How a fact is found:

- a **number** ("99", "$1,250.00", "20%") matches a number of the same value on number
  boundaries: "99" matches "$99.00"; "10" matches neither "100" nor "2010" nor "SAVE10", and "9" is
  not in the date 2026-09-19. Written short, "$14.8k" states 14800 and "$2.5m" 2500000 (millions
  only as money: "5m" is as often minutes); a whole number from 2 to 99 also matches in words
  ("six", "Twenty-one", "twenty one"; not "one", as often "someone" or "one of them" as a count);
- an **ISO date** (2026-09-28) matches that date as people write it: 2026-09-28, 2026/9/28,
  September 28th, Sept. 28, 28 Sep, the 28th of September, 9/28 or 9/28/2026, and 28/09 where the
  day cannot be a month (a different year written beside it does not match);
- a **time** (16:00) matches 16:00, 4 pm, 4:00 p.m. (and 4 o'clock only as 4 pm or 16:00); 12:00
  also as noon or midday, 00:00 as midnight;
- an **id** — one token with a digit or an @ (INC0001025, AUS-LT-0160, SAVE20, an e-mail
  address) — matches as written, ignoring case, on word boundaries: SAVE20 is not in SAVE200;
- **words** match on their stems (Snowball's English stemmer), ignoring case and punctuation:
  "damaged" is stated by "damage" or "Damaging", "SLA" by "SLAs"; a phrase by its words in a row
  ("handed over" states "hand over", but not "over handed").

Appending text never removes a missing fact, and a text states a fact only by containing it.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import snowballstemmer

WORD = re.compile(r"[a-z0-9]+(?:_+[a-z0-9]+)*")  # snake_case is one word: delivered_at is not delivered
NUMBER_FACT = re.compile(r"^[$€£]?\s*-?\d[\d,]*(?:\.\d+)?%?$")
NUMBER_IN_TEXT = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w]|\.\d)")
# "$14.8k", "12K", "$2.5m": thousands anywhere, millions only as money ("5m" is as often minutes)
SHORT_IN_TEXT = re.compile(r"(?<![\w.])([$€£]?)\s?(\d[\d,]*(?:\.\d+)?)\s?(k|K|m|M|mn|bn)(?![A-Za-z])")
ISO_DATE_IN_TEXT = re.compile(r"(?<!\d)\d{4}[-/]\d{1,2}[-/]\d{1,2}(?!\d)")
ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")
DATE_FACT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
TIME_FACT = re.compile(r"^(\d{1,2}):(\d{2})$")
UNITS = "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split()
TEENS = ["seventeen", "eighteen", "nineteen"]
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
MONTHS = "january february march april may june july august september october november december".split()
Fact = str | list[str]

_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer.stemWord(word)


@lru_cache(maxsize=4096)
def stems(text: str | None) -> tuple[str, ...]:
    """The text's words, lowercased and stemmed, in order (an acronym's plural as the acronym: SLAs, PCs).
    Kept for the texts seen last: a grade asks it of one answer for every fact."""
    return tuple(stem(w) for w in WORD.findall(ACRONYM_PLURAL.sub(r"\1", text or "").lower()))


def fact_kind(fact: str) -> str:
    """number, date, time, id (anything with a digit or @) or words."""
    fact = fact.strip()
    if NUMBER_FACT.match(fact):
        return "number"
    if DATE_FACT.match(fact):
        return "date"
    if TIME_FACT.match(fact):
        return "time"
    if re.search(r"[\d@]", fact) and len(fact.split()) == 1:
        return "id"
    return "words"  # several words, digits among them ("Service Desk 5"), match as words


def names_a_record(facts: list[Fact]) -> bool:
    """Whether any fact (or alternative) is an id, a number, a date or a time."""
    return any(fact_kind(option) != "words" for fact in facts for option in _options(fact))


def _options(fact: Fact) -> list[str]:
    return [fact] if isinstance(fact, str) else list(fact)


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[$€£,%\s]", "", text))
    except InvalidOperation:
        return None


def _short(match: re.Match[str]) -> Decimal | None:
    """The value of a number written short ("$14.8k"), or None where the suffix is not read as a scale."""
    currency, digits, suffix = match.groups()
    scale = {"k": 1000, "m": 10**6, "mn": 10**6, "bn": 10**9}[suffix.lower()]
    if scale > 1000 and not currency:
        return None
    value = _number(digits)
    return None if value is None else value * scale


@lru_cache(maxsize=128)
def _in_words(n: int) -> re.Pattern[str] | None:
    """The whole number ``n`` (2 to 99) written in words, as a pattern on word boundaries."""
    if not 2 <= n <= 99:
        return None
    digits = "one|two|three|four|five|six|seven|eight|nine"
    if n < 20:
        words, after = (UNITS + TEENS)[n - 2], r"(?!\w)"  # "six-month" states 6
    else:
        tens, unit = divmod(n, 10)
        words = TENS[tens - 2] + (rf"[- ]{['one', *UNITS][unit - 1]}" if unit else "")
        after = r"(?!\w)" if unit else rf"(?!\w|[- ](?:{digits})\b)"  # "twenty-one" is not 20
    return re.compile(rf"(?<![\w-]){words}{after}", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _date_pattern(fact: str) -> re.Pattern[str]:
    year, month, day = (int(part) for part in DATE_FACT.match(fact).groups())  # type: ignore[union-attr]
    date(year, month, day)  # a real date, or ValueError
    name = MONTHS[month - 1]
    names = {name, name[:3]} | ({"sept"} if month == 9 else set())
    month_re = "(?:" + "|".join(sorted(names, key=len, reverse=True)) + r")\.?"
    day_re = rf"0?{day}(?:st|nd|rd|th)?"
    other_year = rf"(?!,?\s*(?!{year})\d{{4}})"
    forms = [
        rf"{year}[-/.]0?{month}[-/.]0?{day}(?!\d)",
        rf"{month_re}\s+{day_re}(?!\d){other_year}",
        rf"(?:the\s+)?{day_re}\s+(?:of\s+)?{month_re}(?![a-z]){other_year}",
        rf"0?{month}/0?{day}(?:/(?:{year}|{year % 100:02d}))?(?![\d/])",
    ]
    to = r"\s*(?:-|–|to|through|and|&)\s*"
    forms += [  # either end of a range: "Oct 13-14", "13-14 October", "October 13 and 14"
        rf"{month_re}\s+\d{{1,2}}(?:st|nd|rd|th)?{to}{day_re}(?!\d){other_year}",
        rf"\d{{1,2}}(?:st|nd|rd|th)?{to}{day_re}\s+(?:of\s+)?{month_re}(?![a-z]){other_year}",
        rf"{day_re}{to}\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{month_re}(?![a-z]){other_year}",
    ]
    if day > 12:  # 28/09 cannot be read as a month first
        forms.append(rf"{day}[/.]0?{month}(?:[/.](?:{year}|{year % 100:02d}))?(?![\d/])")
    return re.compile(r"(?<![\w/.-])(?:" + "|".join(forms) + ")", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _time_pattern(fact: str) -> re.Pattern[str]:
    hour, minute = (int(part) for part in TIME_FACT.match(fact).groups())  # type: ignore[union-attr]
    half = hour % 12 or 12
    suffix = r"p\.?\s?m\.?" if hour >= 12 else r"a\.?\s?m\.?"
    minutes = rf"(?::{minute:02d})?" if minute == 0 else rf":{minute:02d}"
    forms = [
        rf"0?{hour}:{minute:02d}(?!\d)",
        rf"{half}{minutes}\s*{suffix}",
        # the start of a range whose end carries the am/pm: "from 4:00 to 4:30 pm", "4-5pm"
        rf"{half}{minutes}\s*(?:-|–|to|until|till)\s*\d{{1,2}}(?::\d{{2}})?\s*{suffix}",
    ]
    if minute == 0 and hour in (0, 12):
        forms.append(r"\b(?:noon|midday)\b" if hour == 12 else r"\bmidnight\b")
    return re.compile(r"(?<![\d:])(?:" + "|".join(forms) + ")", re.IGNORECASE)


def in_order(needle: tuple[str, ...], haystack: tuple[str, ...]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as a run of consecutive items."""
    size = len(needle)
    return any(haystack[i : i + size] == needle for i in range(len(haystack) - size + 1))


def states_fact(text: str | None, fact: str) -> bool:
    """Whether ``text`` states ``fact`` (see the module docstring for the rules)."""
    text = text or ""
    fact = fact.strip()
    kind = fact_kind(fact)
    if kind == "number":
        target = _number(fact)
        numbers = NUMBER_IN_TEXT.finditer(ISO_DATE_IN_TEXT.sub(" ", text))  # the 9 of 2026-09-19 is no count
        if any(_number(m.group()) == target for m in numbers):
            return True
        if any(_short(m) == target for m in SHORT_IN_TEXT.finditer(text)):
            return True
        spelled = _in_words(int(target)) if target is not None and target == target.to_integral_value() else None
        return spelled is not None and spelled.search(text) is not None
    if kind == "date":
        try:
            return _date_pattern(fact).search(text) is not None
        except ValueError:
            return fact in text
    if kind == "time":
        return _time_pattern(fact).search(text) is not None
    if kind == "id":
        words = r"\s+".join(re.escape(part) for part in fact.split())
        return re.search(rf"(?<!\w){words}(?!\w)", text, flags=re.IGNORECASE) is not None
    words = stems(text)
    # a phrase is stated by its snake_case name too ("fix in progress" by fix_in_progress), and back
    for form in {fact, fact.replace("_", " "), "_".join(fact.split())}:
        wanted = stems(form)
        if wanted and in_order(wanted, words):
            return True
    return False


def states(text: str | None, fact: Fact) -> bool:
    """Whether ``text`` states the fact or one of its alternatives."""
    return any(states_fact(text, option) for option in _options(fact))


def missing_facts(text: str | None, facts: list[Fact]) -> list[str]:
    """The facts ``text`` does not state, each as 'a or b'."""
    return [" or ".join(_options(fact)) for fact in facts if not states(text, fact)]
