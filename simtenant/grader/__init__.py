"""The grader: gold replay, row diff, checks and rewards."""

from .diff import Difference, DiffResult, diff_databases
from .grade import EpisodeFile, GradeResult, gold_database, grade

__all__ = [
    "DiffResult",
    "Difference",
    "EpisodeFile",
    "GradeResult",
    "diff_databases",
    "gold_database",
    "grade",
]
