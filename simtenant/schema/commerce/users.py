"""User service: customer profiles."""

from __future__ import annotations

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from ..base import Base, enum_check

USER_TIERS = ("standard", "gold", "platinum")


class User(Base):
    __tablename__ = "users"
    __table_args__ = (enum_check("tier", USER_TIERS),)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    email: Mapped[str] = mapped_column(String, unique=True)
    name: Mapped[str] = mapped_column(String)
    phone: Mapped[str | None] = mapped_column(String)
    address: Mapped[str | None] = mapped_column(String)
    tier: Mapped[str] = mapped_column(String, default="standard")
    created_at: Mapped[str] = mapped_column(String)
