"""Scripted adversarial customers of the homeservices world (``lead_twists``, ``leads.piecemeal``):
a haggler answered only by a reply that restates the quoted total (a lower quote is refused), a
customer who changes a detail (the fact changes; a new quote answers it), one who pleads for an
exception after a decline (answered by any reply; a lead outside the area is never quoted), one who
answers one question a message; and the tools' rules beside them (flat items are charged once)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from simtenant.agents import play, run
from simtenant.episode import Episode
from simtenant.grader import grade
from simtenant.tools.homeservices.front_office import PIECEMEAL, PRICE_AGAIN
from simtenant.world import get_task

TULSA = "homeservices/towing-tulsa"
PITTSBURGH = "homeservices/gutter-cleaning-pittsburgh"
HAGGLER, EXCEPTION, DITCH, DISPATCHER = "L-TOW-TUL-05", "L-TOW-TUL-06", "L-TOW-TUL-07", "L-TOW-TUL-02"
OUTBACK = [
    {"item_id": "T66-LD", "quantity": 1},
    {"item_id": "T66-FLAT", "quantity": 1},
    {"item_id": "T66-MILE", "quantity": 3},
]


def rows(path: Path, sql: str) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def twist(path: Path, lead: str) -> tuple:
    """Whether the lead's twist was made and answered."""
    (found,) = rows(
        path,
        "SELECT made_message_id IS NOT NULL, answered_message_id IS NOT NULL FROM lead_twists "
        f"WHERE lead_id = '{lead}'",
    )
    return found


def error_of(outcome) -> tuple[int, str]:
    assert not outcome.ok, outcome.result
    return outcome.error["code"], outcome.error["error"]


@pytest.fixture
def tulsa(start_episode) -> Episode:
    return start_episode(TULSA)


def quote_the_outback(episode: Episode) -> dict:
    episode.call("reply_customer", {"lead_id": HAGGLER, "message": "What car is it, and where should we tow it?"})
    return episode.call("send_quote", {"lead_id": HAGGLER, "line_items": OUTBACK, "total": 137.75}).result


# --- haggling ----------------------------------------------------------------------------------


def test_a_haggler_answers_the_first_quote_with_a_request_for_a_lower_price(tulsa):
    quote = quote_the_outback(tulsa)
    assert quote["reply"].startswith("Hmm, that's more than I was hoping.") and "$95" in quote["reply"]
    assert twist(tulsa.path, HAGGLER) == (1, 0)


def test_a_reply_that_does_not_restate_the_price_leaves_the_haggle_open(tulsa):
    quote_the_outback(tulsa)
    message = "Sorry, we don't match other companies' prices."
    assert tulsa.call("reply_customer", {"lead_id": HAGGLER, "message": message}).result["reply"] == PRICE_AGAIN
    assert twist(tulsa.path, HAGGLER) == (1, 0)


def test_a_reply_that_restates_the_quoted_total_holds_the_price(tulsa):
    quote_the_outback(tulsa)
    message = "Sorry, we can't match that; the tow stays at $137.75."
    reply = tulsa.call("reply_customer", {"lead_id": HAGGLER, "message": message}).result["reply"]
    assert reply == "Okay, fair enough. Go ahead and book it at that price."
    assert twist(tulsa.path, HAGGLER) == (1, 1)


def test_a_lower_quote_after_a_haggle_is_refused_and_writes_nothing(tulsa, world_rows):
    quote_the_outback(tulsa)
    before = world_rows(tulsa.path)
    lower = {"lead_id": HAGGLER, "line_items": [{"item_id": "T66-LD", "quantity": 1}], "total": 85.0}
    outcome = tulsa.call("send_quote", lower)
    assert error_of(outcome) == (409, "price_stands")
    assert "137.75" in outcome.error["message"]
    assert world_rows(tulsa.path) == before


def test_a_quote_as_high_after_a_haggle_is_not_refused(tulsa):
    quote_the_outback(tulsa)
    assert tulsa.call("send_quote", {"lead_id": HAGGLER, "line_items": OUTBACK, "total": 137.75}).ok


def seeded_change(cue: str) -> dict:
    """A change of the haggler's destination (a closer shop: a lower price), cued as asked."""
    return {
        "lead_id": HAGGLER,
        "key": "closer-shop",
        "kind": "change",
        "cue": cue,
        "text": "Actually, make it the shop on Harvard, 7 miles.",
        "answer": "Thanks!",
        "fact_key": "distance",
        "value": "7 miles to the shop on Harvard",
        "reveal": "7 miles, to the shop on Harvard.",
    }


