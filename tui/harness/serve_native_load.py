"""``benchlab bench serve`` for the native page: how many participants one ``benchlab serve`` process holds.

Per level (N sessions of a choice task's plan on its full data set when present, else its bundled sample, served
by a real ``benchlab serve`` process on 127.0.0.1: :mod:`benchlab.tui.harness.serve_level`), N light clients
speak the page's protocol: they open the link (GET the page, open the WebSocket, say hello) at 50 a second, then
answer one question every 2.5-5 s as a page would (onset stamp, then the answer with its page time). Figures per level:

- ``start_p95_ms``: GET of the link -> the first view received (the consent or first page; painting it is the
  browser's, a few ms more);
- ``consent_to_trial_p95_ms`` (``--consent``: a consent page first, read for a key gap, then agreed to): agree ->
  the first question received (it waits for the session's plan if that is not built yet);
- ``record_p50_ms``/``record_p95_ms``: answer sent -> the next view received. The server sends the next view only
  after the answer's record is fsynced, so this bounds answer -> fsynced record from above;
- ``start_painted_ms``: the Chromium probe's link -> first view painted (navigation start to the first animation
  frame after the view is in the page; one page per level, opened while the light clients open theirs);
- ``planned_ahead_s``: the server listening -> its participants' plans built ahead; the links are opened after it
  (a server started before its participants arrive), or at once with ``--cold`` (``null``);
- ``rss_mib``: the server's peak resident memory; ``cpu_pct``: the server's CPU over the level (100 = one core);
- ``client_rt_error_p50_ms``/``p95``: one real Chromium page pressing keys at scripted times: the recorded
  ``client_rt_ms`` minus (the keydown's own ``timeStamp`` minus the first animation frame after the view changed,
  seen by an independent watcher installed in the page). ``null`` without ``--probe``;
- ``inbound_p95_ms`` / ``server_p50_ms`` / ``server_p95_ms``: the answer's way split by the records' own monotonic
  stamps (one clock on this machine): sent -> the server read it; read -> the next view built (the record's fsync
  in between). What is left of ``record`` is the view's way back to the client.

The load generator (this process: light clients that skip the pongs unparsed) and the server share the machine;
its CPU and its own event-loop delay (``generator_cpu_pct``, ``generator_lag_p95_ms``) are printed beside the
figures, with the machine's load average.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from benchlab.annotations.task import Task
from benchlab.tui.harness.serve_level import cpu_seconds, pct, rss_mib, served

COMPUTER = {"width": 1280, "height": 720, "screen_w": 1920, "screen_h": 1080, "fine": True, "coarse": False}
OPEN_RATE = 50.0  # links opened per second
CONSENT = "# Taking part\n\nYou answer short reasoning questions. Your answers are stored without your name.\n"
_WATCHER = """
window.__bench = {onsets: [], downs: []};
addEventListener('keydown', e => window.__bench.downs.push(e.timeStamp), true);
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => requestAnimationFrame(() => window.__bench.onsets.push(performance.now())))
    .observe(document.getElementById('view'), {childList: true});
});
"""


@dataclass
class NativeLevel:
    sessions: int
    dataset: str = ""
    start_ms: list[float] = field(default_factory=list)
    consent_ms: list[float] = field(default_factory=list)  # agree sent -> the first question received
    record_ms: list[float] = field(default_factory=list)
    rss_mib: float = 0.0
    cpu_pct: float = 0.0
    probe_err_ms: list[float] = field(default_factory=list)
    painted_ms: float | None = None  # the probe's link -> first view painted
    failures: int = 0
    generator_cpu_pct: float = 0.0  # this process (the light clients) over the level: it shares the machine
    generator_lag_ms: list[float] = field(default_factory=list)  # this process's own event-loop delays
    warm_s: float | None = None  # server listening -> its plans built ahead (the links were opened after)
    #: Per answer, from the records' own monotonic stamps (one clock for client and server on this machine):
    #: answer sent -> the server read it; read -> the next view built (the record fsynced in between).
    inbound_ms: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)
    #: (participant, answer sent, next view received) per answer, matched to the records after the level.
    sent: list[tuple[str, float, float]] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "dataset": self.dataset, "answers": len(self.record_ms),
                "record_p50_ms": pct(self.record_ms, 50), "record_p95_ms": pct(self.record_ms, 95),
                "start_p95_ms": pct(self.start_ms, 95), "consent_to_trial_p95_ms": pct(self.consent_ms, 95),
                "start_painted_ms": None if self.painted_ms is None else round(self.painted_ms, 1),
                "rss_mib": round(self.rss_mib, 1),
                "cpu_pct": round(self.cpu_pct, 1), "client_rt_error_p50_ms": pct(self.probe_err_ms, 50),
                "client_rt_error_p95_ms": pct(self.probe_err_ms, 95, absolute=True), "failures": self.failures,
                "inbound_p95_ms": pct(self.inbound_ms, 95), "server_p50_ms": pct(self.server_ms, 50),
                "server_p95_ms": pct(self.server_ms, 95),
                "generator_cpu_pct": round(self.generator_cpu_pct, 1),
                "generator_lag_p95_ms": pct(self.generator_lag_ms, 95),
                "planned_ahead_s": None if self.warm_s is None else round(self.warm_s, 1),
                "load_avg_1min": round(os.getloadavg()[0], 2)}


async def run_level(task: Task, dataset: Path, out: Path, n: int, keys: int, gap: tuple[float, float],
                    chromium: str | None, *, warm: bool = True, consent: bool = False) -> NativeLevel:
    """One level: a server, ``n`` light clients (and a Chromium probe), the figures. ``warm``: the links are
    opened once the server has planned its participants' sessions ahead (``cold``: as soon as it listens).
    ``consent``: the server shows a consent page first."""
    people = [f"L{i:03d}" for i in range(1, n + 1)] + (["PROBE"] if chromium else [])
    level = NativeLevel(n, dataset=str(dataset))
    extra: tuple[str, ...] = ()
    if consent:
        out.mkdir(parents=True, exist_ok=True)
        (out / "consent.md").write_text(CONSENT, encoding="utf-8")
        extra = ("--consent", str(out / "consent.md"))
    async with served(task, dataset, out, people, warm=warm, extra=extra) as server:
        level.warm_s = server.warm_s
        cpu0, t0, own0 = cpu_seconds(server.pid), time.monotonic(), time.process_time()
        watchers = [asyncio.ensure_future(_sample_rss(server.pid, level)),
                    asyncio.ensure_future(_loop_lag(level))]
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            clients = [_client(http, p, server.links[p], i / OPEN_RATE, keys, gap, level)
                       for i, p in enumerate(q for q in people if q != "PROBE")]
            if chromium:
                clients.append(_probe(chromium, server.links["PROBE"], min(keys, 10), level, server.out,
                                      consent))
            await asyncio.gather(*clients)
        for watcher in watchers:
            watcher.cancel()
        wall = max(1e-9, time.monotonic() - t0)
        level.cpu_pct = 100 * (cpu_seconds(server.pid) - cpu0) / wall
        level.generator_cpu_pct = 100 * (time.process_time() - own0) / wall
    _split(server.out, level)
    return level


def _split(out: Path, level: NativeLevel) -> None:
    """Each answer's way in and through the server, from the records: ``response_mono`` (the server read the
    answer) and the next record's ``requested_mono`` (the next view built, after this record's fsync)."""
    by_person: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((out / "results").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            by_person.setdefault(str(rec.get("participant")), []).append(rec)
    for person, sent, _received in level.sent:
        recs = by_person.get(person, [])
        mine = next((i for i, r in enumerate(recs) if isinstance(r.get("client_key_ms"), float)
                     and abs(r["client_key_ms"] + 1 - sent * 1000) < 0.01), None)
        if mine is None or not isinstance(recs[mine].get("response_mono"), float):
            continue
        read = recs[mine]["response_mono"]
        level.inbound_ms.append((read - sent) * 1000)
        if mine + 1 < len(recs) and isinstance(recs[mine + 1].get("requested_mono"), float):
            level.server_ms.append((recs[mine + 1]["requested_mono"] - read) * 1000)


async def _client(http: aiohttp.ClientSession, person: str, url: str, delay: float, keys: int,
                  gap: tuple[float, float], level: NativeLevel) -> None:
    """A participant's page, without the browser: the protocol's messages at a person's pace."""
    await asyncio.sleep(delay)
    rng = random.Random(url)
    t0 = time.monotonic()
    try:
        async with http.get(url) as page:
            await page.read()
        async with http.ws_connect(url + "/ws", max_msg_size=1 << 20) as ws:
            await ws.send_json(["hello", COMPUTER])
            view = await _next_view(ws)
            level.start_ms.append((time.monotonic() - t0) * 1000)
            pinger = asyncio.ensure_future(_ping(ws))
            try:
                if view.get("kind") == "consent":  # read, then agreed to
                    await asyncio.sleep(rng.uniform(*gap))
                    agreed = time.monotonic()
                    await ws.send_json(["act", {"seq": view["seq"], "act": "accept"}])
                    view = await _next_view(ws)
                    level.consent_ms.append((time.monotonic() - agreed) * 1000)
                for _ in range(keys):
                    if view.get("kind") != "trial":
                        break
                    onset = time.monotonic() * 1000
                    await ws.send_json(["onset", {"seq": view["seq"], "t": onset}])
                    await asyncio.sleep(rng.uniform(*gap))
                    sent = time.monotonic()
                    await ws.send_json(["act", {"seq": view["seq"], "act": "answer",
                                                "value": _first_answer(view), "t": sent * 1000 - 1,
                                                "input": "key"}])
                    view = await _next_view(ws)
                    received = time.monotonic()
                    level.record_ms.append((received - sent) * 1000)
                    level.sent.append((person, sent, received))
            finally:
                pinger.cancel()
    except (aiohttp.ClientError, TimeoutError, ConnectionError, KeyError, ValueError):
        level.failures += 1


