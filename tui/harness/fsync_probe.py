"""How a disk takes the native server's writes: serial vs concurrent fsyncs of appends to different files.

The server (:mod:`benchlab.tui.web.native`) fsyncs each answer's record before the next trial shows, in a pool of
writer threads; this probe says how many fsyncs in flight the disk under an output folder commits fastest and at
what latency, which is what the pool's size (``NativeLimits.writers``) rests on. Run it on the disk that holds
``--out``::

    python -m benchlab.tui.harness.fsync_probe OUT_FOLDER

It writes into a temporary folder inside ``OUT_FOLDER`` (removed afterwards): 500 files, like 500 sessions' result
logs, each op appends one ~350-byte line to a random one and fsyncs it.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LINE = b'{"item": "abc", "resp": "1", "client_rt_ms": 612.3, "pad": "' + b"z" * 300 + b'"}\n'


def _append_fsync(path: str) -> float:
    """One append + fsync; its latency in ms."""
    t0 = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, LINE)
        os.fsync(fd)
    finally:
        os.close(fd)
    return (time.perf_counter() - t0) * 1000.0


def _pct(values: list[float], q: float) -> float:
    data = sorted(values)
    return round(data[min(len(data) - 1, int(len(data) * q / 100))], 2)


def probe(folder: Path, in_flight: tuple[int, ...] = (1, 2, 4, 8, 16, 32), ops: int = 600,
          files: int = 500) -> list[dict[str, float]]:
    """Per concurrency: fsyncs per second and latency p50/p95/p99 (ms)."""
    root = Path(tempfile.mkdtemp(prefix="benchlab-fsync-", dir=folder))
    rng = random.Random(1)
    try:
        paths = [str(root / f"s{i:03d}.jsonl") for i in range(files)]
        for path in paths:
            Path(path).write_bytes(b"")
        rows = []
        for k in in_flight:
            todo = [rng.choice(paths) for _ in range(ops)]
            t0 = time.perf_counter()
            with ThreadPoolExecutor(k) as pool:
                lat = list(pool.map(_append_fsync, todo))
            wall = time.perf_counter() - t0
            rows.append({"in_flight": k, "fsyncs_per_s": round(ops / wall), "p50_ms": _pct(lat, 50),
                         "p95_ms": _pct(lat, 95), "p99_ms": _pct(lat, 99),
                         "load_avg_1min": round(os.getloadavg()[0], 2)})
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python -m benchlab.tui.harness.fsync_probe FOLDER (an existing folder on the disk to probe)",
              file=sys.stderr)
        return 2
    print("in flight | fsyncs/s | p50 ms | p95 ms | p99 ms | load")
    for row in probe(Path(argv[0])):
        print(" | ".join(str(row[k]) for k in ("in_flight", "fsyncs_per_s", "p50_ms", "p95_ms", "p99_ms",
                                                "load_avg_1min")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
