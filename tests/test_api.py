"""api_search and api_fetch on the automation world: finding operations by plain words, running them
by id through the same dispatcher, and refusing apps the task does not connect."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support import ok, sweep_task

from simtenant.episode import Episode
from simtenant.task import Task
from simtenant.tools.engine.search import is_endpoint, parts
from simtenant.world import get_world

WORLD = get_world("automation")
ACTOR = "priya.shah@lumenpine.example"

# Natural requests and the operation each wants: the measure of api_search's ranking (its weights, the
# operations' wording); every one must be in the top 3, and nearly all first.
REQUESTS = yaml.safe_load((Path(__file__).parent / "fixtures" / "search_requests.yaml").read_text())


def task(connected: list[str] | None = None) -> Task:
    return sweep_task("automation", "api-test", ACTOR, connected=connected or [])


@pytest.fixture
def episode(tmp_path) -> Iterator[Episode]:
    with Episode.start(task(), tmp_path / "all.db") as opened:
        yield opened


@pytest.fixture
def crm_only(tmp_path) -> Iterator[Episode]:
    with Episode.start(task(["crm"]), tmp_path / "crm.db") as opened:
        yield opened


def test_the_world_has_ten_apps_and_over_a_hundred_operations():
    endpoints = [t for t in WORLD.tools if is_endpoint(t)]
    assert len({t.service for t in endpoints}) >= 10
    assert len(endpoints) >= 100
    for endpoint in endpoints:  # what the search reads: a description and every parameter described
        assert endpoint.description, endpoint.name
        for name, prop in endpoint.json_schema().get("properties", {}).items():
            assert prop.get("description"), (endpoint.name, name)


def test_api_search_ranks_the_wanted_operation_first_for_nearly_every_natural_request(episode):
    found = {}
    for request in REQUESTS:
        results = ok(episode, "api_search", {"query": request["query"], "top_k": 3})["results"]
        found[request["query"]] = [r["endpoint"] for r in results]
    top3 = [q for q in found if not set(found[q]) & set(next(r["want"] for r in REQUESTS if r["query"] == q))]
    first = [r["query"] for r in REQUESTS if found[r["query"]][:1] and found[r["query"]][0] in r["want"]]
    assert top3 == [], {q: found[q] for q in top3}
    assert len(first) / len(REQUESTS) >= 0.9, {
        r["query"]: found[r["query"]] for r in REQUESTS if r["query"] not in first
    }


def test_sheets_results_name_the_spreadsheets_and_worksheets(episode):
    (first,) = ok(episode, "api_search", {"query": "add a row to a spreadsheet", "top_k": 1})["results"]
    assert first["endpoint"] == "sheet_append_row" and first["spreadsheets"]
    sheet = first["spreadsheets"][0]
    assert sheet["id"].startswith("SS-") and sheet["title"] and sheet["worksheets"][0]["id"].startswith("WS-")
    (crm,) = ok(episode, "api_search", {"query": "move a deal to another stage", "top_k": 1})["results"]
    assert "spreadsheets" not in crm


def test_a_search_names_the_spreadsheets_once_and_a_bounded_number_of_them(tmp_path):
    # at 10x the world has 50 spreadsheets: the answer must not grow with them, nor repeat them per result
    with Episode.start(task(), tmp_path / "e.db", scale=10) as scaled:
        results = ok(scaled, "api_search", {"query": "read the rows of a worksheet", "top_k": 5})["results"]
    sheets = [r for r in results if r["app"] == "sheets"]
    assert len(sheets) >= 2 and [("spreadsheets" in r) for r in sheets] == [True] + [False] * (len(sheets) - 1)
    assert len(sheets[0]["spreadsheets"]) == 20 and sheets[0]["spreadsheets"][0]["id"] == "SS-001"
    assert sheets[0]["more_spreadsheets"].startswith("30 more")


def test_search_results_carry_the_schemas_of_path_query_and_body(episode):
    (first,) = ok(episode, "api_search", {"query": "move a deal to another stage", "top_k": 1})["results"]
    assert first["endpoint"] == "crm_move_deal_stage" and first["method"] == "POST"
    assert "deal_id" in first["path_schema"]["properties"] and "{deal_id}" in first["path"]
    assert "stage" in first["body_schema"]["properties"] and first["params_schema"]["properties"] == {}


def test_api_search_sees_only_connected_apps(crm_only):
    results = ok(crm_only, "api_search", {"query": "send an email and post in chat", "top_k": 20})["results"]
    assert results and {r["app"] for r in results} == {"crm"}
    assert ok(crm_only, "api_search", {"query": "zzzz qqqq"})["results"] == []


def test_api_fetch_runs_an_operation_like_a_named_call(episode, tmp_path):
    deal = ok(episode, "api_fetch", {"endpoint": "crm_get_deal", "path": {"deal_id": "DEAL-0001"}})
    assert deal == ok(episode, "crm_get_deal", {"deal_id": "DEAL-0001"})
    moved = ok(
        episode,
        "api_fetch",
        {"endpoint": "crm_move_deal_stage", "path": {"deal_id": "DEAL-0001"}, "body": {"stage": "proposal"}},
    )
    assert moved["stage"] == "proposal"


@pytest.mark.parametrize(
    ("args", "code", "error"),
    [
        ({"endpoint": "no_such_endpoint"}, 404, "unknown_endpoint"),
        ({"endpoint": "api_search", "params": {"query": "x"}}, 404, "unknown_endpoint"),
        ({"endpoint": "finish", "body": {"answer": "x"}}, 404, "unknown_endpoint"),
        ({"endpoint": "crm_get_deal", "body": {"deal_id": "DEAL-0001"}}, 400, "invalid_argument"),
        ({"endpoint": "crm_get_deal", "path": {"deal_id": "DEAL-0001", "extra": 1}}, 400, "invalid_argument"),
        ({"endpoint": "crm_get_deal"}, 400, "invalid_arguments"),
        ({"endpoint": "crm_get_deal", "path": {"deal_id": "DEAL-9999"}}, 404, "not_found"),
    ],
)
def test_api_fetch_refuses_with_a_structured_error(episode, args, code, error):
    outcome = episode.call("api_fetch", args)
    assert not outcome.ok and (outcome.error["code"], outcome.error["error"]) == (code, error), outcome.error


def test_an_unconnected_app_is_refused_like_a_missing_credential(crm_only, world_rows):
    before = world_rows(crm_only.path)
    fetched = crm_only.call("api_fetch", {"endpoint": "mail_send_email", "body": {"to": ["x@y.example"]}})
    assert (fetched.error["code"], fetched.error["error"]) == (403, "not_connected")
    named = crm_only.call("mail_list_messages", {})
    assert (named.error["code"], named.error["error"]) == (403, "not_connected")
    assert world_rows(crm_only.path) == before
    assert crm_only.call("crm_get_deal", {"deal_id": "DEAL-0001"}).ok


def test_agents_are_shown_the_search_tools_and_a_plain_fetch_naming_each_connected_endpoint():
    offered = {t.name: t for t in WORLD.offered(task(["crm", "chat"]))}
    assert list(offered) == ["api_search", "api_fetch", "base64_encode", "finish"]
    schema = offered["api_fetch"].json_schema()
    assert schema["type"] == "object" and not {"oneOf", "anyOf", "allOf", "not"} & set(schema)
    endpoints = [t for t in WORLD.tools if is_endpoint(t) and t.service in ("automation.crm", "automation.chat")]
    assert schema["properties"]["endpoint"]["enum"] == sorted(t.name for t in endpoints)
    assert schema["required"] == ["endpoint"] and len(json.dumps(schema)) < 4000  # paid in every prompt


def test_fetch_keeps_each_endpoints_own_validation(episode):
    outcome = episode.call("api_fetch", {"endpoint": "crm_get_deal", "path": {"deal_id": 7}})
    assert not outcome.ok and outcome.error["error"] == "invalid_arguments" and "deal_id" in outcome.error["message"]
    encoded = episode.call("base64_encode", {"text": "Zoë's report"})
    assert encoded.ok and base64.b64decode(encoded.result["encoded"]).decode() == "Zoë's report"


def test_every_path_placeholder_is_an_argument():
    for endpoint in (t for t in WORLD.tools if is_endpoint(t)):
        schema = parts(endpoint)
        placeholders = set(schema["path"]["properties"])
        assert all(f"{{{p}}}" in endpoint.path for p in placeholders), endpoint.name
        assert endpoint.path.count("{") == len(placeholders), endpoint.name
