"""``benchlab bench startup``: how long ``--help`` takes, against issue 24's 0.15 s target.

Each help request is timed four ways, each as its own process: through the real CLI with nothing cached
(``python -m benchlab.tui.cli ...``: what every ``--help`` cost before the help cache, and what the first one after
an edit of a file the CLI loads, or an install, costs), the ``benchlab`` console script's first call on an empty
cache (computes and stores), its first call after a ``BENCHLAB_*`` variable changed (the help cache misses; the page
is laid out from the help listing, :mod:`benchlab.tui.help_listing`), and its cached calls. Wall and CPU are the
minimum of ``--repeat`` runs (runs alternate, so a burst of load hits all four); the load average is printed beside
the figures, since on a shared machine wall time follows the load.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command

TARGET_S = 0.15
#: The help requests timed besides each benchmark's first ``score`` command (:func:`help_requests`).
GROUP_HELP_REQUESTS = (("--help",), ("run", "--help"), ("score", "--help"), ("compare", "--help"))


def help_requests() -> list[tuple[str, ...]]:
    """The root and group help, then the first registered benchmark's ``score`` command: found through the registry,
    since core code names no benchmark (a plug-in that declares the first score command is timed instead)."""
    # deferred: the registry loads every declaration; only the bench itself needs it, not the command line
    from benchlab.annotations.registry import registry

    requests = list(GROUP_HELP_REQUESTS)
    for benchmark in registry().benchmarks.values():
        scored = next((c for c in benchmark.commands if c.group == "score"), None)
        if scored is not None:
            requests.insert(1, ("score", scored.name or benchmark.name, "--help"))
            break
    return requests


class StartupOptions(Options):
    """``benchlab bench startup``."""

    repeat: int = option(5, label="Runs", ge=1, le=50, help="Runs of each measurement (the minimum is reported).")


def _console_script() -> list[str]:
    """The installed ``benchlab`` script beside this interpreter (else the same entry point through ``-m``)."""
    script = Path(sys.executable).parent / "benchlab"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "benchlab.tui.entry"]


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run of ``cmd``; a failed run is an error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, timeout=300, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {proc.returncode}): {proc.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def startup_figures(repeat: int) -> str:
    """The table: per help request, uncached CLI, first call, first call after a setting changed and cached call,
    wall / CPU, against the target."""
    script = _console_script()
    cli = [sys.executable, "-m", "benchlab.tui.cli"]
    lines = [f"benchlab bench startup: --help, minimum of {repeat} runs each (target {TARGET_S:.2f} s); {_load()}",
             f"{'help request':<36}{'CLI, no cache':>22}{'first (stores)':>22}{'setting changed':>22}"
             f"{'cached':>22}  changed, cached <= {TARGET_S:.2f} s CPU  {'load':>5}"]
    for args in help_requests():
        best: dict[str, tuple[float, float]] = {}
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="benchlab-bench-startup-") as cache:
                env = {**os.environ, "BENCHLAB_CACHE_DIR": cache}
                runs = {"cli": _timed([*cli, *args], env), "first": _timed([*script, *args], env),
                        "changed": _timed([*script, *args], {**env, "BENCHLAB_BENCH_STARTUP_CHANGE": "1"}),
                        "cached": _timed([*script, *args], env)}
            for name, (wall, cpu) in runs.items():
                old = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(old[0], wall), min(old[1], cpu))
        names = ("cli", "first", "changed", "cached")
        cells = "".join(f"{f'{best[n][0]:.3f} s / {best[n][1]:.3f} cpu':>22}" for n in names)
        met = ", ".join("yes" if best[n][1] <= TARGET_S else "no" for n in ("changed", "cached"))
        lines.append(f"{'benchlab ' + ' '.join(args):<36}{cells}  {met:<33}  {os.getloadavg()[0]:>5.1f}")
    lines.append("(wall / CPU seconds. On an idle core wall is about the CPU time; on a busy shared machine wall "
                 "follows the load, so compare CPU. 'first' is the first --help after an edit of a file the CLI "
                 "loads or an install; 'setting changed' the first after a change of the environment, the terminal "
                 "width or a file the CLI does not load.)")
    return "\n".join(lines)


def startup(opts: StartupOptions) -> str:
    return startup_figures(opts.repeat)


STARTUP = Command("bench", "Time benchlab --help (uncached CLI, first call, after a setting changed, cached call) "
                  "against the 0.15 s target.",
                  StartupOptions, startup, name="startup")
