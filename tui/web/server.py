"""``benchlab serve``: the aiohttp server giving each participant a private link to their own session.

The server exposes only ``/s/<token>`` (the page), ``/s/<token>/ws`` (its WebSocket) and the page's static files.
Each live WebSocket runs one app process (see :mod:`benchlab.tui.web.app_process`); the server relays bytes and a
few timing messages, and never reads or writes results itself, so crash safety stays the app's (every response
fsynced before the next trial). What the server guards: one live connection per token, a bounded number of
concurrent starts, bounded and rate-limited messages, clients that stop reading, and the app's process group dying
with the connection or the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from benchlab.tui.web import pages
from benchlab.tui.web.app_process import AppSpec, PacketReader, meta, packet, start_app, stop_app
from benchlab.tui.web.hooks import ServerHooks
from benchlab.tui.web.native import NativeSessions
from benchlab.tui.web.page_socket import (
    TokenBucket,
    close_socket,
    page_number,
    page_size,
    send_json,
    wait_closed,
)
from benchlab.tui.web.participants import Participant

log = logging.getLogger("benchlab.serve")

STATIC_DIR = Path(__file__).parent / "static"
#: The only files the server sends besides its pages (name -> content type).
STATIC_FILES = {
    "xterm.js": ("vendor/xterm.js", "text/javascript"),
    "xterm.css": ("vendor/xterm.css", "text/css"),
    "addon-fit.js": ("vendor/addon-fit.js", "text/javascript"),
    "page.js": ("page.js", "text/javascript"),
    "page.css": ("page.css", "text/css"),
    "native.js": ("native.js", "text/javascript"),
    "native.css": ("native.css", "text/css"),
}
TOKEN_RE = r"[A-Za-z0-9_-]{16,64}"
_TOKEN_OK = re.compile(rf"^{TOKEN_RE}$")


@dataclass(frozen=True)
class Limits:
    """Abuse limits; the defaults suit a participant typing (a few keys a second) with generous headroom."""

    max_starts: int = 2  # app processes starting at once (the others wait on a "please wait" page)
    max_msg_bytes: int = 64 * 1024
    max_stdin_chars: int = 4096
    rate_per_s: float = 60.0  # messages per second from a page (sustained)
    burst: float = 200.0
    hello_timeout_s: float = 10.0
    send_timeout_s: float = 10.0  # a page that does not read for this long is dropped
    max_buffered_bytes: int = 4 * 1024 * 1024
    heartbeat_s: float = 10.0
    ready_bytes: int = 512  # output before keys are passed on (the first real frame, not the setup escapes)
    start_timeout_s: float = 30.0  # a start slot is released after this even if the app never drew a frame


@dataclass
class Seen:
    """What the server knows of one participant (for the live table before the files say more)."""

    state: str = "not started"
    last_activity: datetime | None = None
    connections: int = 0
    exit_code: int | None = None


@dataclass
class Connection:
    """One live WebSocket (and its app process)."""

    participant: str
    ws: web.WebSocketResponse
    done: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False


@dataclass(frozen=True)
class _Hello:
    """What a page says when it connects."""

    width: int
    height: int
    user_agent: str
    reconnect: bool


class _StartSlot:
    """A start slot taken from the server's semaphore, given back once: at the app's first frame, when it cannot
    start, after the start timeout, or when the session ends, whichever comes first."""

    def __init__(self, starts: asyncio.Semaphore) -> None:
        self._starts = starts
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._starts.release()


@dataclass
class _Running:
    """One participant's running app and its page: what the relay steps of :meth:`SessionServer._serve` share."""

    conn: Connection
    request: web.Request
    seen: Seen
    proc: asyncio.subprocess.Process
    stdin: asyncio.StreamWriter
    slot: _StartSlot
    ready: asyncio.Event  # set once enough output was shown: keys pass to the app from then on
    release_timer: asyncio.TimerHandle


