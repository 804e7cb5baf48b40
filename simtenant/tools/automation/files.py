"""Files tools: the company drive's folders, text files (search, read, write, copy, move, archive,
trash and restore), their earlier versions, and sharing them with people.

Who may do what: every employee sees the files of ordinary folders; a confidential (restricted)
folder's files are seen only by the folder's owner, their own owner and the people they are shared
with. Changing, moving, sharing or deleting a file takes being its owner or an editor. People outside
the company may be given view or comment access, never edit access, and a confidential folder's
files are never shared outside the company nor copied or moved out of it (but by its owner)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import and_, bindparam, exists, func, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument, NotFound
from ...schema.automation.files import FILE_STATUSES, SHARE_ROLES, FilesFile, FilesFolder, FilesShare, FilesVersion
from ...schema.automation.hr import HrEmployee
from ...schema.automation.mail import COMPANY_DOMAIN
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains
from .common import Email, Page, PerPage, me

SERVICE = "automation.files"

FolderId = Annotated[str, Field(description="A folder id, e.g. FLD-004")]
FileId = Annotated[str, Field(description="A file id, e.g. FILE-0012")]
FileStatus = Literal[FILE_STATUSES]  # type: ignore[valid-type]
Role = Literal[SHARE_ROLES]  # type: ignore[valid-type]
FileName = Annotated[Text, Field(max_length=200, description="The file's name, e.g. 'Offer letter - Jane Doe'")]

_FOLDERS, _FILES = FilesFolder.__table__, FilesFile.__table__
_SHARES, _EMPLOYEES = FilesShare.__table__, HrEmployee.__table__
# a file the acting employee may see: an ordinary folder's, or one they own, own the folder of, or are shared
_SEEN = or_(
    _FOLDERS.c.restricted.is_(False),
    _FOLDERS.c.owner == bindparam("me"),
    _FILES.c.owner == bindparam("me"),
    exists(select(_SHARES.c.id).where(_SHARES.c.file_id == _FILES.c.id, _SHARES.c.email == bindparam("me"))),
)
_LISTED = [c for c in _FILES.columns if c.name != "content"]
FILES = Filtered(
    select(*_LISTED, _FOLDERS.c.name.label("folder_name"))
    .select_from(_FILES.join(_FOLDERS, _FILES.c.folder_id == _FOLDERS.c.id))
    .where(_SEEN),
    (_FILES.c.name, _FILES.c.id),
    query=or_(
        contains(_FILES.c.name, "query"),
        contains(_FILES.c.content, "query"),
        contains(func.coalesce(_FILES.c.description, ""), "query"),
    ),
    folder_id=_FILES.c.folder_id == bindparam("folder_id"),
    owner=_FILES.c.owner == bindparam("owner"),
    status=_FILES.c.status == bindparam("status"),
    not_trashed=_FILES.c.status != "trashed",
    shared_with=exists(
        select(_SHARES.c.id).where(_SHARES.c.file_id == _FILES.c.id, _SHARES.c.email == bindparam("shared_with"))
    ),
)
_FILE_COUNT = (
    select(func.count())
    .where(_FILES.c.folder_id == _FOLDERS.c.id, _FILES.c.status != "trashed")
    .scalar_subquery()
    .label("file_count")
)
FOLDERS = Filtered(
    select(_FOLDERS, _FILE_COUNT),
    (_FOLDERS.c.name, _FOLDERS.c.id),
    parent_id=_FOLDERS.c.parent_id == bindparam("parent_id"),
    top_level=_FOLDERS.c.parent_id.is_(None),
    query=contains(_FOLDERS.c.name, "query"),
)
# another live file of that name in a folder (names are unique in a folder, the trash aside)
NAME_TAKEN = Statement.of(
    select(_FILES.c.id)
    .where(
        _FILES.c.folder_id == bindparam("folder_id"),
        func.lower(_FILES.c.name) == bindparam("name"),
        _FILES.c.status != "trashed",
        _FILES.c.id != bindparam("id"),
    )
    .order_by(_FILES.c.id)
    .limit(1)
)
FOLDER_NAME_TAKEN = Statement.of(
    select(_FOLDERS.c.id)
    .where(
        or_(
            and_(bindparam("parent_id").is_(None), _FOLDERS.c.parent_id.is_(None)),
            _FOLDERS.c.parent_id == bindparam("parent_id"),
        ),
        func.lower(_FOLDERS.c.name) == bindparam("name"),
    )
    .limit(1)
)
SHARE_OF = Statement.of(
    select(_SHARES).where(_SHARES.c.file_id == bindparam("file_id"), _SHARES.c.email == bindparam("email"))
)
# a company address that belongs to a current employee (HR's directory)
EMPLOYEE = Statement.of(
    select(_EMPLOYEES.c.id, _EMPLOYEES.c.status)
    .where(func.lower(_EMPLOYEES.c.email) == bindparam("email"))
    .order_by(_EMPLOYEES.c.id)
    .limit(1)
)


def internal(email: str) -> bool:
    """Whether an address is the company's own."""
    return email.lower().endswith("@" + COMPANY_DOMAIN)


