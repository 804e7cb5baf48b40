"""The reward moves with the outcome, not the wording, in every world: every task's gold mutated
(one value changed, a write dropped or added) is caught — its reward below 1 — in at least 95% of
the mutants whose outcome differs from the gold, and no benign variant (independent calls swapped,
an extra read, the paraphrases) scores below 1. The same figures as `simtenant mutate`."""

from __future__ import annotations

import pytest

from simtenant.grader.gold import set_path
from simtenant.grader.mutation import mutate
from simtenant.world import all_tasks, get_task, worlds

CATCH_RATE = 0.95
CAUGHT: dict[str, tuple[int, int]] = {}  # world: (caught, mutants whose outcome differs), for the summary


def _mutate(task_id: str) -> tuple[str, int, int, list[str], list[str]]:
    report = mutate(get_task(task_id))
    missed = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.missed]
    benign = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.benign_failures]
    return task_id, len(report.mutants), len(report.benign), missed, benign


CHUNK = 40  # tasks one test mutates: a large world's mutants are played on several cores
PARTS = [
    (world, start)
    for world in sorted(worlds())
    for start in range(0, len([t for t in all_tasks() if t.world == world]), CHUNK)
]


@pytest.mark.slow
@pytest.mark.parametrize(("world", "start"), PARTS, ids=[f"{w}-{s // CHUNK + 1}" for w, s in PARTS])
def test_the_reward_catches_wrong_work_and_spares_benign_variants(world, start):
    """Forty tasks of a world a test, so the worlds' mutants are played on every core, each once; every
    part holds the world's catch rate."""
    reports = [_mutate(t.id) for t in [t for t in all_tasks() if t.world == world][start : start + CHUNK]]
    mutants = sum(r[1] for r in reports)
    missed = [f"{t}: {m}" for t, _, _, lost, _ in reports for m in lost]
    caught, tried = CAUGHT.get(world, (0, 0))
    CAUGHT[world] = (caught + mutants - len(missed), tried + mutants)
    assert mutants > 0 and sum(r[2] for r in reports) > 0
    assert (mutants - len(missed)) / mutants >= CATCH_RATE, "\n".join(missed)
    assert [f"{t}: {b}" for t, _, _, _, benign in reports for b in benign] == []


def test_an_argument_is_added_under_an_object_the_gold_call_does_not_give():
    """An optional body argument added to an api_fetch call that sends no body: the body is made."""
    call = {"endpoint": "ship_create_return_label", "path": {"shipment_id": "SHP-0001"}}
    assert set_path(call, ("body", "reason"), "damaged") == {**call, "body": {"reason": "damaged"}}
    assert set_path({"items": [{"sku": "A"}]}, ("items", 0, "qty"), 2) == {"items": [{"sku": "A", "qty": 2}]}
