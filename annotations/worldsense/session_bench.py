"""How long and how much memory a WorldSense session start costs: the full load against the cached index.

``python -m benchlab.annotations.worldsense.session_bench -t TESTSET [--rounds 3] [--sessions 20]``

Each figure is measured in a fresh process (imports done before the clock starts, so the figure is the session
start alone: load or open the data, plan, check the plan, open the files): CPU seconds and the growth of the
peak RSS. Rounds alternate the two ways (full load, index) and the minimum of each is kept, since the machine is
shared; the load average is printed beside each figure. A last run opens ``--sessions`` sessions in one process
from the shared index, as a server does, and prints the cost per extra session.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_ONE = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
mode, testset, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
from benchlab.annotations.session.opening import open_parts
from benchlab.annotations.worldsense.session import worldsense_session_parts
from benchlab.data.worldsense.loader import load_trials
from benchlab.data.worldsense.trial_index import shared_index
import benchlab.data.worldsense.records, pydantic  # imports before the clock
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()
out = Path(tempfile.mkdtemp(prefix="benchlab-session-bench-"))
peak0, rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, rss()
cpu0, wall0 = time.process_time(), time.perf_counter()
per = []
for i in range(n):
    c = time.process_time()
    data = load_trials(testset) if mode == "full" else shared_index(testset)
    parts = worldsense_session_parts(data, dataset=testset, participant=f"p{i}", out=out)
    runner = open_parts(parts, seed=i)
    runner.close()
    per.append(time.process_time() - c)
cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"cpu": cpu, "wall": wall, "per": per, "peak_growth": peak - peak0, "rss_growth": rss() - rss0}))
"""


def _run(mode: str, testset: str, n: int, env: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", _ONE, mode, testset, str(n)], capture_output=True, text=True,
                          env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"session_bench: the {mode} run failed:\n{proc.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    """Print the figures (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="session_bench", description=__doc__.splitlines()[0])
    ap.add_argument("-t", "--testset", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--skip-full", action="store_true", help="measure only the index (the full load takes ~6 s)")
    args = ap.parse_args(argv)
    testset = str(Path(args.testset).resolve())
    with tempfile.TemporaryDirectory(prefix="benchlab-session-bench-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "BENCHLAB_CACHE_DIR": ""}
        print(f"data set: {testset}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
              f"min of {args.rounds} alternating rounds")
        c0 = time.perf_counter()
        first = _run("index", testset, 1, env)
        print(f"  index built (first session ever on this content): cpu {first['cpu']:.2f} s, wall "
              f"{time.perf_counter() - c0:.2f} s  (load {os.getloadavg()[0]:.2f})")
        best: dict[str, dict[str, Any]] = {}
        for _ in range(args.rounds):
            for mode in ("index",) if args.skip_full else ("full", "index"):
                fig = _run(mode, testset, 1, env)
                fig["load"] = os.getloadavg()[0]
                old = best.get(mode)
                if old is None or fig["cpu"] < old["cpu"]:
                    best[mode] = {**fig, "peak_growth": min(fig["peak_growth"], old["peak_growth"]) if old else
                                  fig["peak_growth"]}
        for mode, label in (("full", "full load (before)"), ("index", "cached index (after)")):
            if mode in best:
                f = best[mode]
                print(f"  one session start, {label:<22} cpu {f['cpu'] * 1000:7.0f} ms  wall {f['wall'] * 1000:7.0f} ms"
                      f"  peak RSS growth {f['peak_growth'] / 2**20:6.1f} MiB  (load {f['load']:.2f})")
        if "full" in best:
            f, i = best["full"], best["index"]
            memory = f["peak_growth"] / max(i["peak_growth"], 1)
            print(f"  ratio: cpu {f['cpu'] / i['cpu']:.0f}x less, memory {memory:.0f}x less")
        many = _run("index", testset, args.sessions, env)
        per = sorted(many["per"])
        print(f"  {args.sessions} sessions in one process (shared index, as a server): total cpu {many['cpu']:.2f} s,"
              f" per session median {per[len(per) // 2] * 1000:.0f} ms / max {per[-1] * 1000:.0f} ms, peak RSS growth "
              f"{many['peak_growth'] / 2**20:.1f} MiB  (load {os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
