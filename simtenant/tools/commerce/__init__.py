"""Commerce tools (ServiceBench's shop), one module per service: users, orders, inventory."""

from . import inventory, orders, users

__all__ = ["inventory", "orders", "users"]
