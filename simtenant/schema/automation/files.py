"""Files: the company drive. Folders (a confidential one is ``restricted``), text files in them with
their earlier versions, and who a file is shared with (viewer, commenter or editor)."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..base import IGNORE, TEXT, Base, enum_check

FILE_STATUSES = ("active", "archived", "trashed")
SHARE_ROLES = ("viewer", "commenter", "editor")


class FilesFolder(Base):
    """A folder of the drive (``parent_id`` null at the top). The files of a ``restricted`` (confidential)
    folder are seen only by the folder's owner, their own owner and the people they are shared with,
    and are never shared outside the company."""

    __tablename__ = "files_folders"
    __table_args__ = ({"info": {"id_format": "FLD-{:03d}"}},)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("files_folders.id"), index=True)
    owner: Mapped[str] = mapped_column(String)
    restricted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[str] = mapped_column(String)


class FilesFile(Base):
    """A text file in a folder: its current ``content`` is version ``version``; earlier ones are in
    ``files_versions``. An archived file is read-only; a trashed one is in the trash."""

    __tablename__ = "files_files"
    __table_args__ = (
        enum_check("status", FILE_STATUSES),
        CheckConstraint("version >= 1", name="version_positive"),
        {"info": {"id_format": "FILE-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    folder_id: Mapped[str] = mapped_column(ForeignKey("files_folders.id"), index=True)
    name: Mapped[str] = mapped_column(String, info=TEXT)
    description: Mapped[str | None] = mapped_column(Text, info=TEXT)
    content: Mapped[str] = mapped_column(Text, info=TEXT)
    # how many saves made the content is its history, not the outcome: a file written in one save or
    # copied then edited holds the same content
    version: Mapped[int] = mapped_column(Integer, default=1, info=IGNORE)
    status: Mapped[str] = mapped_column(String, default="active")
    owner: Mapped[str] = mapped_column(String)
    created_at: Mapped[str] = mapped_column(String)
    updated_at: Mapped[str] = mapped_column(String)
    updated_by: Mapped[str] = mapped_column(String)


class FilesVersion(Base):
    """An earlier version of a file's content, kept when it was replaced (a by-product of saving: the
    file's content is the outcome, so the history is not graded)."""

    __tablename__ = "files_versions"
    __table_args__ = (
        UniqueConstraint("file_id", "version", name="file_version"),
        {"info": {"id_format": "FVER-{:04d}", "graded": False}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    file_id: Mapped[str] = mapped_column(ForeignKey("files_files.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    saved_by: Mapped[str] = mapped_column(String)
    saved_at: Mapped[str] = mapped_column(String)


class FilesShare(Base):
    """A person a file is shared with, and what they may do with it."""

    __tablename__ = "files_shares"
    __table_args__ = (
        enum_check("role", SHARE_ROLES),
        UniqueConstraint("file_id", "email", name="file_email"),
        {"info": {"id_format": "SHARE-{:04d}"}},
    )

    id: Mapped[str] = mapped_column(String, primary_key=True)
    file_id: Mapped[str] = mapped_column(ForeignKey("files_files.id"), index=True)
    email: Mapped[str] = mapped_column(String)
    role: Mapped[str] = mapped_column(String)
    shared_by: Mapped[str] = mapped_column(String)
    shared_at: Mapped[str] = mapped_column(String)
