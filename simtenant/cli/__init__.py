"""The simtenant command line, one module per command group: the catalog (worlds, tasks, tools),
episodes (run, grade, diff, transcript), proofs (validate, mutate), bench, eval and report, play,
serve. Every command is registered on ``app``; the order below is the order of ``--help``."""

import importlib

from .common import app

for _group in ("catalog", "episodes", "proofs", "bench", "eval", "play", "serve", "docs"):
    importlib.import_module(f"{__name__}.{_group}")

__all__ = ["app"]
