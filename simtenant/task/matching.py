"""A small predicate language over JSON values, for call matchers and shaped rewards.

A predicate is a plain value (equal to it), a mapping of keys to predicates
(the value is a mapping whose keys match), or an operator mapping:
``{"$approx": 49.99, "$tol": 0.01}``, ``{"$not": P}``, ``{"$any": P}`` (some
list element matches), ``{"$in": [..]}``, ``{"$contains": "text"}`` (case-insensitive).
"""

from __future__ import annotations

from typing import Any

from . import CallMatcher


def matches(predicate: Any, actual: Any) -> bool:
    if isinstance(predicate, dict) and predicate and all(k.startswith("$") for k in predicate):
        return _operator(predicate, actual)
    if isinstance(predicate, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in predicate.items())
    if isinstance(predicate, bool) or isinstance(actual, bool):
        return type(predicate) is type(actual) and predicate == actual
    return predicate == actual


def _operator(predicate: dict[str, Any], actual: Any) -> bool:
    if "$approx" in predicate:
        tolerance = predicate.get("$tol", 0.005)
        number = isinstance(actual, int | float) and not isinstance(actual, bool)
        try:
            return number and abs(actual - predicate["$approx"]) <= tolerance + 1e-9
        except OverflowError:  # an integer beyond any float is no amount near this one
            return False
    if "$not" in predicate:
        return not matches(predicate["$not"], actual)
    if "$any" in predicate:
        return isinstance(actual, list) and any(matches(predicate["$any"], item) for item in actual)
    if "$in" in predicate:
        return any(matches(option, actual) for option in predicate["$in"])
    if "$contains" in predicate:
        return isinstance(actual, str) and predicate["$contains"].lower() in actual.lower()
    raise ValueError(f"unknown operator in {predicate}")


def call_matches(matcher: CallMatcher, tool: str, args: dict[str, Any], ok: bool, result: Any) -> bool:
    tools = [matcher.tool] if isinstance(matcher.tool, str) else matcher.tool
    if tool not in tools or (matcher.ok is not None and ok != matcher.ok):
        return False
    return matches(matcher.args, args) and (not matcher.result or matches(matcher.result, result))
