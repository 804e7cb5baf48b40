"""Identity: organizations, locations, users, roles and permissions, groups."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import TEXT, Base, enum_check

ORG_KINDS = ("company", "provider", "client")
ACTIONS = ("read", "crud")


class Organization(Base):
    __tablename__ = "organizations"
    __table_args__ = (enum_check("kind", ORG_KINDS),)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    kind: Mapped[str] = mapped_column(String)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class Location(Base):
    __tablename__ = "locations"
    __table_args__ = ({"info": {"id_format": "LOC-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    city: Mapped[str] = mapped_column(String)
    country: Mapped[str] = mapped_column(String)
    address: Mapped[str | None] = mapped_column(String, info=TEXT)  # street address, when known
    active: Mapped[bool] = mapped_column(Boolean, default=True)  # a closed site: nobody and nothing new goes there


class SysUser(Base):
    __tablename__ = "sys_users"
    __table_args__ = ({"info": {"id_format": "USR-{:04d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str] = mapped_column(String, unique=True)
    title: Mapped[str | None] = mapped_column(String)
    department: Mapped[str | None] = mapped_column(String)
    location_id: Mapped[str | None] = mapped_column(ForeignKey("locations.id"))
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    locked: Mapped[bool] = mapped_column(Boolean, default=False)


class Role(Base):
    __tablename__ = "roles"
    __table_args__ = ({"info": {"shared": True}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    description: Mapped[str] = mapped_column(String)


class Permission(Base):
    """``action`` read allows lookups; crud allows creating, changing and deleting too."""

    __tablename__ = "permissions"
    __table_args__ = (
        enum_check("action", ACTIONS),
        UniqueConstraint("resource", "action", name="resource_action"),
        {"info": {"shared": True}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    resource: Mapped[str] = mapped_column(String)
    action: Mapped[str] = mapped_column(String)


class RolePermission(Base):
    __tablename__ = "role_permissions"
    __table_args__ = ({"info": {"shared": True}},)

    role_id: Mapped[str] = mapped_column(ForeignKey("roles.id"), primary_key=True)
    permission_id: Mapped[str] = mapped_column(ForeignKey("permissions.id"), primary_key=True)


class UserRole(Base):
    __tablename__ = "user_roles"

    user_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), primary_key=True)
    role_id: Mapped[str] = mapped_column(ForeignKey("roles.id"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), primary_key=True)


class UserGroup(Base):
    __tablename__ = "user_groups"
    __table_args__ = ({"info": {"id_format": "GRP-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    name: Mapped[str] = mapped_column(String)
    email: Mapped[str | None] = mapped_column(String)
    manager_id: Mapped[str | None] = mapped_column(ForeignKey("sys_users.id"))
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    active: Mapped[bool] = mapped_column(Boolean, default=True)  # an inactive group takes no new work or members


class GroupMember(Base):
    __tablename__ = "group_members"

    group_id: Mapped[str] = mapped_column(ForeignKey("user_groups.id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("sys_users.id"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