class SessionServer:
    """The participants, their tokens and live connections, and the aiohttp application serving them."""

    def __init__(self, *, participants: Mapping[str, Participant], tokens: Mapping[str, str],
                 app_spec: Callable[[Participant], AppSpec], title: str = "benchlab session",
                 limits: Limits | None = None, native: NativeSessions | None = None,
                 hooks: ServerHooks | None = None) -> None:
        self.limits = limits or Limits()
        #: The native page's sessions (in this process); ``None``: every participant gets the terminal page.
        self.native = native
        self.hooks = hooks or (native.hooks if native is not None else ServerHooks())
        self.title = title
        self.app_spec = app_spec
        self.participants: dict[str, Participant] = {}
        self.by_token: dict[str, str] = {}
        self.seen: dict[str, Seen] = {}
        self.live: dict[str, Connection] = {}
        self.processes: dict[str, asyncio.subprocess.Process] = {}
        self._starts: asyncio.Semaphore | None = None
        self._waiting: list[str] = []
        self.update(participants, tokens)

    def update(self, participants: Mapping[str, Participant], tokens: Mapping[str, str]) -> list[str]:
        """Add (or refresh) participants; return the ids that are new. A participant no longer listed has their link
        revoked at once (a page opened now gets the not-valid page); a session open right now runs to its end."""
        for pid in [p for p in self.participants if p not in participants]:
            self.by_token = {token: who for token, who in self.by_token.items() if who != pid}
            if pid not in self.live:
                del self.participants[pid]
        return self.add(participants, tokens)

    def add(self, participants: Mapping[str, Participant], tokens: Mapping[str, str]) -> list[str]:
        """Add (or refresh) ``participants`` and leave everyone else's link as it is; return the ids that are new.
        For one person at a time (a study join, the private links of a study): :meth:`update` takes the *whole*
        list, so calling it with one joiner would revoke every earlier joiner's link."""
        new = [pid for pid in participants if pid not in self.participants]
        self.participants.update(participants)
        for pid in participants:
            self.by_token[tokens[pid]] = pid
            self.seen.setdefault(pid, Seen())
        return new

    @property
    def starts(self) -> asyncio.Semaphore:
        if self._starts is None:
            self._starts = asyncio.Semaphore(self.limits.max_starts)
        return self._starts

    # --- the application -----------------------------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[_plain_errors], client_max_size=64 * 1024)
        app.router.add_get(f"/s/{{token:{TOKEN_RE}}}", self.page)
        app.router.add_get(f"/s/{{token:{TOKEN_RE}}}/ws", self.websocket)
        app.router.add_get("/static/{name}", self.static)
        self.hooks.mount(app)
        app.on_shutdown.append(self._on_shutdown)
        return app

    def _participant(self, request: web.Request) -> str:
        token = request.match_info.get("token", "")
        pid = self.by_token.get(token) if _TOKEN_OK.fullmatch(token) else None
        if pid is None:
            raise web.HTTPNotFound()
        return pid

    async def page(self, request: web.Request) -> web.Response:
        pid = self._participant(request)
        if self.native is not None:  # a reload or a second tab takes the session over: no dead end
            return _html(self.native.page(), csp=True)
        conn = self.live.get(pid)
        if conn is not None and not conn.closing:
            return _html(pages.OPEN_ELSEWHERE, status=409)
        return _html(pages.session_page(self.title))

    async def static(self, request: web.Request) -> web.StreamResponse:
        entry = STATIC_FILES.get(request.match_info["name"])
        if entry is None:
            raise web.HTTPNotFound()
        rel, ctype = entry
        return web.Response(body=(STATIC_DIR / rel).read_bytes(), content_type=ctype,
                            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        pid = self._participant(request)
        if self.native is not None:
            return await self.native.websocket(request, pid, request.match_info["token"])
        lim = self.limits
        ws = web.WebSocketResponse(heartbeat=lim.heartbeat_s, max_msg_size=lim.max_msg_bytes, compress=False,
                                   timeout=2.0)  # close handshake: a page that does not answer is let go
        await ws.prepare(request)
        old = self.live.get(pid)
        if old is not None and old.closing:  # the previous tab is going away: take over once its app is gone
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(old.done.wait(), 3.0)
            old = self.live.get(pid)
        if old is not None:
            await send_json(ws, ["busy"])
            await close_socket(ws, 4409, b"open in another tab")
            return ws
        conn = Connection(pid, ws)
        self.live[pid] = conn
        try:
            await self._serve(conn, request)
        except Exception:  # never a traceback to the page; the log keeps it
            log.exception("session of %s failed", pid)
        finally:
            conn.closing = True
            proc = self.processes.pop(pid, None)
            if proc is not None:
                await stop_app(proc)
                self.seen[pid].exit_code = proc.returncode
            await close_socket(ws)
            seen = self.seen[pid]
            if seen.state != "ended":
                seen.state = "disconnected"
            seen.last_activity = _now()
            self.live.pop(pid, None)
            conn.done.set()
            log.info("%s disconnected", pid)
        return ws

    async def _on_shutdown(self, app: web.Application) -> None:
        if self.native is not None:
            await self.native.close()
        await self.stop_apps()
        for conn in list(self.live.values()):
            await close_socket(conn.ws, 1001, b"server shutting down")

    async def stop_apps(self) -> None:
        """Stop every app (process groups gone within about a second): the server is going away."""
        for conn in list(self.live.values()):
            conn.closing = True
        await asyncio.gather(*(stop_app(p) for p in list(self.processes.values())), return_exceptions=True)

    # --- one session ---------------------------------------------------------------------------------------

    async def _serve(self, conn: Connection, request: web.Request) -> None:
        """One page's session: its hello, a start slot, the app started, bytes relayed both ways until either side
        ends, then the app stopped (see the steps below)."""
        hello = await self._hello(conn, request)
        if hello is None:
            return
        slot = await self._wait_for_start(conn)
        if not slot:
            return
        run = await self._start_app(conn, request, hello, _StartSlot(self.starts))
        if run is None:
            return
        tasks = [asyncio.ensure_future(t) for t in (self._app_to_page(run), self._page_to_app(run),
                                                     self._drain_stderr(run))]
        try:
            await asyncio.wait(tasks[:2], return_when=asyncio.FIRST_COMPLETED)
        finally:
            await self._finish(run, tasks)

    async def _hello(self, conn: Connection, request: web.Request) -> _Hello | None:
        """The page's first message (its size, whether it reconnects); ``None`` for a page that sends none."""
        pid, ws, lim = conn.participant, conn.ws, self.limits
        try:
            hello = await ws.receive_json(timeout=lim.hello_timeout_s)
        except (TimeoutError, TypeError, ValueError, RuntimeError):
            return None
        if not (isinstance(hello, list) and len(hello) == 2 and hello[0] == "hello" and isinstance(hello[1], dict)):
            return None
        info = hello[1]
        width, height = page_size(info.get("width")), page_size(info.get("height"), 24)
        user_agent = str(request.headers.get("User-Agent", ""))[:300]
        seen = self.seen[pid]
        reconnect = bool(info.get("reconnect")) or seen.connections > 0
        seen.connections += 1
        seen.state, seen.last_activity = "waiting to start", _now()
        log.info("%s connected (%s)", pid, "reconnect" if reconnect else "first connection")
        return _Hello(width, height, user_agent, reconnect)

    async def _start_app(self, conn: Connection, request: web.Request, hello: _Hello,
                         slot: _StartSlot) -> _Running | None:
        """Start the participant's app and tell the page; the slot goes back at the first frame or after the start
        timeout. ``None`` (the page told ``failed``) when the app cannot be started."""
        pid, ws, lim = conn.participant, conn.ws, self.limits
        seen = self.seen[pid]
        try:
            proc = await start_app(self.app_spec(self.participants[pid]), hello.width, hello.height)
        except OSError:
            slot.release()
            log.exception("cannot start the app of %s", pid)
            await send_json(ws, ["failed"])
            return None
        self.processes[pid] = proc
        seen.state = "connected"
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        stdin = proc.stdin
        stdin.write(meta({"type": "benchlab_client", "user_agent": hello.user_agent, "reconnect": hello.reconnect}))
        await send_json(ws, ["started"])
        ready = asyncio.Event()
        release_timer = asyncio.get_running_loop().call_later(lim.start_timeout_s, slot.release)
        return _Running(conn, request, seen, proc, stdin, slot, ready, release_timer)

    async def _app_to_page(self, run: _Running) -> None:
        """The app's terminal output to the page; keys pass once enough of it was shown (the first real frame)."""
        lim, ws, seen, proc, ready = self.limits, run.conn.ws, run.seen, run.proc, run.ready
        reader = PacketReader()
        shown = 0
        assert proc.stdout is not None
        while True:
            data = await proc.stdout.read(65536)
            if not data:
                return
            for kind, payload in reader.feed(data):
                if kind == b"D":
                    shown += len(payload)
                    await self._send(run.conn, run.request, payload)
                    if shown >= lim.ready_bytes and not ready.is_set():
                        ready.set()
                        run.slot.release()
                        await send_json(ws, ["ready"])
                elif kind == b"M":
                    with contextlib.suppress(ValueError):
                        if json.loads(payload).get("type") == "exit":
                            seen.state = "ended"

    async def _page_to_app(self, run: _Running) -> None:
        """The page's messages to the app, rate-limited; a binary, flooding or malformed message closes the page."""
        lim, pid, ws, seen, stdin, ready = (self.limits, run.conn.participant, run.conn.ws, run.seen, run.stdin,
                                            run.ready)
        bucket = TokenBucket(lim.rate_per_s, lim.burst)
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    await close_socket(ws, 1003, b"text messages only")
                return
            if not bucket.take():
                log.warning("%s: too many messages, connection closed", pid)
                await close_socket(ws, 1008, b"too many messages")
                return
            seen.last_activity = _now()
            out = self._relay(msg.data, ready.is_set())
            if out is None:
                await close_socket(ws, 1008, b"bad message")
                return
            if isinstance(out, list):
                await send_json(ws, out)
            elif out:
                stdin.write(out)
                await stdin.drain()

    async def _drain_stderr(self, run: _Running) -> None:
        """The app's stderr, read so it never blocks; its last 4000 bytes go to the log."""
        proc = run.proc
        assert proc.stderr is not None
        tail = b""
        while chunk := await proc.stderr.read(65536):
            tail = (tail + chunk)[-4000:]
        if tail.strip():
            log.info("%s app output: %s", run.conn.participant, tail.decode("utf-8", "replace").strip())

    async def _finish(self, run: _Running, tasks: Sequence[asyncio.Future[None]]) -> None:
        """Either side ended: record how (an app that ended by itself tells the page its exit code), stop the app."""
        conn, ws, seen, proc, pid = run.conn, run.conn.ws, run.seen, run.proc, run.conn.participant
        stopped_by_server = conn.closing  # the server is going away: the page reconnects, no end page
        conn.closing = True  # a new tab of this participant may take over once the app is gone
        run.release_timer.cancel()
        run.slot.release()
        for t in tasks[:2]:
            t.cancel()
        app_ended = (not stopped_by_server and tasks[0].done() and not tasks[0].cancelled()
                     and tasks[0].exception() is None)
        if app_ended:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), 2.0)
            seen.exit_code = proc.returncode
            seen.state = "ended" if proc.returncode == 0 else f"app error (exit {proc.returncode}, see the log)"
            with contextlib.suppress(Exception):
                await send_json(ws, ["end", proc.returncode])
        await stop_app(proc)
        self.processes.pop(pid, None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(tasks[2], 1.0)
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _wait_for_start(self, conn: Connection) -> bool:
        """Take a start slot, telling the page its place in the queue meanwhile; ``False`` if the page left."""
        sem = self.starts
        if not sem.locked():
            await sem.acquire()
            return True
        self._waiting.append(conn.participant)
        acquire = asyncio.ensure_future(sem.acquire())
        gone = asyncio.ensure_future(wait_closed(conn.ws))
        try:
            while True:
                # how many wait before this page (0: it is next; the sessions starting now are not "ahead")
                await send_json(conn.ws, ["queued", self._waiting.index(conn.participant)])
                await asyncio.wait({acquire, gone}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                if acquire.done():
                    break
                if gone.done():
                    acquire.cancel()
                    return False
        finally:
            self._waiting.remove(conn.participant)
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await gone
        if conn.ws.closed:  # the page left just as the slot came: give it back
            sem.release()
            return False
        return True

    def _relay(self, text: str, ready: bool) -> bytes | list[Any] | None:
        """What one page message becomes: bytes for the app (maybe empty), a reply for the page, or ``None`` for a
        message that breaks the protocol (the connection is closed)."""
        try:
            msg = json.loads(text)
        except ValueError:
            return None
        if not (isinstance(msg, list) and msg and isinstance(msg[0], str)):
            return None
        kind, args = msg[0], msg[1:]
        arg = args[0] if args else None
        if kind == "ping":
            return ["pong", arg, time.monotonic() * 1000.0]
        if kind == "stdin" and isinstance(arg, str):
            if len(arg) > self.limits.max_stdin_chars:
                return None
            return packet(b"D", arg.encode("utf-8", "replace")) if ready else b""
        if not isinstance(arg, dict):
            return b"" if kind in ("hello",) else None
        if kind == "key":
            if not ready:
                return b""
            return meta({"type": "benchlab_key", "key": str(arg.get("key", ""))[:32],
                         "page_ms": page_number(arg.get("page_ms"))})
        if kind == "onset":
            return meta({"type": "benchlab_onset", "mark": str(arg.get("mark", ""))[:64],
                         "page_ms": page_number(arg.get("page_ms"))})
        if kind == "clock":
            return meta({"type": "benchlab_clock", "offset_ms": page_number(arg.get("offset_ms")),
                         "rtt_ms": page_number(arg.get("rtt_ms"))})
        if kind == "resize":
            return meta({"type": "resize", "width": page_size(arg.get("width")),
                         "height": page_size(arg.get("height"), 24)})
        return b""  # an unknown message from a newer page: ignored

    async def _send(self, conn: Connection, request: web.Request, payload: bytes) -> None:
        """Terminal output to the page; a page that stops reading is dropped (its app stopped with it)."""
        transport = request.transport
        if transport is not None and transport.get_write_buffer_size() > self.limits.max_buffered_bytes:
            raise ConnectionError("the page stopped reading")
        await asyncio.wait_for(conn.ws.send_bytes(payload), self.limits.send_timeout_s)


@web.middleware
async def _plain_errors(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Every error is a plain page: 404 for anything unknown, never a traceback."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except web.HTTPNotFound:
        return _html(pages.NOT_FOUND, status=404)
    except web.HTTPMethodNotAllowed:
        return _html(pages.NOT_FOUND, status=404)
    except web.HTTPException as exc:
        if exc.status >= 400:
            return _html(pages.plain_page("Error", exc.reason or "error"), status=exc.status)
        raise
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("error serving %s", request.path)
        return _html(pages.plain_page("Error", "Something went wrong. Please reload the page."), status=500)


def _html(text: str, status: int = 200, *, csp: bool = False) -> web.Response:
    headers = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
               "X-Frame-Options": "DENY"}
    if csp:  # the native page: only this server's own script and style, nothing inline, nothing elsewhere
        headers["Content-Security-Policy"] = "default-src 'self'; base-uri 'none'; form-action 'none'"
    return web.Response(text=text, status=status, content_type="text/html", headers=headers)


def _now() -> datetime:
    return datetime.now(UTC)
