"""``benchlab serve`` without a browser: routes, tokens, abuse limits and process cleanup (aiohttp test client and a
stand-in app speaking the web-driver packets, see ``web_fake_app.py``)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from benchlab.tui.web.app_process import AppSpec, group_alive
from benchlab.tui.web.participants import Participant
from benchlab.tui.web.server import Limits, SessionServer

FAKE_APP = Path(__file__).with_name("web_fake_app.py")
TOKENS = {"P01": "tok-P01-aaaaaaaaaaaaaaaaaaaa", "P02": "tok-P02-bbbbbbbbbbbbbbbbbbbb",
          "P03": "tok-P03-cccccccccccccccccccc"}


class Spawns:
    """Counts app starts and tells each fake app where to record what it receives."""

    def __init__(self, folder: Path, *extra: str) -> None:
        self.folder, self.extra, self.started = folder, extra, []  # type: ignore[var-annotated]

    def __call__(self, participant: Participant) -> AppSpec:
        self.started.append(participant.id)
        return AppSpec([sys.executable, str(FAKE_APP), str(self.record(participant.id)), *self.extra], {})

    def record(self, pid: str) -> Path:
        return self.folder / f"{pid}.jsonl"

    def received(self, pid: str) -> list[dict[str, object]]:
        path = self.record(pid)
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def make_server(spawns: Spawns, **limits: object) -> SessionServer:
    people = {pid: Participant(pid) for pid in TOKENS}
    return SessionServer(participants=people, tokens=TOKENS, app_spec=spawns, limits=Limits(**limits))  # type: ignore[arg-type]


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[TestClient, SessionServer, Spawns]]:
    spawns = Spawns(tmp_path)
    server = make_server(spawns)
    async with TestClient(TestServer(server.make_app())) as client:
        yield client, server, spawns


async def open_session(client: TestClient, pid: str = "P01") -> object:
    ws = await client.ws_connect(f"/s/{TOKENS[pid]}/ws")
    await ws.send_json(["hello", {"width": 100, "height": 30}])
    await wait_for_message(ws, "ready")
    return ws


async def wait_for_message(ws: object, kind: str, timeout: float = 10.0) -> list[object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = await ws.receive(timeout=deadline - time.monotonic())  # type: ignore[attr-defined]
        if msg.type == WSMsgType.TEXT and json.loads(msg.data)[0] == kind:
            return json.loads(msg.data)  # type: ignore[no-any-return]
        if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
            raise AssertionError(f"closed while waiting for {kind!r}")
    raise AssertionError(f"no {kind!r} message within {timeout} s")


async def wait_until(condition: object, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return bool(condition())  # type: ignore[operator]


async def test_unknown_tokens_and_path_tricks_get_a_plain_404_and_start_nothing(served: tuple) -> None:
    client, server, spawns = served
    for path in ["/", "/s/", "/s/not-a-token-at-all-xxxxxx", "/s/not-a-token-at-all-xxxxxx/ws", "/s/../../etc/passwd",
                 "/s/%2e%2e/%2e%2e/etc/passwd", "/static/../server.py", "/static/vendor/xterm.js",
                 "/static/%2e%2e%2fserver.py", f"/s/{TOKENS['P01']}/../../etc/passwd", "/links.csv",
                 "/serve-tokens.json", "/sessions/"]:
        response = await client.get(path, allow_redirects=False)
        body = await response.text()
        assert response.status == 404, path
        assert "This link is not valid" in body and "Traceback" not in body, path
    assert spawns.started == [] and server.processes == {}
    page = await client.get(f"/s/{TOKENS['P01']}")
    assert page.status == 200 and "/static/xterm.js" in await page.text()
    for name in ("xterm.js", "xterm.css", "addon-fit.js", "page.js", "page.css"):
        assert (await client.get(f"/static/{name}")).status == 200
    assert spawns.started == []  # loading the page starts nothing; the WebSocket does


async def test_page_loads_nothing_from_outside_the_server(served: tuple) -> None:
    client, _, _ = served
    html = await (await client.get(f"/s/{TOKENS['P01']}")).text()
    for name in ("page.js", "page.css"):
        html += await (await client.get(f"/static/{name}")).text()
    assert "http://" not in html and "https://" not in html and "//fonts" not in html


async def test_keys_reach_the_app_with_their_page_stamp_first(served: tuple) -> None:
    client, _, spawns = served
    ws = await open_session(client)
    await ws.send_json(["key", {"key": "1", "page_ms": 1234.5}])
    await ws.send_json(["stdin", "1"])
    await ws.send_json(["onset", {"mark": "3.1", "page_ms": 1200.0}])
    await ws.send_json(["clock", {"offset_ms": -5.0, "rtt_ms": 0.4}])
    assert await wait_until(lambda: len(spawns.received("P01")) >= 5)
    got = spawns.received("P01")
    assert got[0]["data"]["type"] == "benchlab_client" and got[0]["data"]["reconnect"] is False
    assert got[1] == {"kind": "M", "data": {"type": "benchlab_key", "key": "1", "page_ms": 1234.5}}
    assert got[2] == {"kind": "D", "data": "1"}
    assert got[3]["data"] == {"type": "benchlab_onset", "mark": "3.1", "page_ms": 1200.0}
    assert got[4]["data"] == {"type": "benchlab_clock", "offset_ms": -5.0, "rtt_ms": 0.4}
    await ws.send_json(["ping", 99.0])
    pong = await wait_for_message(ws, "pong")
    assert pong[1] == 99.0 and abs(pong[2] - time.monotonic() * 1000) < 5000
    await ws.close()


async def test_keys_before_the_app_has_drawn_are_dropped(tmp_path: Path) -> None:
    spawns = Spawns(tmp_path, "--ready-after", "1.0")
    server = make_server(spawns)
    async with TestClient(TestServer(server.make_app())) as client:
        ws = await client.ws_connect(f"/s/{TOKENS['P01']}/ws")
        await ws.send_json(["hello", {"width": 80, "height": 24}])
        await wait_for_message(ws, "started")
        for _ in range(5):
            await ws.send_json(["key", {"key": "1", "page_ms": 1.0}])
            await ws.send_json(["stdin", "1"])
        await wait_for_message(ws, "ready")
        await ws.send_json(["stdin", "2"])
        assert await wait_until(lambda: any(r["kind"] == "D" for r in spawns.received("P01")))
        assert [r["data"] for r in spawns.received("P01") if r["kind"] == "D"] == ["2"]
        await ws.close()


async def test_a_second_tab_is_refused_while_the_first_is_open(served: tuple) -> None:
    client, _, spawns = served
    first = await open_session(client)
    page = await client.get(f"/s/{TOKENS['P01']}")
    assert page.status == 409 and "open in another tab" in await page.text()
    second = await client.ws_connect(f"/s/{TOKENS['P01']}/ws")
    assert await wait_for_message(second, "busy") == ["busy"]
    msg = await second.receive(timeout=5)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert spawns.started == ["P01"]
    # The first tab is untouched and another participant is served meanwhile.
    await first.send_json(["stdin", "x"])
    other = await open_session(client, "P02")
    assert await wait_until(lambda: {"kind": "D", "data": "x"} in spawns.received("P01"))
    await other.close()
    await first.close()
    # Once the first tab is gone, the link works again (a reconnect: the app is told so).
    again = await open_session(client)
    assert await wait_until(lambda: len(spawns.received("P01")) > 2)
    clients = [r["data"] for r in spawns.received("P01") if r["kind"] == "M" and r["data"]["type"] == "benchlab_client"]
    assert [c["reconnect"] for c in clients] == [False, True]
    await again.close()


async def test_closing_the_page_ends_the_app_process_group_within_2_s(tmp_path: Path) -> None:
    spawns = Spawns(tmp_path, "--child")
    server = make_server(spawns)
    async with TestClient(TestServer(server.make_app())) as client:
        ws = await open_session(client)
        proc = server.processes["P01"]
        child = int(Path(str(spawns.record("P01")) + ".child").read_text())
        assert group_alive(proc.pid)
        await ws.close()
        t0 = time.monotonic()
        assert await wait_until(lambda: not group_alive(proc.pid) and not _alive(child), timeout=3.0)
        assert time.monotonic() - t0 < 2.0
        assert await wait_until(lambda: server.live == {})
        assert server.seen["P01"].state == "disconnected"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


async def test_a_huge_message_closes_only_that_connection(served: tuple) -> None:
    client, server, spawns = served
    other = await open_session(client, "P02")
    ws = await open_session(client)
    await ws.send_str(json.dumps(["stdin", "x" * 200_000]))
    msg = await ws.receive(timeout=5)
    while msg.type == WSMsgType.BINARY or msg.type == WSMsgType.TEXT:
        msg = await ws.receive(timeout=5)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert await wait_until(lambda: "P01" not in server.live)
    assert all(r["data"] != "x" * 200_000 for r in spawns.received("P01"))
    await other.send_json(["stdin", "still here"])
    assert await wait_until(lambda: {"kind": "D", "data": "still here"} in spawns.received("P02"))
    await other.close()


async def test_a_flood_of_messages_closes_the_connection(served: tuple) -> None:
    client, server, spawns = served
    ws = await open_session(client)
    for i in range(2000):
        if ws.closed:
            break
        await ws.send_json(["stdin", str(i % 10)])
    assert await wait_until(lambda: "P01" not in server.live, timeout=5.0)
    assert len([r for r in spawns.received("P01") if r["kind"] == "D"]) < 2000


async def test_protocol_garbage_closes_the_connection_without_a_traceback(served: tuple) -> None:
    client, server, _ = served
    for garbage in ("not json", "[]", '["stdin", 5]'):
        ws = await open_session(client)
        await ws.send_str(garbage)
        assert await wait_until(lambda: "P01" not in server.live), garbage
    ws = await client.ws_connect(f"/s/{TOKENS['P01']}/ws")
    await ws.send_bytes(b"\x00" * 10)  # no hello: nothing starts
    msg = await ws.receive(timeout=5)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)


def _ws_frame(text: str) -> bytes:
    """One masked client text frame (a raw client, so the test controls what it reads: nothing)."""
    payload, mask = text.encode(), os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def test_a_page_that_never_reads_is_dropped(tmp_path: Path) -> None:
    spawns = Spawns(tmp_path)
    server = make_server(spawns, send_timeout_s=2.0, max_buffered_bytes=64 * 1024, rate_per_s=1000.0, burst=1000.0)
    async with TestClient(TestServer(server.make_app())) as client:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((client.host, client.port))
        sock.setblocking(False)
        _, writer = await asyncio.open_connection(sock=sock)
        writer.write(f"GET /s/{TOKENS['P01']}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        writer.write(_ws_frame(json.dumps(["hello", {"width": 80, "height": 24}])))
        await writer.drain()
        assert await wait_until(lambda: "P01" in server.processes, timeout=10.0)
        await asyncio.sleep(1.0)  # the app has drawn: keys now reach it, and every key makes it echo
        payload = json.dumps(["stdin", "y" * 4000])
        deadline = time.monotonic() + 20.0
        while "P01" in server.live and time.monotonic() < deadline:
            writer.write(_ws_frame(payload))
            await asyncio.sleep(0.005)
        assert "P01" not in server.live  # dropped: its app is stopped, the server goes on
        writer.close()
        other = await open_session(client, "P02")
        await other.close()


async def test_starts_beyond_the_limit_wait_with_their_place_in_the_queue(tmp_path: Path) -> None:
    spawns = Spawns(tmp_path, "--ready-after", "1.0")
    server = make_server(spawns, max_starts=1)
    async with TestClient(TestServer(server.make_app())) as client:
        first = await client.ws_connect(f"/s/{TOKENS['P01']}/ws")
        await first.send_json(["hello", {"width": 80, "height": 24}])
        await wait_for_message(first, "started")
        second = await client.ws_connect(f"/s/{TOKENS['P02']}/ws")
        await second.send_json(["hello", {"width": 80, "height": 24}])
        assert await wait_for_message(second, "queued") == ["queued", 0]  # nobody waits before it: it is next
        third = await client.ws_connect(f"/s/{TOKENS['P03']}/ws")
        await third.send_json(["hello", {"width": 80, "height": 24}])
        assert await wait_for_message(third, "queued") == ["queued", 1]  # one waits before it
        assert spawns.started == ["P01"]
        await wait_for_message(second, "ready")
        assert spawns.started == ["P01", "P02"]
        await first.close()
        await second.close()
        await third.close()
