"""The scripted responder: facts revealed only to asking sentences that name them, on word stems;
questions again only when they ask, not when they confirm; closings and the unknown get a reply."""

from __future__ import annotations

import pytest

from simtenant.responder import (
    ACKNOWLEDGE,
    CLOSING,
    FALLBACK,
    Fact,
    asking,
    asks_for,
    names,
    normalize,
    questions,
    reports,
    respond,
    sentences,
    tells,
)

VEHICLE = Fact("vehicle", "a 2019 RAV4", "It's a 2019 Toyota RAV4.", ("vehicle", "what car", "make and model"))
DISTANCE = Fact("distance", "12 miles", "About 12 miles, to Capital Toyota.", ("how far", "distance", "miles"))
GIVEN_ZIP = Fact("zip", "27610", "27610.", ("zip", "postal code"), known=True)
PANES = Fact("panes", "24 panes", "There are 24 panes.", ("how many windows", "panes", "windows"), known=True)
SIDES = Fact("sides", "outside only", "Just the outside, please.", ("inside", "outside", "both sides"))


@pytest.mark.parametrize(
    ("text", "trigger", "found"),
    [
        ("What VEHICLE is it?", "vehicle", True),
        ("Which vehicles are they?", "vehicle", True),  # the same stem
        ("What's the vehicle's make, and model?", "make and model", True),  # punctuation between words
        ("How far-away is it?", "how far", True),
        ("Milestone reached", "miles", False),  # whole words only
        ("", "miles", False),
    ],
)
def test_triggers_match_word_stems_ignoring_case_and_punctuation(text, trigger, found):
    assert names(text, Fact("k", "v", "r", (trigger,))) is found


def test_normalize_pads_and_lowercases():
    assert normalize("Hello,  WORLD!") == " hello world "


def test_questions_are_sentences_ending_with_a_question_mark():
    assert questions("Thanks. How far is it? We charge per mile. Is it a car?") == ["How far is it?", "Is it a car?"]


def test_a_full_stop_inside_an_amount_an_address_or_a_figure_ends_no_sentence():
    message = "The quote is $110.00, sent to ana.ruiz@example.com. Allow 2.5 hours.\nThanks"
    assert sentences(message) == ["The quote is $110.00, sent to ana.ruiz@example.com.", "Allow 2.5 hours.", "Thanks"]
    assert questions("Is $110.00 ok? Yes.") == ["Is $110.00 ok?"]


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("How far is it?", True),
        ("What vehicle is it", True),  # opens like a question
        ("Please send me the address.", True),
        ("Let me know the pickup day.", True),
        ("I'll need the number of panes to quote.", True),
        ("Could you confirm the zip code.", True),
        ("Your quote covers 24 panes.", False),
        ("Please note the quote covers 24 panes.", False),
        ("We tow up to 50 miles.", False),
    ],
)
def test_a_sentence_asks_when_it_is_a_question_or_a_request(sentence, asks):
    assert asking(sentence) is asks


def test_one_message_can_reveal_two_facts_in_fact_order():
    reply = respond("How far should we tow it, and what vehicle is it?", [VEHICLE, DISTANCE])
    assert reply.revealed == ["vehicle", "distance"]
    assert reply.text == "It's a 2019 Toyota RAV4. About 12 miles, to Capital Toyota."
    assert reply.redundant == []


def test_a_request_reveals_like_a_question():
    reply = respond("To book the tow, please tell me the make and model.", [VEHICLE])
    assert (reply.revealed, reply.text) == (["vehicle"], VEHICLE.reveal)


def test_a_statement_with_a_trigger_word_reveals_nothing():
    reply = respond("We charge $4.50 per mile after the hook-up.", [DISTANCE])
    assert (reply.revealed, reply.text) == ([], ACKNOWLEDGE)
    assert not asks_for("We charge $4.50 per mile after the hook-up.", DISTANCE)


def test_asking_again_for_a_known_fact_is_redundant_and_repeats_the_reveal_not_the_label():
    reply = respond("What is your zip code?", [GIVEN_ZIP, VEHICLE])
    assert (reply.revealed, reply.redundant) == ([], ["zip"])
    assert reply.text == "As I said: 27610."


