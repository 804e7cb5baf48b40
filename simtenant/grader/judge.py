"""An optional judge model for what a database cannot express (say, how well the agent wrote).

Any OpenAI-compatible chat-completions endpoint: base URL, model and the environment variable
holding the key are configurable; nothing is tied to one vendor. Off by default, so rewards stay
deterministic; when on, every verdict and its reasoning is written into the episode file
(``_judgments``). A judge that fails (the endpoint down, an unreadable answer) is an
infrastructure failure: the component is skipped and says why, it never scores 0.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VERDICTS = {"good": 1.0, "acceptable": 0.5, "poor": 0.0}
SYSTEM = (
    "You are a strict, fair grader. Read the instructions and the material, then answer with one JSON "
    'object: {"verdict": "good" | "acceptable" | "poor", "reasoning": "<one or two sentences>"}.'
)


class JudgeError(Exception):
    """The judge could not give a verdict (not the agent's fault)."""


@dataclass(frozen=True)
class JudgeConfig:
    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0


@dataclass(frozen=True)
class Judgment:
    name: str
    key: str
    verdict: str
    score: float
    reasoning: str


def ask(config: JudgeConfig, instructions: str, material: str) -> tuple[str, str]:
    """The judge's verdict and reasoning on ``material``."""
    from openai import OpenAI, OpenAIError

    client = OpenAI(
        base_url=config.base_url,
        api_key=os.environ.get(config.api_key_env) or "not-set",
        timeout=config.timeout,
        max_retries=2,
    )
    try:
        response = client.chat.completions.create(
            model=config.model,
            temperature=0,
            response_format={"type": "json_object"},
            messages=[
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"{instructions}\n\n---\n{material}"},
            ],
        )
        answer = json.loads(response.choices[0].message.content or "")
    except (OpenAIError, ValueError, IndexError, AttributeError) as exc:
        raise JudgeError(f"{type(exc).__name__}: {exc}") from None
    verdict = str(answer.get("verdict", "")).lower() if isinstance(answer, dict) else ""
    if verdict not in VERDICTS:
        raise JudgeError(f"the judge answered no verdict: {answer!r}")
    return verdict, str(answer.get("reasoning", ""))


def record(episode: Path, config: JudgeConfig, judgments: list[Judgment]) -> None:
    """Write the verdicts into the episode file, replacing earlier ones of the same names."""
    connection = sqlite3.connect(episode)
    try:
        with connection:
            for name in sorted({j.name for j in judgments}):
                connection.execute("DELETE FROM _judgments WHERE name = ?", (name,))
            connection.executemany(
                "INSERT INTO _judgments (name, key, model, verdict, score, reasoning) VALUES (?, ?, ?, ?, ?, ?)",
                [(j.name, j.key, config.model, j.verdict, j.score, j.reasoning) for j in judgments],
            )
    finally:
        connection.close()


def judged(config: JudgeConfig, name: str, instructions: str, materials: dict[Any, str]) -> list[Judgment]:
    """One judgment per key of ``materials`` (a key with nothing to judge is poor, without asking)."""
    judgments = []
    for key in sorted(materials, key=str):
        material = materials[key]
        if not material or not material.strip():
            judgments.append(Judgment(name, str(key), "poor", 0.0, "nothing to judge"))
            continue
        verdict, reasoning = ask(config, instructions, material)
        judgments.append(Judgment(name, str(key), verdict, VERDICTS[verdict], reasoning))
    return judgments
