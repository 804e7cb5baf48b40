"""The homeservices world: tools scoped to the acting business, scripted customers, quotes,
triage, the rubric, and a hasty trajectory per scenario that scores clearly below the oracle."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from simtenant import seeds
from simtenant.agents import play, run
from simtenant.episode import Episode
from simtenant.grader import grade
from simtenant.task import Call
from simtenant.world import get_task, get_world

WORLD = get_world("homeservices")
TASKS = sorted(WORLD.tasks.values(), key=lambda t: t.id)
TOWING = "homeservices/towing-raleigh"
FIXTURES = Path(__file__).parent / "fixtures" / "homeservices"


def rows(path: Path, sql: str) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


# messages the seed already holds (half-done inboxes): an episode's own come after them
SEEDED = rows(seeds.snapshot(WORLD), "SELECT coalesce(max(id), 0) FROM lead_messages")[0][0]
NEW = f"lead_messages WHERE id > {SEEDED}"


@pytest.fixture
def towing(start_episode) -> Episode:
    return start_episode(TOWING)


def error_of(outcome) -> tuple[int, str]:
    assert not outcome.ok, outcome.result
    return outcome.error["code"], outcome.error["error"]


# --- tools ----------------------------------------------------------------------------------------


def test_the_inbox_holds_only_the_acting_business_leads(towing):
    inbox = towing.call("read_inbox").result
    assert inbox["business"] == "Triangle Tow & Recovery"
    assert {lead["id"] for lead in inbox["leads"]} == {f"L-TOW-0{i}" for i in range(1, 8)}
    assert all("silent" not in lead for lead in inbox["leads"])  # ground truth stays hidden


def test_the_playbook_lists_prices_rules_and_area(towing):
    playbook = towing.call("get_pricing_playbook").result
    assert {a["zip"] for a in playbook["service_area"]} >= {"27519", "27607"}
    items = {i["id"]: i for i in playbook["price_items"]}
    assert items["TOW-MIN"]["amount"] == 125.0 and "applies_when" in items["TOW-AH"]


def test_a_lead_of_another_business_is_not_found(towing):
    other = rows(seeds.snapshot(WORLD), "SELECT id FROM leads WHERE business_id != 'BIZ-TOW-RAL' LIMIT 1")
    lead = other[0][0] if other else "L-NOWHERE-01"
    for tool, args in [
        ("reply_customer", {"lead_id": lead, "message": "Hi?"}),
        ("send_quote", {"lead_id": lead, "line_items": [{"item_id": "TOW-HOOK", "quantity": 1}], "total": 95.0}),
        ("set_status", {"lead_id": lead, "status": "SPAM"}),
    ]:
        assert error_of(towing.call(tool, args)) == (404, "not_found")


def test_tools_refuse_to_act_without_a_business(tmp_path):
    task = get_task(TOWING).model_copy(update={"actor": None})
    with Episode.start(task, tmp_path / "no-actor.db") as episode:
        assert error_of(episode.call("read_inbox")) == (403, "no_actor")


def test_asking_reveals_facts_and_records_the_conversation(towing):
    reply = towing.call("reply_customer", {"lead_id": "L-TOW-02", "message": "What vehicle is it?"}).result
    assert reply["reply"] == "It's a 2019 Toyota RAV4."
    facts = rows(
        towing.path, "SELECT key, asked_message_id, revealed_message_id FROM lead_facts WHERE lead_id = 'L-TOW-02'"
    )
    first = SEEDED + 1
    assert sorted(facts) == [("destination", None, None), ("pickup_time", None, None), ("vehicle", first, first + 1)]
    assert rows(towing.path, f"SELECT role, text FROM {NEW} ORDER BY id") == [
        ("agent", "What vehicle is it?"),
        ("customer", "It's a 2019 Toyota RAV4."),
    ]


def test_a_question_that_states_a_given_fact_confirms_it_and_is_not_redundant(towing):
    message = "Just to confirm, it's about 8 miles to Oak City Auto, right?"
    reply = towing.call("reply_customer", {"lead_id": "L-TOW-01", "message": message}).result
    assert reply["reply"] == "Yes, that's right."
    assert rows(towing.path, f"SELECT redundant FROM {NEW} AND role = 'agent'") == [(0,)]


def test_a_question_about_a_given_fact_is_redundant(towing):
    reply = towing.call("reply_customer", {"lead_id": "L-TOW-01", "message": "How far is the shop?"}).result
    assert reply["reply"] == "As I said: About 8 miles, to Oak City Auto."
    assert rows(towing.path, f"SELECT redundant FROM {NEW} AND role = 'agent'") == [(1,)]


def test_spam_never_replies(towing):
    assert towing.call("reply_customer", {"lead_id": "L-TOW-04", "message": "Who is this?"}).result["reply"] is None
    assert rows(towing.path, f"SELECT role FROM {NEW}") == [("agent",)]


def test_a_fact_the_customer_cannot_give_is_asked_but_not_revealed(towing):
    reply = towing.call("reply_customer", {"lead_id": "L-TOW-07", "message": "Where should we tow it?"}).result
    assert "don't know yet" in reply["reply"]
    assert rows(
        towing.path,
        "SELECT asked_message_id, revealed_message_id FROM lead_facts WHERE key = 'destination'"
        " AND lead_id = 'L-TOW-07'",
    ) == [(SEEDED + 1, None)]


def test_a_quote_records_lines_priced_from_the_playbook(towing):
    quote = towing.call(
        "send_quote",
        {
            "lead_id": "L-TOW-05",
            "line_items": [{"item_id": "TOW-HOOK", "quantity": 1}, {"item_id": "TOW-MILE", "quantity": 1}],
            "total": 99.5,
        },
    ).result
    assert quote["quote_id"] == "Q-0001"
    assert rows(towing.path, "SELECT price_item_id, quantity, unit_amount, amount FROM quote_lines ORDER BY id") == [
        ("TOW-HOOK", 1.0, 95.0, 95.0),
        ("TOW-MILE", 1.0, 4.5, 4.5),
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"line_items": [{"item_id": "NOPE", "quantity": 1}], "total": 1.0}, (400, "unknown_item")),
        ({"line_items": [], "total": 1.0}, (400, "invalid_arguments")),
        ({"line_items": [{"item_id": "TOW-HOOK", "quantity": 0}], "total": 95.0}, (400, "invalid_arguments")),
        ({"line_items": [{"item_id": "TOW-HOOK", "quantity": 1}], "total": 95.001}, (400, "invalid_amount")),
        ({"line_items": [{"item_id": "TOW-HOOK", "quantity": 1}], "total": -1.0}, (400, "invalid_arguments")),
        ({"line_items": [{"item_id": "TOW-HOOK", "qty": 1}], "total": 95.0}, (400, "invalid_arguments")),
    ],
)
def test_bad_quotes_are_refused_and_write_nothing(towing, world_rows, args, expected):
    before = world_rows(towing.path)
    assert error_of(towing.call("send_quote", {"lead_id": "L-TOW-01", **args})) == expected
    assert world_rows(towing.path) == before


def test_a_spam_or_declined_lead_is_never_quoted(towing):
    assert towing.call("set_status", {"lead_id": "L-TOW-04", "status": "SPAM"}).ok
    quote = {"lead_id": "L-TOW-04", "line_items": [{"item_id": "TOW-HOOK", "quantity": 1}], "total": 95.0}
    assert error_of(towing.call("send_quote", quote)) == (409, "lead_closed")


@pytest.mark.parametrize(
    ("status", "expected"),
    [("QUOTED", (409, "not_quoted")), ("DONE", (400, "invalid_arguments")), ("spam", (400, "invalid_arguments"))],
)
def test_status_rules(towing, status, expected):
    assert error_of(towing.call("set_status", {"lead_id": "L-TOW-01", "status": status})) == expected


def test_a_triaged_lead_cannot_go_back_to_new(towing):
    assert towing.call("set_status", {"lead_id": "L-TOW-03", "status": "DECLINED"}).ok
    assert error_of(towing.call("set_status", {"lead_id": "L-TOW-03", "status": "NEW"})) == (409, "illegal_transition")


def test_the_final_report_ends_the_episode(towing):
    assert towing.call("final_report", {"summary": "All done."}).ok
    assert towing.done
    assert error_of(towing.call("read_inbox")) == (409, "episode_finished")
    assert rows(towing.path, "SELECT status, answer FROM _episode") == [("finished", "All done.")]
    assert rows(towing.path, "SELECT business_id, summary FROM reports") == [("BIZ-TOW-RAL", "All done.")]


def test_the_world_offers_final_report_instead_of_finish():
    names = {t.name for t in WORLD.all_tools()}
    assert "final_report" in names and "finish" not in names


# --- rubric ---------------------------------------------------------------------------------------


def components(path: Path) -> dict[str, float | None]:
    return {c.name: c.score for c in grade(path).rubric}


def test_quoting_before_asking_fails_discipline_even_with_the_right_total(tmp_path):
    task = get_task(TOWING)
    calls = [c for c in task.gold if not (c.tool == "reply_customer" and c.args["lead_id"] == "L-TOW-02")]
    with Episode.start(task, tmp_path / "hasty-02.db") as episode:
        play(episode, calls)
    scores = components(episode.path)
    assert scores["quote_math"] == 1.0 and scores["triage"] == 1.0
    assert scores["discipline"] == pytest.approx(2 / 3)  # L-TOW-02 scores 0 of the three leads


def test_a_redundant_question_costs_a_quarter_of_the_lead(tmp_path):
    task = get_task(TOWING)
    extra = Call(tool="reply_customer", args={"lead_id": "L-TOW-06", "message": "How heavy is the truck?"})
    calls = list(task.gold)
    calls.insert(next(i for i, c in enumerate(calls) if c.tool == "final_report"), extra)
    with Episode.start(task, tmp_path / "redundant.db") as episode:
        play(episode, calls)
    assert components(episode.path)["discipline"] == pytest.approx((1 + 1 + 0.75) / 3)


def test_without_a_judge_communication_is_skipped_and_weights_renormalised(tmp_path):
    path = run(get_task(TOWING), "oracle", tmp_path / "oracle.db")
    result = grade(path)
    by_name = {c.name: c for c in result.rubric}
    assert by_name["communication"].score is None and "no judge" in by_name["communication"].detail
    assert by_name["leads_handled"].weight == 0
    assert result.reward == result.rubric_reward == 1.0


# --- the hasty trajectory -------------------------------------------------------------------------


def hasty_calls(task) -> list[dict]:
    """Read the inbox and quote every lead at once at its business's first price (a base fee or
    tier, else any non-surcharge item), quantity 1; never ask, never decline, never mark spam."""
    snapshot = seeds.snapshot(WORLD)
    leads = rows(snapshot, f"SELECT id FROM leads WHERE business_id = '{task.actor}' ORDER BY received_at, id")
    item, amount = rows(
        snapshot,
        f"SELECT id, amount FROM price_items WHERE business_id = '{task.actor}' "
        "ORDER BY kind NOT IN ('base', 'tier'), kind IN ('surcharge', 'minimum'), position, id LIMIT 1",
    )[0]
    calls: list[dict] = [{"tool": "read_inbox", "args": {}}]
    for (lead,) in leads:
        calls.append(
            {
                "tool": "send_quote",
                "args": {"lead_id": lead, "line_items": [{"item_id": item, "quantity": 1}], "total": amount},
            }
        )
        calls.append({"tool": "set_status", "args": {"lead_id": lead, "status": "QUOTED"}})
    calls.append({"tool": "final_report", "args": {"summary": "Quoted every lead."}})
    return calls


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_the_recorded_hasty_trajectory_scores_clearly_below_the_oracle(tmp_path, task):
    fixture = FIXTURES / f"{task.id.split('/')[1]}.hasty.json"
    assert json.loads(fixture.read_text()) == hasty_calls(task), "regenerate the fixture with hasty_calls()"
    oracle = components(run(task, "oracle", tmp_path / "oracle.db"))
    hasty = components(run(task, "replay", tmp_path / "hasty.db", actions=fixture))
    assert oracle["quote_math"] == oracle["triage"] == 1.0
    assert hasty["quote_math"] < 1.0 and hasty["triage"] < 1.0
    if oracle["discipline"] is not None:  # hasty asks nothing: only what was asked before the inbox opened counts
        assert oracle["discipline"] == 1.0 and hasty["discipline"] == asked_before(task)
    assert grade(tmp_path / "hasty.db").reward <= 0.5


def asked_before(task) -> float:
    """The share of the inbox's leads missing something whose every missing detail had been asked for and
    answered before the episode began (a half-done inbox): 0 for an inbox that starts fresh."""
    leads = rows(
        seeds.snapshot(WORLD),
        "SELECT l.id, min(f.asked_message_id IS NOT NULL AND f.revealed_message_id IS NOT NULL) FROM leads l "
        f"JOIN lead_facts f ON f.lead_id = l.id AND f.required WHERE l.business_id = '{task.actor}' GROUP BY l.id",
    )
    return sum(done for _, done in leads) / len(leads)
