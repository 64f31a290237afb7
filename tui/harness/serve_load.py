"""``benchlab bench serve``: how many browser participants one machine holds.

Per level (N concurrent sessions of a choice task's plan on its full data set when present, else its bundled
sample, served by a real ``benchlab serve`` process on 127.0.0.1 (:mod:`benchlab.tui.harness.serve_level`, shared
with the native page's harness); the task is the first registered one with choice trials, or the one named) it starts
N light WebSocket clients at once, each answering one question every 2.5-5 s as a page would (onset and key
stamps, then the key bytes), plus one real Chromium page as a probe. It prints:

- start: link opened -> first frame on the client (the start queue included);
- key -> handled: the key sent -> the app's ``response_mono`` (same CLOCK_MONOTONIC on Linux);
- key -> next frame: the key sent -> the next question's onset marker received; every response is fsynced before
  the next question shows, so this bounds key -> fsynced record from above;
- CPU and memory per session (app processes, from /proc), and the server's CPU;
- the probe's ``client_rt_ms`` error: recorded ``client_rt_ms`` minus (the keydown the script sent, read in the
  page just before the press, minus the first frame where an independent requestAnimationFrame watcher saw the
  question in the terminal).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import random
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.harness.driven_task import driven_task
from benchlab.tui.harness.serve_level import bench_dataset, cpu_seconds, served
from benchlab.tui.harness.serve_native_load import NativeLevel, run_level
from benchlab.tui.harness.serve_native_load import table as native_table

ONSET = re.compile(rb"\x1b\]7717;onset;([^\x07]*)\x07")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@dataclass
class Level:
    sessions: int
    start_s: list[float] = field(default_factory=list)
    handled_ms: list[float] = field(default_factory=list)
    fsynced_ms: list[float] = field(default_factory=list)
    next_frame_ms: list[float] = field(default_factory=list)
    cpu_pct: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    server_cpu_pct: float = 0.0
    probe_err_ms: list[float] = field(default_factory=list)  # against the script's send time
    probe_onset_err_ms: list[float] = field(default_factory=list)  # against the keydown's own timeStamp
    failures: int = 0


def run_bench(levels: Sequence[int], *, keys: int, gap: tuple[float, float], probe: bool, keep: Path | None,
              task: str | None = None, terminal_page: bool = False, as_json: bool = False,
              dataset: Path | None = None, cold: bool = False, consent: bool = False) -> str:
    """Run every level and return the table (``as_json``: one JSON object per level). ``task``: the choice task
    served (default: the first registered one; a task with other trials is refused, the light clients answer one
    key per question). The native page by default (:mod:`benchlab.tui.harness.serve_native_load`);
    ``terminal_page``: the terminal-in-browser page, one app process per participant (this module)."""
    task_served = driven_task(task, "bench serve")
    if terminal_page and as_json:
        raise BenchlabError("--json reports the native page's figures; the terminal page prints its table")
    if terminal_page and consent:
        raise BenchlabError("--consent measures the native page only")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if probe and chromium is None:
        raise BenchlabError("the probe needs Chromium (apt-get install chromium) or --no-probe")
    dataset = Path(dataset).resolve() if dataset is not None else bench_dataset(task_served)
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="benchlab-bench-serve-"))
    rows = []
    native: list[NativeLevel] = []
    try:
        for n in levels:
            folder, browser = root / f"sessions-{n}", chromium if probe else None
            if terminal_page:
                rows.append(asyncio.run(_level(task_served, dataset, folder, n, keys, gap, browser)))
            else:
                native.append(asyncio.run(run_level(task_served, dataset, folder, n, keys, gap, browser,
                                                    warm=not cold, consent=consent)))
                if as_json:  # each level as soon as it is measured (a long run shows progress)
                    print(json.dumps(native[-1].figures()), flush=True)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    if terminal_page:
        return _table(task_served.title, dataset, rows, keys, gap)
    return "" if as_json else native_table(task_served.title, native)


class _Inotify:
    """Times at which a results file was closed after a write (the app appends, fsyncs, closes), per file name.

    Linux inotify through ctypes: event-driven, so watching 20 files costs nothing (polling would perturb the
    figures it measures).
    """

    IN_CLOSE_WRITE = 0x08

    def __init__(self, folder: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        folder.mkdir(parents=True, exist_ok=True)
        if self.fd < 0 or self._libc.inotify_add_watch(self.fd, str(folder).encode(), self.IN_CLOSE_WRITE) < 0:
            raise BenchlabError("inotify is not available (bench serve needs Linux)")
        self.closed: dict[str, list[float]] = {}
        asyncio.get_running_loop().add_reader(self.fd, self._read)

    def _read(self) -> None:
        now = time.monotonic()
        with contextlib.suppress(BlockingIOError):
            data = os.read(self.fd, 65536)
            at = 0
            while at + 16 <= len(data):
                size = int.from_bytes(data[at + 12 : at + 16], "little")
                name = data[at + 16 : at + 16 + size].rstrip(b"\0").decode()
                self.closed.setdefault(name, []).append(now)
                at += 16 + size

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)


async def _level(task: Task, dataset: Path, folder: Path, n: int, keys: int, gap: tuple[float, float],
                 chromium: str | None) -> Level:
    people = [f"L{i:03d}" for i in range(1, n + 1)] + (["PROBE"] if chromium else [])
    level = Level(n)
    async with served(task, dataset, folder, people, extra=("--terminal-page",)) as server:
        watch = _Inotify(server.out / "results")
        cpu0 = cpu_seconds(server.pid)
        t0 = time.monotonic()
        sent: dict[str, list[float]] = {}
        sampler = asyncio.ensure_future(_sample(server.out, level))
        clients = [_light_client(server.links[p], keys, gap, level, sent.setdefault(p, []))
                   for p in people if p != "PROBE"]
        if chromium:
            clients.append(_probe(chromium, server.links["PROBE"], min(keys, 10), level, server.out))
        await asyncio.gather(*clients)
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        level.server_cpu_pct = 100 * (cpu_seconds(server.pid) - cpu0) / max(1e-9, time.monotonic() - t0)
        watch.close()
        _handled(server.out, sent, level, watch.closed)
    return level


async def _light_client(url: str, keys: int, gap: tuple[float, float], level: Level, sent: list[float]) -> None:
    """A page without a browser: hello, then one answer per question after a pause, stamped like the page."""
    ws_url = url.replace("http://", "ws://") + "/ws"
    rng = random.Random(url)
    t0 = time.monotonic()
    async with aiohttp.ClientSession() as http, http.ws_connect(ws_url, max_msg_size=0) as ws:
        await ws.send_json(["hello", {"width": 120, "height": 36}])
        answered, ready, pending, tail = 0, False, None, b""
        answer_task: asyncio.Task[None] | None = None

        async def answer(mark: bytes) -> None:
            nonlocal pending, answered
            await ws.send_json(["onset", {"mark": mark.decode(), "page_ms": time.monotonic() * 1000}])
            await asyncio.sleep(rng.uniform(*gap))
            key = "1" if answered % 2 else "2"
            now = time.monotonic()
            await ws.send_json(["key", {"key": key, "page_ms": now * 1000}])
            await ws.send_json(["stdin", key])
            pending = now
            sent.append(now)
            answered += 1

        deadline = t0 + 60 + keys * (gap[1] + 2)
        while answered < keys and time.monotonic() < deadline:
            try:
                msg = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if msg.type == aiohttp.WSMsgType.TEXT:
                kind = json.loads(msg.data)[0]
                if kind == "ready" and not ready:
                    ready = True
                    level.start_s.append(time.monotonic() - t0)
                elif kind == "end":
                    break
            elif msg.type == aiohttp.WSMsgType.BINARY:
                data = tail + msg.data
                marks = ONSET.findall(data)
                tail = data[-64:]
                if marks:
                    tail = b""
                    if pending is not None:
                        level.next_frame_ms.append((time.monotonic() - pending) * 1000)
                        pending = None
                    if answer_task is None or answer_task.done():
                        answer_task = asyncio.ensure_future(answer(marks[-1]))
            else:
                level.failures += 1
                break
        if answer_task is not None:
            answer_task.cancel()
        if answered < keys:
            level.failures += 1


async def _probe(chromium: str, url: str, keys: int, level: Level, out: Path) -> None:
    """One real page: the script presses keys and an independent rAF watcher sees when each question is painted."""
    from playwright.async_api import async_playwright  # deferred: only the probe (--probe) needs a browser driver

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(url)
            await page.wait_for_function("window.benchlabState && window.benchlabState().ready", timeout=90000)
            await page.evaluate("""() => { window.__seen = []; window.__keys = []; let last = '';
                window.addEventListener('keydown', e => window.__keys.push(e.timeStamp), true);
                const tick = () => { const s = window.benchlabScreen();
                  if (s !== last) { last = s; window.__seen.push([performance.now(), s]); }
                  requestAnimationFrame(tick); };
                requestAnimationFrame(tick); }""")
            script: list[float] = []
            rng = random.Random(7)
            for i in range(keys):
                await asyncio.sleep(rng.uniform(0.6, 1.4))
                script.append(float(await page.evaluate("performance.now()")))
                await page.keyboard.press("1" if i % 2 else "2")
            await asyncio.sleep(1.0)
            seen: list[list[Any]] = await page.evaluate("window.__seen")
            keydowns: list[float] = await page.evaluate("window.__keys")
        finally:
            await browser.close()
    records = [json.loads(line) for f in (out / "results").glob("*PROBE*") for line in f.read_text().splitlines()]
    _probe_errors(records, script, keydowns, seen, level)


def _probe_errors(records: list[dict[str, Any]], script: list[float], keydowns: list[float],
                  seen: list[list[Any]], level: Level) -> None:
    """The truth for each answer: the first painted frame whose screen holds every line of the question as it was
    on screen at the keydown (new since the previous answer), seen by the watcher; the first question (shown
    before the watcher started) is left out."""
    previous_down = float("-inf")
    for i, (rec, t_key, t_down) in enumerate(zip(records, script, keydowns, strict=False)):
        before = [text for t, text in seen if t <= previous_down]
        at_key = [text for t, text in seen if t <= t_down]
        previous_down, rt = t_down, rec.get("client_rt_ms")
        if i == 0 or rt is None or not at_key:
            continue
        old = set(before[-1].splitlines()) if before else set()
        lines = [line for line in at_key[-1].splitlines() if line.strip() and line not in old]
        painted = next((t for t, text in seen if t > (keydowns[i - 1]) and all(line in text for line in lines)), None)
        if painted is None:
            continue
        level.probe_err_ms.append(float(rt) - (t_key - painted))
        level.probe_onset_err_ms.append(float(rt) - (t_down - painted))


async def _sample(out: Path, level: Level) -> None:
    """CPU share and memory of every app process, sampled while the level runs."""
    seen: dict[int, list[float]] = {}  # pid -> [first time, first CPU s, last time, last CPU s]
    try:
        while True:
            await asyncio.sleep(2.0)
            now = time.monotonic()
            for pid in _apps(out):
                cpu = cpu_seconds(pid)
                if cpu <= 0:
                    continue
                seen.setdefault(pid, [now, cpu, now, cpu])[2:] = [now, cpu]
                with contextlib.suppress(OSError, ValueError, StopIteration):
                    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                               if line.startswith("VmRSS:"))
                    level.rss_mib.append(rss / 1024)
    except asyncio.CancelledError:
        for t0, cpu0, t1, cpu1 in seen.values():
            if t1 - t0 >= 4:
                level.cpu_pct.append(100 * (cpu1 - cpu0) / (t1 - t0))
        raise


def _apps(out: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes().split(b"\0")
                if b"--web-session" in cmd and str(out).encode() in cmd:
                    pids.append(int(entry.name))
    return pids


def _handled(out: Path, sent: dict[str, list[float]], level: Level, closed: dict[str, list[float]]) -> None:
    """Key sent -> the app's handler (``response_mono``) and -> the results file closed after its fsync."""
    for pid, times in sent.items():
        for f in (out / "results").glob(f"*{pid}*.jsonl"):  # the results file naming the participant
            recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            for rec, t in zip(recs, times, strict=False):
                if rec.get("response_mono") is not None:
                    level.handled_ms.append((float(rec["response_mono"]) - t) * 1000)
            closes = closed.get(f.name, [])
            for t, t_next in zip(times, [*times[1:], float("inf")], strict=True):
                done = next((c for c in closes if t <= c < t_next), None)
                if done is not None:
                    level.fsynced_ms.append((done - t) * 1000)