def test_a_question_that_states_a_known_fact_confirms_it_and_asks_the_rest():
    reply = respond("Would you like the 24 panes cleaned on the outside only, or on both sides?", [PANES, SIDES])
    assert reply.redundant == []
    assert reply.revealed == ["sides"]
    assert reply.text == SIDES.reveal  # the panes are context for the new question, not asked again


def test_a_statement_mentioning_a_known_fact_is_not_redundant():
    reply = respond("Your quote for zip 27610 is $176.50.", [GIVEN_ZIP])
    assert reply.redundant == []
    assert reply.text == ACKNOWLEDGE


def test_closing_and_unknown_questions_get_natural_replies():
    assert respond("Is there anything else I can help with?", [VEHICLE]).text == CLOSING
    assert respond("Anything else?", [VEHICLE], closing="That's all.").text == "That's all."
    assert respond("Is it raining there?", [VEHICLE]).text == FALLBACK
    assert respond("Is it raining there?", [VEHICLE], fallback="No idea.").text == "No idea."
    assert respond("Hello there!", [VEHICLE]).text == ACKNOWLEDGE
    both = respond("What vehicle is it? And is it raining there?", [VEHICLE])
    assert both.text == f"{VEHICLE.reveal} {FALLBACK}"  # every question gets an answer


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


@pytest.mark.parametrize(
    ("sentence", "reported"),
    [
        ("INC0001028 is resolved.", True),
        ("I resolved INC0001028 as user error.", True),
        ("Is INC0001028 resolved?", False),
        ("I'll resolve INC0001028 now.", False),
        ("We will resolve INC0001028 once she confirms.", False),
        ("Once it is approved, INC0001028 is resolved.", False),
        ("Let me resolve INC0001028.", False),
    ],
)
def test_a_report_is_a_statement_of_what_is_so(sentence, reported):
    assert reports(sentence) is reported


def test_tells_needs_every_fact_in_reporting_sentences():
    facts = ["INC0001028", ["resolved", "closed"]]
    assert tells("Done: INC0001028 is resolved. Anything else?", facts)
    assert tells("Nora is unlocked, and I've resolved ticket INC0001028 with the KB article.", facts)
    assert not tells("Should I mark INC0001028 as resolved?", facts)
    assert not tells("I'll resolve INC0001028 next.", facts)
    assert not tells("INC0001028 is still open.", facts)
    assert not tells("Anything else?", [])


def test_a_question_asked_as_a_list_is_answered_item_by_item():
    serial = Fact("serial", "SN-1", "It is SN-1.", ("serial",))
    owner = Fact("owner", "Grace", "Grace owns it.", ("owner", "who owns"))
    message = "Before I register it, could you tell me:\n- its serial number\n- who its owner should be"
    reply = respond(message, [serial, owner])
    assert (reply.revealed, reply.text) == (["serial", "owner"], "It is SN-1. Grace owns it.")


def test_a_report_written_as_a_list_without_full_stops_is_a_report():
    assert tells("Done:\n- INC0001020 reassigned to Priya\n- note added", ["INC0001020", "Priya"])
    assert not tells("INC0001032 created, I'm assigning it to Kofi now", ["INC0001032", "assigned"])


def test_what_the_agent_cannot_do_is_a_report_not_an_intention():
    assert reports("I can't unlock her account: her identity is not verified.")
    assert reports("I could not approve REQ0000001.")
    assert not reports("I can unlock it once she is verified.")


def test_a_verb_that_starts_like_an_intention_reports_what_was_done():
    """Saying "I cancelled", "I did" or "I deleted" is not "I can …" or "I'd …": the operator hears them as done."""
    for done in ("I cancelled INC0000091.", "I did reassign it.", "I deleted the draft.", "We dropped the old rule."):
        assert reports(done), done
    for planned in ("I can cancel it.", "I'd delete the draft.", "We will drop the rule.", "I could."):
        assert not reports(planned), planned


def test_a_question_for_permission_asks_about_the_plan_the_message_lays_out():
    decision = Fact("decision", "yes", "Yes, go ahead.", ("grant", "agent role"))
    message = "Kira has no role there. I propose:\n1. grant her the agent role\n2. assign the ticket\nShall I go ahead?"
    assert respond(message, [decision]).revealed == ["decision"]
    assert respond("Kira has no role there; I could grant her the agent role.", [decision]).revealed == []
