"""Home-services tools: the front office of one business (its lead inbox)."""

from . import front_office

__all__ = ["front_office"]
