"""`simtenant play TASK`: a person plays the agent at the terminal, for task authors checking a task.

It shows what an agent is shown on every door — the episode's briefing: the world's policy, the
task's instruction, the clock, the acting identity, the rules and the first message — and then reads
commands from stdin, one a line::

    tools                  the episode's tools, one line each
    tool NAME              a tool's description and JSON Schema
    call NAME {json}       call a tool (arguments as a JSON object; {} when left out)
    say MESSAGE            write text without a tool: to the operator, or to nobody (a step spent)
    finish [ANSWER]        end the episode with the world's ending tool
    policy                 the world's policy text
    briefing               the whole briefing again
    help                   this list
    quit                   stop here, leaving the episode unfinished (end of input does the same)

The player keeps the rules of every door: a call is ``Episode.act`` (the one dispatcher, the turn
budget, tools not offered refused) and ``say`` is ``Episode.say``; the result or structured error is
printed as JSON, with the step's reward only where the task's reward is shaped. A line that is not a
command, arguments that are not a JSON object and an unknown tool name are the player's typos: they are
refused here, print what is wrong, and are not recorded. When the episode ends (or the player quits) it
is graded and the grade shown the way ``simtenant run`` shows it. Nothing of the gold calls, the checks
or the notes is shown before that; an episode with no call and no message is not graded (``play TASK <
/dev/null`` prints the briefing alone, since the grade of nothing would list what the task expects).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..episode import Episode
from ..grader import grade
from ..grader.grade import check_reward_mode
from ..task import Task
from ..tools.engine.dispatch import Outcome
from ..world import USER_TOOL, World, get_task
from .common import MaxSteps, RewardMode, _episode_path, _show_grade, command, console

HELP = """\
commands:
  tools                  list the tools, one line each
  tool NAME              a tool's description and JSON Schema
  call NAME {{json}}       call a tool; the arguments are a JSON object ({{}} when left out)
  say MESSAGE            write without a tool: to the operator (send_message_to_user), or to nobody
  {finish:<22} end the episode with your final answer ({tool})
  policy                 show the world's policy
  briefing               show the whole briefing again
  help                   this list
  quit                   stop, leaving the episode unfinished (end of input does the same)
