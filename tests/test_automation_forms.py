"""The automation world's forms: forms and questions, publishing and closing, responses with their
answers (entered on someone's behalf, checked against the questions), triage and the summary."""

from __future__ import annotations

from support import episode_fixture, ok, refused, rows

GRACE = "grace.liu@lumenpine.example"

episode = episode_fixture("forms", "automation", "forms-tools", GRACE)


def test_forms_list_with_counts_and_look_alikes(episode):
    found = ok(episode, "forms_list_forms", {"query": "booth sign-up"})
    assert [
        (f["id"], f["status"], f["questions"], f["new_responses"], f["reviewed_responses"]) for f in found["rows"]
    ] == [
        ("FORM-003", "open", 5, 6, 1),
        ("FORM-004", "closed", 4, 1, 1),
    ]
    assert [f["id"] for f in ok(episode, "forms_list_forms", {"status": "archived"})["rows"]] == [
        "FORM-002",
        "FORM-006",
    ]
    form = ok(episode, "forms_get_form", {"form_id": "FORM-003"})
    assert [q["position"] for q in form["questions"]] == [1, 2, 3, 4, 5] and form["responses"] == 7
    assert form["questions"][4]["options"] == ["Yes", "No"] and form["questions"][4]["required"] is True
    refused(episode, "forms_get_form", {"form_id": "FORM-999"}, 404, "not_found")


def test_responses_come_with_their_answers_and_filters(episode):
    low = ok(episode, "forms_list_responses", {"form_id": "FORM-005", "status": "new", "submitted_after": "2026-09-10"})
    assert [r["respondent_email"] for r in low["rows"]] == [
        "luis@greenleaf.example",
        "amy@baysideliving.example",
        "elle@summitresorts.example",
        "karen@harborview.example",
    ]
    luis = low["rows"][0]["answers"]
    assert [(a["question_id"], a["value"]) for a in luis][:2] == [
        ("QST-0014", "Greenleaf Garden Centers"),
        ("QST-0015", "1"),
    ]
    one = ok(episode, "forms_get_response", {"response_id": "RESP-0029"})
    assert one["form_title"] == "Customer satisfaction survey - Q3 2026" and one["respondent_name"] == "Tess Moran"
    assert ok(episode, "forms_list_responses", {"respondent": "okafor"})["total"] == 1
    summary = ok(episode, "forms_summarize_responses", {"form_id": "FORM-005"})
    rating = summary["questions"][1]
    assert (summary["responses"], rating["answered"], rating["average"], rating["lowest"]) == (7, 7, 2.86, 1.0)
    assert summary["questions"][3]["counts"] == {"Yes": 6, "No": 1}
    assert ok(episode, "forms_summarize_responses", {"form_id": "FORM-005", "include_spam": True})["responses"] == 8


def test_triage_a_response(episode):
    reviewed = ok(episode, "forms_review_response", {"response_id": "RESP-0029", "note": "Ticket opened for Tess."})
    assert (reviewed["status"], reviewed["reviewed_by"], reviewed["reviewed_at"]) == (
        "reviewed",
        GRACE,
        "2026-09-14T09:00:00Z",
    )
    refused(episode, "forms_review_response", {"response_id": "RESP-0029"}, 409, "already_reviewed")
    assert ok(episode, "forms_review_response", {"response_id": "RESP-0024", "status": "spam"})["status"] == "spam"
    back = ok(episode, "forms_review_response", {"response_id": "RESP-0024", "status": "new"})
    assert (back["status"], back["reviewed_by"], back["review_note"]) == ("new", None, None)
    deleted = ok(episode, "forms_delete_response", {"response_id": "RESP-0024"})
    assert deleted == {"deleted": "RESP-0024", "form_id": "FORM-003"}
    assert rows(episode.path, "SELECT count(*) FROM forms_answers WHERE response_id = 'RESP-0024'") == [(0,)]


