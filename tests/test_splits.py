"""Every task carries a difficulty and a split: the split follows the family, by a hash of its name
(stable as tasks come and go, never splitting a family); the difficulty is the author's, else its
gold's. `simtenant tasks` and `simtenant eval` select by both."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from simtenant.cli import app
from simtenant.errors import InvalidArgument, TaskError
from simtenant.task import DIFFICULTIES, SPLITS, derived_difficulty, load_task, split_of
from simtenant.world import all_tasks, get_task, get_world, of_kind

runner = CliRunner()
REFUND = "commerce/refund-damaged-item"


def invoke(*args: Any) -> Any:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def task_file(tmp_path: Path, **changes: Any) -> Path:
    """The refund task's file with ``changes`` to its fields (None removes one)."""
    data = yaml.safe_load((get_world("commerce").folder / "tasks" / "refund-damaged-item.yaml").read_text())
    data.update(changes)
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "refund-damaged-item.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_every_task_has_a_split_and_a_difficulty_and_no_family_is_split():
    splits = defaultdict(set)
    for task in all_tasks():
        assert task.split in SPLITS and task.difficulty in DIFFICULTIES, task.id
        assert task.split == split_of(task.world, task.family or task.id.split("/", 1)[1])
        splits[(task.world, task.family or task.id)].add(task.split)
    assert all(len(found) == 1 for found in splits.values())
    held_out = [t for t in all_tasks() if t.split == "test"]
    assert 0 < len(held_out) < len(all_tasks()) / 2


def test_the_split_is_the_familys_whatever_else_the_task_says(tmp_path):
    """A family's tasks share its split; editing a task (its instruction, its gold) never moves it."""
    alone = load_task("commerce", task_file(tmp_path, family=None))
    assert alone.split == split_of("commerce", "refund-damaged-item")
    families = {split_of("commerce", f"family-{i}") for i in range(40)}
    assert families == {"train", "test"}  # the hash sends families both ways
    for family in ("family-1", "family-2", "family-3"):
        named = load_task("commerce", task_file(tmp_path, family=family, instruction="Say it otherwise."))
        assert named.split == split_of("commerce", family) and named.family == family


def test_a_task_file_cannot_declare_its_split(tmp_path):
    with pytest.raises(TaskError, match="split: follows the task's family"):
        load_task("commerce", task_file(tmp_path, split="test"))


def test_a_declared_difficulty_wins_else_the_gold_decides(tmp_path):
    world = get_world("commerce")
    assert world.load_task(task_file(tmp_path, difficulty="hard")).difficulty == "hard"
    refund = world.load_task(task_file(tmp_path, difficulty=None))
    writes = sum(1 for call in refund.gold if world.operation(call).writes and not world.operation(call).harness)
    assert writes >= 2 and refund.difficulty == derived_difficulty(writes, 0) == "medium"
    assert get_task("commerce/order-status").difficulty == "easy"  # a look-up and an answer
    assert [derived_difficulty(w, f) for w, f in [(0, 0), (1, 1), (2, 0), (0, 2), (4, 0), (1, 3)]] == [
        "easy",
        "easy",
        "medium",
        "medium",
        "hard",
        "hard",
    ]
    with pytest.raises(TaskError, match="difficulty"):
        load_task("commerce", task_file(tmp_path, difficulty="brutal"))


def test_tasks_lists_and_selects_by_split_and_difficulty():
    listed = invoke("tasks", "--json")
    assert listed.exit_code == 0, listed.output
    every = json.loads(listed.stdout)
    assert {t["task"] for t in every} == {t.id for t in all_tasks()}
    assert all({"split", "difficulty", "family"} <= set(t) for t in every)
    chosen = json.loads(invoke("tasks", "--split", "test", "--difficulty", "hard", "--json").stdout)
    expected = of_kind(all_tasks(), "test", "hard")
    assert [t["task"] for t in chosen] == [t.id for t in expected] and expected
    assert all(t["split"] == "test" and t["difficulty"] == "hard" for t in chosen)
    in_world = json.loads(invoke("tasks", "itsm", "--split", "train", "--json").stdout)
    assert {t["task"] for t in in_world} == {t.id for t in all_tasks() if t.world == "itsm" and t.split == "train"}
    wrong = invoke("tasks", "--split", "validation")
    assert wrong.exit_code == 1 and "error 400 invalid_split" in " ".join(wrong.output.split())
    with pytest.raises(InvalidArgument):
        of_kind(all_tasks(), difficulty="trivial")


def test_eval_plays_only_the_tasks_of_the_split_and_difficulty(tmp_path):
    commerce = [t for t in all_tasks() if t.world == "commerce"]
    easy = [t.id for t in of_kind(commerce, difficulty="easy")]
    out = tmp_path / "run"
    result = invoke("eval", "--tasks", "commerce/*", "--difficulty", "easy", "--workers", 1, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    assert sorted(t["task"] for t in json.loads(result.stdout)["tasks"]) == easy
    assert json.loads((out / "eval.json").read_text())["tasks"] == easy  # a resume plays the same tasks
    none = invoke("eval", "--tasks", "commerce/*", "--split", "test", "--difficulty", "hard", "--out", tmp_path / "x")
    if not of_kind(commerce, "test", "hard"):
        assert none.exit_code == 1 and "error 404 no_matching_tasks" in " ".join(none.output.split())


def test_the_readme_counts_the_tasks_of_every_world_by_split_and_difficulty():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for world in ("commerce", "homeservices", "itsm", "itsm-msp", "automation"):
        tasks = list(get_world(world).tasks.values())
        row = next(line for line in readme.splitlines() if line.startswith(f"| [`{world}`]"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        splits = " / ".join(str(sum(t.split == s for t in tasks)) for s in SPLITS)
        tiers = " / ".join(str(sum(t.difficulty == d for t in tasks)) for d in DIFFICULTIES)
        assert cells[-3:] == [str(len(tasks)), splits, tiers], world