The episode is graded when it ends or when you quit."""


class PlaySession:
    """One episode played by a person: each input line is handled by ``handle``."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.task: Task = episode.task
        self.world: World = episode.world
        self.quit = False
        self.acted = False  # whether the player made a call or wrote a message

    # -- what the player is shown ------------------------------------------------------------

    def introduce(self) -> None:
        console.print(f"[bold]{self.task.id}[/bold]  ({escape(self.world.title)})", highlight=False)
        console.print(f"episode {escape(str(self.episode.path))}", highlight=False)
        self.show_briefing()
        console.print(
            f"{len(self.episode.offered)} tools (type [bold]tools[/bold]); type [bold]help[/bold] for commands.",
            highlight=False,
        )

    def show_briefing(self) -> None:
        console.print(escape(self.episode.briefing().text()), highlight=False, soft_wrap=True)  # as written

    def show_help(self) -> None:
        finish = self.world.finish_tool
        word = "finish [ANSWER]" if finish == "finish" else f"finish [{self.world.finish_answer.upper()}]"
        console.print(escape(HELP.format(finish=word, tool=finish)), highlight=False)

    def show_tools(self) -> None:
        width = max(len(t.name) for t in self.episode.offered)
        for tool in self.episode.offered:
            name = tool.name
            first = tool.description.splitlines()[0] if tool.description else ""
            console.print(f"  [cyan]{name:<{width}}[/cyan]  {escape(first)}", highlight=False)

    def show_tool(self, name: str) -> None:
        tool = self.find_tool(name)
        if tool is None:
            return
        console.print(f"[cyan]{tool.name}[/cyan]  ({tool.service} {tool.method} {tool.path})", highlight=False)
        console.print(escape(tool.description), highlight=False)
        _print_json(tool.json_schema())

    def show_policy(self) -> None:
        text = self.world.policy.strip()
        console.print(escape(text) if text else "this world has no written policy", highlight=False)

    # -- reading commands ---------------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Act on one input line; bad input prints an error and changes nothing."""
        line = line.strip()
        if not line or line.startswith("#"):
            return
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if word in ("quit", "exit"):
            self.quit = True
        elif word in ("help", "?"):
            self.show_help()
        elif word == "tools":
            self.show_tools()
        elif word == "tool":
            if not rest:
                return refuse("usage: tool NAME")
            self.show_tool(rest)
        elif word == "call":
            self.handle_call(rest)
        elif word == "say":
            self.handle_say(rest)
        elif word in ("finish", self.world.finish_tool):
            self.call(self.world.finish_tool, {self.world.finish_answer: rest})
        elif word == "policy":
            self.show_policy()
        elif word in ("briefing", "instruction"):
            self.show_briefing()
        else:
            refuse(f"unknown command {word!r}; type help for the commands")

    def handle_call(self, rest: str) -> None:
        name, _, text = rest.partition(" ")
        if not name:
            return refuse("usage: call NAME {json arguments}")
        if self.find_tool(name) is None:
            return
        text = text.strip()
        try:
            args = json.loads(text) if text else {}
        except json.JSONDecodeError as exc:
            return refuse(f"the arguments are not JSON ({exc.msg} at column {exc.colno}); nothing was called")
        if not isinstance(args, dict):
            return refuse('the arguments must be a JSON object, e.g. {"order_id": "ORD-1005"}; nothing was called')
        self.call(name, args)

    def handle_say(self, message: str) -> None:
        if not message:
            return refuse("usage: say MESSAGE")
        if self.refused_over():
            return
        self.acted = True
        outcome = self.episode.say(message)
        if outcome is None:
            nobody = escape(self.episode.briefing().nobody)
            console.print(f"[yellow]nobody[/yellow]: {nobody}", highlight=False, soft_wrap=True)
            self.show_end()
        else:
            self.show(outcome)

    def find_tool(self, name: str) -> Any:
        tool = self.episode.tools.get(name)
        if tool is None:
            close = difflib.get_close_matches(name, list(self.episode.tools), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; type tools for the list"
            refuse(f"unknown tool {name!r}{hint}")
        return tool

    def call(self, name: str, args: dict[str, Any]) -> None:
        if not self.refused_over():
            self.acted = True
            self.show(self.episode.act(name, args))

    def refused_over(self) -> bool:
        """Refuse a turn the episode no longer takes (printed, nothing recorded)."""
        if not self.episode.over:
            return False
        refuse(f"the episode takes no more turns: {ENDINGS.get(self.episode.ended or '', self.episode.ended)}")
        return True

    def show(self, outcome: Outcome) -> None:
        _print_json(outcome.to_dict(with_reward=self.episode.shows_rewards))
        if outcome.ok and outcome.tool == USER_TOOL:
            reply = escape(str(outcome.result.get("reply", "")))
            console.print(f"[green]operator[/green]: {reply}", highlight=False, soft_wrap=True)
        self.show_end()

    def show_end(self) -> None:
        if self.episode.over:
            why = ENDINGS.get(self.episode.ended or "", str(self.episode.ended))
            console.print(f"[bold]the episode has ended[/bold]: {why}", highlight=False)

    def play(self, lines: Any) -> None:
        """Read commands until the episode ends, the player quits or the input ends."""
        for line in lines:
            if line.strip() and not interactive():
                console.print(f"[dim]> {escape(line.rstrip())}[/dim]", highlight=False)
            self.handle(line)
            if self.quit or self.episode.over:
                break
        if not self.episode.over:
            console.print("[yellow]left unfinished[/yellow]", highlight=False)


ENDINGS = {
    "finished": "you finished it",
    "operator_stop": "the operator ended the conversation",
    "max_steps": "its turn budget is spent",
}


def refuse(message: str) -> None:
    console.print(f"[red]error[/red]: {escape(message)}", highlight=False)


def _print_json(value: Any) -> None:
    console.print(escape(json.dumps(value, indent=2, ensure_ascii=False)), highlight=False, soft_wrap=True)


def policy_path(world: World) -> Path | None:
    """Where the world's written policy is, if it has one."""
    path = world.folder / "policy.md"
    return path if path.is_file() else None


def interactive() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def input_lines() -> Any:
    """Lines from stdin until its end (or Ctrl-C); with a terminal, prompted and line-edited."""
    if interactive():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
    while True:
        try:
            yield input("play> " if interactive() else "")
        except (EOFError, KeyboardInterrupt):
            if interactive():
                print()
            return


@command("play")
def play(
    task: Annotated[str, typer.Argument(help="Task id, world/name")],
    out: Annotated[Path | None, typer.Option(help="Episode file to write (must not exist)")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where episodes are written")] = Path("runs/play"),
    reward: RewardMode = None,
    max_steps: MaxSteps = None,
) -> None:
    """Play a task yourself, as the agent, at the terminal; the episode is graded when it ends."""
    found = get_task(task)
    check_reward_mode(found, reward)
    path = _episode_path(found.id, "play", out, runs_dir)
    with Episode.start(found, path, max_steps=max_steps) as episode:
        episode.shows_rewards = (reward or found.reward) == "shaped"
        session = PlaySession(episode)
        session.introduce()
        session.play(input_lines())
    if not session.acted:  # grading nothing would show what the task expects: the briefing alone
        console.print(f"nothing played, so not graded; play it with: simtenant play {found.id}", highlight=False)
        return
    _show_grade(grade(path, reward), False)
    console.print(f"re-grade with: simtenant grade {escape(str(path))}", highlight=False)
