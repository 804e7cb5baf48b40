"""The reward moves with the outcome, not the wording, in every world: the golds of a sample of each
world's tasks (``support.task_sample``) mutated — one value changed, a write dropped or added — are
caught (reward below 1) in at least 95% of the mutants whose outcome differs from the gold, and no
benign variant (independent calls swapped, an extra read, the paraphrases) scores below 1. The same
rule `simtenant mutate` holds every task to (CI runs it over all of them)."""

from __future__ import annotations

import pytest
from support import task_sample

from simtenant.grader.gold import set_path
from simtenant.grader.mutation import CATCH_RATE, mutate
from simtenant.world import get_task, worlds

CAUGHT: dict[str, tuple[int, int]] = {}  # world: (caught, mutants whose outcome differs), for the summary


def _mutate(task_id: str) -> tuple[str, int, int, list[str], list[str]]:
    report = mutate(get_task(task_id))
    missed = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.missed]
    benign = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.benign_failures]
    return task_id, len(report.mutants), len(report.benign), missed, benign


@pytest.mark.slow
@pytest.mark.parametrize("world", sorted(worlds()))
def test_the_reward_catches_wrong_work_and_spares_benign_variants(world):
    reports = [_mutate(t.id) for t in task_sample() if t.world == world]
    mutants = sum(r[1] for r in reports)
    missed = [f"{t}: {m}" for t, _, _, lost, _ in reports for m in lost]
    CAUGHT[world] = (mutants - len(missed), mutants)
    assert mutants > 0 and sum(r[2] for r in reports) > 0
    assert (mutants - len(missed)) / mutants >= CATCH_RATE, "\n".join(missed)
    assert [f"{t}: {b}" for t, _, _, _, benign in reports for b in benign] == []


def test_an_argument_is_added_under_an_object_the_gold_call_does_not_give():
    """An optional body argument added to an api_fetch call that sends no body: the body is made."""
    call = {"endpoint": "ship_create_return_label", "path": {"shipment_id": "SHP-0001"}}
    assert set_path(call, ("body", "reason"), "damaged") == {**call, "body": {"reason": "damaged"}}
    assert set_path({"items": [{"sku": "A"}]}, ("items", 0, "qty"), 2) == {"items": [{"sku": "A", "qty": 2}]}
