"""The native page's server without a browser (aiohttp test client speaking the page's protocol): HTML in items and
consent escaped, bad input (unknown tokens, traversal, oversized, binary, flooding, forged times, answers for a
trial not on screen, replayed messages), the online slice's hooks, and the fallback for a trial kind without a web
renderer."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer
from session_helpers import write_testset

from benchlab.annotations.registry import registry
from benchlab.annotations.session import opening
from benchlab.annotations.session.status import read_statuses
from benchlab.tui.web.hooks import EndOutcome, Joiner, Refusal, ServerHooks, SessionEnd
from benchlab.tui.web.native import NativeLimits
from benchlab.tui.web.participants import Participant
from benchlab.tui.web.serve_main import ServeConfig, native_sessions
from benchlab.tui.web.server import SessionServer

TOKENS = {"P01": "tok-P01-aaaaaaaaaaaaaaaaaaaa", "P02": "tok-P02-bbbbbbbbbbbbbbbbbbbb"}
COMPUTER = {"width": 1280, "height": 720, "screen_w": 1920, "screen_h": 1080, "fine": True, "coarse": False}


def make_server(tmp_path: Path, *, hooks: ServerHooks | None = None, consent: bool = False,
                practice: int = 0) -> SessionServer:
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3 + practice, sizes=(3,), problems=("Infer.trivial",))
    values: dict[str, Any] = {"dataset": testset, "tuples_per_cell": 2, "practice": practice, "seed": 5,
                              "no_instructions": True}
    if consent:
        (tmp_path / "consent.md").write_text("# Consent <img src=x onerror=alert(1)>\n\n<script>alert(2)</script> "
                                             "I **agree** to take part.\n")
        values["consent_file"] = tmp_path / "consent.md"
    config = ServeConfig(task=registry().get("worldsense"), plan_args=[], out=tmp_path / "out", participants_file=None,
                         values=values, title="Memory <b>study</b>", hooks=hooks)
    people = {pid: Participant(pid) for pid in TOKENS}
    server = SessionServer(participants=people, tokens=TOKENS, app_spec=config.spec, title=config.title)
    server.native = native_sessions(config, people)
    if hooks is not None:
        server.hooks = hooks
    return server


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(make_server(tmp_path).make_app())) as c:
        yield c


async def receive(ws: Any, kind: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = await ws.receive(timeout=deadline - time.monotonic())
        if msg.type == WSMsgType.TEXT and json.loads(msg.data)[0] == kind:
            return json.loads(msg.data)[1]
        if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            raise AssertionError(f"closed while waiting for {kind!r}")
    raise AssertionError(f"no {kind!r} within {timeout} s")


async def closed(ws: Any, timeout: float = 10.0) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = await ws.receive(timeout=deadline - time.monotonic())
        if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            return ws.close_code  # type: ignore[no-any-return]
    raise AssertionError("still open")


async def join(client: TestClient, pid: str = "P01", **device: Any) -> tuple[Any, dict[str, Any]]:
    ws = await client.ws_connect(f"/s/{TOKENS[pid]}/ws")
    await ws.send_json(["hello", {**COMPUTER, **device}])
    return ws, await receive(ws, "show")


async def answer(ws: Any, view: dict[str, Any], value: str, *, rt: float = 20.0, onset: bool = True) -> None:
    if onset:
        await ws.send_json(["onset", {"seq": view["seq"], "t": 1000.0}])
    await asyncio.sleep(0.05)  # the page's RT may not exceed the time since the view was sent
    await ws.send_json(["act", {"seq": view["seq"], "act": "answer", "value": value, "t": 1000.0 + rt,
                                "input": "mouse"}])


def results(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "out" / "results" / "basic___human-P01___results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_a_trial_by_mouse_records_the_page_times(client: TestClient, tmp_path: Path) -> None:
    ws, view = await join(client)
    assert view["kind"] == "trial" and view["answers"] is True and "1" in view["keys"]
    await answer(ws, view, "TRUE", rt=30.5)
    nxt = await receive(ws, "show")  # the next view comes only after the record is on disk
    assert nxt["seq"] == view["seq"] + 1 and len(results(tmp_path)) == 1
    rec = results(tmp_path)[0]
    assert rec["client_rt_ms"] == 30.5 and rec["input"] == "mouse" and rec["client_onset_ms"] == 1000.0


async def test_forged_times_close_the_connection_and_record_nothing(client: TestClient, tmp_path: Path) -> None:
    for rt in (-50.0, 60_000.0):  # negative, and longer than the view was on screen
        ws, view = await join(client)
        await answer(ws, view, "TRUE", rt=rt)
        assert await closed(ws) == 4400
    assert results(tmp_path) == []
    ws, view = await join(client)  # the session goes on, marked as re-shown
    await answer(ws, view, "TRUE")
    await receive(ws, "show")
    assert results(tmp_path)[0]["interruptions"] == 2


async def test_stale_replayed_and_unshown_answers_change_nothing(client: TestClient, tmp_path: Path) -> None:
    ws, view = await join(client)
    await answer(ws, view, "TRUE", onset=False)  # before the page stamped the onset: not an answer
    await ws.send_json(["act", {"seq": view["seq"] + 5, "act": "answer", "value": "TRUE", "t": 1010.0}])  # not shown
    await ws.send_json(["act", {"seq": view["seq"], "act": "answer", "value": "MAYBE", "t": 1010.0}])  # no option
    await asyncio.sleep(0.3)
    assert results(tmp_path) == []
    await answer(ws, view, "FALSE")
    await receive(ws, "show")
    await ws.send_json(["act", {"seq": view["seq"], "act": "answer", "value": "TRUE", "t": 1020.0}])  # replayed
    await ws.send_json(["ping", 1.0])
    await receive(ws, "pong")
    assert [r["resp"] for r in results(tmp_path)] == ["FALSE"]


@pytest.mark.parametrize("bad", ["binary", "oversized", "not json", "flood"])
async def test_bad_messages_close_only_that_connection(client: TestClient, tmp_path: Path, bad: str) -> None:
    other, other_view = await join(client, "P02")
    ws, _ = await join(client)
    if bad == "binary":
        await ws.send_bytes(b"\x00\x01")
    elif bad == "oversized":
        await ws.send_str(json.dumps(["log", {"what": "x" * 20_000}]))
    elif bad == "not json":
        await ws.send_str("{nope")
    else:
        for _ in range(200):
            await ws.send_json(["ping", 1.0])
    assert await closed(ws) is not None
    await answer(other, other_view, "TRUE")  # another participant is unharmed
    assert (await receive(other, "show"))["seq"] == other_view["seq"] + 1
    assert results(tmp_path) == []


async def test_unknown_tokens_and_traversal_get_a_plain_404(client: TestClient) -> None:
    for path in ["/s/not-a-token-at-all-xxxxxx", "/s/not-a-token-at-all-xxxxxx/ws", "/static/../server.py",
                 "/static/%2e%2e%2fnative.py", f"/s/{TOKENS['P01']}/../../etc/passwd", "/serve-tokens.json"]:
        response = await client.get(path, allow_redirects=False)
        body = await response.text()
        assert response.status == 404 and "Traceback" not in body, path
    page = await client.get(f"/s/{TOKENS['P01']}")
    html = await page.text()
    assert page.status == 200 and "/static/native.js" in html and "xterm" not in html
    assert "<title>Memory &lt;b&gt;study&lt;/b&gt;</title>" in html  # the study's title, escaped
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    again = await client.get(f"/s/{TOKENS['P01']}")  # a second load is never a 409 dead end
    assert again.status == 200


async def test_html_in_consent_and_items_is_escaped(tmp_path: Path) -> None:
    async with TestClient(TestServer(make_server(tmp_path, consent=True).make_app())) as c:
        ws, view = await join(c)
        assert view["kind"] == "consent"
        assert "<script>" not in view["html"] and "<img" not in view["html"]
        assert "&lt;script&gt;" in view["html"] and "<strong>agree</strong>" in view["html"]
        assert not (tmp_path / "out" / "sessions").exists() or not any((tmp_path / "out" / "sessions").glob("*.json"))
        await ws.send_json(["act", {"seq": view["seq"], "act": "accept"}])
        trial = await receive(ws, "show")
        assert trial["kind"] == "trial" and "<script" not in trial["html"]


async def test_hooks_mount_routes_refuse_before_anything_is_written_and_see_the_end(tmp_path: Path) -> None:
    ended: list[SessionEnd] = []

    async def gate(joiner: Joiner) -> Refusal | None:
        return Refusal("Study full", "Thank you <3") if joiner.participant == "P02" else None

    async def on_end(end: SessionEnd) -> EndOutcome:
        assert Path(end.results).read_text().count("\n") == end.recorded  # the last record is on disk
        ended.append(end)
        return EndOutcome(code="C0DE", redirect="https://example.org/done")

    async def hello(_: web.Request) -> web.Response:
        return web.Response(text="online")

    hooks = ServerHooks(routes=[lambda app: app.router.add_get("/join/x", hello)], gate=gate, on_end=on_end)
    async with TestClient(TestServer(make_server(tmp_path, hooks=hooks).make_app())) as c:
        assert await (await c.get("/join/x")).text() == "online"
        ws = await c.ws_connect(f"/s/{TOKENS['P02']}/ws")
        await ws.send_json(["hello", COMPUTER])
        refused = await receive(ws, "page")
        assert "Study full" in refused and "Thank you &lt;3" in refused
        assert not (tmp_path / "out" / "sessions").exists()
        ws, view = await join(c)
        while view["kind"] == "trial":
            await answer(ws, view, "TRUE")
            view = await receive(ws, "show")
        assert view["kind"] == "end" and view["code"] == "C0DE" and view["redirect"] == "https://example.org/done"
    assert [(e.participant, e.reason, e.recorded) for e in ended] == [("P01", "completed", 4)]


def test_a_trial_kind_without_a_web_renderer_gets_the_terminal_page(tmp_path: Path) -> None:
    task = registry().get("worldsense")

    class PluginKind:
        trial_kind = "rating-scale"

        def __getattr__(self, name: str) -> Any:
            return getattr(task, name)

    config = ServeConfig(task=PluginKind(), plan_args=[], out=tmp_path, participants_file=None)  # type: ignore[arg-type]
    assert native_sessions(config, {}) is None
    assert native_sessions(ServeConfig(task=task, plan_args=[], out=tmp_path, participants_file=None), {}) is not None


async def test_a_link_whose_consent_was_declined_never_asks_again(tmp_path: Path) -> None:
    """Reopened after the server let the session go (idle, restarted, another node), a declined link shows that it
    was declined and that nothing was recorded, never the consent again (issue 23 item 13)."""
    async with TestClient(TestServer(make_server(tmp_path, consent=True).make_app())) as c:
        ws, view = await join(c)
        assert view["kind"] == "consent"
        await ws.send_json(["act", {"seq": view["seq"], "act": "decline"}])
        end = await receive(ws, "show")
        assert end["kind"] == "end" and "Nothing was recorded" in end["html"]
        await ws.close()
    async with TestClient(TestServer(make_server(tmp_path, consent=True).make_app())) as c:  # a restart
        ws = await c.ws_connect(f"/s/{TOKENS['P01']}/ws")
        await ws.send_json(["hello", COMPUTER])
        page = await receive(ws, "page")
        assert "You chose not to take part" in page and "Nothing was recorded" in page
        assert await closed(ws) == 1000
        ws, view = await join(c, "P02")  # another link still gets its consent
        assert view["kind"] == "consent"
        await ws.close()
    assert results(tmp_path) == [] and not list((tmp_path / "out" / "sessions").glob("*P01*.plan.json"))
    (state,) = [s.state for s in read_statuses(tmp_path / "out") if s.participant == "P01"]
    assert state == "declined"  # the Sessions screen and serve's table say so


async def test_a_page_that_stops_pinging_is_closed_and_the_others_are_not(tmp_path: Path) -> None:
    server = make_server(tmp_path)
    assert server.native is not None
    server.native.limits = NativeLimits(silent_s=0.5)
    async with TestClient(TestServer(server.make_app())) as c:
        quiet, _ = await join(c)
        alive, _ = await join(c, "P02")
        silent = asyncio.ensure_future(closed(quiet, timeout=5.0))
        while not silent.done():
            await alive.send_json(["ping", 1.0])
            await receive(alive, "pong")
            await asyncio.sleep(0.1)
        assert await silent == 4408  # silent: closed (the page reconnects when it is alive)
        assert not alive.closed
        await alive.close()


async def test_the_consent_is_shown_before_the_plan_is_built_and_the_answer_waits_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link opened before its plan is built (a cold server, a crowd join) gets its consent at once (issue 18 item
    5): the plan is built behind it; accepting waits for it, declining still records nothing but ``declined``."""
    release, calls = threading.Event(), []
    original = opening.new_plan

    def slow_planner(*args: Any, **kw: Any) -> Any:
        calls.append(args[0].participant)
        release.wait(20.0)  # a planner stuck far longer than receive() waits for the consent
        return original(*args, **kw)

    monkeypatch.setattr(opening, "new_plan", slow_planner)
    sessions = tmp_path / "out" / "sessions"
    async with TestClient(TestServer(make_server(tmp_path, consent=True).make_app())) as c:
        ws1, consent1 = await join(c, "P01")
        ws2, consent2 = await join(c, "P02")
        assert consent1["kind"] == consent2["kind"] == "consent" and "agree" in consent1["html"]
        assert not release.is_set() and not list(sessions.glob("*.plan.json"))  # shown while no plan exists
        await ws1.send_json(["act", {"seq": consent1["seq"], "act": "accept"}])
        await ws2.send_json(["act", {"seq": consent2["seq"], "act": "decline"}])
        await asyncio.sleep(0.2)
        assert not list(sessions.glob("*.plan.json"))  # accepting waited for the plan: nothing written before it
        release.set()
        trial = await receive(ws1, "show")
        assert trial["kind"] == "trial" and sorted(calls) == ["P01", "P02"]
        end = await receive(ws2, "show")
        assert end["kind"] == "end" and "Nothing was recorded" in end["html"]
        await answer(ws1, trial, "TRUE")
        await receive(ws1, "show")
        await ws1.close()
        await ws2.close()
    assert [r["client_rt_ms"] for r in results(tmp_path)] == [20.0]  # P01's answer, after its plan was saved
    assert [p.name for p in sessions.glob("*.plan.json")] == ["human-P01_session-1.plan.json"]
    states = {s.participant: s.state for s in read_statuses(tmp_path / "out")}
    assert states["P02"] == "declined"


async def test_a_session_live_on_another_node_replaces_its_consent_with_the_busy_page(tmp_path: Path) -> None:
    """Two nodes on one results folder: the second opens the same new link behind its consent, finds the session
    live on the first (its lock), and the page gets "busy" (it retries) instead of a consent that cannot start."""
    node_a, node_b = make_server(tmp_path, consent=True), make_server(tmp_path, consent=True)
    async with TestClient(TestServer(node_a.make_app())) as a, TestClient(TestServer(node_b.make_app())) as b:
        ws_a, consent_a = await join(a)
        assert consent_a["kind"] == "consent"
        deadline = time.monotonic() + 10.0
        while not list((tmp_path / "out").rglob("*.lock")) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)  # node A's opening behind its consent has taken the participant's lock
        ws_b, consent_b = await join(b)
        assert consent_b["kind"] == "consent"
        msg = await ws_b.receive(timeout=10.0)
        assert msg.type == WSMsgType.TEXT and json.loads(msg.data) == ["busy"]
        assert await closed(ws_b) == 4409
        await ws_a.send_json(["act", {"seq": consent_a["seq"], "act": "accept"}])
        assert (await receive(ws_a, "show"))["kind"] == "trial"  # the first node's session goes on
        await ws_a.close()
