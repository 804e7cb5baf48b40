"""The projects app of the automation world: projects and tasks listed, created, changed, completed,
assigned and commented; refusals write nothing."""

from __future__ import annotations

from functools import partial

import support
from support import episode_fixture, ok, rows

from simtenant.episode import Episode

ACTOR = "maya.patel@lumenpine.example"

episode = episode_fixture("projects", "automation", "projects-sweep", ACTOR)


def counts(episode: Episode) -> tuple:
    return rows(
        episode.path,
        "SELECT (SELECT group_concat(id || status || coalesce(assignee, '') || coalesce(due_date, ''))"
        " FROM prj_tasks),"
        " (SELECT count(*) FROM prj_comments),"
        " (SELECT group_concat(id || name || owner || status || coalesce(due_date, '')) FROM prj_projects)",
    )[0]


refused = partial(support.refused, state=counts)


def test_lists_projects_and_their_tasks(episode):
    catalogs = ok(episode, "prj_list_projects", {"name": "catalog launch"})
    assert [(p["name"], p["status"]) for p in catalogs["rows"]] == [
        ("Fall catalog launch", "active"),
        ("Spring catalog launch", "completed"),
    ]
    project = ok(episode, "prj_get_project", {"project_id": catalogs["rows"][0]["id"]})
    assert len(project["tasks"]) == 10 and sum(project["task_counts"].values()) == 10
    due = ok(episode, "prj_list_tasks", {"due_before": "2026-09-16", "open_only": True})
    assert all(t["status"] != "done" and t["due_date"] <= "2026-09-16" for t in due["rows"]) and due["total"] >= 3
    jade = ok(episode, "prj_list_tasks", {"assignee": "jade.kim@lumenpine.example", "status": "in_progress"})
    assert [t["due_date"] for t in jade["rows"]] == sorted(t["due_date"] for t in jade["rows"])
    task = ok(episode, "prj_get_task", {"task_id": jade["rows"][0]["id"]})
    assert task["project_name"] == "Fall catalog launch" and task["comments"]
    refused(episode, "prj_get_task", {"task_id": "TASK-9999"}, 404, "not_found")
    refused(episode, "prj_list_tasks", {"due_before": "next week"}, 400, "invalid_arguments")


def test_creates_changes_completes_and_assigns_tasks(episode):
    created = ok(
        episode,
        "prj_create_task",
        {
            "project_id": "PRJ-002",
            "title": "Book forklift rental for move week",
            "assignee": "Ben.Carter@lumenpine.example",
            "due_date": "2026-10-12",
            "priority": "high",
        },
    )
    assert (created["id"], created["status"], created["assignee"]) == (
        "TASK-0033",
        "todo",
        "ben.carter@lumenpine.example",
    )
    refused(episode, "prj_create_task", {"project_id": "PRJ-004", "title": "Late"}, 409, "project_completed")
    refused(
        episode,
        "prj_create_task",
        {"project_id": "PRJ-002", "title": "x", "due_date": "2026-02-30"},
        400,
        "invalid_value",
    )
    refused(
        episode,
        "prj_create_task",
        {"project_id": "PRJ-002", "title": "x", "assignee": "frank@redwoodtimber.example"},
        400,
        "not_an_employee",
    )
    updated = ok(
        episode, "prj_update_task", {"task_id": "TASK-0033", "status": "in_progress", "due_date": "2026-10-09"}
    )
    assert updated["changed"] == ["due_date", "status"] and updated["completed_at"] is None
    refused(episode, "prj_update_task", {"task_id": "TASK-0033"}, 400, "missing_field")
    done = ok(episode, "prj_complete_task", {"task_id": "TASK-0033"})
    assert (done["status"], done["completed_at"]) == ("done", "2026-09-14T09:00:00Z")
    refused(episode, "prj_complete_task", {"task_id": "TASK-0033"}, 409, "already_done")
    refused(
        episode,
        "prj_assign_task",
        {"task_id": "TASK-0033", "assignee": "sofia.rossi@lumenpine.example"},
        409,
        "task_done",
    )
    reopened = ok(episode, "prj_update_task", {"task_id": "TASK-0033", "status": "todo"})
    assert reopened["completed_at"] is None
    assigned = ok(episode, "prj_assign_task", {"task_id": "TASK-0010", "assignee": "sofia.rossi@lumenpine.example"})
    assert assigned["assignee"] == "sofia.rossi@lumenpine.example"


def test_comments_on_a_task(episode):
    comment = ok(episode, "prj_add_comment", {"task_id": "TASK-0007", "body": "Frank sent the Q4 prices today."})
    assert (comment["author"], comment["created_at"]) == (ACTOR, "2026-09-14T09:00:00Z")
    listed = ok(episode, "prj_list_comments", {"task_id": "TASK-0007"})
    assert [c["id"] for c in listed["comments"]][-1] == comment["id"] and len(listed["comments"]) == 2
    refused(episode, "prj_add_comment", {"task_id": "TASK-0007", "body": ""}, 400, "invalid_arguments")
    refused(episode, "prj_add_comment", {"task_id": "TASK-0999", "body": "x"}, 404, "not_found")


def test_a_project_changes_hands(episode):
    handed = ok(episode, "prj_update_project", {"project_id": "PRJ-001", "owner": "Dana.Reyes@lumenpine.example"})
    assert (handed["owner"], handed["changed"]) == ("dana.reyes@lumenpine.example", ["owner"])
    assert ok(episode, "prj_get_project", {"project_id": "PRJ-001"})["owner"] == "dana.reyes@lumenpine.example"
    refused(episode, "prj_update_project", {"project_id": "PRJ-001", "owner": "karen@harborview.example"}, 400,
            "not_an_employee")  # fmt: skip
    refused(episode, "prj_update_project", {"project_id": "PRJ-001"}, 400, "missing_field")
    refused(episode, "prj_update_project", {"project_id": "PRJ-999", "status": "on_hold"}, 404, "not_found")