def current_employee(ctx: ToolContext, email: str, what: str = "person") -> str:
    """``email`` lowercased; a company address must be a current (not terminated) employee's."""
    email = email.lower()
    if internal(email):
        found = ctx.rows.one(EMPLOYEE, email=email)
        if found is None or found["status"] == "terminated":
            raise InvalidArgument(
                f"{email} is not a current employee: a {what} at {COMPANY_DOMAIN} must be one",
                error="not_an_employee",
            )
    return email


def _folder(ctx: ToolContext, folder_id: str) -> Row:
    return ctx.rows.need(FilesFolder, folder_id, "folder")


def access(ctx: ToolContext, file: Row, folder: Row | None = None) -> str | None:
    """What the acting employee may do with a file: owner, editor, commenter or viewer (None: they
    cannot see it). Every employee views an ordinary folder's files; a confidential folder's owner
    manages its files as an editor."""
    actor = me(ctx)
    if file["owner"] == actor:
        return "owner"
    share = ctx.rows.one(SHARE_OF, file_id=file["id"], email=actor)
    folder = folder or _folder(ctx, file["folder_id"])
    if folder["restricted"] and folder["owner"] == actor:
        return "editor"
    if share is not None:
        return share["role"]
    return None if folder["restricted"] else "viewer"


def seen_file(ctx: ToolContext, file_id: str) -> tuple[Row, Row, str]:
    """A file the acting employee may see, its folder and their access (a 404 otherwise: a
    confidential file is not shown to those it is not shared with)."""
    file = ctx.rows.get(FilesFile, file_id)
    folder = None if file is None else _folder(ctx, file["folder_id"])
    role = None if file is None else access(ctx, file, folder)
    if file is None or folder is None or role is None:
        raise NotFound(f"file {file_id!r} not found")
    return file, folder, role


def _editable(ctx: ToolContext, file_id: str, live: bool = True) -> tuple[Row, Row]:
    """A file the acting employee may change (owner or editor); ``live``: not archived nor trashed."""
    file, folder, role = seen_file(ctx, file_id)
    if role not in ("owner", "editor"):
        raise Forbidden(
            f"you have {role} access to {file['id']}: changing it takes its owner ({file['owner']}) or an editor",
            error="no_edit_access",
        )
    if live and file["status"] == "archived":
        raise Conflict(f"file {file['id']} is archived (read-only): restore it first", error="file_archived")
    if live and file["status"] == "trashed":
        raise Conflict(f"file {file['id']} is in the trash: restore it first", error="file_trashed")
    return file, folder


def _free_name(ctx: ToolContext, folder_id: str, name: str, file_id: str = "") -> None:
    taken = ctx.rows.value(NAME_TAKEN, folder_id=folder_id, name=name.lower(), id=file_id)
    if taken is not None:
        raise Conflict(f"folder {folder_id} already has a file named {name!r} ({taken})", error="duplicate_name")


def _leaving(ctx: ToolContext, source: Row, target: Row) -> None:
    """A confidential folder's file may not be copied or moved to an ordinary folder, but by its owner."""
    if source["restricted"] and not target["restricted"] and source["owner"] != me(ctx):
        raise Forbidden(
            f"folder {source['id']} ({source['name']}) is confidential: its files stay in confidential folders",
            error="confidential_folder",
        )


def _path(ctx: ToolContext, folder: Row) -> str:
    names, seen = [folder["name"]], {folder["id"]}
    while folder["parent_id"] is not None and folder["parent_id"] not in seen:
        folder = _folder(ctx, folder["parent_id"])
        seen.add(folder["id"])
        names.append(folder["name"])
    return " / ".join(reversed(names))


def _listed(file: Row) -> Row:
    return {k: v for k, v in file.items() if k != "content"}


