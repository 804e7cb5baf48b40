"""The homeservices difficulty knobs: a scenario blueprint declares ``spam_rate`` and
``ambiguity_level``, and they change the inbox it makes, deterministically: what share of the leads
is spam, and how much of the leads' price-deciding detail is left out or stated vaguely. The seed
files checked in are what the blueprints make."""

from __future__ import annotations

import copy
import sqlite3

import pytest
import yaml

from simtenant import seeds
from simtenant.tools.homeservices import scenarios
from simtenant.tools.homeservices.scenarios import BlueprintError, build, clarity, spam_count
from simtenant.world import get_world

BLUEPRINTS = scenarios.blueprints()
TULSA = scenarios.load(scenarios.BLUEPRINTS / "towing-tulsa.yaml")


def at(blueprint: dict, **knobs) -> scenarios.Inbox:
    return build({**copy.deepcopy(blueprint), **knobs})


def spam(inbox: scenarios.Inbox) -> list[dict]:
    return [lead for lead in inbox.rows["leads"] if lead["silent"]]


def facts_of(inbox: scenarios.Inbox) -> dict[tuple[str, str], dict]:
    """The lead facts by (blueprint lead ref, fact key), so inboxes made at different knobs compare."""
    refs = {lead_id: note.split(";")[0] for lead_id, note in inbox.notes.items()}
    return {(refs[f["lead_id"]], f["key"]): f for f in inbox.rows["lead_facts"]}


def unpinned(blueprint: dict) -> set[tuple[str, str]]:
    return {
        (lead["ref"], fact["key"])
        for lead in blueprint["leads"]
        if not lead.get("spam")
        for fact in lead.get("facts", [])
        if "pin" not in fact
    }


# --- the checked-in scenarios ------------------------------------------------------------------


@pytest.mark.parametrize("path", BLUEPRINTS, ids=lambda p: p.stem)
def test_the_seed_files_are_what_the_blueprint_makes(path):
    assert scenarios.write(path, check=True) == [], "run python -m simtenant.tools.homeservices.scenarios"


@pytest.mark.parametrize("path", BLUEPRINTS, ids=lambda p: p.stem)
def test_every_blueprint_declares_its_knobs_and_has_a_task(path):
    blueprint = scenarios.load(path)
    assert 0 <= blueprint["spam_rate"] < 1 and blueprint["ambiguity_level"] in scenarios.LEVELS
    assert (scenarios.SEEDS / "tasks" / f"{path.stem}.yaml").is_file()


@pytest.mark.parametrize("path", BLUEPRINTS, ids=lambda p: p.stem)
def test_the_snapshot_holds_the_inbox_the_knobs_ask_for(path):
    blueprint = scenarios.load(path)
    real = sum(1 for lead in blueprint["leads"] if not lead.get("spam"))
    connection = sqlite3.connect(seeds.snapshot(get_world("homeservices")))
    try:
        business = blueprint["business"]["id"]
        spam_leads, leads = connection.execute(
            "SELECT sum(silent), count(*) FROM leads WHERE business_id = ?", (business,)
        ).fetchone()
    finally:
        connection.close()
    assert (spam_leads, leads) == (
        spam_count(blueprint["spam_rate"], real),
        real + spam_count(blueprint["spam_rate"], real),
    )


# --- spam_rate ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "real", "expected"), [(0, 6, 0), (0.15, 6, 1), (0.25, 6, 2), (0.4, 6, 4), (0.5, 6, 6)]
)
def test_spam_count_makes_spam_that_share_of_the_inbox(rate, real, expected):
    assert spam_count(rate, real) == expected
    if expected:
        assert abs(expected / (real + expected) - rate) < 0.05


@pytest.mark.parametrize("rate", [1, 1.5, -0.1])
def test_a_spam_rate_outside_0_to_1_is_refused(rate):
    with pytest.raises(BlueprintError, match="spam_rate"):
        at(TULSA, spam_rate=rate)


