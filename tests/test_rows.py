"""Rows (``ctx.rows``): a tool's reads and writes as dicts, by statements built once, must agree with the
ORM row for row (types converted the same way) and leave the session's objects up to date for the
tools that still use them. That they run inside the call's transaction, all or nothing, is shown by
tests/test_atomicity.py, whose failpoint reaches their statements too."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from simtenant.episode import Episode
from simtenant.schema.base import Base
from simtenant.schema.commerce.inventory import Product
from simtenant.tools.engine.dispatch import ToolContext, row_dict
from simtenant.tools.engine.rows import Rows
from simtenant.world import get_world, worlds


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
        product = ctx.get(Product, "SKU-445")
        product.stock += 5
        assert ctx.rows.need(Product, "SKU-445")["stock"] == product.stock


def test_a_failed_call_forgets_what_its_tool_changed_in_objects_the_session_held(tmp_path):
    """A tool that changes an object the session already held (no statement run) and then fails: the
    change is not written by a later call."""
    from simtenant.tools.engine.dispatch import transaction

    task = get_world("commerce").tasks["commerce/refund-damaged-item"]
    with Episode.start(task, tmp_path / "e.db") as episode:
        with transaction(episode.session):
            stock = episode.session.get(Product, "SKU-445").stock
        with pytest.raises(RuntimeError), transaction(episode.session):
            episode.session.get(Product, "SKU-445").stock = stock + 100  # held: no statement run
            raise RuntimeError("the tool fails")
        with transaction(episode.session):
            episode.session.flush()
        with transaction(episode.session):
            assert Rows(episode.session).get(Product, "SKU-445")["stock"] == stock
