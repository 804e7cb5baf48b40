"""Rows (``ctx.rows``): a tool's reads and writes as dicts, by statements built once, must agree with the
ORM row for row (types converted the same way) and leave the session's objects up to date for the
tools that still use them. That they run inside the call's transaction, all or nothing, is shown by
tests/test_atomicity.py, whose failpoint reaches their statements too."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import inspect, select

from simtenant.episode import Episode
from simtenant.schema.base import Base
from simtenant.schema.commerce.inventory import Product
from simtenant.tools import REGISTRY
from simtenant.tools.engine.dispatch import ToolContext, Transaction
from simtenant.tools.engine.rows import Rows, driver
from simtenant.world import get_world, worlds


def row_dict(row: Any) -> dict[str, Any]:
    """A mapped object's columns as a dict, as the ORM reads them."""
    return {attr.key: getattr(row, attr.key) for attr in inspect(row).mapper.column_attrs}


def context(episode: Episode) -> ToolContext:
    return ToolContext(session=episode.session, now=episode.now, actor=episode.actor, episode=episode)


@pytest.mark.parametrize("world_name", sorted(worlds()))
def test_rows_read_every_table_as_the_orm_does(tmp_path, world_name):
    """The first rows of every table of every world, read both ways: the same keys, values and types
    (booleans as booleans, JSON as the values it holds)."""
    world = get_world(world_name)
    task = next(iter(world.tasks.values()))
    with Episode.start(task, tmp_path / "e.db") as episode, episode.session.begin():
        rows = Rows(episode.session)
        mappers = {m.local_table.name: m.class_ for m in Base.registry.mappers}
        for table in world.tables:
            model = mappers[table.name]
            for found in episode.session.scalars(select(model).limit(3)):
                expected = row_dict(found)
                key = tuple(expected[c.name] for c in table.primary_key.columns)
                got = rows.get(model, key if len(key) > 1 else key[0])
                assert got == expected and [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_a_write_through_rows_is_seen_by_the_session_after_the_call(tmp_path):
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode:
        with episode.session.begin():
            before = episode.session.get(Product, "SKU-445").stock  # held by the session from here on
        assert episode.call("inventory_update_stock", {"sku": "SKU-445", "adjustment": 3}).ok
        with episode.session.begin():
            assert episode.session.get(Product, "SKU-445").stock == before + 3


def test_the_sessions_pending_changes_are_written_before_rows_read(tmp_path):
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode, episode.session.begin():
        ctx = context(episode)
        product = episode.session.get(Product, "SKU-445")
        product.stock += 5
        assert ctx.rows.need(Product, "SKU-445")["stock"] == product.stock


def test_a_failed_call_forgets_what_its_tool_changed_in_objects_the_session_held(tmp_path):
    """A tool that changes an object the session already held (no statement run) and then fails: the
    change is not written by a later call."""
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode:
        with Transaction(episode.session):
            stock = episode.session.get(Product, "SKU-445").stock
        with pytest.raises(RuntimeError), Transaction(episode.session):
            episode.session.get(Product, "SKU-445").stock = stock + 100  # held: no statement run
            raise RuntimeError("the tool fails")
        with Transaction(episode.session):
            episode.session.flush()
        with Transaction(episode.session):
            assert Rows(episode.session).get(Product, "SKU-445")["stock"] == stock


def test_a_commit_that_fails_rolls_the_call_back_and_the_episode_goes_on(tmp_path, monkeypatch):
    """The call's transaction fails at its very end (the session's commit): nothing of it is kept, the
    connection is not left inside a transaction, and the next call runs and is recorded."""
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode:
        with Transaction(episode.session):
            stock = episode.session.get(Product, "SKU-445").stock
        real_commit = episode.session.commit

        def failing_commit() -> None:
            monkeypatch.setattr(episode.session, "commit", real_commit)  # once
            raise RuntimeError("the commit fails")

        monkeypatch.setattr(episode.session, "commit", failing_commit)
        with pytest.raises(RuntimeError), Transaction(episode.session):
            episode.session.get(Product, "SKU-445").stock = stock + 100
        assert not driver(episode.session).in_transaction
        assert episode.call("inventory_check_stock", {"sku": "SKU-445"}).result["stock"] == stock
        assert episode.call("inventory_update_stock", {"sku": "SKU-445", "adjustment": 1}).ok
        with Transaction(episode.session):
            assert episode.session.get(Product, "SKU-445").stock == stock + 1


def test_a_constraint_a_rows_write_breaks_is_a_409_and_nothing_is_written(tmp_path, monkeypatch):
    """A tool whose Rows write breaks a CHECK after an earlier write: answered as the session's
    constraint violations are (409 constraint_violation), the earlier write rolled back with it."""

    def overdraw(ctx, sku, adjustment):
        ctx.rows.update(Product, "SKU-445", {"price": 1.0})  # a first write, then one the CHECK refuses
        ctx.rows.update(Product, sku, {"stock": -abs(adjustment)})
        return {}

    original = REGISTRY["inventory_update_stock"]
    monkeypatch.setitem(REGISTRY, "inventory_update_stock", dataclasses.replace(original, fn=overdraw))
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode:
        with Transaction(episode.session):
            before = Rows(episode.session).get(Product, "SKU-445")
        outcome = episode.call("inventory_update_stock", {"sku": "SKU-445", "adjustment": 5})
        assert (outcome.error["code"], outcome.error["error"]) == (409, "constraint_violation"), outcome.error
        assert "stock_nonneg" in outcome.error["message"]
        with Transaction(episode.session):
            assert Rows(episode.session).get(Product, "SKU-445") == before


def test_filtered_pages_contains_one_of_and_fixed_lists_select_what_python_would(tmp_path):
    """A listing's optional conditions (each left out when its value is None), a case-insensitive
    "contains" that takes LIKE's wildcards literally, a bound list of any length, a fixed IN list and a
    constant condition: each page and total equals what filtering all rows in Python gives."""
    from sqlalchemy import bindparam, or_

    from simtenant.schema.automation.mail import MailMessage
    from simtenant.tools.engine.rows import Filtered, Pages, Statement, contains, one_of

    t = MailMessage.__table__
    listing = Filtered(
        select(t).where(t.c.folder.in_(("inbox", "archive", "sent"))),
        (t.c.sent_at.desc(), t.c.id.desc()),
        boxes=one_of(t.c.mailbox, "boxes"),
        text=or_(contains(t.c.subject, "text"), contains(t.c.body, "text")),
        unread=t.c.read.is_(False),
    )
    task = next(iter(get_world("automation").tasks.values()))
    with Episode.start(task, tmp_path / "e.db") as episode, episode.session.begin():
        rows = Rows(episode.session)
        every = rows.all(Statement.of(select(t).order_by(t.c.sent_at.desc(), t.c.id.desc())))
        boxes = sorted({m["mailbox"] for m in every})[:3]
        cases = [{}, {"boxes": boxes}, {"text": "RE"}, {"text": "100%"}, {"unread": True, "boxes": boxes[:1]}]
        for given in cases:
            expected = [
                m
                for m in every
                if m["folder"] in ("inbox", "archive", "sent")
                and ("boxes" not in given or m["mailbox"] in given["boxes"])
                and ("text" not in given or given["text"].lower() in (m["subject"] + m["body"]).lower())
                and ("unread" not in given or not m["read"])
            ]
            assert rows.all(listing, **given) == expected, given
            page = rows.page(listing, 2, 3, **given)
            assert page == {"page": 2, "per_page": 3, "total": len(expected), "rows": expected[3:6]}, given
        assert rows.all(listing, text="_") == [m for m in every if "_" in m["subject"] + m["body"]] == []
        assert len(listing._shapes) == len({tuple(sorted(g)) for g in cases} | {("text",)})  # one per shape
        by_box = Pages.of(select(t).where(t.c.mailbox == bindparam("box")).order_by(t.c.id))
        assert rows.page(by_box, 1, 100, box=boxes[0])["total"] == sum(m["mailbox"] == boxes[0] for m in every)
    with pytest.raises(ValueError, match="one_of"):
        Statement.of(select(t).where(t.c.id.in_(bindparam("ids", expanding=True))))


def test_change_writes_only_what_differs_and_delete_needs_the_row(tmp_path):
    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode, episode.session.begin():
        rows = Rows(episode.session)
        product = rows.need(Product, "SKU-445")
        assert rows.change(Product, product, {"stock": product["stock"], "name": product["name"]}) == []
        assert not rows.wrote
        assert rows.change(Product, product, {"stock": product["stock"] + 2, "name": product["name"]}) == ["stock"]
        assert rows.need(Product, "SKU-445") == product and rows.wrote
        from simtenant.errors import NotFound
        from simtenant.schema.commerce.orders import Refund

        with pytest.raises(NotFound):
            rows.delete(Refund, "RF-NONE")
