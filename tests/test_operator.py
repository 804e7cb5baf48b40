"""A task's operator: reached through send_message_to_user, scripted by the responder, says ###STOP###
when told the work is done; told_user checks read what the agent said."""

from __future__ import annotations

import sqlite3

from support import played

from simtenant.episode import Episode
from simtenant.grader.checks import run_check
from simtenant.task import Operator, OperatorFact, ToldUserCheck
from simtenant.world import get_task

OPERATOR = Operator(
    persona="Jane Doe, a customer who writes short messages.",
    opening="Hi, my coffee set arrived broken. Can you help?",
    facts=[
        OperatorFact(
            key="order", value="ORD-1005", reveal="It's order ORD-1005.", triggers=["order number", "which order"]
        ),
        OperatorFact(key="item", value="SKU-445", reveal="The pour-over set, SKU-445.", triggers=["which item", "sku"]),
    ],
    done_when=["ORD-1005", ["refunded", "refund has been issued"]],
)


def start(tmp_path, user=OPERATOR) -> Episode:
    task = get_task("commerce/refund-damaged-item").model_copy(update={"user": user})
    return Episode.start(task, tmp_path / "episode.db")


def messages(path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT role, content, revealed, redundant FROM _messages ORDER BY seq").fetchall()
    finally:
        connection.close()


def test_the_opening_is_recorded_and_facts_come_only_when_asked(tmp_path):
    with start(tmp_path) as episode:
        first = episode.call("send_message_to_user", {"message": "Sorry to hear that! What is the order number?"})
        assert first.result == {"reply": "It's order ORD-1005."}
        again = episode.call("send_message_to_user", {"message": "Which order was it again?"})
        assert again.result == {"reply": "As I said: It's order ORD-1005."}
    assert messages(episode.path) == [
        ("user", OPERATOR.opening, None, None),
        ("agent", "Sorry to hear that! What is the order number?", None, None),
        ("user", "It's order ORD-1005.", '["order"]', None),
        ("agent", "Which order was it again?", None, '["order"]'),
        ("user", "As I said: It's order ORD-1005.", None, None),
    ]


def test_telling_the_operator_the_work_is_done_ends_the_episode(tmp_path):
    with start(tmp_path) as episode:
        early = episode.call("send_message_to_user", {"message": "I'll refund ORD-1005 shortly."})
        assert not early.result["reply"].endswith("###STOP###") and not episode.done
        done = episode.call("send_message_to_user", {"message": "ORD-1005 is refunded: $49.99 is on its way."})
        assert done.result["reply"].endswith("###STOP###")
        assert episode.done
        assert episode.call("orders_lookup", {"order_id": "ORD-1005"}).error["error"] == "episode_finished"
    connection = sqlite3.connect(episode.path)
    try:
        assert connection.execute("SELECT status, answer FROM _episode").fetchone() == (
            "finished",
            "ORD-1005 is refunded: $49.99 is on its way.",
        )
    finally:
        connection.close()


def test_tasks_without_an_operator_do_not_offer_the_tool(tmp_path):
    with start(tmp_path, user=None) as episode:
        assert "send_message_to_user" not in episode.tools
        outcome = episode.call("send_message_to_user", {"message": "Hello?"})
        assert (outcome.error["code"], outcome.error["error"]) == (404, "unknown_tool")


def test_told_user_checks_read_the_agent_messages(tmp_path):
    with start(tmp_path) as episode:
        episode.call("send_message_to_user", {"message": "I cannot refund more than $49.99 for that item."})
    told = ToldUserCheck(kind="told_user", name="amount", facts=["49.99", ["cannot", "unable"]])
    assert run_check(told, played(episode.path)).passed
    missing = ToldUserCheck(kind="told_user", name="amount", facts=["99.00"])
    result = run_check(missing, played(episode.path))
    assert not result.passed and "99.00" in result.detail


def test_the_outcome_told_over_several_messages_ends_the_episode(tmp_path):
    with start(tmp_path) as episode:
        first = episode.call("send_message_to_user", {"message": "About ORD-1005: I checked the order."})
        assert not first.result["reply"].endswith("###STOP###")
        done = episode.call("send_message_to_user", {"message": "It is refunded now."})
        assert done.result["reply"].endswith("###STOP###") and episode.done
