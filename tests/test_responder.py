"""The scripted responder: facts revealed by trigger phrases, redundancy only for questions."""

from __future__ import annotations

import pytest

from simtenant.responder import ACKNOWLEDGE, FALLBACK, Fact, asks_for, normalize, questions, respond

VEHICLE = Fact("vehicle", "a 2019 RAV4", "It's a 2019 Toyota RAV4.", ("vehicle", "what car", "make and model"))
DISTANCE = Fact("distance", "12 miles", "About 12 miles, to Capital Toyota.", ("how far", "distance", "miles"))
GIVEN_ZIP = Fact("zip", "27610", "27610.", ("zip", "postal code"), known=True)


@pytest.mark.parametrize(
    ("text", "trigger", "found"),
    [
        ("What VEHICLE is it?", "vehicle", True),
        ("What's the vehicle's make, and model?", "make and model", True),  # punctuation between words
        ("Which vehicles?", "vehicle", False),  # whole words only
        ("How far-away is it?", "how far", True),
        ("Milestone reached", "miles", False),
        ("", "miles", False),
    ],
)
def test_triggers_match_whole_words_ignoring_case_and_punctuation(text, trigger, found):
    assert asks_for(text, Fact("k", "v", "r", (trigger,))) is found


def test_normalize_pads_and_lowercases():
    assert normalize("Hello,  WORLD!") == " hello world "


def test_questions_are_sentences_ending_with_a_question_mark():
    assert questions("Thanks. How far is it? We charge per mile. Is it a car?") == ["How far is it?", "Is it a car?"]


def test_one_message_can_reveal_two_facts_in_fact_order():
    reply = respond("What vehicle is it, and how far should we tow it?", [VEHICLE, DISTANCE])
    assert reply.revealed == ["vehicle", "distance"]
    assert reply.text == "It's a 2019 Toyota RAV4. About 12 miles, to Capital Toyota."
    assert reply.redundant == []


def test_asking_for_a_known_fact_is_redundant_and_gets_already_told():
    reply = respond("What is your zip code?", [GIVEN_ZIP, VEHICLE])
    assert (reply.revealed, reply.redundant) == ([], ["zip"])
    assert reply.text == "I already told you: 27610."


def test_a_statement_mentioning_a_known_fact_is_not_redundant():
    reply = respond("Your quote for zip 27610 is $176.50.", [GIVEN_ZIP])
    assert reply.redundant == []
    assert reply.text == ACKNOWLEDGE


def test_a_question_asking_for_nothing_held_gets_the_fallback_and_a_statement_an_acknowledgement():
    assert respond("Is it raining there?", [VEHICLE]).text == FALLBACK
    assert respond("Is it raining there?", [VEHICLE], fallback="Yes?").text == "Yes?"
    assert respond("Hello there!", [VEHICLE]).text == ACKNOWLEDGE


def test_a_silent_party_never_replies():
    reply = respond("What vehicle is it?", [VEHICLE], silent=True)
    assert (reply.text, reply.revealed, reply.redundant) == (None, [], [])


def test_the_same_message_always_gets_the_same_reply():
    message = "What vehicle, and how many miles? What zip?"
    first = respond(message, [VEHICLE, DISTANCE, GIVEN_ZIP])
    assert all(respond(message, [VEHICLE, DISTANCE, GIVEN_ZIP]) == first for _ in range(5))


def test_two_facts_answered_by_one_sentence_say_it_once():
    both = "A third of an acre, and the grass is knee-high."
    size = Fact("lot_size", "a third of an acre", both, ("how big", "lot size"))
    height = Fact("grass_height", "knee-high", both, ("how big", "how tall"))
    reply = respond("How big is the lot?", [size, height])
    assert (reply.text, reply.revealed) == (both, ["lot_size", "grass_height"])
