"""Forms tools: forms (surveys, sign-up and request forms) and their questions, publishing and closing
them, the responses people submitted with their answers, entering a response on someone's behalf,
triaging responses (reviewed or spam), deleting one, and a summary of the answers.

A form's questions can change only while it has no responses (the wording of a prompt aside), and
only an open form takes responses, each checked against its questions."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, or_, select

from ...errors import Conflict, InvalidArgument
from ...schema.automation.forms import (
    CHOICE_KINDS,
    FORM_STATUSES,
    QUESTION_KINDS,
    RESPONSE_STATUSES,
    FormsAnswer,
    FormsForm,
    FormsQuestion,
    FormsResponse,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Row, Statement, contains, one_of
from .common import Email, Page, PerPage, me

SERVICE = "automation.forms"

FormId = Annotated[str, Field(description="A form id, e.g. FORM-003")]
QuestionId = Annotated[str, Field(description="A question id, e.g. QST-0012")]
ResponseId = Annotated[str, Field(description="A response id, e.g. RESP-0031")]
FormStatus = Literal[FORM_STATUSES]  # type: ignore[valid-type]
Kind = Literal[QUESTION_KINDS]  # type: ignore[valid-type]
ResponseStatus = Literal[RESPONSE_STATUSES]  # type: ignore[valid-type]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
Options = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
    Field(description="The choices of a single_choice or multiple_choice question, in order"),
]
Prompt = Annotated[Text, Field(max_length=500, description="The question as respondents read it")]


class NewQuestion(BaseModel):
    """A question of a new form."""

    model_config = ConfigDict(extra="forbid", strict=True)

    prompt: Prompt
    kind: Annotated[
        Kind,
        Field(
            description="short_text, long_text, single_choice, multiple_choice, number, date, email or rating (1 to 5)"
        ),
    ]
    options: Options = None
    required: Annotated[bool, Field(description="Whether every response must answer it")] = False


_FORMS, _QUESTIONS = FormsForm.__table__, FormsQuestion.__table__
_RESPONSES, _ANSWERS = FormsResponse.__table__, FormsAnswer.__table__


def _responses_in(status: str) -> Any:
    return (
        select(func.count())
        .where(_RESPONSES.c.form_id == _FORMS.c.id, _RESPONSES.c.status == status)
        .scalar_subquery()
        .label(f"{status}_responses")
    )


FORMS = Filtered(
    select(
        _FORMS,
        select(func.count()).where(_QUESTIONS.c.form_id == _FORMS.c.id).scalar_subquery().label("questions"),
        *(_responses_in(status) for status in RESPONSE_STATUSES),
    ),
    (_FORMS.c.created_at.desc(), _FORMS.c.id.desc()),
    query=or_(contains(_FORMS.c.title, "query"), contains(func.coalesce(_FORMS.c.description, ""), "query")),
    status=_FORMS.c.status == bindparam("status"),
    owner=_FORMS.c.owner == bindparam("owner"),
)
RESPONSES = Filtered(
    select(_RESPONSES),
    (_RESPONSES.c.submitted_at, _RESPONSES.c.id),
    form_id=_RESPONSES.c.form_id == bindparam("form_id"),
    status=_RESPONSES.c.status == bindparam("status"),
    respondent=or_(
        contains(_RESPONSES.c.respondent_email, "respondent"),
        contains(func.coalesce(_RESPONSES.c.respondent_name, ""), "respondent"),
    ),
    submitted_after=_RESPONSES.c.submitted_at >= bindparam("submitted_after"),
    submitted_before=_RESPONSES.c.submitted_at < bindparam("submitted_before"),
)
ANSWERS = Statement.of(
    select(_ANSWERS.c.response_id, _ANSWERS.c.question_id, _QUESTIONS.c.prompt, _ANSWERS.c.value)
    .select_from(_ANSWERS.join(_QUESTIONS, _ANSWERS.c.question_id == _QUESTIONS.c.id))
    .where(one_of(_ANSWERS.c.response_id, "response_ids"))
    .order_by(_ANSWERS.c.response_id, _QUESTIONS.c.position, _QUESTIONS.c.id)
)
LAST_POSITION = Statement.of(
    select(func.coalesce(func.max(_QUESTIONS.c.position), 0).label("last")).where(
        _QUESTIONS.c.form_id == bindparam("form_id")
    )
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _form(ctx: ToolContext, form_id: str) -> Row:
    return ctx.rows.need(FormsForm, form_id, "form")


def _questions(ctx: ToolContext, form_id: str) -> list[Row]:
    return ctx.rows.find(FormsQuestion, ("position", "id"), form_id=form_id)


def _shown(question: Row) -> Row:
    return {**question, "options": None if question["options"] is None else json.loads(question["options"])}


def _day(value: str | None, field: str) -> str | None:
    if value is not None:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise InvalidArgument(f"{field}: {value!r} is not a valid date", error="invalid_value") from None
    return value


def _options(kind: str, options: list[str] | None) -> str | None:
    """A question's options as stored: a JSON list for a choice question (two or more, no repeats), else none."""
    if kind in CHOICE_KINDS:
        if not options or len(options) < 2:
            raise InvalidArgument(f"a {kind} question needs at least two options", error="missing_options")
        if len({o.strip().lower() for o in options}) != len(options):
            raise InvalidArgument("a question's options must differ", error="duplicate_options")
        return json.dumps([o.strip() for o in options], ensure_ascii=False)
    if options:
        raise InvalidArgument(f"a {kind} question has no options", error="unexpected_options")
    return None