def _stats(values: list[float], digits: int = 1) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.{digits}f} / {p95:.{digits}f} / {ordered[-1]:.{digits}f}"


def _table(title: str, dataset: Path, rows: list[Level], keys: int, gap: tuple[float, float]) -> str:
    header = ("sessions", "start s (med/p95/max)", "key->handled ms", "key->fsynced ms", "key->next frame ms",
              "CPU %/session", "RSS MiB/session", "server CPU %", "client_rt err vs script ms", "vs keydown ms",
              "failed")
    body = []
    for r in rows:
        body.append((str(r.sessions), _stats(r.start_s), _stats(r.handled_ms), _stats(r.fsynced_ms),
                     _stats(r.next_frame_ms),
                     f"{statistics.mean(r.cpu_pct):.1f}" if r.cpu_pct else "-",
                     f"{statistics.mean(r.rss_mib):.0f}" if r.rss_mib else "-", f"{r.server_cpu_pct:.1f}",
                     _stats(r.probe_err_ms, 2), _stats(r.probe_onset_err_ms, 2), str(r.failures)))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
    lines = [f"benchlab bench serve: {title}, data set {dataset}, {keys} keys per light client every "
             f"{gap[0]:g}-{gap[1]:g} s (+1 Chromium probe); latencies median / p95 / max; {os.cpu_count()} CPUs"]
    for line in (header, tuple("-" * w for w in widths), *body):
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths,
                                                                                               strict=True))))
    return "\n".join(lines) + "\n"
