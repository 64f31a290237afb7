"""The native participant page's server side: one :class:`~benchlab.tui.web.live.LiveSession` per participant, in
the server process (no process per participant), driven over the page's WebSocket.

Rules this module keeps:

* **Writes off the event loop, in order.** Every runner step that writes (consent, a record, an event) runs in a
  thread pool under the session's own lock; the next view is sent only after the write returned (the record is
  fsynced), so a view on screen never precedes the record of the one before. One fsync per answer: the record
  carries the page's timing itself.
* **Only what the next view depends on is waited for.** Page events (connected, hidden, blur, clipboard, a
  trial's onset) are appended to the session's log in order but without an fsync and without holding up the
  page (they survive a killed server, not a power cut; what a trial's record needs from them is summed into the
  fsynced record). ``trial_continue`` (a SORT passage left for its question) stays fsynced before the next view.
* **Pools sized to their work.** fsyncs run in :attr:`NativeLimits.writers` threads (on the build machine's disk
  8 in flight commit several thousand fsyncs a second, 50 times what 500 participants need, with a p95 of a few
  ms; more in flight only add latency); opening a session (its lock, plan and first event: 5 fsyncs) runs in its
  own small pool, so that 50 links opened in one second do not queue behind the answers' fsyncs, nor the answers
  behind them.
* **Consent before the plan.** A new session's consent needs no plan, so it is shown as soon as the link's options
  and texts are read; the plan (the CPU-heavy part of opening: ~17 ms on the full WorldSense test set) is built and
  the session opened (its lock taken) in a worker meanwhile, or taken from the plans built ahead. The answer to the
  consent waits for that opening only if it is not done yet; nothing is written before it, as before. An opening
  that fails meanwhile (live on another node, unreadable files) replaces the consent with the page it gets now.
* **Take-over, never a dead end.** A second connection for the same link (a reload, a reopened link, a second
  tab) takes the session over: the old page is told and closed, the new one gets the current view, marked as a
  re-showing when it is a trial.
* **Heartbeat.** The page pings every second; a connection silent for :attr:`NativeLimits.silent_s` is closed (the
  page covers the stimulus with "Reconnecting…" on its side once pongs stop, and reconnects).
* **Device check before anything.** The page's first message reports its screen and pointer; a study that needs
  a computer (or a minimum screen) gets a clear page, and neither a file nor a lock is written. Then the online
  gate (:class:`~benchlab.tui.web.hooks.ServerHooks`) may refuse the joiner, also before anything is written.
* **Bad input.** Non-text, oversized, non-JSON or flooding messages, and forged times, close the connection; the
  session and the other participants go on; stale or replayed messages change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from benchlab.annotations.session.opening import Opening
from benchlab.annotations.session.runner import SessionRunner, Stage, wall_clock_now
from benchlab.data.errors import BenchlabError
from benchlab.tui.web import native_page
from benchlab.tui.web.hooks import Joiner, ServerHooks, SessionEnd
from benchlab.tui.web.live import LiveSession, Refused
from benchlab.tui.web.page_socket import TokenBucket, close_socket, send_json
from benchlab.tui.web.refused_opening import cannot_open, declined_before, declined_page

log = logging.getLogger("benchlab.serve")


@dataclass(frozen=True)
class NativeLimits:
    """Limits of the native page's connections."""

    max_msg_bytes: int = 8 * 1024
    rate_per_s: float = 30.0
    burst: float = 60.0
    hello_timeout_s: float = 10.0
    silent_s: float = 3.0  # no message (the page pings every second) for this long: the connection is dead
    #: A session without a page for this long is closed (its lock released: another node may take it; memory
    #: freed); the participant's next visit opens it again, as after a restart.
    idle_release_s: float = 30.0
    #: Threads doing the sessions' fsyncs (``python -m benchlab.tui.harness.fsync_probe DIR`` measures a disk: on
    #: the build machine 8 in flight commit ~6500 fsyncs/s at a p95 of ~4 ms; see NOTES-glue3.md).
    writers: int = 8
    #: Threads opening sessions: an opening is ~3 ms of CPU and 5 fsyncs (lock, plan, folder, first event), so a
    #: few in flight keep 50 links a second from queueing without crowding the answers' writers.
    openers: int = 4
    #: Threads opening new sessions behind their consent page (building a plan is pure-Python CPU, so more threads
    #: build no faster under the GIL; each one more only takes the event loop's turns at it).
    planners: int = 1