def _unanswered(ctx: ToolContext, form: Row) -> None:
    """A form's questions change only while nobody has answered it."""
    if form["status"] == "archived":
        raise Conflict(f"form {form['id']} is archived", error="form_archived")
    responses = ctx.rows.count(FormsResponse, form_id=form["id"])
    if responses:
        raise Conflict(
            f"form {form['id']} has {responses} responses: its questions can no longer change (reword a prompt only)",
            error="form_has_responses",
        )


def _touch(ctx: ToolContext, form: Row) -> None:
    ctx.rows.change(FormsForm, form, {"updated_at": ctx.timestamp})


def _with_answers(ctx: ToolContext, responses: list[Row]) -> list[Row]:
    answers = ctx.rows.all(ANSWERS, response_ids=[r["id"] for r in responses])
    by_response: dict[str, list[Row]] = {}
    for answer in answers:
        by_response.setdefault(answer.pop("response_id"), []).append(answer)
    return [{**r, "answers": by_response.get(r["id"], [])} for r in responses]


def _insert_question(ctx: ToolContext, form: Row, question: NewQuestion, position: int) -> Row:
    row = {
        "id": ctx.rows.next_id(FormsQuestion),
        "form_id": form["id"],
        "position": position,
        "prompt": question.prompt,
        "kind": question.kind,
        "options": _options(question.kind, question.options),
        "required": question.required,
    }
    ctx.rows.insert(FormsQuestion, row)
    return row


