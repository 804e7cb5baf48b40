"""Structured errors: a code, a short name and a reason, never a traceback.

Tools raise them and the dispatcher turns them into results; the CLI prints
them and exits non-zero. Codes follow HTTP: 400 bad input, 403 not allowed,
404 unknown record, 409 state or constraint conflict, 422 an invalid task.
"""

from __future__ import annotations

from typing import Any


class SimtenantError(Exception):
    code = 500
    error = "internal_error"

    def __init__(self, message: str, *, error: str | None = None, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if error is not None:
            self.error = error
        if code is not None:
            self.code = code

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "error": self.error, "message": self.message}


class InvalidArgument(SimtenantError):
    code = 400
    error = "invalid_argument"


class Forbidden(SimtenantError):
    code = 403
    error = "forbidden"


class NotFound(SimtenantError):
    code = 404
    error = "not_found"


class Conflict(SimtenantError):
    code = 409
    error = "conflict"


class TaskError(SimtenantError):
    """A task (or world) that is itself wrong: bad file, failing gold call."""

    code = 422
    error = "invalid_task"
