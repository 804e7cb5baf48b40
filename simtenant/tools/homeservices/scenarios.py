"""Scenario blueprints and their difficulty knobs: a blueprint → the seed rows of one inbox.

A blueprint (``seeds/homeservices/scenarios/<name>.yaml``) describes one business's inbox: the
business, its service area and playbook, and its leads, each with the details its customer knows
(``facts``) and what the customer does on cue (``twists``). Two knobs, declared in the blueprint,
change the inbox it makes, deterministically:

- ``spam_rate`` (0 ≤ rate < 1): the share of the inbox that is spam. With *R* real leads in the
  blueprint, the inbox holds ``round(rate · R / (1 − rate))`` spam leads (the blueprint's own spam
  counts toward them; the rest come from ``spam.yaml``, a pool of solicitations, phishing and scams, taken
  in order from a place fixed by the scenario's name, their times of day scaled into the blueprint's
  morning, ``since`` to ``until``, so that spam comes in among the leads and none after the task's clock).
- ``ambiguity_level`` (``low``, ``medium``, ``high``): how much of the price-deciding detail the
  leads leave unclear. Each fact a lead's text states has an ``exact`` wording, an ``absent`` one
  (usually nothing) and a ``vague`` one ("a few miles"). Of the facts the blueprint does not pin,
  taken round-robin over the leads (every lead's first fact, then every lead's second, …), the
  first ``round(share · n)`` are made unclear: none at ``low``; a third at ``medium``, all left out;
  two thirds at ``high``, alternately left out and stated vaguely. An unclear fact is ``required``
  (the agent must ask for it before quoting); a clear one is ``given`` (asking again is redundant).
  A fact may be pinned (``pin: given | missing | vague | unknown``) whatever the level: ``unknown``
  is one the customer cannot give yet (the lead ends ``NEED_INFO``).

Leads are numbered in the order they came in (``<lead_prefix>-01``, …), spam among them. The
seed files (``data/<name>/``) are this module's output and are checked in; ``python -m
simtenant.tools.homeservices.scenarios`` writes them again, ``--check`` says whether they are up
to date (a test does too). Tasks are written against the inbox a blueprint makes.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...task import read_yaml

SEEDS = Path(__file__).parent.parent.parent / "seeds" / "homeservices"
BLUEPRINTS = SEEDS / "scenarios"
SPAM_POOL = BLUEPRINTS / "spam.yaml"
LEVELS = {"low": 0.0, "medium": 1 / 3, "high": 2 / 3}  # the share of the unpinned facts made unclear
PINS = ("given", "missing", "vague", "unknown")
FACT_FIELDS = {"key", "value", "reveal", "triggers", "exact", "absent", "vague", "pin", "asked", "revealed"}
TRADE_WORDS = {
    "towing": "towing",
    "junk_removal": "junk removal",
    "dumpster_rental": "dumpster rental",
    "gutter_cleaning": "gutter cleaning",
    "window_cleaning": "window cleaning",
    "lawn_care": "lawn care",
    "pressure_washing": "pressure washing",
    "moving": "moving",
}
SLOT = re.compile(r"\{([a-z_]+)\}")


class BlueprintError(ValueError):
    """A blueprint that cannot make a consistent inbox."""


@dataclass
class Inbox:
    """The seed rows a blueprint makes, by table, and what each lead is (for people reading it)."""

    name: str
    spam_rate: float
    ambiguity_level: str
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # lead id -> "ref: what is unclear"


def _half_up(x: float) -> int:
    return int(x + 0.5)


def spam_count(rate: float, leads: int) -> int:
    """How many spam leads an inbox with ``leads`` real leads holds at ``rate``."""
    if not 0 <= rate < 1:
        raise BlueprintError(f"spam_rate is at least 0 and below 1, not {rate}")
    return _half_up(rate * leads / (1 - rate))


def clarity(level: str, facts: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """How each unpinned fact is stated at ``level``: ``exact``, ``absent`` or ``vague``. ``facts`` are
    (position in its lead, lead number) pairs; they are made unclear round-robin over the leads."""
    if level not in LEVELS:
        raise BlueprintError(f"ambiguity_level is one of {', '.join(LEVELS)}, not {level!r}")
    order = sorted(facts)
    unclear = _half_up(LEVELS[level] * len(order))
    stated = {}
    for index, fact in enumerate(order):
        if index >= unclear:
            stated[fact] = "exact"
        elif level == "high" and index % 2 == 1:
            stated[fact] = "vague"
        else:
            stated[fact] = "absent"
    return stated


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _spam_pool() -> list[dict[str, Any]]:
    return read_yaml(SPAM_POOL.read_text())


def _fill(text: str, fragments: dict[str, str]) -> str:
    def slot(match: re.Match[str]) -> str:
        if match.group(1) not in fragments:
            raise BlueprintError(f"slot {{{match.group(1)}}} names no fact of the lead")
        return fragments[match.group(1)]

    filled = SLOT.sub(slot, text)
    filled = re.sub(r"[ \t]+", " ", filled)
    filled = re.sub(r" ([.,;!?])", r"\1", filled)
    return filled.strip()


def build(blueprint: dict[str, Any]) -> Inbox:
    """The inbox a blueprint makes at its knobs."""
    name = blueprint["name"]
    rate = float(blueprint.get("spam_rate", 0))
    level = blueprint.get("ambiguity_level", "low")
    business = dict(blueprint["business"])
    biz = business["id"]
    day, offset = blueprint["day"], blueprint["utc_offset"]
    inbox = Inbox(name, rate, level)
    leads = blueprint["leads"]

    def at(when: str) -> str:
        return when if "T" in when else f"{day}T{when}:00{offset}"

    # which unpinned facts are unclear
    unpinned = [
        (position, number)
        for number, lead in enumerate(leads)
        if not lead.get("spam")
        for position, fact in enumerate(lead.get("facts", []))
        if "pin" not in fact
    ]
    stated = clarity(level, unpinned)

    # spam: the blueprint's own, then the pool's
    own = sum(1 for lead in leads if lead.get("spam"))
    wanted = spam_count(rate, len(leads) - own)
    if own > wanted:
        raise BlueprintError(f"{name}: {own} spam leads of its own, but spam_rate {rate} makes {wanted}")
    pool = _spam_pool()
    start = int(hashlib.sha256(f"spam:{name}".encode()).hexdigest()[:8], 16) % len(pool)
    words = {"trade": TRADE_WORDS[business["trade"]], "business": business["name"]}
    spam = [pool[(start + i) % len(pool)] for i in range(wanted - own)]
    if len({s["customer"] for s in spam}) < len(spam):
        raise BlueprintError(f"{name}: the spam pool is too small for spam_rate {rate}")

    entries: list[tuple[str, int, dict[str, Any]]] = []  # (received_at, order, lead)
    for number, lead in enumerate(leads):
        entries.append((at(lead["at"]), number, lead))
    since, until = (_minutes(blueprint.get(k, default)) for k, default in (("since", "05:00"), ("until", "10:00")))
    for i, item in enumerate(spam):
        minutes = since + _minutes(item["at"]) * (until - since) // (24 * 60)
        entries.append(
            (
                at(f"{minutes // 60:02d}:{minutes % 60:02d}"),
                len(leads) + i,
                {
                    "ref": f"spam-{i + 1}",
                    "spam": True,
                    "channel": item["channel"],
                    "customer": item["customer"].format(**words),
                    "text": item["text"].format(**words),
                },
            )
        )
    entries.sort(key=lambda e: (e[0], e[1]))
    ids = {e[1]: f"{blueprint['lead_prefix']}-{n:02d}" for n, e in enumerate(entries, start=1)}

    rows: dict[str, list[dict[str, Any]]] = {
        "businesses": [business],
        "service_areas": [{"business_id": biz, **area} for area in blueprint["service_areas"]],
        "price_items": [
            {"id": item["id"], "business_id": biz, "position": n, **{k: v for k, v in item.items() if k != "id"}}
            for n, item in enumerate(blueprint["price_items"], start=1)
        ],
        "leads": [],
        "lead_messages": [],
        "lead_facts": [],
        "lead_twists": [],
    }
    for area in blueprint["service_areas"]:
        if set(area) != {"zip", "place"}:  # a place with a comma, unquoted, splits into a stray key
            raise BlueprintError(f"{name}: a service area is a zip and a place, not {sorted(area)}")
    areas = {a["zip"] for a in blueprint["service_areas"]}
    prices = {item["id"] for item in blueprint["price_items"]}
    if len(prices) != len(blueprint["price_items"]):
        raise BlueprintError(f"{name}: two price items share an id")
    next_message = int(blueprint.get("message_base", 0))
    for received, number, lead in entries:
        lead_id = ids[number]
        facts = lead.get("facts", [])
        keys = [f["key"] for f in facts]
        if len(set(keys)) != len(keys):
            raise BlueprintError(f"{name} {lead['ref']}: two facts share a key")
        how = {}
        for position, fact in enumerate(facts):
            stray = sorted(set(fact) - FACT_FIELDS)
            if stray:  # a value with a comma, unquoted in a flow mapping, splits into a stray key
                where = f"{name} {lead['ref']} {fact['key']}"
                raise BlueprintError(f"{where}: no fact field {stray} (quote a value with a comma)")
            pin = fact.get("pin")
            if pin is not None and pin not in PINS:
                raise BlueprintError(f"{name} {lead['ref']} {fact['key']}: pin is one of {', '.join(PINS)}")
            way = {"given": "exact", "missing": "absent", "unknown": "absent", "vague": "vague"}.get(
                pin or "", stated.get((position, number), "exact")
            )
            if way == "vague" and "vague" not in fact:
                raise BlueprintError(f"{name} {lead['ref']} {fact['key']}: no vague wording for ambiguity {level}")
            how[fact["key"]] = way
        fragments = {f["key"]: str(f.get(how[f["key"]], "")) for f in facts}
        row = {
            "id": lead_id,
            "business_id": biz,
            "channel": lead["channel"],
            "received_at": received,
            "customer_name": lead["customer"],
            "zip": None if lead.get("spam") else lead["zip"],
            "text": _fill(lead["text"], fragments),
            "status": lead.get("status", "NEW"),
            "silent": bool(lead.get("spam")),
            "piecemeal": bool(lead.get("piecemeal", False)),
        }
        rows["leads"].append(row)
        messages = []
        for message in lead.get("conversation", []):
            next_message += 1
            messages.append(next_message)
            rows["lead_messages"].append(
                {
                    "id": next_message,
                    "lead_id": lead_id,
                    "role": message["role"],
                    "kind": "message",
                    "text": message["text"],
                    "redundant": False,
                    "created_at": at(message["at"]),
                }
            )
        unclear = []
        for fact in facts:
            way = how[fact["key"]]
            unknown = fact.get("pin") == "unknown"
            fact_row = {
                "lead_id": lead_id,
                "key": fact["key"],
                "value": fact["value"],
                "reveal": fact["reveal"],
                "triggers": list(fact["triggers"]),
                "given": way == "exact",
                "required": way != "exact",
                "available": not unknown,
                "asked_message_id": messages[fact["asked"]] if "asked" in fact else None,
                "revealed_message_id": messages[fact["revealed"]] if "revealed" in fact else None,
            }
            if way == "exact" and ("asked" in fact or "revealed" in fact):
                raise BlueprintError(f"{name} {lead['ref']} {fact['key']}: a given fact is not asked for")
            rows["lead_facts"].append(fact_row)
            if way != "exact":
                done = " and answered" if "revealed" in fact else ""
                before = f", asked{done} before" if "asked" in fact else ""
                unclear.append(f"{fact['key']} ({'unknown' if unknown else way}{before})")
        for twist in lead.get("twists", []):
            _check_twist(name, lead, twist, how, areas)
            rows["lead_twists"].append(
                {
                    "lead_id": lead_id,
                    "key": twist["key"],
                    "kind": twist["kind"],
                    "cue": twist["cue"],
                    "text": twist["text"],
                    "answer": twist["answer"],
                    "fact_key": twist.get("fact_key"),
                    "value": twist.get("value"),
                    "reveal": twist.get("reveal"),
                    "made_message_id": None,
                    "answered_message_id": None,
                }
            )
        what = [lead["ref"]]
        if lead.get("spam"):
            what.append("spam")
        elif lead["zip"] not in areas:
            what.append("outside the area")
        if unclear:
            what.append("unclear: " + ", ".join(unclear))
        what += [f"{t['kind']} on {t['cue']}" for t in lead.get("twists", [])]
        if lead.get("piecemeal"):
            what.append("piecemeal")
        inbox.notes[lead_id] = "; ".join(what)
    inbox.rows = {table: found for table, found in rows.items() if found}
    return inbox


def _check_twist(name: str, lead: dict[str, Any], twist: dict[str, Any], how: dict[str, str], areas: set) -> None:
    where = f"{name} {lead['ref']} twist {twist.get('key')}"
    if twist["kind"] == "change":
        if twist.get("fact_key") not in how:
            raise BlueprintError(f"{where}: a change names one of the lead's facts")
        if twist["cue"] == "first_answer" and how[twist["fact_key"]] != "exact":
            raise BlueprintError(f"{where}: a change on the first answer changes a fact the lead states (pin it given)")
    elif twist["kind"] == "haggle" and twist["cue"] != "quote":
        raise BlueprintError(f"{where}: a customer haggles over a quote (cue: quote)")
    writes_first = twist["kind"] == "exception" or lead["zip"] not in areas or any(w != "exact" for w in how.values())
    if twist["cue"] == "first_answer" and not writes_first:
        raise BlueprintError(f"{where}: cued on the first answer, but nothing makes the agent write first")


def blueprints() -> list[Path]:
    return sorted(p for p in BLUEPRINTS.glob("*.yaml") if p != SPAM_POOL)


def load(path: Path) -> dict[str, Any]:
    blueprint = read_yaml(path.read_text())
    if blueprint.get("name") != path.stem:
        raise BlueprintError(f"{path.name}: its name is {blueprint.get('name')!r}, not its file's")
    return blueprint


def render(inbox: Inbox) -> dict[str, str]:
    """The inbox's seed files, by file name."""
    header = (
        f"# Made by simtenant.tools.homeservices.scenarios from scenarios/{inbox.name}.yaml "
        f"(spam_rate {inbox.spam_rate:g}, ambiguity_level {inbox.ambiguity_level}):\n"
        "# edit the blueprint and run `python -m simtenant.tools.homeservices.scenarios`, not this file.\n"
    )
    files = {}
    for table, found in inbox.rows.items():
        parts = [header]
        for row in found:
            note = inbox.notes.get(row.get("lead_id") or row.get("id"))
            if table == "leads" and note:
                parts.append(f"# {row['id']}: {note}\n")
            block = yaml.dump(row, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
            parts.append("".join(("- " if n == 0 else "  ") + line for n, line in enumerate(block.splitlines(True))))
        files[f"{table}.yaml"] = "".join(parts)
    return files


class _Dumper(yaml.SafeDumper):
    """Rows as blocks, lists (a fact's triggers) on one line."""


_Dumper.add_representer(list, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def write(path: Path, check: bool = False) -> list[str]:
    """Write a blueprint's seed files (or, with ``check``, list those that are out of date)."""
    blueprint = load(path)
    folder = SEEDS / "data" / blueprint["name"]
    files = render(build(blueprint))
    stale = []
    existing = {p.name for p in folder.glob("*.yaml")} if folder.exists() else set()
    for file_name in sorted(existing | set(files)):
        target = folder / file_name
        wanted = files.get(file_name)
        actual = target.read_text() if target.exists() else None
        if actual != wanted:
            stale.append(str(target.relative_to(SEEDS)))
            if not check:
                folder.mkdir(parents=True, exist_ok=True)
                if wanted is None:
                    target.unlink()
                else:
                    target.write_text(wanted)
    return stale


def main(argv: list[str]) -> int:
    check = "--check" in argv
    names = [a for a in argv if not a.startswith("--")]
    paths = [BLUEPRINTS / f"{n}.yaml" for n in names] if names else blueprints()
    stale = [s for p in paths for s in write(p, check)]
    for s in stale:
        print(("out of date: " if check else "wrote ") + s)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
