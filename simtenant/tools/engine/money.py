"""Money arithmetic: amounts are floats in the database, exact decimals in sums."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ...errors import InvalidArgument


def to_decimal(value: float) -> Decimal:
    return Decimal(str(value))


def total(values: Iterable[float]) -> Decimal:
    return sum((to_decimal(v) for v in values), Decimal(0))


def cents(amount: float, what: str = "amount") -> Decimal:
    """``amount`` as an exact decimal, refused if it is not finite or has fractions of a cent."""
    value = to_decimal(amount)
    if not value.is_finite():
        raise InvalidArgument(f"{what} must be a finite number, got {amount}", error="invalid_amount")
    if value.normalize().as_tuple().exponent < -2:  # type: ignore[operator]
        raise InvalidArgument(f"{what} must have at most two decimals, got {amount}", error="invalid_amount")
    return value
