"""The home-services tenant: businesses, their pricing playbooks, and the lead inbox."""

from . import front_office

__all__ = ["front_office"]
