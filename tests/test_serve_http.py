"""The OpenEnv-compatible HTTP server, through real requests to a server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from simtenant.grader import EpisodeFile, grade
from simtenant.serve import running
from simtenant.serve.http import create_app
from simtenant.world import get_task, get_world

REFUND = "commerce/refund-damaged-item"

# commerce/refund-damaged-item's gold as ServiceBench's curl sends it: the action's fields at the top level,
# ServiceBench's service names, no episode id.
SERVICEBENCH_GOLD = [
    {"service": "user", "endpoint": "/users/lookup", "method": "GET", "params": {"email": "jane.doe@example.com"}},
    {"service": "order", "endpoint": "/orders/lookup", "method": "GET", "params": {"order_id": "ORD-1005"}},
    {"service": "inventory", "endpoint": "/inventory/lookup", "method": "GET", "params": {"sku": "SKU-445"}},
    {
        "service": "order",
        "endpoint": "/orders/process-refund",
        "method": "POST",
        "params": {"order_id": "ORD-1005", "amount": 49.99, "reason": "SKU-445 arrived damaged"},
    },
    {
        "service": "order",
        "endpoint": "/orders/update-status",
        "method": "POST",
        "params": {"order_id": "ORD-1005", "new_status": "returned"},
    },
]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[httpx.Client]:
    with running(create_app(tmp_path / "runs")) as url, httpx.Client(base_url=url) as http:
        yield http


def error_of(response: httpx.Response, status: int, error: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "error", "message"}, body
    assert body["error"]["code"] == status and body["error"]["error"] == error, body
    assert "Traceback" not in response.text
    return body["error"]


def test_health_and_schema(client: httpx.Client) -> None:
    assert client.get("/health").json()["status"] == "healthy"
    schema = client.get("/schema").json()
    assert {"action", "observation", "tools"} <= set(schema)
    assert len(schema["action"]["oneOf"]) == 3  # by tool, by route, or text without a tool
    metadata = client.get("/metadata").json()
    assert metadata["name"] == "simtenant" and metadata["version"] and "commerce" in metadata["description"]
    assert {"task_description", "api_response", "available_endpoints", "reward", "done"} <= set(
        schema["observation"]["properties"]
    )
    names = {t["name"] for t in schema["tools"]}
    assert {"users_lookup", "send_quote", "finish", "send_message_to_user"} <= names
    commerce = client.get("/schema", params={"task_id": REFUND}).json()["tools"]
    lookup = next(t for t in commerce if t["name"] == "users_lookup")
    assert lookup["service"] == "users" and lookup["path"] == "/users/lookup" and lookup["method"] == "GET"
    assert lookup["parameters"]["properties"]["email"]
    assert "send_message_to_user" not in {t["name"] for t in commerce}  # no operator in this task


def test_servicebench_session_without_episode_ids(client: httpx.Client, tmp_path: Path) -> None:
    reset = client.post("/reset", json={"task_id": 2, "reward": "shaped"}).json()  # ServiceBench's task 2
    assert reset["reward"] is None and reset["done"] is False and reset["episode_id"]
    seen = reset["observation"]
    assert seen["task_description"] == get_task(REFUND).instruction
    assert seen["success"] is True and seen["error_message"] is None and seen["done"] is False
    assert "## Your task" in seen["briefing"] and "You have 30 steps" in seen["briefing"]
    assert seen["running_reward"] == 0.0 and seen["task_completed"] is False
    assert {"name", "service", "method", "path", "description", "parameters"} <= set(seen["available_endpoints"][0])

    rewards, running = [], 0.0
    for action in [*SERVICEBENCH_GOLD[:-1], {**SERVICEBENCH_GOLD[-1], "method": "PUT"}]:  # PUT writes as POST
        step = client.post("/step", json=action).json()
        assert step["observation"]["success"] is True, step
        assert step["done"] is False and "grade" not in step["observation"]
        assert "available_endpoints" not in step["observation"]  # the catalogue once, at reset
        rewards.append(step["reward"])
        running = min(1.0, running + step["reward"])
        assert step["observation"]["running_reward"] == pytest.approx(running)
    assert step["observation"]["api_response"]["status"] == "returned"
    assert step["observation"]["task_completed"] is True  # ServiceBench's completion criteria are met
    assert sum(rewards) == pytest.approx(1.0)  # ServiceBench's shaped steps of a perfect episode
    answer = "Refunded 49.99 for the damaged SKU-445 on ORD-1005 and set the order to returned."
    final = client.post("/step", json={"action": {"tool": "finish", "args": {"answer": answer}}}).json()
    assert final["done"] is True and final["observation"]["done"] is True
    assert final["observation"]["grade"] == {"reward": 1.0, "reward_mode": "shaped"}

    state = client.get("/state").json()
    assert state["task_id"] == REFUND and state["step_count"] == 6 and state["done"] is True
    assert [c["tool"] for c in state["calls"]] == [c.tool for c in get_task(REFUND).gold]
    text = json.dumps(state)
    assert "gold" not in text and "checks" not in text and "snapshot" not in text
    assert "cache" not in text.lower() and str(tmp_path) not in text  # no host path reaches the agent

    (episode,) = (tmp_path / "runs").glob("*.db")
    assert grade(episode).reward == 1.0
    written = json.loads(episode.with_name(f"{episode.stem}.grade.json").read_text())
    assert written["reward"] == 1.0 and written["db_match"] == 1
    error_of(client.post("/step", json=SERVICEBENCH_GOLD[0]), 409, "episode_finished")
    assert len(EpisodeFile.read(episode).calls) == 6  # the refused step wrote nothing


def test_step_rewards_are_not_shown_where_the_reward_is_not_shaped(client: httpx.Client, tmp_path: Path) -> None:
    reset = client.post("/reset", json={"task_id": REFUND}).json()["observation"]
    assert "running_reward" not in reset and "task_completed" not in reset
    step = client.post("/step", json=SERVICEBENCH_GOLD[0]).json()
    assert step["reward"] is None and step["observation"]["reward"] is None
    assert "running_reward" not in step["observation"] and "reward" not in client.get("/state").json()["calls"][0]
    (episode,) = (tmp_path / "runs").glob("*.db")
    assert EpisodeFile.read(episode).calls[0].reward == 0.05  # kept in the record, for the grader


def test_a_server_that_shows_rewards_a_default_task_and_a_turn_budget(tmp_path: Path) -> None:
    app = create_app(tmp_path / "runs", task="commerce/order-status", max_steps=2, show_rewards=True)
    with running(app) as url, httpx.Client(base_url=url) as http:
        reset = http.post("/reset", json={}).json()  # OpenEnv's client names no task: the server's default
        assert reset["observation"]["task_description"] == get_task("commerce/order-status").instruction
        assert "You have 2 steps" in reset["observation"]["briefing"]
        first = http.post("/step", json={"message": "Looking into it."}).json()  # text nobody reads: a step
        assert first["observation"]["success"] is False and "Nobody reads" in first["observation"]["error_message"]
        assert first["done"] is False and first["reward"] == 0.0
        second = http.post("/step", json=SERVICEBENCH_GOLD[0]).json()
        assert second["reward"] == 0.45 and second["done"] is True  # the budget is spent: graded as it is
        assert second["observation"]["grade"] == {"reward": 0.0, "reward_mode": "default"}
        error_of(http.post("/step", json=SERVICEBENCH_GOLD[1]), 409, "episode_finished")
        assert http.get("/state").json()["step_count"] == 2


def test_actions_by_tool_or_route_and_refused_calls(client: httpx.Client) -> None:
    reset = client.post("/reset", json={"task_id": "commerce/order-status", "episode_id": "mine"}).json()
    assert reset["episode_id"] == "mine"
    by_tool = client.post(
        "/step", json={"episode_id": "mine", "action": {"tool": "orders_lookup", "args": {"order_id": "ORD-1005"}}}
    ).json()
    assert by_tool["observation"]["api_response"]["status"] == "delivered"
    assert by_tool["observation"]["tool"] == "orders_lookup" and by_tool["observation"]["step"] == 1
    # the tool's own service name and a route without its leading slash are accepted too
    by_route = client.post(
        "/step", json={"action": {"service": "orders", "endpoint": "orders/lookup", "params": {"order_id": "ORD-1005"}}}
    ).json()
    assert by_route["observation"]["success"] is True

    # The agent's mistakes are observations (HTTP 200), recorded like any call, not HTTP errors.
    missing = client.post("/step", json={"tool": "orders_lookup", "args": {"order_id": "ORD-9999"}})
    assert missing.status_code == 200
    seen = missing.json()["observation"]
    assert seen["success"] is False and seen["api_response"]["code"] == 404 and seen["error_message"]
    wrong_method = client.post("/step", json={"service": "order", "endpoint": "/orders/lookup", "method": "POST"})
    assert wrong_method.json()["observation"]["api_response"]["error"] == "unknown_tool"
    no_route = client.post("/step", json={"service": "order", "endpoint": "/orders/nowhere", "params": {}})
    assert no_route.json()["observation"]["api_response"]["error"] == "unknown_tool"
    wrong_service = client.post("/step", json={"service": "users", "endpoint": "/orders/lookup", "params": {}})
    said = wrong_service.json()["observation"]["error_message"]
    assert "in service 'users'\"; did you mean GET /orders/lookup" in said
    bad_args = client.post("/step", json={"tool": "orders_lookup", "args": {"order": "ORD-1005"}})
    assert bad_args.json()["observation"]["api_response"]["error"] == "invalid_arguments"
    state = client.get("/state", params={"episode_id": "mine"}).json()
    assert state["step_count"] == 7 and [c["ok"] for c in state["calls"]] == [True, True] + [False] * 5


def test_concurrent_episodes_do_not_see_each_others_writes(client: httpx.Client) -> None:
    first = client.post("/reset", json={"task_id": REFUND}).json()["episode_id"]
    second = client.post("/reset", json={"task_id": REFUND}).json()["episode_id"]
    assert first != second

    def step(episode: str, tool: str, **args: object) -> dict:
        body = client.post("/step", json={"episode_id": episode, "action": {"tool": tool, "args": args}}).json()
        assert body["observation"]["success"], body
        return body["observation"]["api_response"]

    step(first, "orders_update_status", order_id="ORD-1005", new_status="returned")
    assert step(second, "orders_lookup", order_id="ORD-1005")["status"] == "delivered"
    assert step(first, "orders_lookup", order_id="ORD-1005")["status"] == "returned"
    assert step(second, "orders_process_refund", order_id="ORD-1005", amount=49.99, reason="damaged")["id"] == "RF-0007"
    assert step(first, "orders_process_refund", order_id="ORD-1005", amount=10.0, reason="partial")["id"] == "RF-0007"
    assert client.get("/state", params={"episode_id": first}).json()["step_count"] == 3
    assert client.get("/state", params={"episode_id": second}).json()["step_count"] == 2


def test_episodes_played_in_parallel_threads_all_grade(client: httpx.Client) -> None:
    gold = get_task(REFUND).gold
    ids = [client.post("/reset", json={"task_id": REFUND}).json()["episode_id"] for _ in range(4)]
    finals: dict[str, dict] = {}

    def play(episode: str) -> None:
        for call in gold:
            body = client.post("/step", json={"episode_id": episode, "tool": call.tool, "args": call.args}).json()
        finals[episode] = body

    threads = [threading.Thread(target=play, args=(episode,)) for episode in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(finals[e]["done"] and finals[e]["observation"]["grade"]["reward"] == 1.0 for e in ids), finals


def test_operator_task_observations_carry_the_operators_messages(client: httpx.Client) -> None:
    task = get_task("itsm/unlock-after-verification")
    reset = client.post("/reset", json={"task_id": task.id}).json()["observation"]
    assert reset["messages"] == [{"role": "user", "content": task.user.opening}]
    assert get_world("itsm").policy.strip() in reset["briefing"]
    assert "send_message_to_user" in {t["name"] for t in reset["available_endpoints"]}
    step = client.post("/step", json={"tool": "send_message_to_user", "args": {"message": "Which user is it?"}})
    seen = step.json()["observation"]
    assert seen["messages"] == [{"role": "user", "content": seen["api_response"]["reply"]}]  # only the new one
    lookup = client.post("/step", json={"tool": "get_user", "args": {"user_id": "USR-0002"}}).json()["observation"]
    assert lookup["messages"] == []
    text = client.post("/step", json={"message": "Is her identity verified?"}).json()["observation"]  # as a message
    assert text["tool"] == "send_message_to_user" and text["messages"][0]["content"] == text["api_response"]["reply"]
    assert len(client.get("/state").json()["messages"]) == 3  # the whole conversation stays in the state


def test_errors_are_structured(client: httpx.Client) -> None:
    error_of(client.post("/step", json={"tool": "finish"}), 404, "no_episode")
    error_of(client.get("/state"), 404, "no_episode")
    error_of(
        client.post("/reset", content=b"{not json", headers={"content-type": "application/json"}), 400, "invalid_json"
    )
    error_of(client.post("/reset", content=b'{"task_id": 1}'), 415, "unsupported_media_type")  # no JSON type: no CSRF
    error_of(client.post("/reset", json=["commerce/order-status"]), 400, "invalid_body")
    error_of(client.post("/reset", json={}), 400, "missing_task_id")
    error_of(client.post("/reset", json={"task_id": True}), 400, "invalid_task_id")
    error_of(client.post("/reset", json={"task_id": 99}), 404, "unknown_task")
    error_of(client.post("/reset", json={"task_id": REFUND, "reward": "shapeless"}), 400, "invalid_reward")
    error_of(client.post("/reset", json={"task_id": "commerce/nope"}), 404, "unknown_task")
    error_of(client.post("/reset", json={"task_id": "../../etc"}), 404, "unknown_task")
    error_of(client.post("/reset", json={"task_id": REFUND, "episode_id": "../x"}), 400, "invalid_episode_id")
    client.post("/reset", json={"task_id": REFUND, "episode_id": "one"})
    error_of(client.post("/reset", json={"task_id": REFUND, "episode_id": "one"}), 409, "episode_exists")
    error_of(client.post("/step", json={"episode_id": "two", "tool": "finish"}), 404, "unknown_episode")
    error_of(client.get("/state", params={"episode_id": "two"}), 404, "unknown_episode")
    error_of(client.post("/step", json={"action": "finish"}), 400, "invalid_action")
    error_of(client.post("/step", json={"tool": "finish", "argz": {}}), 400, "invalid_action")
    error_of(client.post("/step", json={"tool": 3}), 400, "invalid_action")
    error_of(client.post("/step", json={"tool": "finish", "endpoint": "/finish"}), 400, "invalid_action")
    error_of(client.post("/step", json={}), 400, "invalid_action")
    error_of(client.post("/step", json={"message": "hi", "tool": "finish"}), 400, "invalid_action")
    error_of(client.get("/nowhere"), 404, "not_found")
    error_of(client.get("/reset"), 405, "method_not_allowed")
    assert client.get("/state", params={"episode_id": "one"}).json()["step_count"] == 0


def test_token_is_required_when_set(tmp_path: Path) -> None:
    with running(create_app(tmp_path / "runs", token="s3cret")) as url, httpx.Client(base_url=url) as http:
        error_of(http.get("/health"), 401, "unauthorized")
        error_of(http.post("/reset", json={"task_id": REFUND}), 401, "unauthorized")
        error_of(http.get("/health", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized")
        error_of(http.get("/health", headers={"Authorization": "Basic s3cret"}), 401, "unauthorized")
        assert http.get("/health", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        good = {"Authorization": "Bearer s3cret"}
        assert http.post("/reset", json={"task_id": REFUND}, headers=good).status_code == 200
    assert len(list((tmp_path / "runs").glob("*.db"))) == 1  # only the authorised reset made an episode


def test_open_episodes_are_graded_at_shutdown(tmp_path: Path) -> None:
    with running(create_app(tmp_path / "runs")) as url, httpx.Client(base_url=url) as http:
        http.post("/reset", json={"task_id": REFUND})
        http.post("/step", json=SERVICEBENCH_GOLD[0])
    (graded,) = (tmp_path / "runs").glob("*.grade.json")
    body = json.loads(graded.read_text())
    assert body["completed"] is False and body["steps"] == 1 and body["reward"] == 0.0


# -- OpenEnv's own client (openenv-core): the WebSocket /ws session --------------------------------------


def test_openenvs_client_plays_an_episode_over_its_websocket(tmp_path: Path) -> None:
    client = pytest.importorskip("openenv.core.generic_client")
    with running(create_app(tmp_path / "runs", task=REFUND)) as url:
        with client.GenericEnvClient(base_url=url).sync() as env:
            first = env.reset()  # no task named: the server's default
            assert first.done is False and first.observation["task_description"] == get_task(REFUND).instruction
            for call in get_task(REFUND).gold:
                result = env.step({"tool": call.tool, "args": call.args})
            assert result.done is True and result.observation["grade"] == {"reward": 1.0, "reward_mode": "default"}
            state = env.state()
            assert state["step_count"] == len(get_task(REFUND).gold) and state["done"] is True
            with pytest.raises(RuntimeError, match="no more turns"):
                env.step({"tool": "finish"})
            again = env.reset(task_id="commerce/order-status")  # a new episode on the same connection
            assert again.observation["task_description"] == get_task("commerce/order-status").instruction
            env.step({"message": "Looking."})  # text nobody reads: a step spent
            assert env.state()["step_count"] == 1
        for _ in range(200):  # the server closes the session as the connection ends, on its own time
            if len(list((tmp_path / "runs").glob("*.grade.json"))) == 2:
                break
            time.sleep(0.025)
        assert len(list((tmp_path / "runs").glob("*.grade.json"))) == 2  # graded when the client left


def test_openenvs_client_is_told_what_is_wrong(tmp_path: Path) -> None:
    client = pytest.importorskip("openenv.core.generic_client")
    with running(create_app(tmp_path / "runs")) as url, client.GenericEnvClient(base_url=url).sync() as env:
        with pytest.raises(RuntimeError, match="no default task"):
            env.reset()
        with pytest.raises(RuntimeError, match="no episode yet"):
            env.step({"tool": "finish"})
        env.reset(task_id=1)  # ServiceBench's task 1, by its alias
        with pytest.raises(RuntimeError, match="an action is"):
            env.step({"code": "print(1)"})
    with running(create_app(tmp_path / "guarded", token="s3cret")) as url, pytest.raises(ConnectionError):
        client.GenericEnvClient(base_url=url).sync().connect()


def test_steps_that_may_end_the_episode_are_known_before_they_run(tmp_path: Path) -> None:
    """Those are graded at once (and run off the event loop, since grading may wait for the cache lock)."""
    from simtenant.live import LiveEpisode
    from simtenant.serve.http import may_end, parse_step

    def ends(live: LiveEpisode, body: dict) -> bool:
        return may_end(live, parse_step(body))

    live = LiveEpisode(get_task(REFUND), tmp_path / "e.db", max_steps=3)
    try:
        lookup = {"tool": "orders_lookup", "args": {"order_id": "ORD-1005"}}
        assert not ends(live, lookup) and not ends(live, {"action": lookup})
        assert ends(live, {"tool": "finish", "args": {"answer": "x"}})
        assert ends(live, {"service": "harness", "endpoint": "/finish", "method": "POST", "params": {}})
        assert ends(live, {"message": "hello?"})
        live.call("orders_lookup", {"order_id": "ORD-1005"})
        live.call("orders_lookup", {"order_id": "ORD-1005"})
        assert ends(live, lookup)  # the last turn of the budget
    finally:
        live.close()
