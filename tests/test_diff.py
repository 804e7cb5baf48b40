"""The row diff: real episodes of the commerce tasks diffed against each other
and against gold replays, plus hand-made databases for what no tool can reach."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table

from simtenant import seeds
from simtenant.grader import Difference, DiffResult, diff_databases, gold_database
from simtenant.grader.diff import TextGrading
from simtenant.world import get_task, get_world

WORLD = get_world("commerce")
TABLES = WORLD.tables
TASK_IDS = ["commerce/order-status", "commerce/billing-discrepancy", "commerce/refund-damaged-item"]
REFUND_TASK = "commerce/refund-damaged-item"

GOLD_REASON = "SKU-445 arrived damaged"
REFUND_1005 = ("orders_process_refund", {"order_id": "ORD-1005", "amount": 49.99, "reason": GOLD_REASON})
REFUND_1001 = (
    "orders_process_refund",
    {"order_id": "ORD-1001", "amount": 10.0, "reason": "Goodwill credit for the late delivery"},
)
RETURNED = ("orders_update_status", {"order_id": "ORD-1005", "new_status": "returned"})
LOOKUP = ("orders_lookup", {"order_id": "ORD-1005"})
RESTOCK = ("inventory_update_stock", {"sku": "SKU-445", "adjustment": 1})


def refund(order_id: str = "ORD-1005", amount: float = 49.99, reason: str = GOLD_REASON) -> tuple[str, dict]:
    return ("orders_process_refund", {"order_id": order_id, "amount": amount, "reason": reason})


@pytest.fixture(scope="module")
def base() -> Path:
    return seeds.snapshot(WORLD)


@pytest.fixture
def play(start_episode):
    """Play calls in a new episode of a task and return its closed file."""
    count = iter(range(1000))

    def run(calls, task_id: str = REFUND_TASK) -> Path:
        episode = start_episode(task_id, f"episode-{next(count)}.db")
        for tool, args in calls:
            outcome = episode.call(tool, args)
            assert outcome.ok, outcome.error
        episode.close()
        return episode.path

    return run


def gold_calls(task_id: str) -> list[tuple[str, dict]]:
    return [(c.tool, c.args) for c in get_task(task_id).gold]


def refunds_of(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT id, order_id, amount FROM refunds WHERE id > 'RF-0006' ORDER BY id"
        ).fetchall()
    finally:
        connection.close()


# --- real episodes -----------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_identical_trajectories_have_no_differences(play, base, task_id):
    first = play(gold_calls(task_id), task_id)
    second = play(gold_calls(task_id), task_id)
    result = diff_databases(first, second, TABLES, base=base)
    assert result.differences == []
    assert result.match
    assert result.partial_credit == 1.0


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_gold_replay_matches_an_oracle_episode(play, base, task_id):
    gold = gold_database(get_task(task_id), base)
    assert diff_databases(gold, play(gold_calls(task_id), task_id), TABLES, base=base).differences == []


def test_reads_and_harness_records_do_not_count(play, base):
    expected = play([REFUND_1005, RETURNED])
    actual = play([LOOKUP, ("users_lookup", {"email": "jane.doe@example.com"}), REFUND_1005, LOOKUP, RETURNED])
    assert diff_databases(expected, actual, TABLES, base=base).differences == []


def test_refunds_created_in_another_order_still_match(play, base):
    expected = play([REFUND_1005, REFUND_1001])
    actual = play([REFUND_1001, REFUND_1005])
    assert refunds_of(expected) == [("RF-0007", "ORD-1005", 49.99), ("RF-0008", "ORD-1001", 10.0)]
    assert refunds_of(actual) == [("RF-0007", "ORD-1001", 10.0), ("RF-0008", "ORD-1005", 49.99)]
    result = diff_databases(expected, actual, TABLES, base=base)
    assert result.differences == []
    assert result.partial_credit == 1.0


def test_without_a_base_created_rows_are_aligned_by_key(play):
    expected = play([REFUND_1005, REFUND_1001])
    actual = play([REFUND_1001, REFUND_1005])
    result = diff_databases(expected, actual, TABLES)
    assert not result.match
    assert {(d.table, d.key) for d in result.differences} == {("refunds", "RF-0007"), ("refunds", "RF-0008")}


@pytest.mark.parametrize(
    ("actual_refund", "column", "expected_value", "actual_value"),
    [
        (refund(amount=40.0), "amount", 49.99, 40.0),
        (refund(order_id="ORD-1001"), "order_id", "ORD-1005", "ORD-1001"),
        (refund(reason="customer changed their mind"), "reason", GOLD_REASON, "customer changed their mind"),
    ],
    ids=["amount", "order", "reason"],
)
def test_a_wrong_value_is_one_changed_difference(play, base, actual_refund, column, expected_value, actual_value):
    expected = play([REFUND_1005, RETURNED])
    actual = play([actual_refund, RETURNED])
    result = diff_databases(expected, actual, TABLES, base=base, text=TextGrading("exact"))
    assert result.differences == [
        Difference("refunds", "RF-0007", column, expected_value, actual_value, "changed"),
    ]


def test_wrong_value_on_a_second_created_row_names_its_actual_key(play, base):
    expected = play([REFUND_1005, REFUND_1001])
    actual = play([REFUND_1001, refund(amount=45.0)])
    assert diff_databases(expected, actual, TABLES, base=base).differences == [
        Difference("refunds", "RF-0008", "amount", 49.99, 45.0, "changed"),
    ]


def test_a_missing_created_row(play, base):
    expected = play([REFUND_1005, RETURNED])
    actual = play([RETURNED])
    result = diff_databases(expected, actual, TABLES, base=base)
    assert [(d.table, d.key, d.column, d.kind, d.actual) for d in result.differences] == [
        ("refunds", "RF-0007", None, "missing_row", None)
    ]
    row = result.differences[0].expected
    assert (row["order_id"], row["amount"], row["reason"]) == ("ORD-1005", 49.99, GOLD_REASON)


def test_an_extra_created_row(play, base):
    expected = play([REFUND_1005, RETURNED])
    actual = play([REFUND_1005, REFUND_1001, RETURNED])
    result = diff_databases(expected, actual, TABLES, base=base)
    assert [(d.table, d.key, d.column, d.kind, d.expected) for d in result.differences] == [
        ("refunds", "RF-0008", None, "unexpected_row", None)
    ]
    assert result.differences[0].actual["order_id"] == "ORD-1001"


def test_an_update_the_gold_did_not_make(play, base):
    expected = play([REFUND_1005, RETURNED])
    actual = play([REFUND_1005, RETURNED, RESTOCK])
    assert diff_databases(expected, actual, TABLES, base=base).differences == [
        Difference("products", "SKU-445", "stock", 37, 38, "changed"),
    ]


def test_an_update_the_gold_made_but_the_episode_did_not(play, base):
    expected = play([REFUND_1005, RETURNED])
    actual = play([REFUND_1005])
    assert [
        (d.table, d.key, d.column, d.expected, d.actual, d.kind)
        for d in diff_databases(expected, actual, TABLES, base=base).differences
    ] == [
        ("orders", "ORD-1005", "status", "returned", "delivered", "changed"),
        ("orders", "ORD-1005", "updated_at", "2026-03-14T10:00:00Z", "2026-03-06T16:40:00Z", "changed"),
    ]


DAMAGED = {("refunds", ("RF-0007",), "reason"): [["damaged", "broken", "defective"]]}


@pytest.mark.parametrize(
    ("reason", "passes"),
    [
        (GOLD_REASON, True),
        ("Damaged on arrival", True),
        ("Customer reported the item was damaged in shipping", True),
        ("It arrived broken.", True),
        ("damaging transit", True),  # the same stem
        ("customer changed their mind", False),
        ("Refund of SKU-445 requested", False),
        ("customer changed their mind. Also: the weather was nice", False),  # appended text adds no fact
    ],
)
def test_a_free_text_passes_when_it_states_its_facts(play, base, reason, passes):
    expected = play([REFUND_1005])
    actual = play([refund(reason=reason)])
    result = diff_databases(expected, actual, TABLES, base=base, text=TextGrading("facts", DAMAGED))
    if passes:
        assert result.differences == []
    else:
        assert result.differences == [
            Difference(
                "refunds",
                "RF-0007",
                "reason",
                GOLD_REASON,
                reason,
                "changed",
                "missing: damaged or broken or defective",
            )
        ]


def test_a_free_text_with_no_facts_passes_when_it_says_anything(play, base):
    expected = play([REFUND_1005])
    actual = play([refund(reason="customer changed their mind")])
    assert diff_databases(expected, actual, TABLES, base=base).differences == []


def test_exact_text_match_takes_only_the_same_text(play, base):
    expected = play([REFUND_1005])
    same, reworded = play([REFUND_1005]), play([refund(reason="Damaged on arrival")])
    exact = TextGrading("exact")
    assert diff_databases(expected, same, TABLES, base=base, text=exact).match
    assert [d.column for d in diff_databases(expected, reworded, TABLES, base=base, text=exact).differences] == [
        "reason"
    ]


def test_the_judge_grades_text_the_facts_let_through(play, base):
    """In judge mode the ids, numbers and dates among the facts are still required; the judge decides the rest."""
    expected = play([REFUND_1005])
    asked = []

    def judge(cell, gold, actual, facts):
        asked.append((cell, gold, actual))
        return "broken" in actual, "judged"

    facts = {("refunds", ("RF-0007",), "reason"): ["SKU-445"]}
    grading = TextGrading("judge", facts, judge)
    assert diff_databases(
        expected, play([refund(reason="SKU-445 arrived broken")]), TABLES, base=base, text=grading
    ).match
    wrong = diff_databases(expected, play([refund(reason="SKU-445 is fine")]), TABLES, base=base, text=grading)
    assert [d.detail for d in wrong.differences] == ["judge: judged"]
    unnamed = diff_databases(expected, play([refund(reason="It arrived broken")]), TABLES, base=base, text=grading)
    assert [d.detail for d in unnamed.differences] == ["missing: SKU-445"]
    assert len(asked) == 2  # the text missing its id was refused before the judge was asked


# --- partial credit ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "credit"),
    [
        ([LOOKUP, REFUND_1005, RETURNED], 1.0),
        ([], 0.0),
        ([LOOKUP], 0.0),
        ([RETURNED], round(2 / 3, 6)),  # status and updated_at, no refund
        ([refund(amount=40.0), RETURNED], round((2 + 3 / 4) / 3, 6)),  # refund row 3 of 4 columns right
        ([REFUND_1005, RETURNED, RESTOCK], round((3 - 1) / 3, 6)),
        ([REFUND_1005, REFUND_1001, RETURNED], round((3 - 1) / 3, 6)),
        ([refund(amount=40.0), RETURNED, RESTOCK], round((2 + 3 / 4 - 1) / 3, 6)),
    ],
    ids=["perfect", "nothing", "reads-only", "no-refund", "wrong-amount", "extra-update", "extra-row", "both"],
)
def test_partial_credit_against_the_gold(play, base, calls, credit):
    gold = gold_database(get_task(REFUND_TASK), base)
    result = diff_databases(gold, play(calls), TABLES, base=base)
    assert result.partial_credit == pytest.approx(credit)
    assert result.match == (credit == 1.0)


def test_wrong_amount_is_partial_and_extra_change_lowers_it(play, base):
    gold = gold_database(get_task(REFUND_TASK), base)
    wrong = diff_databases(gold, play([refund(amount=40.0), RETURNED]), TABLES, base=base).partial_credit
    worse = diff_databases(gold, play([refund(amount=40.0), RETURNED, RESTOCK]), TABLES, base=base).partial_credit
    assert 0.0 < worse < wrong < 1.0


@pytest.mark.parametrize(
    ("calls", "credit"),
    [([], 1.0), ([LOOKUP], 1.0), ([RESTOCK], 0.0), ([REFUND_1001], 0.0)],
)
def test_partial_credit_when_the_gold_writes_nothing(play, base, calls, credit):
    task = get_task("commerce/order-status")
    gold = gold_database(task, base)
    assert diff_databases(gold, play(calls, task.id), TABLES, base=base).partial_credit == credit


@pytest.mark.parametrize(
    ("expected", "achieved", "unexpected", "differences", "credit"),
    [
        (0, 0, 0, 0, 1.0),
        (0, 0, 1, 1, 0.0),
        (3, 3, 0, 0, 1.0),
        (3, 2.75, 0, 1, 0.916667),
        (3, 3, 1, 1, 0.666667),
        (3, 1, 3, 4, 0.0),
        (2, 0, 0, 2, 0.0),
    ],
)
def test_partial_credit_formula(expected, achieved, unexpected, differences, credit):
    dummy = Difference("t", "k", None, None, None, "changed")
    result = DiffResult([dummy] * differences, expected, achieved, unexpected)
    assert result.partial_credit == credit


# --- hand-made databases: composite keys, deletions, foreign keys to created rows -------------


def snapshot_copy(base: Path, path: Path, *statements: str) -> Path:
    shutil.copyfile(base, path)
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()
    return path


def test_composite_keys_and_deleted_rows(tmp_path, base):
    expected = snapshot_copy(base, tmp_path / "expected.db", "DELETE FROM refunds WHERE id = 'RF-0006'")
    actual = snapshot_copy(
        base,
        tmp_path / "actual.db",
        "UPDATE order_coupons SET adjustment = -49.5 WHERE order_id = 'ORD-1009' AND coupon_code = 'SAVE20'",
        "DELETE FROM refunds WHERE id = 'RF-0001'",
    )
    result = diff_databases(expected, actual, TABLES, base=base)
    assert [(d.table, d.key, d.column, d.kind) for d in result.differences] == [
        ("order_coupons", "ORD-1009/SAVE20", "adjustment", "changed"),
        ("refunds", "RF-0001", None, "missing_row"),
        ("refunds", "RF-0006", None, "unexpected_row"),
    ]
    assert (result.expected, result.achieved, result.unexpected) == (1, 0, 2)


def test_a_row_both_deleted_is_achieved(tmp_path, base):
    statement = "DELETE FROM refunds WHERE id = 'RF-0006'"
    expected = snapshot_copy(base, tmp_path / "expected.db", statement)
    actual = snapshot_copy(base, tmp_path / "actual.db", statement)
    result = diff_databases(expected, actual, TABLES, base=base)
    assert (result.differences, result.expected, result.achieved, result.partial_credit) == ([], 1, 1, 1.0)


# No commerce tool creates a row that references another created row (nothing references
# refunds), so foreign keys to created rows are tested on a two-table schema of surrogate keys.
FK_METADATA = MetaData()
PARENT = Table("parent", FK_METADATA, Column("id", Integer, primary_key=True), Column("name", String))
CHILD = Table(
    "child",
    FK_METADATA,
    Column("id", Integer, primary_key=True),
    Column("parent_id", ForeignKey("parent.id")),
    Column("note", String),
)


def fk_database(path: Path, parents: list[tuple], children: list[tuple]) -> Path:
    connection = sqlite3.connect(path)
    try:
        connection.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute(
            "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), note TEXT)"
        )
        connection.executemany("INSERT INTO parent VALUES (?, ?)", parents)
        connection.executemany("INSERT INTO child VALUES (?, ?, ?)", children)
        connection.commit()
    finally:
        connection.close()
    return path


EXPECTED_PARENTS = [(1, "alpha"), (2, "beta")]
EXPECTED_CHILDREN = [(1, 1, "of alpha"), (2, 2, "of beta")]


@pytest.mark.parametrize(
    ("parents", "children", "differences"),
    [
        (EXPECTED_PARENTS, EXPECTED_CHILDREN, []),
        # parents created in the other order; the children follow them
        ([(1, "beta"), (2, "alpha")], [(1, 2, "of alpha"), (2, 1, "of beta")], []),
        # children created in the other order too
        ([(1, "beta"), (2, "alpha")], [(1, 1, "of beta"), (2, 2, "of alpha")], []),
        # same ids as the gold, but they now point at the wrong parents
        (
            [(1, "beta"), (2, "alpha")],
            EXPECTED_CHILDREN,
            [("child", "1", "parent_id", 1, 2), ("child", "2", "parent_id", 2, 1)],
        ),
        # both children on alpha
        ([(5, "alpha"), (6, "beta")], [(7, 5, "of alpha"), (8, 5, "of beta")], [("child", "8", "parent_id", 2, 1)]),
    ],
    ids=["same", "parents-swapped", "all-swapped", "wrong-parents", "one-wrong-parent"],
)
def test_foreign_keys_to_created_rows_are_compared_through_the_alignment(tmp_path, parents, children, differences):
    empty = fk_database(tmp_path / "base.db", [], [])
    expected = fk_database(tmp_path / "expected.db", EXPECTED_PARENTS, EXPECTED_CHILDREN)
    actual = fk_database(tmp_path / "actual.db", parents, children)
    result = diff_databases(expected, actual, FK_METADATA.sorted_tables, base=empty)
    assert [(d.table, d.key, d.column, d.expected, d.actual) for d in result.differences] == differences


def test_a_foreign_key_to_an_unpaired_created_row_is_a_difference(tmp_path):
    empty = fk_database(tmp_path / "base.db", [], [])
    expected = fk_database(tmp_path / "expected.db", [(1, "alpha")], [(1, 1, "of alpha")])
    actual = fk_database(tmp_path / "actual.db", [(1, "zzz")], [(1, 1, "of alpha")])
    result = diff_databases(expected, actual, FK_METADATA.sorted_tables, base=empty)
    assert "child" in {d.table for d in result.differences}
