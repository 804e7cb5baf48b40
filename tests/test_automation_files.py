"""The automation world's drive: folders, files and their versions, and sharing, with the confidential
folders' rules (seen only by those concerned, never shared outside the company) enforced."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

HANNAH = "hannah.moore@lumenpine.example"
BEN = "ben.carter@lumenpine.example"
ETHAN = "ethan.park@lumenpine.example"
MARCUS = "marcus.webb@lumenpine.example"

episode = episode_fixture("files", "automation", "files-tools", HANNAH)


def shares(episode, file_id):
    return rows(episode.path, "SELECT email, role FROM files_shares WHERE file_id = ? ORDER BY email", file_id)


def test_search_finds_live_and_archived_look_alikes_and_hides_confidential_files(episode):
    found = ok(episode, "files_search_files", {"query": "2025 balance sheet"})
    assert [(r["id"], r["status"]) for r in found["rows"]] == [("FILE-0018", "archived"), ("FILE-0017", "active")]
    assert "content" not in found["rows"][0] and found["rows"][0]["folder_name"] == "Year-end 2025"
    assert ok(episode, "files_search_files", {"query": "payroll register"})["total"] == 1  # Hannah's folder
    # Marcus sees ordinary folders only: the payroll register and the HR templates are not his
    assert ok(episode, "files_search_files", {"query": "payroll register"}, actor=MARCUS)["total"] == 0
    refused(episode, "files_get_file", {"file_id": "FILE-0020"}, 404, "not_found", actor=MARCUS)
    templates = ok(episode, "files_search_files", {"folder_id": "FLD-007"}, actor=ETHAN)  # shared with Ethan
    assert [r["id"] for r in templates["rows"]] == ["FILE-0013", "FILE-0014"]
    assert ok(episode, "files_search_files", {"status": "archived", "folder_id": "FLD-005"})["total"] == 1
    assert [
        r["id"] for r in ok(episode, "files_search_files", {"shared_with": "Dana.Reyes@lumenpine.example"})["rows"]
    ] == ["FILE-0016"]


def test_get_file_gives_content_path_access_and_shares(episode):
    file = ok(episode, "files_get_file", {"file_id": "FILE-0027"}, actor=BEN)
    assert file["folder"] == {"id": "FLD-016", "path": "Operations / Warehouse SOPs", "restricted": False}
    assert file["your_access"] == "owner" and file["version"] == 4 and "homepage" in file["content"]
    assert [(s["email"], s["role"]) for s in file["shared_with"]] == [
        ("lucas.schmidt@lumenpine.example", "editor"),
        ("rafael.ortiz@lumenpine.example", "commenter"),
    ]
    assert ok(episode, "files_get_file", {"file_id": "FILE-0027"}, actor=MARCUS)["your_access"] == "viewer"
    folders = ok(episode, "files_list_folders", {"parent_id": "FLD-009"})
    assert [(f["name"], f["restricted"], f["file_count"]) for f in folders["rows"]] == [
        ("Payroll", True, 1),
        ("Year-end 2024", False, 1),
        ("Year-end 2025", False, 4),
    ]


def test_edit_keeps_the_old_text_as_a_version_and_restore_brings_one_back(episode):
    history = ok(episode, "files_list_versions", {"file_id": "FILE-0027"}, actor=BEN)
    assert [v["version"] for v in history["versions"]] == [3, 2, 1] and history["current"]["version"] == 4
    restored = ok(episode, "files_restore_version", {"file_id": "FILE-0027", "version": 3}, actor=BEN)
    assert (restored["version"], restored["restored_from"], restored["updated_by"]) == (5, 3, BEN)
    content = rows(episode.path, "SELECT content FROM files_files WHERE id = 'FILE-0027'")[0][0]
    assert content.startswith("Forklift safety SOP") and "every 3 years" in content
    kept = rows(
        episode.path, "SELECT content, saved_by FROM files_versions WHERE file_id = 'FILE-0027' AND version = 4"
    )
    assert "homepage" in kept[0][0] and kept[0][1] == "lucas.schmidt@lumenpine.example"
    refused(episode, "files_restore_version", {"file_id": "FILE-0027", "version": 5}, 409, "current_version", actor=BEN)
    refused(episode, "files_restore_version", {"file_id": "FILE-0027", "version": 9}, 404, "no_such_version", actor=BEN)
    # Rafael may comment, not edit; Marcus only reads
    refused(
        episode,
        "files_restore_version",
        {"file_id": "FILE-0027", "version": 2},
        403,
        "no_edit_access",
        actor="rafael.ortiz@lumenpine.example",
    )
    refused(episode, "files_edit_file", {"file_id": "FILE-0027", "content": "x"}, 403, "no_edit_access", actor=MARCUS)
    edited = ok(episode, "files_edit_file", {"file_id": "FILE-0027", "name": "Forklift safety SOP (Tacoma)"}, actor=BEN)
    assert edited["changed"] == ["name"] and edited["version"] == 5
    refused(episode, "files_edit_file", {"file_id": "FILE-0018", "content": "x"}, 409, "file_archived", actor=HANNAH)
    refused(episode, "files_edit_file", {"file_id": "FILE-0017"}, 400, "missing_field")


def test_copy_a_template_into_a_confidential_folder_and_keep_it_there(episode):
    copy = ok(
        episode,
        "files_copy_file",
        {"file_id": "FILE-0013", "name": "Offer letter - Kofi Asante", "folder_id": "FLD-008"},
        actor=ETHAN,
    )
    assert (copy["id"], copy["owner"], copy["folder_id"], copy["version"]) == ("FILE-0033", ETHAN, "FLD-008", 1)
    assert "{{candidate_name}}" in ok(episode, "files_get_file", {"file_id": "FILE-0033"}, actor=ETHAN)["content"]
    refused(
        episode,
        "files_copy_file",
        {"file_id": "FILE-0013", "name": "Offer letter - Kofi Asante", "folder_id": "FLD-008"},
        409,
        "duplicate_name",
        actor=ETHAN,
    )
    # a confidential file does not leave its folders: not copied nor moved to an ordinary one
    before = lambda e: rows(e.path, "SELECT id, folder_id FROM files_files ORDER BY id")  # noqa: E731
    refused(
        episode,
        "files_copy_file",
        {"file_id": "FILE-0013", "name": "x", "folder_id": "FLD-003"},
        403,
        "confidential_folder",
        before,
        actor=ETHAN,
    )
    refused(
        episode,
        "files_move_file",
        {"file_id": "FILE-0033", "folder_id": "FLD-003"},
        403,
        "confidential_folder",
        before,
        actor=ETHAN,
    )
    moved = ok(episode, "files_move_file", {"file_id": "FILE-0033", "folder_id": "FLD-007"}, actor=ETHAN)
    assert moved["folder_id"] == "FLD-007"
    created = ok(
        episode,
        "files_create_file",
        {"folder_id": "FLD-010", "name": "Audit checklist", "content": "1. PBC list"},
        actor=HANNAH,
    )
    assert (created["id"], created["owner"]) == ("FILE-0034", HANNAH)
    refused(
        episode,
        "files_create_file",
        {"folder_id": "FLD-010", "name": "audit checklist", "content": "y"},
        409,
        "duplicate_name",
    )


def test_sharing_rules_outside_the_company(episode):
    share = ok(episode, "files_share_file", {"file_id": "FILE-0016", "email": "Mo@BrightlineAudit.example"})
    assert (share["id"], share["email"], share["role"], share["shared_by"]) == (
        "SHARE-0015",
        "mo@brightlineaudit.example",
        "viewer",
        HANNAH,
    )
    before = lambda e: shares(e, "FILE-0020")  # noqa: E731
    refused(
        episode,
        "files_share_file",
        {"file_id": "FILE-0020", "email": "mo@brightlineaudit.example"},
        403,
        "confidential_folder",
        before,
    )
    refused(
        episode,
        "files_share_file",
        {"file_id": "FILE-0017", "email": "mo@brightlineaudit.example", "role": "editor"},
        403,
        "external_editor",
        lambda e: shares(e, "FILE-0017"),
    )
    refused(
        episode,
        "files_share_file",
        {"file_id": "FILE-0016", "email": "mo@brightlineaudit.example"},
        409,
        "already_shared",
    )
    changed = ok(
        episode,
        "files_share_file",
        {"file_id": "FILE-0016", "email": "mo@brightlineaudit.example", "role": "commenter"},
    )
    assert changed["changed"] == ["role"] and shares(episode, "FILE-0016")[1] == (
        "mo@brightlineaudit.example",
        "commenter",
    )
    # inside the company: a current employee only, and not the owner
    refused(
        episode,
        "files_share_file",
        {"file_id": "FILE-0017", "email": "tom.baker@lumenpine.example"},
        400,
        "not_an_employee",
    )
    refused(episode, "files_share_file", {"file_id": "FILE-0017", "email": HANNAH}, 409, "is_owner")
    assert (
        ok(episode, "files_share_file", {"file_id": "FILE-0020", "email": "dana.reyes@lumenpine.example"})["role"]
        == "viewer"
    )
    refused(episode, "files_share_file", {"file_id": "FILE-0011", "email": "x@y.example"}, 403, "no_edit_access")
    removed = ok(episode, "files_unshare_file", {"file_id": "FILE-0016", "email": "mo@brightlineaudit.example"})
    assert removed["removed_role"] == "commenter"
    refused(
        episode,
        "files_unshare_file",
        {"file_id": "FILE-0016", "email": "mo@brightlineaudit.example"},
        404,
        "not_shared",
    )


def test_archive_trash_and_restore(episode):
    assert ok(episode, "files_archive_file", {"file_id": "FILE-0019"})["status"] == "archived"
    refused(episode, "files_archive_file", {"file_id": "FILE-0019"}, 409, "file_archived")
    assert ok(episode, "files_trash_file", {"file_id": "FILE-0019"})["status"] == "trashed"
    assert ok(episode, "files_search_files", {"folder_id": "FLD-010"})["total"] == 3  # the trash is left out
    refused(
        episode,
        "files_share_file",
        {"file_id": "FILE-0019", "email": "dana.reyes@lumenpine.example"},
        409,
        "file_trashed",
    )
    assert ok(episode, "files_restore_file", {"file_id": "FILE-0019"})["status"] == "active"
    refused(episode, "files_restore_file", {"file_id": "FILE-0019"}, 409, "file_active")
    folder = ok(episode, "files_create_folder", {"name": "Audit 2025", "parent_id": "FLD-011"})
    assert (folder["id"], folder["restricted"], folder["owner"]) == ("FLD-020", True, HANNAH)
    refused(episode, "files_create_folder", {"name": "audit 2025", "parent_id": "FLD-011"}, 409, "duplicate_name")
    assert ok(episode, "files_create_folder", {"name": "Board packs"})["parent_id"] is None
