"""The IT service-management tenant: one module per service. Every row carries its organization."""

from . import audit, changes, cmdb, identity, incidents, knowledge, notifications, problems, services, sla

__all__ = [
    "audit",
    "changes",
    "cmdb",
    "identity",
    "incidents",
    "knowledge",
    "notifications",
    "problems",
    "services",
    "sla",
]
