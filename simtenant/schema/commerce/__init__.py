"""The commerce tenant (ServiceBench's shop): users, orders and inventory."""

from . import inventory, orders, users

__all__ = ["inventory", "orders", "users"]
