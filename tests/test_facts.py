"""Facts a free text must state: numbers by value, ISO dates and times as people write them, ids
as written, words by their stems; alternatives; nothing stated by appending unrelated text."""

from __future__ import annotations

import pytest

from simtenant.facts import fact_kind, missing_facts, names_a_record, states, states_fact


@pytest.mark.parametrize(
    ("text", "fact", "stated"),
    [
        # whole numbers from 2 to 99 in words, on word boundaries
        ("We took down six posts", "6", True),
        ("Twenty-one people registered", "21", True),
        ("twenty one people registered", "21", True),
        ("Twenty-one people registered", "20", False),
        ("Twenty-six people registered", "6", False),
        ("a six-month contract", "6", True),
        ("sixty leads", "6", False),
        ("someone called", "1", False),  # one is not read in words
        ("six", "6.5", False),
        ("9 in stock", "9", True),
        ("arrives 2026-09-19", "9", False),  # a date's parts are no numbers
        ("arrives 2026-09-19", "19", False),
        ("arrives 2026/9/19, 12 boxes", "12", True),
        ("back by noon", "12:00", True),
        ("back by midnight", "00:00", True),
        ("back by noon", "00:00", False),
        ("two SLAs breached", "SLA", True),
        ("the PCs are imaged", "PC", True),
        ("a pipeline of $14.8k", "14800", True),
        ("a pipeline of $14.8k", "$14,800.00", True),
        ("about 12K units", "12000", True),
        ("worth $2.5m", "2500000", True),
        ("done in 5m", "5000000", False),  # millions only as money
        ("5 kg", "5000", False),
        # words, by stem and in a row
        ("Damaged on arrival", "damaged", True),
        ("The customer says it was damaging in transit", "damaged", True),
        ("It arrived broken.", "damaged", False),
        ("Laptop handed over to Amira", "hand over", True),
        ("Laptop over handed", "hand over", False),
        ("Laptop reassigned to Amira Haddad at the Dublin Office.", "Dublin office", True),
        ("delivered_at is set", "delivered", False),  # a snake_case name is one word
        ("Status: DELIVERED", "delivered", True),
        ("The parcel is undelivered", "delivered", False),
        # ids, as written, on word boundaries
        ("see INC0001025 for details", "inc0001025", True),
        ("see INC00010250", "INC0001025", False),
        ("coupon SAVE200", "SAVE20", False),
        ("mail alex.moreno@postbox.example today", "alex.moreno@postbox.example", True),
        # numbers by value
        ("Refunded $99.00", "99", True),
        ("Refunded 100 dollars", "10", False),
        ("total $1,250.00", "1250", True),
        ("customer since 2010", "10", False),
        ("about 10.5 units", "10", False),
        ("the 99th order", "99", False),
        ("Refunded $99.00 today", "99", True),
        ("refunded 99", "99.00", True),
        ("refunded 99.", "99.00", True),
        ("overbilled by 99.01", "99.00", False),
        ("paid 148.50 instead of 247.50", "$148.50", True),
        ("total 247.50!", "247.5", True),
        ("total 1000", "1,000", True),
        ("total 1,000", "1000", True),
        ("total $1,000.00", "1000", True),
        ("SAVE20 was added", "20", False),
        ("20% off the list price", "20%", True),
        ("", "0", False),
        # dates in the forms people write
        ("Orientation on Monday, September 28th", "2026-09-28", True),
        ("Orientation on Sept. 28", "2026-09-28", True),
        ("on the 28th of September", "2026-09-28", True),
        ("due 9/28/2026", "2026-09-28", True),
        ("starts 2026-09-28T16:00:00Z", "2026-09-28", True),
        ("Sept. 28, 2025", "2026-09-28", False),  # another year written beside it
        ("September 29", "2026-09-28", False),
        # times
        ("from 4 pm to 5 pm", "16:00", True),
        ("at 4:00 p.m.", "16:00", True),
        ("at 16:00 UTC", "16:00", True),
        ("at 14pm", "16:00", False),
        ("at 9:30 am", "09:30", True),
    ],
)
def test_states_fact(text, fact, stated):
    assert states_fact(text, fact) is stated


def test_a_list_is_alternatives_and_missing_names_what_is_not_stated():
    facts = ["INC0001025", ["Dublin", "LOC-003"], "Amira"]
    assert states("Moved to LOC-003", ["Dublin", "LOC-003"])
    assert missing_facts("INC0001025: the laptop went to Amira in Dublin", facts) == []
    assert missing_facts("The laptop went to Amira", facts) == ["INC0001025", "Dublin or LOC-003"]


def test_appended_unrelated_text_states_no_missing_fact():
    short = "Customer changed their mind."
    assert missing_facts(short, ["damaged"]) == missing_facts(short + " The weather was lovely today.", ["damaged"])


@pytest.mark.parametrize(
    ("fact", "kind"),
    [("99.00", "number"), ("$1,250", "number"), ("2026-09-28", "date"), ("16:00", "time"), ("INC0001025", "id"),
     ("a@b.example", "id"), ("Dublin office", "words")],
)  # fmt: skip
def test_fact_kinds(fact, kind):
    assert fact_kind(fact) == kind


def test_a_check_names_a_record_when_a_fact_is_an_id_or_a_number():
    assert names_a_record(["delivered", ["ORD-1005", "order"]])
    assert not names_a_record(["delivered", ["Jane"]])


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("course on Oct 13-14", "2026-10-14"),
        ("course on Oct 13-14", "2026-10-13"),
        ("13-14 October", "2026-10-14"),
        ("October 13 and 14", "2026-10-14"),
        ("due 30/09/2026", "2026-09-30"),
        ("from 4:00 to 4:30 pm UTC", "16:00"),
        ("4-5pm", "16:00"),
    ],
)
def test_ranges_state_both_ends(text, fact):
    assert states_fact(text, fact)


def test_a_phrase_is_stated_by_its_snake_case_name_and_back():
    assert states_fact("PRB0000107 is now fix_in_progress", "fix in progress")
    assert states_fact("moved to fix in progress", "fix_in_progress")
    assert not states_fact("delivered_at is set", "delivered")