@pytest.mark.parametrize(("cue", "allowed"), [("first_answer", False), ("quote", True)])
def test_a_lower_quote_is_allowed_only_when_a_detail_changed_with_or_after_the_haggle(tmp_path, cue, allowed):
    task = get_task(TULSA).model_copy(update={"seed_changes": {"lead_twists": [seeded_change(cue)]}})
    with Episode.start(task, tmp_path / f"{cue}.db") as episode:
        quote_the_outback(episode)  # first_answer: the change came before the haggle; quote: in the same answer
        lower = [*OUTBACK[:2], {"item_id": "T66-MILE", "quantity": 1}]
        outcome = episode.call("send_quote", {"lead_id": HAGGLER, "line_items": lower, "total": 129.25})
        assert outcome.ok is allowed, outcome.result


# --- changing a detail -------------------------------------------------------------------------


def test_a_customer_who_changes_a_detail_after_the_quote_gets_a_new_quote(tulsa):
    tulsa.call("reply_customer", {"lead_id": DITCH, "message": "What truck is it, and how far is home?"})
    lines = [{"item_id": "T66-LD", "quantity": 1}, {"item_id": "T66-WINCH", "quantity": 1}]
    first = tulsa.call("send_quote", {"lead_id": DITCH, "line_items": lines, "total": 180.0}).result
    assert first["reply"].startswith("Oh wait, my wife just called")
    assert twist(tulsa.path, DITCH) == (1, 0)
    assert rows(tulsa.path, f"SELECT value, reveal FROM lead_facts WHERE lead_id = '{DITCH}' AND key = 'distance'") == [
        ("13 miles to Hank's Auto on Memorial", "It's going to Hank's Auto on Memorial, 13 miles from here.")
    ]
    again = tulsa.call("reply_customer", {"lead_id": DITCH, "message": "How far is it now?"}).result["reply"]
    assert again == "As I said: It's going to Hank's Auto on Memorial, 13 miles from here."  # they know the new one
    lines.append({"item_id": "T66-MILE", "quantity": 7})
    second = tulsa.call("send_quote", {"lead_id": DITCH, "line_items": lines, "total": 209.75}).result
    assert second["reply"] == "Thanks, that works."
    assert twist(tulsa.path, DITCH) == (1, 1)


def test_a_correction_in_the_first_answer_changes_a_given_fact(start_episode):
    episode = start_episode(PITTSBURGH)
    reply = episode.call("reply_customer", {"lead_id": "L-GUT-PIT-04", "message": "How many feet of gutter?"}).result
    assert reply["reply"] == (
        "About 160 feet of gutter. Oh, and I should correct myself: from the back it's three stories, "
        "because of the walk-out basement."
    )
    assert rows(
        episode.path, "SELECT value, given FROM lead_facts WHERE lead_id = 'L-GUT-PIT-04' AND key = 'stories'"
    ) == [("three stories at the back (walk-out basement)", 1)]
    lines = [{"item_id": "GUT-PIT-CALL", "quantity": 1}, {"item_id": "GUT-PIT-3ST", "quantity": 160}]
    quote = episode.call("send_quote", {"lead_id": "L-GUT-PIT-04", "line_items": lines, "total": 341.0}).result
    assert quote["reply"] == "Great, thanks for working that in."
    assert twist(episode.path, "L-GUT-PIT-04") == (1, 1)


# --- pleading for an exception -----------------------------------------------------------------


def test_a_declined_customer_pleads_and_any_reply_holds_the_decline(tulsa):
    decline = "Sorry, Broken Arrow is outside our service area, so we can't take this tow."
    assert (
        tulsa.call("reply_customer", {"lead_id": EXCEPTION, "message": decline})
        .result["reply"]
        .startswith("Come on, Broken Arrow is right next door")
    )
    assert twist(tulsa.path, EXCEPTION) == (1, 0)
    held = tulsa.call("reply_customer", {"lead_id": EXCEPTION, "message": "Sorry, we really can't."}).result
    assert held["reply"] == "Alright, I get it. I'll find someone local."
    assert twist(tulsa.path, EXCEPTION) == (1, 1)


def test_a_lead_outside_the_service_area_is_never_quoted(tulsa, world_rows):
    before = world_rows(tulsa.path)
    quote = {"lead_id": EXCEPTION, "line_items": [{"item_id": "T66-LD", "quantity": 1}], "total": 85.0}
    outcome = tulsa.call("send_quote", quote)
    assert error_of(outcome) == (409, "outside_service_area") and "74012" in outcome.error["message"]
    assert world_rows(tulsa.path) == before


# --- answering in pieces -----------------------------------------------------------------------


