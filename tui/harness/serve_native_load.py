"""``benchlab bench serve`` for the native page: how many participants one ``benchlab serve`` process holds.

Per level (N sessions of a choice task's plan on its bundled data set, served by a real ``benchlab serve`` process
on 127.0.0.1), N light clients speak the page's protocol: they open the link (GET the page, open the WebSocket,
say hello) at 50 a second, then answer one question every 2.5-5 s as a page would (onset stamp, then the answer
with its page time). Figures per level:

- ``start_p95_ms``: GET of the link -> the first view received (the consent or first page; painting it is the
  browser's, a few ms more);
- ``record_p50_ms``/``record_p95_ms``: answer sent -> the next view received. The server sends the next view only
  after the answer's record is fsynced, so this bounds answer -> fsynced record from above;
- ``start_painted_ms``: the Chromium probe's link -> first view painted (navigation start to the first animation
  frame after the view is in the page; one page per level, opened while the light clients open theirs);
- ``rss_mib``: the server's peak resident memory; ``cpu_pct``: the server's CPU over the level (100 = one core);
- ``client_rt_error_p50_ms``/``p95``: one real Chromium page pressing keys at scripted times: the recorded
  ``client_rt_ms`` minus (the keydown's own ``timeStamp`` minus the first animation frame after the view changed,
  seen by an independent watcher installed in the page). ``null`` without ``--probe``.

The load generator runs in this process on the same machine, so at high levels it competes with the server for
the CPU; the figures include that (the machine's load average is printed beside them).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.harness.driven_task import dataset_flag, plan_flags

COMPUTER = {"width": 1280, "height": 720, "screen_w": 1920, "screen_h": 1080, "fine": True, "coarse": False}
OPEN_RATE = 50.0  # links opened per second
_TICK = os.sysconf("SC_CLK_TCK")
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
    start_ms: list[float] = field(default_factory=list)
    record_ms: list[float] = field(default_factory=list)
    rss_mib: float = 0.0
    cpu_pct: float = 0.0
    probe_err_ms: list[float] = field(default_factory=list)
    painted_ms: float | None = None  # the probe's link -> first view painted
    failures: int = 0
    generator_cpu_pct: float = 0.0  # this process (the light clients) over the level: it shares the machine

    def figures(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "answers": len(self.record_ms),
                "record_p50_ms": _pct(self.record_ms, 50), "record_p95_ms": _pct(self.record_ms, 95),
                "start_p95_ms": _pct(self.start_ms, 95),
                "start_painted_ms": None if self.painted_ms is None else round(self.painted_ms, 1),
                "rss_mib": round(self.rss_mib, 1),
                "cpu_pct": round(self.cpu_pct, 1), "client_rt_error_p50_ms": _pct(self.probe_err_ms, 50),
                "client_rt_error_p95_ms": _pct(self.probe_err_ms, 95, absolute=True), "failures": self.failures,
                "generator_cpu_pct": round(self.generator_cpu_pct, 1), "load_avg_1min": round(os.getloadavg()[0], 2)}


def _pct(values: list[float], q: int, *, absolute: bool = False) -> float | None:
    if not values:
        return None
    data = sorted(abs(v) for v in values) if absolute else sorted(values)
    if len(data) == 1:
        return round(data[0], 2)
    return round(statistics.quantiles(data, n=100, method="inclusive")[q - 1], 2)


def plan(task: Task) -> list[str]:
    """No instructions, no practice, one block, a fixed seed: every level runs the same plan."""
    return ["--no-instructions", *plan_flags(task, practice=0, block_size=1000), "--seed", "11"]


async def run_level(task: Task, out: Path, n: int, keys: int, gap: tuple[float, float],
                    chromium: str | None) -> NativeLevel:
    """One level: a server, ``n`` light clients (and a Chromium probe), the figures."""
    out.mkdir(parents=True, exist_ok=True)
    people = [f"L{i:03d}" for i in range(1, n + 1)] + (["PROBE"] if chromium else [])
    (out / "people.csv").write_text("id\n" + "".join(p + "\n" for p in people))
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-c", "from benchlab.tui.cli import main; main()", "serve",
                               task.name, *dataset_flag(task, task.default_dataset()), *plan(task),
                               "--participants", str(out / "people.csv"), "--out", str(out / "out"), "--port",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    level = NativeLevel(n)
    try:
        links = await _links(out / "out", port, server)
        cpu0, t0, own0 = _cpu(server.pid), time.monotonic(), time.process_time()
        sampler = asyncio.ensure_future(_sample_rss(server.pid, level))
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            clients = [_client(http, links[p], i / OPEN_RATE, keys, gap, level)
                       for i, p in enumerate(q for q in people if q != "PROBE")]
            if chromium:
                clients.append(_probe(chromium, links["PROBE"], min(keys, 10), level, out / "out"))
            await asyncio.gather(*clients)
        sampler.cancel()
        wall = max(1e-9, time.monotonic() - t0)
        level.cpu_pct = 100 * (_cpu(server.pid) - cpu0) / wall
        level.generator_cpu_pct = 100 * (time.process_time() - own0) / wall
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    return level


async def _links(out: Path, port: int, server: subprocess.Popen[bytes]) -> dict[str, str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            err = server.stderr.read().decode() if server.stderr else ""
            raise BenchlabError(f"the server exited: {err.strip()[-300:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                pass
            text = (out / "links.csv").read_text()
            return {line.split(",")[0]: line.split(",")[1] for line in text.splitlines()[1:] if line}
        except OSError:
            await asyncio.sleep(0.1)
    raise BenchlabError("the server did not start within 60 s")


async def _client(http: aiohttp.ClientSession, url: str, delay: float, keys: int, gap: tuple[float, float],
                  level: NativeLevel) -> None:
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
                    level.record_ms.append((time.monotonic() - sent) * 1000)
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
        await ws.send_json(["ping", time.monotonic() * 1000])


async def _next_view(ws: aiohttp.ClientWebSocketResponse, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
        if msg.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError("closed")
        data = json.loads(msg.data)
        if data[0] == "show":
            return dict(data[1])


async def _probe(chromium: str, url: str, keys: int, level: NativeLevel, out: Path) -> None:
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
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    level.rss_mib = max(level.rss_mib, int(line.split()[1]) / 1024)
        except OSError:
            return
        await asyncio.sleep(0.5)


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def table(title: str, rows: list[NativeLevel]) -> str:
    """The figures as a plain table (``--json`` prints one object per level instead)."""
    head = ["sessions", "answers", "record p50 ms", "record p95 ms", "start p95 ms", "RSS MiB", "CPU %",
            "client_rt err p50 ms", "|err| p95 ms", "failures", "load"]
    lines = [f"benchlab bench serve: {title} sessions on the native page", " | ".join(head)]
    for row in rows:
        f = row.figures()
        cells = [f["sessions"], f["answers"], f["record_p50_ms"], f["record_p95_ms"], f["start_p95_ms"],
                 f["rss_mib"], f["cpu_pct"], f["client_rt_error_p50_ms"], f["client_rt_error_p95_ms"],
                 f["failures"], f["load_avg_1min"]]
        lines.append(" | ".join("-" if c is None else str(c) for c in cells))
    return "\n".join(lines) + "\n"
