"""ServiceBench-style dense shaped reward, driven by rules in the task file.

Each world call earns: a duplicate penalty (same tool and arguments again), an
irrelevant-tool penalty, or, for a successful relevant call, a one-time
first-call bonus and a per-unique-call progress reward; then the value of every
milestone it reaches (a call matching a matcher, or once all named milestones
are reached) or penalty it triggers; then, at the step the task is complete,
the bonuses whose conditions hold. The running total is clamped to [0, 1]
after every step; the reward of a step is what it changed the total by.
Harness calls (``finish``) are not steps.
"""

from __future__ import annotations

from typing import Any

from . import Milestone, ShapedReward
from .matching import call_matches


class ShapedTracker:
    def __init__(self, rules: ShapedReward) -> None:
        self.rules = rules
        self.total = 0.0
        self.steps = 0
        self.reached: set[str] = set()
        self.seen: set[tuple[str, str]] = set()
        self.any_relevant = False
        self.complete = False
        self._about: dict[str, list[Milestone]] = {}  # per tool, the milestones a call of it may reach

    def _milestones_about(self, tool: str) -> list[Milestone]:
        """The milestones with a matcher naming ``tool``, in the rules' order (the others cannot match)."""
        about = self._about.get(tool)
        if about is None:
            about = self._about[tool] = [m for m in self.rules.milestones if tool in _tools_named(m)]
        return about

    def step(self, tool: str, args_json: str, ok: bool, args: dict[str, Any], result: Any, harness: bool) -> float:
        if harness:
            return 0.0
        rules = self.rules
        self.steps += 1
        delta = 0.0
        call = (tool, args_json)
        if call in self.seen:
            delta += rules.duplicate_penalty
        elif tool not in rules.relevant:
            delta += rules.irrelevant_penalty
        elif ok:
            if not self.any_relevant:
                delta += rules.first_relevant_bonus
                self.any_relevant = True
            delta += rules.progress_per_unique_relevant
        self.seen.add(call)

        reached_before = set(self.reached)
        for milestone in self._milestones_about(tool):
            if milestone.name in self.reached and not milestone.repeat:
                continue
            if set(milestone.unless) & reached_before:
                continue
            matchers = milestone.when if isinstance(milestone.when, list) else [milestone.when]
            if any(call_matches(m, tool, args, ok, result) for m in matchers):
                delta += milestone.value
                self.reached.add(milestone.name)
        progress = True
        while progress:  # composite milestones, in case one completes another
            progress = False
            for milestone in rules.milestones:
                if (
                    milestone.when is None
                    and milestone.name not in self.reached
                    and self.reached >= set(milestone.after)
                ):
                    delta += milestone.value
                    self.reached.add(milestone.name)
                    progress = True

        if not self.complete and self.reached >= set(rules.complete_when):
            self.complete = True
            for bonus in rules.bonuses:
                if bonus.max_steps is not None and self.steps > bonus.max_steps:
                    continue
                if bonus.exact_steps is not None and self.steps != bonus.exact_steps:
                    continue
                if set(bonus.without) & self.reached:
                    continue
                delta += bonus.value
        new_total = round(min(1.0, max(0.0, self.total + delta)), 6)
        change = round(new_total - self.total, 6)
        self.total = new_total
        return change


def _tools_named(milestone: Milestone) -> set[str]:
    """The tools a milestone's matchers name (none for a milestone reached by others)."""
    if milestone.when is None:
        return set()
    matchers = milestone.when if isinstance(milestone.when, list) else [milestone.when]
    return {name for m in matchers for name in ([m.tool] if isinstance(m.tool, str) else m.tool)}
