"""The grader: gold replay, row diff, checks and rewards."""

from .diff import Difference, DiffResult, diff_databases
from .gold import gold_database
from .grade import EpisodeFile, GradeResult, grade

__all__ = [
    "DiffResult",
    "Difference",
    "EpisodeFile",
    "GradeResult",
    "diff_databases",
    "gold_database",
    "grade",
]
