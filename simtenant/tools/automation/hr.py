"""HR: employees (onboarding, title/department/manager changes, offboarding) and their time-off
requests (pending -> approved or denied) with each employee's vacation balance."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, literal, or_, select

from ...errors import Conflict, Forbidden, InvalidArgument
from ...schema.automation.hr import (
    DEPARTMENTS,
    EMPLOYEE_STATUSES,
    TIME_OFF_KINDS,
    TIME_OFF_STATUSES,
    HrEmployee,
    HrTimeOff,
)
from ..engine.dispatch import ToolContext
from ..engine.registry import Text, tool
from ..engine.rows import Filtered, Pages, Row, Statement, contains
from .common import Email, Page, PerPage, me, update_given

SERVICE = "automation.hr"
EmployeeId = Annotated[str, Field(description="The employee id, e.g. EMP-007")]
RequestId = Annotated[str, Field(description="The time-off request id, e.g. PTO-0012")]
Department = Literal[DEPARTMENTS]  # type: ignore[valid-type]
EmployeeStatus = Literal[EMPLOYEE_STATUSES]  # type: ignore[valid-type]
TimeOffKind = Literal[TIME_OFF_KINDS]  # type: ignore[valid-type]
TimeOffStatus = Literal[TIME_OFF_STATUSES]  # type: ignore[valid-type]
DateText = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD")]
SICK_DAYS = 10  # paid sick days a year; parental leave is not counted against an allowance

_EMPLOYEES, _TIME_OFF = HrEmployee.__table__, HrTimeOff.__table__
BY_EMAIL = Statement.of(
    select(_EMPLOYEES).where(func.lower(_EMPLOYEES.c.email) == bindparam("email")).order_by(_EMPLOYEES.c.id).limit(1)
)
REPORTS = Statement.of(
    select(_EMPLOYEES.c.id)
    .where(_EMPLOYEES.c.manager_id == bindparam("manager_id"), _EMPLOYEES.c.status != "terminated")
    .order_by(_EMPLOYEES.c.id)
)
USED = Statement.of(
    select(func.coalesce(func.sum(_TIME_OFF.c.days), 0).label("days")).where(
        _TIME_OFF.c.employee_id == bindparam("employee_id"),
        _TIME_OFF.c.kind == bindparam("kind"),
        _TIME_OFF.c.status == bindparam("status"),
        _TIME_OFF.c.start_date.like(bindparam("year")),
    )
)
CLASH = Statement.of(
    select(_TIME_OFF.c.id)
    .where(
        _TIME_OFF.c.employee_id == bindparam("employee_id"),
        _TIME_OFF.c.status.in_([literal("pending"), literal("approved")]),
        _TIME_OFF.c.start_date <= bindparam("end_date"),
        _TIME_OFF.c.end_date >= bindparam("start_date"),
    )
    .order_by(_TIME_OFF.c.id)
    .limit(1)
)
EMPLOYEES = Filtered(
    select(_EMPLOYEES),
    (_EMPLOYEES.c.id,),
    department=_EMPLOYEES.c.department == bindparam("department"),
    manager_id=_EMPLOYEES.c.manager_id == bindparam("manager_id"),
    status=_EMPLOYEES.c.status == bindparam("status"),
    location=contains(_EMPLOYEES.c.location, "location"),
)
FOUND = Pages.of(
    select(_EMPLOYEES)
    .where(or_(contains(_EMPLOYEES.c.name, "query"), contains(_EMPLOYEES.c.email, "query")))
    .order_by(_EMPLOYEES.c.id)
)
TIME_OFF = Filtered(
    select(_TIME_OFF),
    (_TIME_OFF.c.start_date, _TIME_OFF.c.id),
    employee_id=_TIME_OFF.c.employee_id == bindparam("employee_id"),
    status=_TIME_OFF.c.status == bindparam("status"),
    kind=_TIME_OFF.c.kind == bindparam("kind"),
    manager_id=_TIME_OFF.c.employee_id.in_(
        select(_EMPLOYEES.c.id).where(_EMPLOYEES.c.manager_id == bindparam("manager_id"))
    ),
)


def _date(text: str, what: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InvalidArgument(f"{what}: {text!r} is not a valid date (YYYY-MM-DD)", error="invalid_date") from None


def _employee(ctx: ToolContext, employee_id: str) -> Row:
    return ctx.rows.need(HrEmployee, employee_id, "employee")


def _current(ctx: ToolContext, employee_id: str, what: str = "employee") -> Row:
    employee = _employee(ctx, employee_id)
    if employee["status"] == "terminated":
        raise Conflict(f"{what} {employee_id} ({employee['name']}) has left the company", error="terminated_employee")
    return employee


def _acting(ctx: ToolContext) -> Row:
    email = me(ctx)
    employee = ctx.rows.one(BY_EMAIL, email=email.lower())
    if employee is None:
        raise Forbidden(f"{email} is not an employee in HR", error="not_an_employee")
    return employee


def _working_days(start: date, end: date) -> int:
    return sum(1 for n in range((end - start).days + 1) if (start + timedelta(days=n)).weekday() < 5)


def _reports(ctx: ToolContext, employee_id: str) -> list[str]:
    """The ids of an employee's current direct reports."""
    return [r["id"] for r in ctx.rows.all(REPORTS, manager_id=employee_id)]


