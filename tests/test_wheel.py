"""The wheel as users install it: built from the checkout, installed (not editable) in a clean virtual
environment outside it, playing the oracle on a task of every world. An editable install reads the
checkout's files, so it hides data the wheel does not ship."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from simtenant.world import all_tasks, worlds

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_built_wheel_installs_and_plays_every_world(tmp_path: Path) -> None:
    # built from the project's files alone, as a clean clone has them (no build/ or egg-info left over)
    source = tmp_path / "source"
    listed = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    for name in subprocess.run(listed, cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, source]
    subprocess.run(build, check=True, capture_output=True, timeout=300, cwd=tmp_path)
    (wheel,) = dist.glob("simtenant-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    # The dependencies come from this environment's site-packages (offline), added as a plain path: its
    # editable simtenant is not (that needs its .pth processed), so only the wheel provides simtenant.
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (purelib / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    install = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--no-deps", "-q", wheel]
    subprocess.run(install, check=True, capture_output=True, timeout=300)
    env = {**os.environ, "SIMTENANT_CACHE": str(tmp_path / "cache")}
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import simtenant; print(simtenant.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # the wheel, not the checkout
    for world in sorted(worlds()):
        task = next(t.id for t in all_tasks() if t.world == world)
        played = subprocess.run(
            [venv / "bin" / "simtenant", "run", task, "--agent", "oracle", "--json", "--out", tmp_path / f"{world}.db"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env=env,
        )
        assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
        assert json.loads(played.stdout)["reward"] == 1.0, task
