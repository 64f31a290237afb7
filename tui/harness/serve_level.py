"""One level of ``benchlab bench serve``, shared by both pages' harnesses: the data set, the participants file, a
real ``benchlab serve`` process on 127.0.0.1 with the same plan for every level, its links, its CPU and memory,
and its stop.

The data set is the task's full one when this machine has it (:class:`~benchlab.annotations.task.FullData`: for
the built-in order, the published WorldSense test set under the shared datasets folder), else its bundled sample:
capacity measured on a 54-tuple sample hid the cost of a real test set (issue 24). The harness prints which.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from benchlab.annotations.task import FullData, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.harness.driven_task import dataset_flag, plan_flags

_TICK = os.sysconf("SC_CLK_TCK")
#: How long a server may take to print its links (the first server on a full test set builds its index, once).
START_S = 300.0


def bench_dataset(task: Task) -> Path:
    """The task's full data set when this machine has it, else its bundled sample."""
    if isinstance(task, FullData):
        full = task.full_dataset()
        if full is not None:
            return full
    return task.default_dataset()


def plan(task: Task) -> list[str]:
    """No instructions, no practice, one block, a fixed seed: every level runs the same plan."""
    return ["--no-instructions", *plan_flags(task, practice=0, block_size=1000), "--seed", "11"]


@dataclass
class Served:
    """A running server of one level."""

    out: Path  # its results folder
    links: dict[str, str]  # participant -> link
    pid: int
    #: Seconds from the links to the server's "planned ahead" line (``None``: not waited for).
    warm_s: float | None = None


@contextlib.asynccontextmanager
async def served(task: Task, dataset: Path, folder: Path, people: list[str], *, warm: bool = False,
                 extra: tuple[str, ...] = ()) -> AsyncIterator[Served]:
    """``benchlab serve`` for ``people`` in ``folder`` (until the block ends: SIGTERM, then SIGKILL after 15 s).
    ``warm``: wait until the server has built its participants' plans ahead (as a server started before its
    participants arrive has), and say how long that took. ``extra``: more ``serve`` flags."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "people.csv").write_text("id\n" + "".join(p + "\n" for p in people))
    port = free_port()
    out = folder / "out"
    server = subprocess.Popen([sys.executable, "-c", "from benchlab.tui.cli import main; main()", "serve",
                               task.name, *dataset_flag(task, dataset), *plan(task),
                               "--participants", str(folder / "people.csv"), "--out", str(out), "--port",
                               str(port), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        links = await _links(out, port, server)
        warm_s = await _planned_ahead(out) if warm else None
        yield Served(out, links, server.pid, warm_s)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


async def _links(out: Path, port: int, server: subprocess.Popen[bytes]) -> dict[str, str]:
    deadline = time.monotonic() + START_S
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
    raise BenchlabError(f"the server did not start within {START_S:.0f} s")


async def _planned_ahead(out: Path) -> float | None:
    """Seconds until the server's log says its plans were built ahead (``None``: not within :data:`START_S`)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < START_S:
        with contextlib.suppress(OSError):
            if "planned ahead:" in (out / "serve.log").read_text(encoding="utf-8", errors="replace"):
                return time.monotonic() - t0
        await asyncio.sleep(0.2)
    return None


def cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` (user + system), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: int, *, absolute: bool = False) -> float | None:
    """The ``q``-th percentile (inclusive method), rounded to 0.01; ``None`` without values."""
    if not values:
        return None
    data = sorted(abs(v) for v in values) if absolute else sorted(values)
    if len(data) == 1:
        return round(data[0], 2)
    return round(statistics.quantiles(data, n=100, method="inclusive")[q - 1], 2)