def _save(ctx: ToolContext, file: Row, values: dict[str, Any]) -> list[str]:
    """Write ``values`` on a file; a new content keeps the one it replaces as an earlier version."""
    values = {k: v for k, v in values.items() if v is not None and file[k] != v}
    if "content" in values:
        kept = {
            "id": ctx.rows.next_id(FilesVersion),
            "file_id": file["id"],
            "version": file["version"],
            "content": file["content"],
            "saved_by": file["updated_by"],
            "saved_at": file["updated_at"],
        }
        ctx.rows.insert(FilesVersion, kept)
        values["version"] = file["version"] + 1
    changed = [k for k in values if k != "version"]
    if changed:
        values.update(updated_at=ctx.timestamp, updated_by=me(ctx))
        ctx.rows.change(FilesFile, file, values)
    return changed


# --- folders ---------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/files/folders")
def files_list_folders(
    ctx: ToolContext,
    parent_id: Annotated[str | None, Field(description="Only the subfolders of this folder id")] = None,
    top_level: Annotated[bool, Field(description="Only the folders at the top of the drive")] = False,
    query: Annotated[str | None, Field(description="Text in the folder's name")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> dict[str, Any]:
    """List the drive's folders (directories), with their parent, owner, whether they are confidential
    and how many files each holds."""
    return ctx.rows.page(
        FOLDERS, page, per_page, parent_id=parent_id, top_level=True if top_level else None, query=query
    )


@tool(SERVICE, "POST", "/files/folders")
def files_create_folder(
    ctx: ToolContext,
    name: Annotated[Text, Field(max_length=120, description="The folder's name")],
    parent_id: Annotated[
        str | None, Field(description="The folder to create it in; none: the top of the drive")
    ] = None,
    restricted: Annotated[
        bool,
        Field(description="Confidential: its files are seen only by you, their owners and whom they are shared with"),
    ] = False,
) -> dict[str, Any]:
    """Create a new folder (directory) on the drive, owned by you (inside a confidential folder: confidential too)."""
    parent = None if parent_id is None else _folder(ctx, parent_id)
    if ctx.rows.one(FOLDER_NAME_TAKEN, parent_id=parent_id, name=name.lower()) is not None:
        raise Conflict(f"a folder named {name!r} already exists there", error="duplicate_name")
    folder = {
        "id": ctx.rows.next_id(FilesFolder),
        "name": name,
        "parent_id": parent_id,
        "owner": me(ctx),
        "restricted": restricted or bool(parent and parent["restricted"]),
        "created_at": ctx.timestamp,
    }
    ctx.rows.insert(FilesFolder, folder)
    return folder


# --- files ----------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/files")
def files_search_files(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the file's name, description or content")] = None,
    folder_id: Annotated[str | None, Field(description="Only files directly in this folder id")] = None,
    owner: Annotated[Email | None, Field(description="Only files this person owns")] = None,
    status: Annotated[
        FileStatus | None, Field(description="active, archived or trashed; default: every file not in the trash")
    ] = None,
    shared_with: Annotated[Email | None, Field(description="Only files shared with this email address")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """Search or find files and documents on the drive (contracts, policies, templates, guides) by name,
    text, folder, owner, status or who they are shared with, by name. Read one with files_get_file."""
    return ctx.rows.page(
        FILES,
        page,
        per_page,
        me=me(ctx),
        query=query,
        folder_id=folder_id,
        owner=owner.lower() if owner else None,
        status=status,
        not_trashed=True if status is None else None,
        shared_with=shared_with.lower() if shared_with else None,
    )


@tool(SERVICE, "GET", "/files/{file_id}")
def files_get_file(ctx: ToolContext, file_id: FileId) -> dict[str, Any]:
    """Open (read) a file: its text content, folder path, version, status and who it is shared with."""
    file, folder, role = seen_file(ctx, file_id)
    shares = ctx.rows.find(FilesShare, ("email",), file_id=file["id"])
    return {
        **file,
        "folder": {"id": folder["id"], "path": _path(ctx, folder), "restricted": folder["restricted"]},
        "your_access": role,
        "shared_with": [{k: s[k] for k in ("id", "email", "role", "shared_by", "shared_at")} for s in shares],
    }


@tool(SERVICE, "POST", "/files")
def files_create_file(
    ctx: ToolContext,
    folder_id: FolderId,
    name: FileName,
    content: Annotated[Text, Field(description="The file's text")],
    description: Annotated[str | None, Field(description="A short description of the file")] = None,
) -> dict[str, Any]:
    """Create (upload, save) a new text file in a folder, owned by you."""
    folder = _folder(ctx, folder_id)
    _free_name(ctx, folder["id"], name)
    file = {
        "id": ctx.rows.next_id(FilesFile),
        "folder_id": folder["id"],
        "name": name,
        "description": description,
        "content": content,
        "version": 1,
        "status": "active",
        "owner": me(ctx),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
        "updated_by": me(ctx),
    }
    ctx.rows.insert(FilesFile, file)
    return _listed(file)


@tool(SERVICE, "PATCH", "/files/{file_id}")
def files_edit_file(
    ctx: ToolContext,
    file_id: FileId,
    name: Annotated[FileName | None, Field(description="A new name (rename the file)")] = None,
    content: Annotated[
        Text | None, Field(description="The file's whole new text (the old one is kept as a version)")
    ] = None,
    description: Annotated[Text | None, Field(description="A new description")] = None,
) -> dict[str, Any]:
    """Edit a file or document: replace its text (saved as a new version), rename it or change its
    description (owner or editor; not an archived or trashed file)."""
    file, folder = _editable(ctx, file_id)
    if name is None and content is None and description is None:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if name is not None:
        _free_name(ctx, folder["id"], name, file["id"])
    changed = _save(ctx, file, {"name": name, "content": content, "description": description})
    return {**_listed(file), "changed": changed}


@tool(SERVICE, "POST", "/files/{file_id}/move")
def files_move_file(
    ctx: ToolContext,
    file_id: FileId,
    folder_id: Annotated[str, Field(description="The folder id to move it into")],
) -> dict[str, Any]:
    """Move a file to another folder (owner or editor)."""
    file, folder = _editable(ctx, file_id, live=False)
    target = _folder(ctx, folder_id)
    if target["id"] == folder["id"]:
        raise Conflict(f"file {file['id']} is already in {target['id']}", error="same_folder")
    _leaving(ctx, folder, target)
    if file["status"] != "trashed":
        _free_name(ctx, target["id"], file["name"], file["id"])
    ctx.rows.change(FilesFile, file, {"folder_id": target["id"], "updated_at": ctx.timestamp, "updated_by": me(ctx)})
    return _listed(file)


@tool(SERVICE, "POST", "/files/{file_id}/copy")
def files_copy_file(
    ctx: ToolContext,
    file_id: FileId,
    name: Annotated[FileName, Field(description="The copy's name, e.g. 'Offer letter - Jane Doe'")],
    folder_id: Annotated[str | None, Field(description="The folder for the copy; default: the same folder")] = None,
) -> dict[str, Any]:
    """Make a copy of a file (say, of a template) under a new name, in the same or another folder: a new
    file with its text, owned by you."""
    source, folder, _ = seen_file(ctx, file_id)
    if source["status"] == "trashed":
        raise Conflict(f"file {source['id']} is in the trash", error="file_trashed")
    target = folder if folder_id is None else _folder(ctx, folder_id)
    _leaving(ctx, folder, target)
    return files_create_file(ctx, target["id"], name, source["content"])  # a new file: no description of its own


@tool(SERVICE, "POST", "/files/{file_id}/archive")
def files_archive_file(ctx: ToolContext, file_id: FileId) -> dict[str, Any]:
    """Archive a file: it stays where it is, read-only, marked archived (owner or editor)."""
    file, _ = _editable(ctx, file_id)
    ctx.rows.change(FilesFile, file, {"status": "archived", "updated_at": ctx.timestamp, "updated_by": me(ctx)})
    return _listed(file)


@tool(SERVICE, "POST", "/files/{file_id}/trash")
def files_trash_file(ctx: ToolContext, file_id: FileId) -> dict[str, Any]:
    """Delete a file: move it to the trash, from where it can be restored (owner or editor)."""
    file, _ = _editable(ctx, file_id, live=False)
    if file["status"] == "trashed":
        raise Conflict(f"file {file['id']} is already in the trash", error="file_trashed")
    ctx.rows.change(FilesFile, file, {"status": "trashed", "updated_at": ctx.timestamp, "updated_by": me(ctx)})
    return _listed(file)


@tool(SERVICE, "POST", "/files/{file_id}/restore")
def files_restore_file(ctx: ToolContext, file_id: FileId) -> dict[str, Any]:
    """Restore an archived file or one in the trash: it becomes active again (owner or editor)."""
    file, _ = _editable(ctx, file_id, live=False)
    if file["status"] == "active":
        raise Conflict(f"file {file['id']} is active already", error="file_active")
    _free_name(ctx, file["folder_id"], file["name"], file["id"])
    ctx.rows.change(FilesFile, file, {"status": "active", "updated_at": ctx.timestamp, "updated_by": me(ctx)})
    return _listed(file)


# --- versions -------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/files/{file_id}/versions")
def files_list_versions(ctx: ToolContext, file_id: FileId) -> dict[str, Any]:
    """List a file's version history: every earlier version's text, who saved it and when, newest first."""
    file, _, _ = seen_file(ctx, file_id)
    earlier = ctx.rows.find(FilesVersion, ("version",), file_id=file["id"])
    current = {"version": file["version"], "saved_by": file["updated_by"], "saved_at": file["updated_at"]}
    return {
        "file_id": file["id"],
        "current": {**current, "content": file["content"]},
        "versions": [{k: v[k] for k in ("version", "content", "saved_by", "saved_at")} for v in reversed(earlier)],
    }


@tool(SERVICE, "POST", "/files/{file_id}/versions/{version}/restore")
def files_restore_version(
    ctx: ToolContext,
    file_id: FileId,
    version: Annotated[int, Field(ge=1, description="The earlier version number to bring back")],
) -> dict[str, Any]:
    """Restore an earlier version of a file (roll back / revert an edit): its text becomes the file's
    content again, as a new version (owner or editor)."""
    file, _ = _editable(ctx, file_id)
    if version == file["version"]:
        raise Conflict(f"version {version} is the current version of {file['id']}", error="current_version")
    earlier = ctx.rows.find(FilesVersion, (), file_id=file["id"], version=version)
    if not earlier:
        raise NotFound(f"file {file['id']} has no version {version}", error="no_such_version")
    if earlier[0]["content"] == file["content"]:
        raise Conflict(f"version {version} has the same text as the current one", error="same_content")
    _save(ctx, file, {"content": earlier[0]["content"]})
    return {**_listed(file), "restored_from": version}


# --- sharing --------------------------------------------------------------------------------------


@tool(SERVICE, "POST", "/files/{file_id}/shares")
def files_share_file(
    ctx: ToolContext,
    file_id: FileId,
    email: Annotated[Email, Field(description="Who to share it with (a colleague, customer or vendor)")],
    role: Annotated[
        Role, Field(description="viewer (read), commenter (read and comment) or editor (change and share)")
    ] = "viewer",
) -> dict[str, Any]:
    """Share a file with a person (give access: viewer, commenter or editor), or change the access of
    someone it is shared with. Outside the company: view or comment only, and never a confidential
    folder's file."""
    file, folder = _editable(ctx, file_id, live=False)
    if file["status"] == "trashed":
        raise Conflict(f"file {file['id']} is in the trash", error="file_trashed")
    email = current_employee(ctx, email)
    if email == file["owner"]:
        raise Conflict(f"{email} owns {file['id']}", error="is_owner")
    if not internal(email):
        if folder["restricted"]:
            raise Forbidden(
                f"{file['id']} is in the confidential folder {folder['name']}: it is never shared outside the company",
                error="confidential_folder",
            )
        if role == "editor":
            raise Forbidden(
                "people outside the company may be given viewer or commenter access, not editor",
                error="external_editor",
            )
    share = ctx.rows.one(SHARE_OF, file_id=file["id"], email=email)
    if share is not None:
        if share["role"] == role:
            raise Conflict(f"{file['id']} is already shared with {email} as {role}", error="already_shared")
        ctx.rows.change(FilesShare, share, {"role": role, "shared_by": me(ctx), "shared_at": ctx.timestamp})
        return {**share, "changed": ["role"]}
    share = {
        "id": ctx.rows.next_id(FilesShare),
        "file_id": file["id"],
        "email": email,
        "role": role,
        "shared_by": me(ctx),
        "shared_at": ctx.timestamp,
    }
    ctx.rows.insert(FilesShare, share)
    return share


@tool(SERVICE, "DELETE", "/files/{file_id}/shares/{email}")
def files_unshare_file(
    ctx: ToolContext,
    file_id: FileId,
    email: Annotated[Email, Field(description="The person whose access to remove")],
) -> dict[str, Any]:
    """Stop sharing a file with a person (remove or revoke their access)."""
    file, _ = _editable(ctx, file_id, live=False)
    share = ctx.rows.one(SHARE_OF, file_id=file["id"], email=email.lower())
    if share is None:
        raise NotFound(f"{file['id']} is not shared with {email}", error="not_shared")
    ctx.rows.delete(FilesShare, share["id"])
    return {"file_id": file["id"], "email": share["email"], "removed_role": share["role"]}
