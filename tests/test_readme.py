"""The README is a front door that keeps its word: its tour runs as written (each command's exit
status as the line says), its links lead to pages that exist, it stays short, and the task
catalogues of the documentation are what the task files say."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from simtenant.cli.docs import DOCS, stale

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
SIMTENANT = Path(sys.executable).parent / "simtenant"


def block(name: str) -> list[str]:
    """The command lines of a marked block of the README."""
    found = re.search(rf"<!-- {name} -->\n```sh\n(.*?)```\n<!-- /{name} -->", README, re.S)
    assert found, f"the README has no {name} block"
    return [line for line in found.group(1).splitlines() if line.strip()]


def test_the_readme_is_short():
    assert len(README.encode()) <= 15_000


def test_the_tour_runs_as_written(tmp_path, private_cache):
    environment = {**os.environ, "SIMTENANT_CACHE": str(private_cache), "COLUMNS": "120"}
    environment["PATH"] = f"{SIMTENANT.parent}{os.pathsep}{environment['PATH']}"
    for line in block("tour"):
        command, _, comment = line.partition("#")
        expected = int(re.search(r"exits (\d+)", comment).group(1)) if "exits" in comment else 0
        finished = subprocess.run(
            command, shell=True, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600
        )
        assert finished.returncode == expected, f"{command}\n{finished.stdout[-2000:]}\n{finished.stderr[-2000:]}"
        assert "Traceback" not in finished.stderr, command
    assert (tmp_path / "run" / "report.html").is_file() and (tmp_path / "played.db").is_file()


def test_the_tour_starts_each_line_with_simtenant():
    assert all(shlex.split(line.partition("#")[0])[0] == "simtenant" for line in block("tour"))


@pytest.mark.parametrize("link", sorted(set(re.findall(r"\]\((docs/[^)#]+)\)", README))))
def test_the_readme_links_lead_to_pages(link):
    assert (ROOT / link).is_file()


def test_every_documentation_page_is_linked_from_the_readme_or_a_page():
    pages = {p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md")}
    linked = set(re.findall(r"\]\((docs/[^)#]+)\)", README))
    assert pages <= linked


def test_the_task_catalogues_are_what_the_task_files_say():
    assert stale() == [], "run `simtenant docs`"