def _view(ctx: ToolContext, employee: Row) -> dict[str, Any]:
    manager = ctx.rows.get(HrEmployee, employee["manager_id"]) if employee["manager_id"] else None
    return {
        **employee,
        "manager_name": manager["name"] if manager else None,
        "direct_report_ids": _reports(ctx, employee["id"]),
    }


def _used(ctx: ToolContext, employee_id: str, kind: str, year: int, status: str) -> int:
    return ctx.rows.value(USED, employee_id=employee_id, kind=kind, status=status, year=f"{year:04d}-%")


def _check_manager(ctx: ToolContext, employee_id: str | None, manager_id: str) -> None:
    """The manager exists, is still employed, and is not the employee or one of their reports."""
    _current(ctx, manager_id, "manager")
    seen = manager_id
    while seen is not None:
        if seen == employee_id:
            raise Conflict(f"{manager_id} reports to {employee_id}; that would make a loop", error="manager_loop")
        seen = ctx.rows.get(HrEmployee, seen)["manager_id"]


@tool(SERVICE, "GET", "/hr/employees")
def hr_list_employees(
    ctx: ToolContext,
    department: Annotated[Department | None, Field(description="Only employees of this department")] = None,
    manager_id: Annotated[str | None, Field(description="Only direct reports of this manager, e.g. EMP-002")] = None,
    status: Annotated[EmployeeStatus | None, Field(description="Only employees in this status")] = None,
    location: Annotated[str | None, Field(description="Only employees whose office location contains this")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> Any:
    """List employees (the staff directory) by id, filtered by department, manager, status or location."""
    return ctx.rows.page(
        EMPLOYEES, page, per_page, department=department, manager_id=manager_id, status=status, location=location
    )


@tool(SERVICE, "GET", "/hr/employees/{employee_id}")
def hr_get_employee(ctx: ToolContext, employee_id: EmployeeId) -> Any:
    """Get one employee's HR record: title, department, manager (with name), status, dates and direct reports."""
    return _view(ctx, _employee(ctx, employee_id))


@tool(SERVICE, "GET", "/hr/directory/search")
def hr_find_employees(
    ctx: ToolContext,
    query: Annotated[Text, Field(description="Part of a name or email address, e.g. 'jade' or 'kim@'")],
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """Find employees by (part of) their name or email address, including former employees."""
    return ctx.rows.page(FOUND, page, per_page, query=query)


@tool(SERVICE, "POST", "/hr/employees")
def hr_onboard_employee(
    ctx: ToolContext,
    name: Annotated[Text, Field(description="Full name, e.g. 'Alex Moreno'")],
    email: Annotated[Email, Field(description="Work email, first.last@lumenpine.example (unique)")],
    department: Annotated[Department, Field(description="The department they join")],
    title: Annotated[Text, Field(description="Job title")],
    manager_id: Annotated[str, Field(description="Their manager's employee id, e.g. EMP-008")],
    start_date: Annotated[DateText, Field(description="First working day, YYYY-MM-DD")],
    location: Annotated[Text, Field(description="Office location, e.g. 'Portland, OR' or 'Remote'")],
    annual_vacation_days: Annotated[int, Field(ge=0, le=60, description="Vacation days a year")] = 20,
) -> Any:
    """Onboard a new hire: create their employee record (active); an email already in use is refused (409)."""
    _date(start_date, "start_date")
    taken = ctx.rows.one(BY_EMAIL, email=email.lower())
    if taken is not None:
        raise Conflict(f"{email} already belongs to employee {taken['id']}", error="duplicate_email")
    _check_manager(ctx, None, manager_id)
    employee_id = ctx.rows.next_id(HrEmployee)
    ctx.rows.insert(
        HrEmployee,
        {
            "id": employee_id,
            "name": name,
            "email": email.lower(),
            "department": department,
            "title": title,
            "manager_id": manager_id,
            "start_date": start_date,
            "status": "active",
            "location": location,
            "annual_vacation_days": annual_vacation_days,
        },
    )
    return _view(ctx, _employee(ctx, employee_id))


@tool(SERVICE, "PATCH", "/hr/employees/{employee_id}")
def hr_update_employee(
    ctx: ToolContext,
    employee_id: EmployeeId,
    title: Annotated[Text | None, Field(description="New job title (promotion or change)")] = None,
    department: Annotated[Department | None, Field(description="New department (a transfer)")] = None,
    manager_id: Annotated[str | None, Field(description="New manager's employee id")] = None,
    location: Annotated[Text | None, Field(description="New office location")] = None,
    status: Annotated[
        Literal["active", "on_leave"] | None, Field(description="Put on leave or back to active (not to terminate)")
    ] = None,
) -> Any:
    """Change a current employee's title, department, manager, location or leave status (give at least one)."""
    employee = _current(ctx, employee_id)
    if manager_id is not None:
        _check_manager(ctx, employee_id, manager_id)
    update_given(
        ctx,
        HrEmployee,
        employee,
        title=title,
        department=department,
        manager_id=manager_id,
        location=location,
        status=status,
    )
    return _view(ctx, employee)


@tool(SERVICE, "POST", "/hr/employees/{employee_id}/terminate")
def hr_terminate_employee(
    ctx: ToolContext,
    employee_id: EmployeeId,
    reason: Annotated[Text, Field(description="Why they leave, e.g. 'Resigned: moving abroad'")],
    end_date: Annotated[DateText | None, Field(description="Last working day, YYYY-MM-DD (default today)")] = None,
) -> Any:
    """Offboard an employee: status terminated now, with their last day (which may be later: the date
    the termination takes effect) and reason. Someone who still manages current employees is refused
    (409: reassign their reports first); their pending time off is denied."""
    employee = _current(ctx, employee_id)
    last = _date(end_date, "end_date").isoformat() if end_date else ctx.timestamp[:10]
    if last < employee["start_date"]:
        raise InvalidArgument("end_date is before their start date", error="invalid_date")
    reports = _reports(ctx, employee_id)
    if reports:
        raise Conflict(
            f"{employee_id} still manages {', '.join(reports)}; reassign them first", error="has_direct_reports"
        )
    ctx.rows.change(HrEmployee, employee, {"status": "terminated", "end_date": last, "termination_reason": reason})
    for request in ctx.rows.find(HrTimeOff, ("id",), employee_id=employee_id, status="pending"):
        ctx.rows.change(
            HrTimeOff,
            request,
            {"status": "denied", "decision_note": "Employee left the company", "decided_at": ctx.timestamp},
        )
    return _view(ctx, employee)


@tool(SERVICE, "GET", "/hr/time-off")
def hr_list_time_off(
    ctx: ToolContext,
    employee_id: Annotated[str | None, Field(description="Only this employee's requests")] = None,
    status: Annotated[TimeOffStatus | None, Field(description="Only requests in this status, e.g. pending")] = None,
    kind: Annotated[TimeOffKind | None, Field(description="Only this kind of leave")] = None,
    manager_id: Annotated[str | None, Field(description="Only requests of this manager's direct reports")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> Any:
    """List time-off (leave, vacation, PTO) requests by start date, filtered by employee, status, kind or manager."""
    return ctx.rows.page(
        TIME_OFF, page, per_page, employee_id=employee_id, status=status, kind=kind, manager_id=manager_id
    )


@tool(SERVICE, "POST", "/hr/time-off")
def hr_request_time_off(
    ctx: ToolContext,
    employee_id: EmployeeId,
    kind: Annotated[TimeOffKind, Field(description="vacation, sick or parental leave")],
    start_date: Annotated[DateText, Field(description="First day off, YYYY-MM-DD")],
    end_date: Annotated[DateText, Field(description="Last day off, YYYY-MM-DD (same as start for one day)")],
    note: Annotated[Text | None, Field(description="A note for the approver")] = None,
) -> Any:
    """Request time off for an employee (pending until approved); its working days are counted. Overlapping
    an existing pending or approved request, or vacation beyond the year's remaining balance, is refused (409)."""
    employee = _current(ctx, employee_id)
    start, end = _date(start_date, "start_date"), _date(end_date, "end_date")
    if end < start:
        raise InvalidArgument("end_date is before start_date", error="invalid_dates")
    if start.year != end.year:
        raise InvalidArgument("a request may not span two calendar years; split it", error="invalid_dates")
    days = _working_days(start, end)
    if days == 0:
        raise InvalidArgument("the range holds no working day (Monday to Friday)", error="no_working_days")
    clash = ctx.rows.value(CLASH, employee_id=employee_id, start_date=start_date, end_date=end_date)
    if clash is not None:
        raise Conflict(f"{employee_id} already has request {clash} for those dates", error="overlapping_request")
    if kind in ("vacation", "sick"):
        allowance = employee["annual_vacation_days"] if kind == "vacation" else SICK_DAYS
        booked = sum(_used(ctx, employee_id, kind, start.year, s) for s in ("approved", "pending"))
        if booked + days > allowance:
            raise Conflict(
                f"{days} {kind} days requested but only {allowance - booked} remain in {start.year}",
                error="insufficient_balance",
            )
    request_id = ctx.rows.next_id(HrTimeOff)
    ctx.rows.insert(
        HrTimeOff,
        {
            "id": request_id,
            "employee_id": employee_id,
            "kind": kind,
            "start_date": start_date,
            "end_date": end_date,
            "days": days,
            "status": "pending",
            "note": note,
            "requested_at": ctx.timestamp,
        },
    )
    return ctx.rows.need(HrTimeOff, request_id)


def _decide(ctx: ToolContext, request_id: str, status: str, note: str | None) -> dict[str, Any]:
    request = ctx.rows.need(HrTimeOff, request_id, "time-off request")
    if request["status"] != "pending":
        raise Conflict(f"request {request_id} is already {request['status']}", error="not_pending")
    approver = _acting(ctx)
    if approver["id"] == request["employee_id"]:
        raise Forbidden("nobody decides their own time-off request", error="own_request")
    decision = {"status": status, "approver_id": approver["id"], "decision_note": note, "decided_at": ctx.timestamp}
    ctx.rows.change(HrTimeOff, request, decision)
    return request


@tool(SERVICE, "POST", "/hr/time-off/{request_id}/approve")
def hr_approve_time_off(
    ctx: ToolContext,
    request_id: RequestId,
    note: Annotated[Text | None, Field(description="An optional note to the employee")] = None,
) -> Any:
    """Approve a pending time-off request, as you (the acting employee); not your own request (403)."""
    return _decide(ctx, request_id, "approved", note)


@tool(SERVICE, "POST", "/hr/time-off/{request_id}/deny")
def hr_deny_time_off(
    ctx: ToolContext,
    request_id: RequestId,
    reason: Annotated[Text, Field(description="Why the request is denied (the employee sees it)")],
) -> Any:
    """Deny (reject) a pending time-off request with a reason, as you (the acting employee)."""
    return _decide(ctx, request_id, "denied", reason)


@tool(SERVICE, "GET", "/hr/employees/{employee_id}/time-off-balance")
def hr_get_time_off_balance(
    ctx: ToolContext,
    employee_id: EmployeeId,
    year: Annotated[int | None, Field(ge=2000, le=2100, description="The calendar year (default this year)")] = None,
) -> Any:
    """How many vacation (PTO) and sick days an employee has left in a year: allowance, days taken
    (approved), days pending and days remaining."""
    employee = _employee(ctx, employee_id)
    year = year if year is not None else int(ctx.timestamp[:4])
    balance: dict[str, Any] = {"employee_id": employee["id"], "name": employee["name"], "year": year}
    for kind, allowance in (("vacation", employee["annual_vacation_days"]), ("sick", SICK_DAYS)):
        approved = _used(ctx, employee_id, kind, year, "approved")
        pending = _used(ctx, employee_id, kind, year, "pending")
        balance[kind] = {
            "allowance": allowance,
            "approved": approved,
            "pending": pending,
            "remaining": allowance - approved - pending,
        }
    balance["parental_days_approved"] = _used(ctx, employee_id, "parental", year, "approved")
    return balance