def test_spam_rate_sets_how_much_of_the_inbox_is_spam_and_nothing_else():
    low, mid, high = (at(TULSA, spam_rate=rate) for rate in (0, 0.25, 0.5))
    assert [len(spam(inbox)) for inbox in (low, mid, high)] == [0, 2, 6]
    assert [len(inbox.rows["leads"]) for inbox in (low, mid, high)] == [6, 8, 12]

    def real(inbox: scenarios.Inbox) -> list[tuple]:
        return sorted((lead["customer_name"], lead["text"]) for lead in inbox.rows["leads"] if not lead["silent"])

    def known(inbox: scenarios.Inbox) -> dict:
        return {key: {k: v for k, v in fact.items() if k != "lead_id"} for key, fact in facts_of(inbox).items()}

    assert real(low) == real(mid) == real(high)  # the real leads, their texts and facts do not move
    assert known(low) == known(mid) == known(high)
    assert all(lead["zip"] is None and lead["status"] == "NEW" for lead in spam(high))  # spam never replies


def test_spam_comes_in_among_the_leads_and_never_after_the_clock():
    inbox = at(TULSA, spam_rate=0.5)
    times = [lead["received_at"][11:16] for lead in inbox.rows["leads"]]
    assert times == sorted(times)  # numbered in the order they came in
    spam_times = [lead["received_at"][11:16] for lead in spam(inbox)]
    assert all(TULSA.get("since", "05:00") <= t <= TULSA["until"] for t in spam_times)
    real = [lead["received_at"][11:16] for lead in inbox.rows["leads"] if not lead["silent"]]
    assert min(spam_times) < max(real) and max(spam_times) > min(real)


def test_the_spam_is_worded_for_the_business():
    inbox = at(TULSA, spam_rate=0.5)
    texts = " ".join(lead["text"] + lead["customer_name"] for lead in spam(inbox))
    assert "{" not in texts and ("towing" in texts or "Route 66 Tow & Recovery" in texts)


# --- ambiguity_level ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "n", "absent", "vague"),
    [("low", 9, 0, 0), ("medium", 9, 3, 0), ("high", 9, 3, 3), ("medium", 10, 3, 0), ("high", 10, 4, 3)],
)
def test_clarity_leaves_a_share_of_the_facts_unclear(level, n, absent, vague):
    facts = [(position, lead) for lead in range(5) for position in range(2)][:n]
    stated = clarity(level, facts)
    assert sorted(stated.values()).count("absent") == absent
    assert sorted(stated.values()).count("vague") == vague
    assert sorted(stated.values()).count("exact") == n - absent - vague


def test_facts_are_made_unclear_round_robin_over_the_leads():
    stated = clarity("medium", [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)])
    assert {f for f, way in stated.items() if way != "exact"} == {(0, 0), (0, 1)}  # every lead's first, not one lead's


def test_ambiguity_level_sets_how_much_a_lead_leaves_unclear():
    inboxes = {level: at(TULSA, ambiguity_level=level) for level in ("low", "medium", "high")}
    free = unpinned(TULSA)
    required = {
        level: {key for key, fact in facts_of(inbox).items() if key in free and fact["required"]}
        for level, inbox in inboxes.items()
    }
    assert [len(required[level]) for level in ("low", "medium", "high")] == [0, 3, 7]
    assert required["low"] < required["medium"] < required["high"]  # a level only adds unclear facts
    for level, inbox in inboxes.items():  # what the customers know does not move: only what the leads say
        assert {k: f["value"] for k, f in facts_of(inbox).items()} == {
            k: f["value"] for k, f in facts_of(inboxes["low"]).items()
        }, level
        assert all(f["given"] != f["required"] for f in facts_of(inbox).values() if f["available"])