def _first_answer(view: dict[str, Any]) -> str:
    keys = view.get("keys") or {}
    return str(next(a[1] for a in keys.values() if a[0] == "answer"))


async def _ping(ws: aiohttp.ClientWebSocketResponse) -> None:
    while True:
        await asyncio.sleep(1.0)
        await ws.send_str(f'["ping",{time.monotonic() * 1000:.3f}]')


async def _next_view(ws: aiohttp.ClientWebSocketResponse, timeout: float = 60.0) -> dict[str, Any]:
    """The next ``show`` message; pongs (most of the traffic) are skipped unparsed."""
    deadline = time.monotonic() + timeout
    while True:
        msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        if msg.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError("closed")
        if not msg.data.startswith('["show"'):
            continue
        return dict(json.loads(msg.data)[1])


async def _loop_lag(level: NativeLevel) -> None:
    """This process's own event-loop delay, every 50 ms: what the client-side latencies carry of the generator."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(0.05)
        level.generator_lag_ms.append(max(0.0, (time.monotonic() - before - 0.05) * 1000))


async def _probe(chromium: str, url: str, keys: int, level: NativeLevel, out: Path, consent: bool) -> None:
    """A real page pressing keys at scripted times; the recorded ``client_rt_ms`` against the page's own event
    and frame times seen by an independent watcher."""
    # deferred: Playwright is a test extra; only the probe needs it
    from playwright.async_api import async_playwright

    rng = random.Random(7)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox",
                                                                            "--disable-gpu"])
        try:
            # bypass_csp: the watcher is the bench's script, not the page's (the page itself is unchanged)
            page = await browser.new_page(viewport={"width": 1280, "height": 720}, bypass_csp=True)
            await page.add_init_script(_WATCHER)
            await page.goto(url)
            if consent:  # a consent page first: agreed to
                await page.click("button[data-act=accept]", timeout=30_000)
            seen = ""
            for _ in range(keys):
                await page.wait_for_function(f"document.getElementById('view').className.includes('view-trial') && "
                                             f"document.getElementById('view').innerText !== {json.dumps(seen)}",
                                             timeout=30_000)
                seen = await page.inner_text("#view")
                await asyncio.sleep(rng.uniform(0.4, 1.2))
                await page.keyboard.press("1")
            await asyncio.sleep(1.0)
            bench = await page.evaluate("window.__bench")
        finally:
            await browser.close()
    path = next((out / "results").glob("*PROBE*"), None)
    if path is None:
        level.failures += 1
        return
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    onsets, downs = bench["onsets"], bench["downs"]
    if onsets:  # performance.now() counts from the navigation's start: the link opened
        level.painted_ms = float(onsets[0])
    for rec in records:
        down = rec.get("client_key_ms")
        before = [o for o in onsets if down is not None and o <= down]
        if down is None or not before or rec.get("client_rt_ms") is None:
            continue
        level.probe_err_ms.append(float(rec["client_rt_ms"]) - (down - before[-1]))
    if len(downs) < len(records):
        level.failures += 1


async def _sample_rss(pid: int, level: NativeLevel) -> None:
    while True:
        rss = rss_mib(pid)
        if rss is None:
            return
        level.rss_mib = max(level.rss_mib, rss)
        await asyncio.sleep(0.5)


def table(title: str, rows: list[NativeLevel]) -> str:
    """The figures as a plain table (``--json`` prints one object per level instead)."""
    head = ["sessions", "answers", "record p50 ms", "record p95 ms", "in p95 ms", "server p95 ms", "start p95 ms",
            "RSS MiB", "CPU %", "client_rt err p50 ms", "|err| p95 ms", "failures", "generator CPU %",
            "generator lag p95 ms", "load"]
    data = rows[0].dataset if rows else ""
    lines = [f"benchlab bench serve: {title} sessions on the native page (data set {data})", " | ".join(head)]
    for row in rows:
        f = row.figures()
        cells = [f["sessions"], f["answers"], f["record_p50_ms"], f["record_p95_ms"], f["inbound_p95_ms"],
                 f["server_p95_ms"], f["start_p95_ms"], f["rss_mib"], f["cpu_pct"], f["client_rt_error_p50_ms"],
                 f["client_rt_error_p95_ms"], f["failures"], f["generator_cpu_pct"], f["generator_lag_p95_ms"],
                 f["load_avg_1min"]]
        lines.append(" | ".join("-" if c is None else str(c) for c in cells))
    return "\n".join(lines) + "\n"
