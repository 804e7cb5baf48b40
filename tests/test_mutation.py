"""The reward moves with the outcome, not the wording, in every world: every task's gold mutated
(one value changed, a write dropped or added) is caught — its reward below 1 — in at least 95% of
the mutants whose outcome differs from the gold, and no benign variant (independent calls swapped,
an extra read, the paraphrases) scores below 1. The same figures as `simtenant mutate`."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from simtenant.grader.mutation import mutate
from simtenant.world import all_tasks, get_task, worlds

CATCH_RATE = 0.95
CAUGHT: dict[str, tuple[int, int]] = {}  # world: (caught, mutants whose outcome differs), for the summary


def _mutate(task_id: str) -> tuple[str, int, int, list[str], list[str]]:
    report = mutate(get_task(task_id))
    missed = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.missed]
    benign = [f"{o.variant.kind}: {o.variant.where} (reward {o.reward})" for o in report.benign_failures]
    return task_id, len(report.mutants), len(report.benign), missed, benign


@pytest.fixture(scope="module")
def reports(private_cache) -> dict[str, tuple[int, int, list[str], list[str]]]:
    ids = [t.id for t in all_tasks()]
    for task_id in ids[:1]:
        _mutate(task_id)  # the snapshot and gold caches, built once before the workers share them
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        return {task_id: rest for task_id, *rest in pool.map(_mutate, ids, chunksize=4)}


@pytest.mark.parametrize("world", sorted(worlds()))
def test_the_reward_catches_wrong_work_in_every_world(reports, world):
    mine = {t: r for t, r in reports.items() if t.startswith(f"{world}/")}
    mutants = sum(r[0] for r in mine.values())
    missed = [f"{t}: {m}" for t, r in mine.items() for m in r[2]]
    CAUGHT[world] = (mutants - len(missed), mutants)
    assert mutants > 0
    assert (mutants - len(missed)) / mutants >= CATCH_RATE, "\n".join(missed)


@pytest.mark.parametrize("world", sorted(worlds()))
def test_no_benign_variant_scores_below_one(reports, world):
    mine = {t: r for t, r in reports.items() if t.startswith(f"{world}/")}
    assert sum(r[1] for r in mine.values()) > 0
    failures = [f"{t}: {b}" for t, r in mine.items() for b in r[3]]
    assert failures == []