# --- forms ----------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/forms")
def forms_list_forms(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Text in the form's title or description")] = None,
    status: Annotated[
        FormStatus | None, Field(description="Only forms in this status: draft, open, closed, archived")
    ] = None,
    owner: Annotated[Email | None, Field(description="Only forms this person owns")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """List or search forms and surveys (newest first) by title, status or owner, with how many
    questions and new, reviewed and spam responses each has."""
    return ctx.rows.page(FORMS, page, per_page, query=query, status=status, owner=owner.lower() if owner else None)


@tool(SERVICE, "GET", "/forms/{form_id}")
def forms_get_form(ctx: ToolContext, form_id: FormId) -> dict[str, Any]:
    """Get one form with its questions in order (ids, kinds, choices, required)."""
    form = _form(ctx, form_id)
    return {
        **form,
        "questions": [_shown(q) for q in _questions(ctx, form["id"])],
        "responses": ctx.rows.count(FormsResponse, form_id=form["id"]),
    }


@tool(SERVICE, "POST", "/forms")
def forms_create_form(
    ctx: ToolContext,
    title: Annotated[Text, Field(max_length=200, description="The form's title")],
    questions: Annotated[
        list[NewQuestion], Field(description="Its questions, in order (more can be added later)")
    ] = [],  # noqa: B006
    description: Annotated[str | None, Field(description="Text shown above the questions")] = None,
    closes_on: Annotated[Day | None, Field(description="Last day it takes responses, YYYY-MM-DD")] = None,
) -> dict[str, Any]:
    """Create a new form or survey (a draft, owned by you) with its questions; publish it to collect responses."""
    form = {
        "id": ctx.rows.next_id(FormsForm),
        "title": title,
        "description": description,
        "owner": me(ctx),
        "status": "draft",
        "closes_on": _day(closes_on, "closes_on"),
        "created_at": ctx.timestamp,
        "updated_at": ctx.timestamp,
    }
    ctx.rows.insert(FormsForm, form)
    added = [_insert_question(ctx, form, q, position) for position, q in enumerate(questions, start=1)]
    return {**form, "questions": [_shown(q) for q in added]}


@tool(SERVICE, "PATCH", "/forms/{form_id}")
def forms_update_form(
    ctx: ToolContext,
    form_id: FormId,
    title: Annotated[Text | None, Field(max_length=200, description="A new title")] = None,
    description: Annotated[Text | None, Field(description="A new description")] = None,
    closes_on: Annotated[Day | None, Field(description="A new last day for responses, YYYY-MM-DD")] = None,
) -> dict[str, Any]:
    """Change a form's title, description or closing date (not an archived form)."""
    form = _form(ctx, form_id)
    if form["status"] == "archived":
        raise Conflict(f"form {form['id']} is archived", error="form_archived")
    values = {"title": title, "description": description, "closes_on": _day(closes_on, "closes_on")}
    if all(v is None for v in values.values()):
        raise InvalidArgument("give at least one field to change", error="missing_field")
    changed = [k for k, v in values.items() if v is not None and form[k] != v]
    if changed:
        ctx.rows.change(FormsForm, form, {**{k: values[k] for k in changed}, "updated_at": ctx.timestamp})
    return {**form, "changed": changed}


@tool(SERVICE, "POST", "/forms/{form_id}/questions")
def forms_add_question(
    ctx: ToolContext,
    form_id: FormId,
    prompt: Prompt,
    kind: Annotated[
        Kind,
        Field(description="short_text, long_text, single_choice, multiple_choice, number, date, email or rating"),
    ],
    options: Options = None,
    required: Annotated[bool, Field(description="Whether every response must answer it")] = False,
) -> dict[str, Any]:
    """Add a question at the end of a form that has no responses yet."""
    form = _form(ctx, form_id)
    _unanswered(ctx, form)
    position = ctx.rows.value(LAST_POSITION, form_id=form["id"]) + 1
    question = NewQuestion(prompt=prompt, kind=kind, options=options, required=required)
    row = _insert_question(ctx, form, question, position)
    _touch(ctx, form)
    return _shown(row)


@tool(SERVICE, "PATCH", "/forms/questions/{question_id}")
def forms_update_question(
    ctx: ToolContext,
    question_id: QuestionId,
    prompt: Annotated[Prompt | None, Field(description="New wording of the question")] = None,
    options: Options = None,
    required: Annotated[bool | None, Field(description="Whether every response must answer it")] = None,
) -> dict[str, Any]:
    """Edit a question: reword its prompt (any time), or change its choices or whether it is required
    (only while the form has no responses)."""
    question = ctx.rows.need(FormsQuestion, question_id, "question")
    form = _form(ctx, question["form_id"])
    if prompt is None and options is None and required is None:
        raise InvalidArgument("give at least one field to change", error="missing_field")
    if form["status"] == "archived":
        raise Conflict(f"form {form['id']} is archived", error="form_archived")
    values: dict[str, Any] = {"prompt": prompt}
    if options is not None or required is not None:
        _unanswered(ctx, form)
        values["options"] = None if options is None else _options(question["kind"], options)
        values["required"] = required
    changed = ctx.rows.change(FormsQuestion, question, {k: v for k, v in values.items() if v is not None})
    if changed:
        _touch(ctx, form)
    return {**_shown(question), "changed": changed}


@tool(SERVICE, "DELETE", "/forms/questions/{question_id}")
def forms_remove_question(ctx: ToolContext, question_id: QuestionId) -> dict[str, Any]:
    """Remove (delete) a question from a form that has no responses yet; the questions after it move up."""
    question = ctx.rows.need(FormsQuestion, question_id, "question")
    form = _form(ctx, question["form_id"])
    _unanswered(ctx, form)
    ctx.rows.delete(FormsQuestion, question["id"])
    for later in _questions(ctx, form["id"]):
        if later["position"] > question["position"]:
            ctx.rows.change(FormsQuestion, later, {"position": later["position"] - 1})
    _touch(ctx, form)
    return {"removed": question["id"], "form_id": form["id"]}


@tool(SERVICE, "POST", "/forms/{form_id}/publish")
def forms_publish_form(ctx: ToolContext, form_id: FormId) -> dict[str, Any]:
    """Publish (open, reopen) a draft or closed form so it takes responses; it needs a question, and a
    closing date, if it has one, still ahead."""
    form = _form(ctx, form_id)
    if form["status"] in ("open", "archived"):
        raise Conflict(f"form {form['id']} is {form['status']}", error=f"form_{form['status']}")
    if not ctx.rows.count(FormsQuestion, form_id=form["id"]):
        raise Conflict(f"form {form['id']} has no questions", error="no_questions")
    if form["closes_on"] is not None and form["closes_on"] < ctx.timestamp[:10]:
        raise Conflict(
            f"form {form['id']} closed on {form['closes_on']}: set a later closing date first",
            error="closing_date_past",
        )
    ctx.rows.change(FormsForm, form, {"status": "open", "updated_at": ctx.timestamp})
    return form


@tool(SERVICE, "POST", "/forms/{form_id}/close")
def forms_close_form(ctx: ToolContext, form_id: FormId) -> dict[str, Any]:
    """Close an open form: it stops taking responses (they stay)."""
    form = _form(ctx, form_id)
    if form["status"] != "open":
        raise Conflict(f"form {form['id']} is {form['status']}, not open", error="form_not_open")
    ctx.rows.change(FormsForm, form, {"status": "closed", "updated_at": ctx.timestamp})
    return form


@tool(SERVICE, "POST", "/forms/{form_id}/archive")
def forms_archive_form(ctx: ToolContext, form_id: FormId) -> dict[str, Any]:
    """Archive a form that is not open (close it first): kept as it is, with its responses, it no longer changes."""
    form = _form(ctx, form_id)
    if form["status"] in ("open", "archived"):
        raise Conflict(f"form {form['id']} is {form['status']}", error=f"form_{form['status']}")
    ctx.rows.change(FormsForm, form, {"status": "archived", "updated_at": ctx.timestamp})
    return form


# --- responses ------------------------------------------------------------------------------------


@tool(SERVICE, "GET", "/forms/responses")
def forms_list_responses(
    ctx: ToolContext,
    form_id: Annotated[str | None, Field(description="Only responses to this form id")] = None,
    status: Annotated[
        ResponseStatus | None, Field(description="Only responses in this status: new, reviewed or spam")
    ] = None,
    respondent: Annotated[str | None, Field(description="Text in the respondent's email or name")] = None,
    submitted_after: Annotated[Day | None, Field(description="Only responses submitted on or after this date")] = None,
    submitted_before: Annotated[Day | None, Field(description="Only responses submitted before this date")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> dict[str, Any]:
    """Read the responses (submissions, entries) to a form or survey, oldest first, each with its
    answers; filter by status, respondent or date."""
    if form_id is not None:
        _form(ctx, form_id)
    found = ctx.rows.page(
        RESPONSES,
        page,
        per_page,
        form_id=form_id,
        status=status,
        respondent=respondent,
        submitted_after=_day(submitted_after, "submitted_after"),
        submitted_before=_day(submitted_before, "submitted_before"),
    )
    return {**found, "rows": _with_answers(ctx, found["rows"])}


@tool(SERVICE, "GET", "/forms/responses/{response_id}")
def forms_get_response(ctx: ToolContext, response_id: ResponseId) -> dict[str, Any]:
    """Get one response with its answers to each question, and the form's title."""
    response = ctx.rows.need(FormsResponse, response_id, "response")
    (shown,) = _with_answers(ctx, [response])
    return {**shown, "form_title": _form(ctx, response["form_id"])["title"]}


def _answer(question: Row, value: Any) -> str:
    """An answer as stored, checked against its question (a 400 naming the question otherwise)."""
    kind, qid = question["kind"], question["id"]

    def bad(reason: str) -> InvalidArgument:
        return InvalidArgument(f"{qid} ({question['prompt']}): {reason}", error="invalid_answer")

    if kind in CHOICE_KINDS:
        options = json.loads(question["options"])
        chosen = value if isinstance(value, list) else [value]
        if kind == "single_choice" and len(chosen) != 1:
            raise bad("choose exactly one option")
        by_text = {o.lower(): o for o in options}
        picked = []
        for choice in chosen:
            if not isinstance(choice, str) or choice.strip().lower() not in by_text:
                raise bad(f"{choice!r} is not one of its options {options}")
            picked.append(by_text[choice.strip().lower()])
        return "; ".join(o for o in options if o in picked)
    if kind == "rating":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            raise bad("a rating is a whole number from 1 to 5")
        return str(value)
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad("give a number")
        return str(int(value)) if float(value).is_integer() else str(value)
    if not isinstance(value, str) or not value.strip():
        raise bad("give a text")
    text = value.strip()
    if kind == "date":
        _day(text, qid)
    if kind == "email" and not _EMAIL.match(text):
        raise bad(f"{text!r} is not an email address")
    return text


@tool(SERVICE, "POST", "/forms/{form_id}/responses")
def forms_submit_response(
    ctx: ToolContext,
    form_id: FormId,
    respondent_email: Annotated[Email, Field(description="The email of the person answering")],
    answers: Annotated[
        dict[str, str | int | float | list[str]],
        Field(
            description='Answers keyed by question id, e.g. {"QST-0001": "Jane Doe", "QST-0002": 4}; a multiple '
            "choice answer is a list of options"
        ),
    ],
    respondent_name: Annotated[str | None, Field(description="The person's name")] = None,
) -> dict[str, Any]:
    """Submit (enter) a response to an open form on someone's behalf, e.g. answers given by phone or on paper."""
    form = _form(ctx, form_id)
    if form["status"] != "open":
        raise Conflict(f"form {form['id']} is {form['status']}: it takes no responses", error="form_not_open")
    if form["closes_on"] is not None and form["closes_on"] < ctx.timestamp[:10]:
        raise Conflict(f"form {form['id']} closed on {form['closes_on']}", error="form_not_open")
    questions = {q["id"]: q for q in _questions(ctx, form["id"])}
    unknown = sorted(set(answers) - set(questions))
    if unknown:
        raise InvalidArgument(f"form {form['id']} has no question {', '.join(unknown)}", error="unknown_question")
    missing = [q for q in questions.values() if q["required"] and q["id"] not in answers]
    if missing:
        names = ", ".join(f"{q['id']} ({q['prompt']})" for q in missing)
        raise InvalidArgument(f"required questions not answered: {names}", error="missing_answer")
    values = {qid: _answer(questions[qid], answers[qid]) for qid in questions if qid in answers}
    response = {
        "id": ctx.rows.next_id(FormsResponse),
        "form_id": form["id"],
        "respondent_email": respondent_email.lower(),
        "respondent_name": respondent_name,
        "submitted_at": ctx.timestamp,
        "status": "new",
        "review_note": None,
        "reviewed_by": None,
        "reviewed_at": None,
    }
    ctx.rows.insert(FormsResponse, response)
    for qid, value in values.items():
        answer = {
            "id": ctx.rows.next_id(FormsAnswer),
            "response_id": response["id"],
            "question_id": qid,
            "value": value,
        }
        ctx.rows.insert(FormsAnswer, answer)
    (shown,) = _with_answers(ctx, [response])
    return shown


@tool(SERVICE, "POST", "/forms/responses/{response_id}/review")
def forms_review_response(
    ctx: ToolContext,
    response_id: ResponseId,
    status: Annotated[
        Literal["reviewed", "spam", "new"],
        Field(description="reviewed (handled, processed), spam (junk, ignore it) or new (back to the queue)"),
    ] = "reviewed",
    note: Annotated[Text | None, Field(description="A note on what was done with it")] = None,
) -> dict[str, Any]:
    """Triage a form response: mark it reviewed (processed, handled) or spam, with an optional note, or back to new."""
    response = ctx.rows.need(FormsResponse, response_id, "response")
    if response["status"] == status:
        raise Conflict(f"response {response['id']} is {status} already", error=f"already_{status}")
    reviewed = status != "new"
    ctx.rows.change(
        FormsResponse,
        response,
        {
            "status": status,
            "review_note": note if reviewed else None,
            "reviewed_by": me(ctx) if reviewed else None,
            "reviewed_at": ctx.timestamp if reviewed else None,
        },
    )
    return response


@tool(SERVICE, "DELETE", "/forms/responses/{response_id}")
def forms_delete_response(ctx: ToolContext, response_id: ResponseId) -> dict[str, Any]:
    """Delete a response and its answers entirely (e.g. a data-deletion request; to ignore junk, mark it spam)."""
    response = ctx.rows.need(FormsResponse, response_id, "response")
    for answer in ctx.rows.find(FormsAnswer, ("id",), response_id=response["id"]):
        ctx.rows.delete(FormsAnswer, answer["id"])
    ctx.rows.delete(FormsResponse, response["id"])
    return {"deleted": response["id"], "form_id": response["form_id"]}


@tool(SERVICE, "GET", "/forms/{form_id}/summary")
def forms_summarize_responses(
    ctx: ToolContext,
    form_id: FormId,
    include_spam: Annotated[bool, Field(description="Count responses marked spam too")] = False,
) -> dict[str, Any]:
    """Summarize a form's or survey's results (a tally): per question, how many answered, each choice's
    count, and a rating's or number's average, lowest and highest (spam left out)."""
    form = _form(ctx, form_id)
    responses = [
        r for r in ctx.rows.find(FormsResponse, ("id",), form_id=form["id"]) if include_spam or r["status"] != "spam"
    ]
    answers = ctx.rows.all(ANSWERS, response_ids=[r["id"] for r in responses])
    summary = []
    for question in _questions(ctx, form["id"]):
        values = [a["value"] for a in answers if a["question_id"] == question["id"]]
        item: dict[str, Any] = {"question_id": question["id"], "prompt": question["prompt"], "answered": len(values)}
        if question["kind"] in CHOICE_KINDS:
            chosen = [c for v in values for c in v.split("; ")]
            item["counts"] = {o: chosen.count(o) for o in json.loads(question["options"])}
        elif question["kind"] in ("rating", "number") and values:
            numbers = [float(v) for v in values]
            item.update(average=round(sum(numbers) / len(numbers), 2), lowest=min(numbers), highest=max(numbers))
        summary.append(item)
    return {"form_id": form["id"], "title": form["title"], "responses": len(responses), "questions": summary}