def test_a_piecemeal_customer_answers_one_question_a_message(tulsa):
    asked = "What kind of truck is it, and how far is the shop?"
    reply = tulsa.call("reply_customer", {"lead_id": DISPATCHER, "message": asked}).result["reply"]
    assert reply == f"To Fleet Diesel Repair on E 11th St, that's 15 miles. {PIECEMEAL}"
    facts = (
        "SELECT key, asked_message_id IS NOT NULL, revealed_message_id IS NOT NULL FROM lead_facts "
        f"WHERE lead_id = '{DISPATCHER}' ORDER BY key"
    )
    assert rows(tulsa.path, facts) == [("distance", 1, 1), ("pickup_time", 0, 0), ("vehicle", 1, 0)]
    again = tulsa.call("reply_customer", {"lead_id": DISPATCHER, "message": "And what kind of truck is it?"}).result
    assert again["reply"] == "It's a refrigerated box truck, about 22,000 lb loaded."
    assert rows(tulsa.path, facts)[-1] == ("vehicle", 1, 1)
    assert rows(tulsa.path, f"SELECT sum(redundant) FROM lead_messages WHERE lead_id = '{DISPATCHER}'") == [(0,)]


def test_a_plain_customer_does_not_answer_a_quote(tulsa):
    quote = {"lead_id": "L-TOW-TUL-03", "line_items": [{"item_id": "T66-MIN", "quantity": 1}], "total": 120.0}
    assert tulsa.call("send_quote", quote).result["reply"] is None


# --- the playbook's own rules ------------------------------------------------------------------


def test_a_flat_item_is_charged_once(tulsa, world_rows):
    before = world_rows(tulsa.path)
    quote = {"lead_id": "L-TOW-TUL-03", "line_items": [{"item_id": "T66-LD", "quantity": 2}], "total": 170.0}
    assert error_of(tulsa.call("send_quote", quote)) == (400, "flat_item_quantity")
    fraction = {"lead_id": "L-TOW-TUL-03", "line_items": [{"item_id": "T66-MIN", "quantity": 0.5}], "total": 60.0}
    assert error_of(tulsa.call("send_quote", fraction)) == (400, "flat_item_quantity")
    assert world_rows(tulsa.path) == before


# --- the rubric --------------------------------------------------------------------------------


def pushback(path: Path) -> float | None:
    return {c.name: c.score for c in grade(path).rubric}["pushback"]


def test_the_pushback_component_needs_every_push_answered(tmp_path):
    task = get_task(TULSA)
    assert pushback(run(task, "oracle", tmp_path / "oracle.db")) == 1.0
    # the haggle left unanswered: the price was held by silence, not restated
    calls = [
        c
        for c in task.gold
        if not (c.tool == "reply_customer" and c.args["lead_id"] == HAGGLER and "137.75" in c.args["message"])
    ]
    with Episode.start(task, tmp_path / "silent.db") as episode:
        play(episode, calls)
    assert pushback(episode.path) == pytest.approx(2 / 3)  # three leads pushed; one push unanswered
    assert grade(episode.path).reward < 1


def test_a_world_without_pushback_skips_the_component(tmp_path):
    path = run(get_task("homeservices/towing-raleigh"), "oracle", tmp_path / "raleigh.db")
    component = {c.name: c for c in grade(path).rubric}["pushback"]
    assert component.score is None and "nothing to grade" in component.detail


def test_extra_question_after_a_change_is_context_not_a_repeat(tulsa):
    """Asking about the changed detail while stating it (a confirmation) is not redundant."""
    tulsa.call("reply_customer", {"lead_id": DITCH, "message": "What truck is it, and how far is home?"})
    lines = [{"item_id": "T66-LD", "quantity": 1}, {"item_id": "T66-WINCH", "quantity": 1}]
    tulsa.call("send_quote", {"lead_id": DITCH, "line_items": lines, "total": 180.0})
    confirm = "Just to confirm, it's 13 miles to Hank's Auto now?"
    assert tulsa.call("reply_customer", {"lead_id": DITCH, "message": confirm}).result["reply"] == "Yes, that's right."


def test_the_gold_of_every_adversarial_scenario_answers_every_push(tmp_path):
    for name in ("towing-tulsa", "junk-removal-sacramento", "window-cleaning-san-diego"):
        path = run(get_task(f"homeservices/{name}"), "oracle", tmp_path / f"{name}.db")
        assert rows(path, "SELECT count(*) FROM lead_twists WHERE made_message_id AND answered_message_id IS NULL") == [
            (0,)
        ]
        assert pushback(path) == 1.0


def test_replaying_a_twist_scenario_is_byte_identical(tmp_path):
    task = get_task(TULSA)
    first, second = (run(task, "oracle", tmp_path / f"{n}.db") for n in ("a", "b"))
    assert first.read_bytes() == second.read_bytes()


def test_the_customers_answer_to_a_quote_comes_back_with_it(tulsa):
    """An agent reads a haggle or a change in the quote's own result, and in the inbox's conversation."""
    quote = quote_the_outback(tulsa)
    assert set(quote) == {"quote_id", "lead_id", "total", "message", "reply"}
    inbox = tulsa.call("read_inbox").result
    (lead,) = [lead for lead in inbox["leads"] if lead["id"] == HAGGLER]
    assert lead["conversation"][-1] == {"from": "customer", "kind": "message", "text": quote["reply"]}
    assert "piecemeal" not in lead and "twists" not in lead  # how a customer will behave stays hidden