@dataclass(frozen=True)
class DeviceRule:
    """What a study asks of the participant's device (checked before consent)."""

    require_computer: bool = False
    min_width: int = 0
    min_height: int = 0

    def refusal(self, device: Mapping[str, Any]) -> str | None:
        """Why this device may not take part (``None``: it may)."""
        fine, coarse = bool(device.get("fine")), bool(device.get("coarse"))
        if self.require_computer and (coarse or not fine):
            return "computer"
        sw, sh = _int(device.get("screen_w")), _int(device.get("screen_h"))
        if self.min_width or self.min_height:
            big, small = max(sw, sh), min(sw, sh)
            if big < max(self.min_width, self.min_height) or small < min(self.min_width, self.min_height):
                return "size"
        return None


def _append_unsynced(live: LiveSession, event: str, fields: dict[str, Any]) -> None:
    """One event line in the session's log like ``SessionRunner.log_event`` writes it, without the fsync."""
    r = live.runner
    record = {"event": event, "mono": time.monotonic(), "timestamp": wall_clock_now(),
              "participant": r.plan.participant, "session": r.plan.session, **fields}
    with contextlib.suppress(OSError), open(r.files.events, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _read_events(path: Path) -> list[dict[str, Any]]:
    """A session's event log (a torn or odd line is skipped: this only replays trial showings)."""
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            event = json.loads(line)
            if isinstance(event, dict):
                out.append(event)
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if abs(value) < 1e12 else None


def _int(value: Any) -> int:
    try:
        return max(0, min(100_000, int(value)))
    except (TypeError, ValueError, OverflowError):
        return 0


#: A participant id -> their session about to open (cheap: options and texts; in a worker, it may read files).
Opener = Callable[[str], Opening]


class NativeSessions:
    """The live sessions of a server and the WebSocket handler of the native page."""

    def __init__(self, *, opener: Opener, kind: str, title: str, hooks: ServerHooks | None = None,
                 device: DeviceRule | None = None, limits: NativeLimits | None = None) -> None:
        self.opener = opener
        self.kind = kind
        self.title = title
        self.hooks = hooks or ServerHooks()
        self.device = device or DeviceRule()
        self.limits = limits or NativeLimits()
        self.sessions: dict[str, LiveSession] = {}
        self.sockets: dict[str, web.WebSocketResponse] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._pool = ThreadPoolExecutor(max_workers=self.limits.writers, thread_name_prefix="benchlab-write")
        self._openers = ThreadPoolExecutor(max_workers=self.limits.openers, thread_name_prefix="benchlab-open")
        self._planners = ThreadPoolExecutor(max_workers=self.limits.planners, thread_name_prefix="benchlab-plan")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        #: Each open connection's last message time, and the one task closing those gone silent.
        self._alive: dict[web.WebSocketResponse, list[float]] = {}
        self._sweeper: asyncio.Future[None] | None = None
        self._closing: set[asyncio.Future[None]] = set()
        #: Per session, the last of its page events still being appended (the next write of the session waits
        #: for it, so the log keeps its order).
        self._tails: dict[str, asyncio.Future[None]] = {}
        #: Each participant's last device report (the page's own, never the User-Agent): logged as a
        #: ``page_device`` event once the session has started, which the Sessions screen and dashboard read.
        self.devices: dict[str, dict[str, Any]] = {}

    def lock(self, pid: str) -> asyncio.Lock:
        return self._locks.setdefault(pid, asyncio.Lock())

    async def _write(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _in_order(self, live: LiveSession, fn: Callable[..., Any], *args: Any) -> Any:
        """A write of the session after its page events still being appended (the events log keeps its order)."""
        tail = self._tails.get(live.participant)
        if tail is not None and not tail.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(tail)
        return await self._write(fn, *args)

    def _later(self, live: LiveSession, event: str, fields: dict[str, Any]) -> None:
        """Append a page event without fsync and without waiting for it (after the session's earlier ones)."""
        if not live.started or live.ended:
            return
        prev = self._tails.get(live.participant)

        async def append() -> None:
            if prev is not None and not prev.done():
                with contextlib.suppress(Exception):
                    await prev
            await self._write(_append_unsynced, live, event, fields)

        pid = live.participant
        tail = asyncio.ensure_future(append())
        self._tails[pid] = tail
        tail.add_done_callback(lambda done: self._tails.pop(pid, None) if self._tails.get(pid) is done else None)

    def page(self) -> str:
        return native_page.session_page(self.title)

    # -- the WebSocket ----------------------------------------------------------------------------------------

    async def websocket(self, request: web.Request, pid: str, token: str) -> web.WebSocketResponse:
        lim = self.limits
        ws = web.WebSocketResponse(max_msg_size=lim.max_msg_bytes, compress=False, timeout=2.0)
        await ws.prepare(request)
        try:
            hello = await ws.receive_json(timeout=lim.hello_timeout_s)
        except (TimeoutError, TypeError, ValueError, RuntimeError):
            await close_socket(ws, 1008, b"no hello")
            return ws
        if not (isinstance(hello, list) and len(hello) == 2 and hello[0] == "hello" and isinstance(hello[1], dict)):
            await close_socket(ws, 1008, b"bad hello")
            return ws
        info: dict[str, Any] = hello[1]
        device = {k: info.get(k) for k in ("width", "height", "screen_w", "screen_h", "touch", "coarse", "fine")}
        async with self.lock(pid):
            live = self.sessions.get(pid)
            if live is None:
                refused = await self._admit(ws, request, pid, token, device, info)
                if refused:
                    return ws
                live = self.sessions.get(pid)
                if live is None:
                    return ws
            old = self.sockets.get(pid)
            self.sockets[pid] = ws
            if old is not None and old is not ws:
                await send_json(old, ["gone", native_page.taken_over_html()])
                await close_socket(old, 4001, b"taken over")
            if live.trial is not None and live.trial.visit is not None:
                live.page_left(time.monotonic())  # the old page's showing ended at the take-over
            outage = _int(info.get("outage_keys"))
            live.outage_keys(outage)
            self.devices[pid] = device
            agent = ({"user_agent": str(request.headers.get("User-Agent", ""))[:200]}
                     if os.environ.get("BENCHLAB_RECORD_USER_AGENT") == "1" else {})  # privacy: opt in only
            self._later(live, "page_connected", {"reconnect": bool(info.get("reconnect")), "outage_keys": outage,
                                                 **agent, **device})
            await self._show(live, ws)
        await self._serve(live, ws, pid)
        return ws

    async def _admit(self, ws: web.WebSocketResponse, request: web.Request, pid: str, token: str,
                     device: dict[str, Any], info: dict[str, Any]) -> bool:
        """Device check, the online gate, then the session opened (in a thread: it loads data). ``True`` when the
        page was given a page instead (nothing written)."""
        why = self.device.refusal(device)
        if why is not None:
            log.info("%s refused by the device check (%s)", pid, why)
            await send_json(ws, ["page", native_page.device_html(why, self.device)])
            await close_socket(ws, 1000, b"device")
            return True
        if self.hooks.gate is not None:
            query = info.get("query") if isinstance(info.get("query"), dict) else {}
            joiner = Joiner(pid, token, str(request.headers.get("User-Agent", ""))[:300], {**device, "query": query})
            refusal = await self.hooks.gate(joiner)
            if refusal is not None:
                await send_json(ws, ["page", native_page.refusal_html(refusal)])
                await close_socket(ws, 1000, b"refused")
                return True
        loop = asyncio.get_running_loop()
        try:
            opening, declined = await loop.run_in_executor(self._openers, self._prepare, pid)
            if declined:
                return await declined_page(ws, pid)
            if opening.consent_first:
                live = LiveSession(pid, None, self.kind, consent=opening.text.consent or "")
                live.opening = asyncio.ensure_future(self._open_behind_consent(live, opening))
                self.sessions[pid] = live
                return False
            runner = await loop.run_in_executor(self._openers, opening.open)
        except BenchlabError as exc:
            await cannot_open(ws, pid, exc)
            return True
        if runner.stage is Stage.CONSENT and await loop.run_in_executor(self._openers, declined_before,
                                                                        runner.files.events):
            runner.close()
            return await declined_page(ws, pid)
        history = (await loop.run_in_executor(self._openers, _read_events, runner.files.events)
                   if runner.resume else [])
        self.sessions[pid] = LiveSession(pid, runner, self.kind, history=history)
        return False

    def _prepare(self, pid: str) -> tuple[Opening, bool]:
        """``pid``'s session about to open, and whether it is a new one whose consent was declined before (one
        call in a worker: each hop between the loop and a worker waits for the GIL behind the plans being built)."""
        opening = self.opener(pid)
        return opening, opening.consent_first and opening.files is not None and declined_before(opening.files.events)

    async def _open_behind_consent(self, live: LiveSession, opening: Opening) -> SessionRunner | None:
        """Open ``live``'s session (build its plan, take its lock) in a worker while its consent is on screen;
        ``None`` when it failed, then its page gets what a failed opening gets (the page of the moment is gone)."""
        pid = live.participant
        try:
            live.opened = await asyncio.get_running_loop().run_in_executor(self._planners, opening.open)
            return live.opened
        except BenchlabError as exc:
            async with self.lock(pid):
                if self.sessions.get(pid) is live:
                    del self.sessions[pid]
                    ws = self.sockets.pop(pid, None)
                    if ws is not None:
                        await cannot_open(ws, pid, exc)
            return None

    async def _opened(self, live: LiveSession) -> bool:
        """Wait for ``live``'s opening behind its consent, if it is still under way; ``False`` when it failed."""
        if live.opened is None and live.opening is not None:
            await asyncio.shield(live.opening)
        return live.opened is not None

    async def close_runner(self, live: LiveSession) -> None:
        """Close ``live``'s session here (its lock released), once its opening behind the consent is done."""
        with contextlib.suppress(Exception):
            await self._opened(live)
        if live.opened is not None:
            await self._in_order(live, live.opened.close)

    async def _serve(self, live: LiveSession, ws: web.WebSocketResponse, pid: str) -> None:
        lim = self.limits
        bucket = TokenBucket(lim.rate_per_s, lim.burst)
        last = [time.monotonic()]
        self._alive[ws] = last
        if self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep())
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    await close_socket(ws, 1003, b"text messages only")
                    break
                if not bucket.take():
                    log.warning("%s: too many messages, connection closed", pid)
                    await close_socket(ws, 1008, b"too many messages")
                    break
                last[0] = time.monotonic()
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    await close_socket(ws, 1008, b"bad message")
                    break
                if not (isinstance(data, list) and data and isinstance(data[0], str)):
                    await close_socket(ws, 1008, b"bad message")
                    break
                if self.sockets.get(pid) is not ws:
                    break  # taken over meanwhile
                try:
                    await self._handle(live, ws, data, last[0])
                except Refused as exc:
                    log.warning("%s: %s; connection closed, nothing recorded", pid, exc)
                    await self._event(live, "refused_message", reason=str(exc))
                    await close_socket(ws, 4400, b"refused")
                    break
        except Exception:  # never a traceback to the page, never another session hurt
            log.exception("session of %s failed", pid)
        finally:
            self._alive.pop(ws, None)
            await close_socket(ws)
            async with self.lock(pid):
                if self.sockets.get(pid) is ws:
                    del self.sockets[pid]
                    self._cancel_timer(pid)
                    if not live.ended:
                        live.page_left(last[0])
                        self._later(live, "page_disconnected", {})
                    loop = asyncio.get_running_loop()
                    self._timers[pid] = loop.call_later(self.limits.idle_release_s, lambda: asyncio.ensure_future(
                        self._release(pid, live)))

    async def _release(self, pid: str, live: LiveSession) -> None:
        """No page came back: close the session here (lock released, memory freed)."""
        async with self.lock(pid):
            if self.sockets.get(pid) is None and self.sessions.get(pid) is live:
                del self.sessions[pid]
                await self.close_runner(live)
                log.info("%s: idle, session closed on this node", pid)

    async def _sweep(self) -> None:
        """Close every connection its page stopped pinging (it reconnects when it is alive): one timer for all of
        them (a watchdog task per connection woke the loop 1,000 times a second at 500 participants)."""
        while self._alive:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for ws, last in list(self._alive.items()):
                if not ws.closed and now - last[0] > self.limits.silent_s:
                    self._alive.pop(ws, None)
                    closing = asyncio.ensure_future(close_socket(ws, 4408, b"silent"))  # not waited: one slow page
                    self._closing.add(closing)  # would hold up the others
                    closing.add_done_callback(self._closing.discard)
        self._sweeper = None

    async def _handle(self, live: LiveSession, ws: web.WebSocketResponse, data: list[Any], now: float) -> None:
        kind = data[0]
        arg = data[1] if len(data) > 1 else None
        if kind == "ping":
            await send_json(ws, ["pong", arg if isinstance(arg, int | float) else None, time.monotonic() * 1000.0])
            return
        if not isinstance(arg, dict):
            if kind in ("act", "onset"):
                raise Refused(f"a {kind!r} message without its fields")
            return
        if kind == "clock":
            offset, rtt = _number(arg.get("offset_ms")), _number(arg.get("rtt_ms"))
            if offset is not None and rtt is not None and 0 <= rtt < 60_000 and (live.rtt_ms is None
                                                                               or rtt <= live.rtt_ms):
                live.offset_ms, live.rtt_ms = offset, rtt
            return
        async with self.lock(live.participant):
            if kind == "onset":
                live.onset(arg, now)
                await self._notes(live)
            elif kind == "log":
                event = live.conduct(arg)
                if event is not None:
                    self._later(live, "page_" + str(event.pop("what")), event)
            elif kind == "act":
                if not await self._opened(live):
                    return  # its opening failed: the page is told so
                started = live.started
                moved = await self._in_order(live, live.act, arg, now)
                if not started and live.participant in self.devices:  # consent given: the device goes on record
                    self._later(live, "page_device", dict(self.devices[live.participant]))
                await self._notes(live)
                if moved:
                    await self._after_step(live)
                    await self._show(live, ws)

    async def _notes(self, live: LiveSession) -> None:
        """The trial marks of the last message. ``trial_continue`` (a SORT passage left for the question) is
        fsynced before the next view: a restart must never show the passage again. ``trial_onset`` is appended
        without fsync and without waiting (it survives a killed server, not a power cut: then a re-shown trial is
        not marked), which keeps one fsync per showing off the disk at hundreds of participants."""
        notes, live.notes = live.notes, []
        for event, fields in notes:
            if event == "trial_onset":
                self._later(live, event, fields)
            else:
                await self._event(live, event, **fields)

    async def _after_step(self, live: LiveSession) -> None:
        """A step ended the session: the end hook (after the end record is on disk) may add to the end page."""
        if not live.ended or live.ended_reported:
            return
        live.ended_reported = True
        r = live.runner
        reason = r.end_reason
        if self.hooks.on_end is None or reason is None:
            return
        end = SessionEnd(live.participant, "", reason.value, r.recorded_main, r.n_main, str(r.files.results),
                         str(r.files.events))
        try:
            outcome = await self.hooks.on_end(end)
        except Exception:
            log.exception("the end hook failed for %s", live.participant)
            return
        if outcome is not None:
            live.end_extra = {"message": outcome.message, "code": outcome.code, "redirect": outcome.redirect,
                              "withdraw": outcome.withdraw}

    async def _show(self, live: LiveSession, ws: web.WebSocketResponse) -> None:
        view = live.view()
        self._cancel_timer(live.participant)
        auto = view.get("auto_ms")
        if isinstance(auto, int | float) and auto >= 0:
            seq = view["seq"]
            loop = asyncio.get_running_loop()
            self._timers[live.participant] = loop.call_later(auto / 1000.0, lambda: asyncio.ensure_future(
                self._auto(live, seq)))
        await send_json(ws, ["show", view])

    async def _auto(self, live: LiveSession, seq: int) -> None:
        async with self.lock(live.participant):
            ws = self.sockets.get(live.participant)
            if ws is not None and live.auto_proceed(seq):
                await self._show(live, ws)

    def _cancel_timer(self, pid: str) -> None:
        timer = self._timers.pop(pid, None)
        if timer is not None:
            timer.cancel()

    async def _event(self, live: LiveSession, event: str, **fields: Any) -> None:
        """One event in the session's log (fsynced, in a thread); only once the session has started (a page
        refused or still at consent writes nothing)."""
        if not live.started or live.ended:
            return
        with contextlib.suppress(BenchlabError, OSError):
            await self._in_order(live, lambda: live.runner.log_event(event, **fields))

    async def close(self) -> None:
        """The server stops: close every page (they reconnect) and release every session's lock."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for ws in list(self.sockets.values()):
            await close_socket(ws, 1001, b"server shutting down")
        await asyncio.gather(*self._tails.values(), return_exceptions=True)  # page events still being appended
        for live in list(self.sessions.values()):
            with contextlib.suppress(Exception):
                await self.close_runner(live)
        self._pool.shutdown(wait=True)
        self._openers.shutdown(wait=True)
        self._planners.shutdown(wait=True)

