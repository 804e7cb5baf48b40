"""`simtenant play`: a person plays the agent through stdin (here CliRunner's input text)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from simtenant.cli import app
from simtenant.grader import EpisodeFile, grade
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"
UNLOCK = "itsm/unlock-after-verification"

runner = CliRunner()


def play(*args: Any, lines: list[str]) -> Any:
    text = "".join(f"{line}\n" for line in lines)
    return runner.invoke(app, ["play", *[str(a) for a in args]], input=text, env={"COLUMNS": "250"})


def call_line(tool: str, args: dict[str, Any]) -> str:
    return f"call {tool} {json.dumps(args)}"


def gold_lines(task_id: str) -> list[str]:
    return [call_line(c.tool, c.args) for c in get_task(task_id).gold]


def recorded(path: Path) -> list[tuple[str, int]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT tool, ok FROM _calls ORDER BY seq").fetchall()
    finally:
        connection.close()


def test_gold_calls_typed_as_call_lines_score_1_despite_bad_input_between(tmp_path: Path) -> None:
    gold = gold_lines(REFUND)
    bad = [
        "bogus command",
        'call orders_lookup {"order_id": "ORD-1005"',  # not JSON
        "call orders_lookup [1, 2]",  # not an object
        "call orders_lookp {}",  # unknown tool
        "call",
        "tool",
        "tool no_such_tool",
        "",
        "# a comment",
    ]
    lines = [gold[0], *bad[:5], *gold[1:3], *bad[5:], *gold[3:]]
    out = tmp_path / "played.db"
    result = play(REFUND, "--out", out, lines=lines)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "error: unknown command 'bogus'" in result.output
    assert "the arguments are not JSON" in result.output
    assert "the arguments must be a JSON object" in result.output
    assert "unknown tool 'orders_lookp'; did you mean orders_lookup" in result.output
    # the typos were refused before the dispatcher: only the gold calls are in the episode
    assert recorded(out) == [(c.tool, 1) for c in get_task(REFUND).gold]
    assert "reward 1 (default)" in result.output and "db_match 1" in result.output
    assert grade(out).reward == 1.0
    assert EpisodeFile.read(out).status == "finished"


def test_intro_shows_instruction_and_tools_and_schemas_but_not_the_gold(tmp_path: Path) -> None:
    task = get_task(REFUND)
    result = play(REFUND, "--out", tmp_path / "e.db", lines=["tools", "tool orders_process_refund", "help", "quit"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert " ".join(get_world("commerce").briefing(task).text().split()) in flat  # the briefing of every door
    for name, tool in get_world("commerce").tool_map().items():
        assert f"{name} " in result.output and tool.description.splitlines()[0] in flat
    schema = get_world("commerce").tool_map()["orders_process_refund"].json_schema()
    assert json.dumps(schema, indent=2) in result.output
    assert "finish [ANSWER]" in result.output  # help
    assert task.gold[-1].args["answer"] not in flat
    assert " ".join(task.notes.split())[:40] not in flat
    assert "left unfinished" in result.output


def test_an_episode_with_nothing_played_shows_the_briefing_and_no_grade(tmp_path: Path) -> None:
    result = play(UNLOCK, "--out", tmp_path / "e.db", lines=["tools", "help"])
    assert result.exit_code == 0, result.output
    assert "not graded" in result.output and "reward" not in result.output
    assert get_task(UNLOCK).checks and all(c.name not in result.output for c in get_task(UNLOCK).checks)


def test_bad_arguments_reach_the_dispatcher_as_a_structured_error_and_are_recorded(tmp_path: Path) -> None:
    out = tmp_path / "e.db"
    lines = ['call orders_process_refund {"order_id": "ORD-1005"}', "call orders_lookup", "quit"]
    result = play(REFUND, "--out", out, lines=lines)
    assert result.exit_code == 0, result.output
    assert '"error": "invalid_arguments"' in result.output and '"code": 400' in result.output
    assert recorded(out) == [("orders_process_refund", 0), ("orders_lookup", 0)]


def test_quit_and_end_of_input_leave_the_episode_unfinished_and_grade_it(tmp_path: Path) -> None:
    quit_out, eof_out = tmp_path / "quit.db", tmp_path / "eof.db"
    lines = gold_lines(REFUND)[:2]
    result = play(REFUND, "--out", quit_out, lines=[*lines, "quit", gold_lines(REFUND)[2]])
    assert result.exit_code == 0, result.output
    assert [tool for tool, _ in recorded(quit_out)] == ["users_lookup", "orders_lookup"]  # nothing after quit
    assert "completed False" in result.output and "reward 0" in result.output
    assert EpisodeFile.read(quit_out).status == "running"
    result = play(REFUND, "--out", eof_out, lines=lines)  # the input simply ends
    assert result.exit_code == 0, result.output
    assert "left unfinished" in result.output and "completed False" in result.output
    assert EpisodeFile.read(eof_out).status == "running"


def test_finish_command_ends_the_episode_with_its_answer(tmp_path: Path) -> None:
    out = tmp_path / "e.db"
    answer = get_task(REFUND).gold[-1].args["answer"]
    result = play(REFUND, "--out", out, lines=[*gold_lines(REFUND)[:-1], f"finish {answer}", "tools"])
    assert result.exit_code == 0, result.output
    assert "the episode has ended" in result.output
    assert EpisodeFile.read(out).answer == answer
    assert grade(out).reward == 1.0


def test_finish_uses_the_worlds_own_ending_tool(tmp_path: Path) -> None:
    world = get_world("homeservices")
    task_id = sorted(world.tasks)[0]
    out = tmp_path / "e.db"
    result = play(task_id, "--out", out, lines=["finish nothing done today"])
    assert result.exit_code == 0, result.output
    found = EpisodeFile.read(out)
    assert [(c.tool, c.args) for c in found.calls] == [(world.finish_tool, {world.finish_answer: "nothing done today"})]
    assert found.status == "finished"
    assert " ".join(world.policy.split())[-200:] in " ".join(result.output.split())  # the briefing holds it


def test_an_operator_task_played_with_say(tmp_path: Path) -> None:
    task = get_task(UNLOCK)
    assert task.user is not None
    lines = [
        f"say {c.args['message']}" if c.tool == "send_message_to_user" else call_line(c.tool, c.args) for c in task.gold
    ]
    lines.insert(1, "say")  # an empty message is refused here
    out = tmp_path / "unlock.db"
    result = play(UNLOCK, "--out", out, lines=lines)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert " ".join(get_world("itsm").briefing(task).text().split()) in flat  # policy, clock, opening, rules
    assert "usage: say MESSAGE" in result.output
    assert "operator: Yes, her identity is verified" in flat
    assert "###STOP###" in result.output and "the episode has ended" in result.output
    assert "reward 1 (default)" in result.output
    assert grade(out).reward == 1.0


def test_policy_and_briefing_are_shown_again_when_asked(tmp_path: Path) -> None:
    policy = " ".join(get_world("itsm").policy.split())
    result = play(UNLOCK, "--out", tmp_path / "a.db", lines=["policy", "briefing", "quit"])
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()).count(policy) == 3  # the briefing, policy, the briefing again


def test_the_rules_of_every_door_text_to_nobody_the_turn_budget_and_hidden_step_rewards(tmp_path: Path) -> None:
    out = tmp_path / "e.db"
    lines = ["say is anyone there?", *gold_lines(REFUND)]
    result = play(REFUND, "--out", out, "--max-steps", "3", lines=lines)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "nobody: Nobody reads what you write without a tool" in flat  # a step spent, nothing recorded
    assert "the episode has ended: its turn budget is spent" in flat
    said = play(REFUND, "--out", tmp_path / "t.db", "--max-steps", "1", lines=["say hello?", "say again?"])
    flat = " ".join(said.output.split())
    assert flat.count("nobody:") == 1 and "the episode has ended: its turn budget is spent" in flat
    assert [tool for tool, _ in recorded(out)] == ["users_lookup", "orders_lookup"]  # 1 message + 2 calls
    assert '"reward"' not in result.output.split("─")[0]  # the task's reward is not shaped: no step rewards
    shaped = play(REFUND, "--out", tmp_path / "s.db", "--reward", "shaped", lines=gold_lines(REFUND)[:1])
    assert '"reward": 0.05' in shaped.output  # shaped: the step reward is part of what the player sees


def test_default_episode_location_and_clean_failures(tmp_path: Path) -> None:
    runs = tmp_path / "runs" / "play"
    result = play(REFUND, "--runs-dir", runs, lines=["quit"])
    assert result.exit_code == 0, result.output
    written = list(runs.glob("*-play/commerce__refund-damaged-item.db"))
    assert len(written) == 1 and str(written[0]) in result.output
    for args in (["commerce/no-such-task"], [REFUND, "--out", written[0]], [REFUND, "--reward", "shapeless"]):
        result = play(*args, lines=["quit"])
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and "error 4" in result.output
