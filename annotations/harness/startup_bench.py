"""``benchlab bench startup``: how long ``--help`` takes, against issue 24's 0.15 s target.

Each help request is timed five ways, each as its own process: through the real CLI with nothing cached
(``python -m benchlab.tui.cli ...``: what every ``--help`` cost before the help cache and the command cards), the
``benchlab`` console script's first call on an empty cache (as after an install: a group's page from the command
cards, :mod:`benchlab.tui.help_cards`, a command's from its one declaration), its first call after a ``BENCHLAB_*``
variable changed (the help cache misses; the page is laid out from the help listing or a page record,
:mod:`benchlab.tui.help_listing`), its cached calls, and its first call after ``benchlab/tui/cli.py`` got a new
modification time (an edit of a file the whole CLI imports). Wall and CPU are the minimum of ``--repeat`` runs (runs
alternate, so a burst of load hits all five); the load average is printed beside the figures, since on a shared
machine wall time follows the load.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlab.annotations.cards import help_of
from benchlab.annotations.core_cards import CARDS
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
    for group, at in (("score", 1), ("compare", len(requests) + 1)):
        for benchmark in registry().benchmarks.values():
            declared = next((c for c in benchmark.commands if c.group == group), None)
            if declared is not None:
                requests.insert(at, (group, declared.name or benchmark.name, "--help"))
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


def _edit_a_file_the_cli_imports() -> bool:
    """Give ``benchlab/tui/cli.py`` (a file every whole-CLI build imports) a new modification time, as an edit
    would: the help cache and the help listing no longer hold. ``False`` where it cannot be touched."""
    spec = importlib.util.find_spec("benchlab.tui.cli")
    try:
        os.utime(str(spec.origin if spec is not None else ""), None)
    except (OSError, TypeError):
        return False
    return True


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def startup_figures(repeat: int) -> str:
    """The table: per help request, uncached CLI, first call, first call after a setting changed, cached call and
    first call after an edit of a file the CLI imports, wall / CPU, against the target."""
    script = _console_script()
    cli = [sys.executable, "-m", "benchlab.tui.cli"]
    names = ("cli", "first", "changed", "cached", "edited")
    lines = [f"benchlab bench startup: --help, minimum of {repeat} runs each (target {TARGET_S:.2f} s); {_load()}",
             f"{'help request':<36}{'CLI, no cache':>22}{'first (stores)':>22}{'setting changed':>22}"
             f"{'cached':>22}{'after an edit':>22}  first, changed, cached, edit <= {TARGET_S:.2f} s CPU  "
             f"{'load':>5}"]
    for args in help_requests():
        best: dict[str, tuple[float, float]] = {}
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="benchlab-bench-startup-") as cache:
                env = {**os.environ, "BENCHLAB_CACHE_DIR": cache}
                runs = {"cli": _timed([*cli, *args], env), "first": _timed([*script, *args], env),
                        "changed": _timed([*script, *args], {**env, "BENCHLAB_BENCH_STARTUP_CHANGE": "1"}),
                        "cached": _timed([*script, *args], env)}
                if _edit_a_file_the_cli_imports():
                    runs["edited"] = _timed([*script, *args], env)
            for name, (wall, cpu) in runs.items():
                old = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(old[0], wall), min(old[1], cpu))
        cells = "".join(f"{f'{best[n][0]:.3f} s / {best[n][1]:.3f} cpu' if n in best else 'n/a':>22}" for n in names)
        met = ", ".join(("yes" if best[n][1] <= TARGET_S else "no") if n in best else "n/a" for n in names[1:])
        lines.append(f"{'benchlab ' + ' '.join(args):<36}{cells}  {met:<41}  {os.getloadavg()[0]:>5.1f}")
    lines.append("(wall / CPU seconds. On an idle core wall is about the CPU time; on a busy shared machine wall "
                 "follows the load, so compare CPU. 'first' is the first --help after an install (nothing cached); "
                 "'setting changed' the first after a change of the environment or the terminal width; 'after an "
                 "edit' the first after benchlab/tui/cli.py, a file the whole CLI imports, got a new modification "
                 "time. 'CLI, no cache' is what every --help cost before the help cache and the command cards.)")
    return "\n".join(lines)


def startup(opts: StartupOptions) -> str:
    return startup_figures(opts.repeat)


STARTUP = Command("bench", help_of(CARDS, "bench startup"), StartupOptions, startup, name="startup")