def test_an_unclear_fact_is_left_out_or_said_vaguely_in_the_lead():
    texts = {
        level: {lead["customer_name"]: lead["text"] for lead in at(TULSA, ambiguity_level=level).rows["leads"]}
        for level in ("low", "medium", "high")
    }
    sheila = "Sheila Morgan"
    assert "2018 Subaru Outback" in texts["low"][sheila] and "Midtown Auto Care" in texts["low"][sheila]
    assert "2018 Subaru Outback" not in texts["medium"][sheila] and "my car" in texts["medium"][sheila]
    dispatcher = "Darnell Price (Price Produce Co.)"
    assert "22,000 lb" in texts["low"][dispatcher]
    assert "delivery truck" in texts["high"][dispatcher] and "diesel shop on the east side" in texts["high"][dispatcher]


def test_pinned_facts_do_not_move_with_the_level():
    pinned = {
        (lead["ref"], fact["key"]): fact["pin"]
        for lead in TULSA["leads"]
        for fact in lead.get("facts", [])
        if "pin" in fact
    }
    for level in ("low", "medium", "high"):
        facts = facts_of(at(TULSA, ambiguity_level=level))
        for key, pin in pinned.items():
            assert facts[key]["given"] is (pin == "given"), (level, key)
            assert facts[key]["available"] is (pin != "unknown"), (level, key)


def test_an_unknown_level_is_refused():
    with pytest.raises(BlueprintError, match="ambiguity_level"):
        at(TULSA, ambiguity_level="extreme")


# --- determinism and the blueprint's own checks ------------------------------------------------


def test_the_same_blueprint_makes_the_same_files():
    assert scenarios.render(build(copy.deepcopy(TULSA))) == scenarios.render(build(copy.deepcopy(TULSA)))


def test_the_made_files_load_as_seed_rows():
    for name, text in scenarios.render(build(copy.deepcopy(TULSA))).items():
        rows = yaml.safe_load(text)
        assert isinstance(rows, list) and all(isinstance(r, dict) for r in rows), name


def edited(change) -> dict:
    blueprint = copy.deepcopy(TULSA)
    change(blueprint)
    return blueprint


def lead(blueprint: dict, ref: str) -> dict:
    return next(x for x in blueprint["leads"] if x["ref"] == ref)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: lead(b, "outback-price-match")["twists"][0].update(cue="first_answer"), "haggles over a quote"),
        (lambda b: lead(b, "f150-ditch-changes-destination")["twists"][0].update(fact_key="nope"), "names one"),
        (
            lambda b: lead(b, "f150-ditch-changes-destination")["twists"][0].update(cue="first_answer"),
            "changes a fact the lead states",
        ),
        (lambda b: lead(b, "jenks-camry-minimum")["facts"][0].pop("vague"), "no vague wording"),
        (lambda b: b["service_areas"].append({"zip": "74101", "place": "Tulsa", "north": "x"}), "zip and a place"),
        (lambda b: lead(b, "outback-price-match")["facts"][0].update(pin="sometimes"), "pin is one of"),
        (lambda b: lead(b, "outback-price-match").update(text="{colour} car"), "names no fact"),
        (lambda b: lead(b, "jenks-camry-minimum")["facts"][0].update({" FWD": None}), "quote a value with a comma"),
    ],
    ids=[
        "haggle-on-first-answer",
        "change-of-no-fact",
        "first-answer-change-of-unclear-fact",
        "no-vague",
        "area",
        "pin",
        "slot",
        "comma",
    ],
)
def test_a_blueprint_that_cannot_make_a_consistent_inbox_is_refused(change, message):
    with pytest.raises(BlueprintError, match=message):
        build(edited(change))


def test_a_first_answer_twist_needs_something_that_makes_the_agent_write_first():
    def plain_lead_with_a_first_answer_change(blueprint: dict) -> None:
        jenks = lead(blueprint, "jenks-camry-minimum")
        for fact in jenks["facts"]:
            fact["pin"] = "given"
        jenks["twists"] = [
            {
                "key": "x",
                "kind": "change",
                "cue": "first_answer",
                "text": "t",
                "answer": "a",
                "fact_key": "distance",
                "value": "v",
                "reveal": "r",
            }
        ]

    with pytest.raises(BlueprintError, match="nothing makes the agent write first"):
        build(edited(plain_lead_with_a_first_answer_change))
