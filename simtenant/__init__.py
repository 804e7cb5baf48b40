"""simtenant: a SQL-backed simulated enterprise tenant for tool-using agents."""

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``vf-eval simtenant`` finds simtenant's verifiers taskset by importing this package and reading its
    ``__all__``: the plugin classes are built on first access, when the optional package verifiers is
    installed (see ``simtenant.integrations.verifiers``)."""
    if name == "__all__" or name.startswith("Simtenant"):
        from .integrations.verifiers import MissingDependency, register_plugin, require_verifiers

        try:
            module = register_plugin(require_verifiers())
        except MissingDependency:
            raise AttributeError(f"module 'simtenant' has no attribute {name!r} without verifiers") from None
        if name in module.__dict__:
            return module.__dict__[name]
    raise AttributeError(f"module 'simtenant' has no attribute {name!r}")