def test_submit_a_response_checked_against_the_questions(episode):
    answers = {"QST-0014": "Summit Resorts", "QST-0015": 4, "QST-0017": "yes"}
    submitted = ok(
        episode,
        "forms_submit_response",
        {"form_id": "FORM-005", "respondent_email": "Jonas@SummitResorts.example", "answers": answers},
    )
    assert (submitted["id"], submitted["respondent_email"], submitted["status"]) == (
        "RESP-0038",
        "jonas@summitresorts.example",
        "new",
    )
    assert [a["value"] for a in submitted["answers"]] == ["Summit Resorts", "4", "Yes"]  # the option as written
    nothing_written = lambda e: rows(e.path, "SELECT count(*) FROM forms_responses")  # noqa: E731
    for bad, error in [
        ({**answers, "QST-0015": 6}, "invalid_answer"),
        ({**answers, "QST-0017": "Maybe"}, "invalid_answer"),
        ({"QST-0014": "Summit Resorts", "QST-0017": "Yes"}, "missing_answer"),
        ({**answers, "QST-0001": "x"}, "unknown_question"),
    ]:
        args = {"form_id": "FORM-005", "respondent_email": "a@b.example", "answers": bad}
        refused(episode, "forms_submit_response", args, 400, error, nothing_written)
    multi = {
        "QST-0005": "Ana",
        "QST-0006": "ana@x.example",
        "QST-0008": ["Dining sets", "pool & lounge"],
        "QST-0009": "No",
    }
    entered = ok(
        episode, "forms_submit_response", {"form_id": "FORM-003", "respondent_email": "ana@x.example", "answers": multi}
    )
    assert entered["answers"][2]["value"] == "Pool & lounge; Dining sets"
    refused(
        episode,
        "forms_submit_response",
        {"form_id": "FORM-004", "respondent_email": "a@b.example", "answers": {}},
        409,
        "form_not_open",
    )


def test_build_publish_close_and_archive_a_form(episode):
    created = ok(
        episode,
        "forms_create_form",
        {
            "title": "Warranty claim",
            "closes_on": "2026-12-31",
            "questions": [
                {"prompt": "Order number", "kind": "short_text", "required": True},
                {"prompt": "What broke?", "kind": "single_choice", "options": ["Frame", "Fabric", "Hardware"]},
            ],
        },
    )
    assert (created["id"], created["status"], [q["id"] for q in created["questions"]]) == (
        "FORM-008",
        "draft",
        ["QST-0024", "QST-0025"],
    )
    refused(
        episode,
        "forms_add_question",
        {"form_id": "FORM-008", "prompt": "Pick", "kind": "single_choice", "options": ["Only one"]},
        400,
        "missing_options",
    )
    added = ok(episode, "forms_add_question", {"form_id": "FORM-008", "prompt": "Photo link", "kind": "short_text"})
    assert added["position"] == 3
    ok(episode, "forms_remove_question", {"question_id": "QST-0024"})
    assert [q["position"] for q in ok(episode, "forms_get_form", {"form_id": "FORM-008"})["questions"]] == [1, 2]
    assert ok(episode, "forms_publish_form", {"form_id": "FORM-008"})["status"] == "open"
    refused(episode, "forms_publish_form", {"form_id": "FORM-008"}, 409, "form_open")
    ok(episode, "forms_submit_response", {"form_id": "FORM-008", "respondent_email": "a@b.example", "answers": {}})
    refused(
        episode,
        "forms_add_question",
        {"form_id": "FORM-008", "prompt": "x", "kind": "number"},
        409,
        "form_has_responses",
    )
    reworded = ok(episode, "forms_update_question", {"question_id": "QST-0025", "prompt": "Which part broke?"})
    assert reworded["changed"] == ["prompt"]
    refused(episode, "forms_update_question", {"question_id": "QST-0025", "required": True}, 409, "form_has_responses")
    refused(episode, "forms_archive_form", {"form_id": "FORM-008"}, 409, "form_open")
    assert ok(episode, "forms_close_form", {"form_id": "FORM-008"})["status"] == "closed"
    assert ok(episode, "forms_archive_form", {"form_id": "FORM-008"})["status"] == "archived"
    refused(episode, "forms_update_form", {"form_id": "FORM-008", "title": "x"}, 409, "form_archived")
    empty = ok(episode, "forms_create_form", {"title": "Holiday party RSVP"})
    refused(episode, "forms_publish_form", {"form_id": empty["id"]}, 409, "no_questions")
    updated = ok(episode, "forms_update_form", {"form_id": "FORM-007", "closes_on": "2026-12-31"})
    assert updated["changed"] == ["closes_on"]
