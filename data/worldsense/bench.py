"""Our WorldSense scorer against the original ``analyse_results.py``: wall time, CPU time, peak memory, and the
printed tables compared cell for cell.

Each run is a separate process timed from start to exit (imports included), as a user would experience it; the
original runs on the same data with ``COLUMNS=250`` (as its reference outputs were printed) and its printed cells
are parsed back (:func:`parse_original_tables`) to compare them with ours.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchlab.data.errors import BenchlabError

_CELL = r"(?:-?\d+\.\d+|-?nan|-?inf) \((?:-?\d+\.\d+|-?nan|-?inf)\)|NaN"
_SECTION_TITLES = ("AVERAGE ACCURACY ACROSS ALL PROBLEMS", "ACCURACY for each", "BIAS for each")
ORIGINAL_NAME = "original analyse_results.py"


def parse_original_tables(text: str) -> list[list[list[str]]]:
    """The cells of the original script's printed tables: per table, a header row then one row per line.

    Each row is ``[row label, cell, cell, ...]``; the header row lists the column names. Only needs the output
    to be printed wide (``COLUMNS=250``), as the reference outputs were.
    """
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if any(title in line for title in _SECTION_TITLES):
            current = []
            tables.append(current)
            i += 1
            while i < len(lines) and set(lines[i].strip()) <= {"-"} and lines[i].strip():
                i += 1  # the original's rule under the title
            header = lines[i].split()
            current.append(header[1:])  # drop the columns' name ("prompting"/"problemname")
            i += 2  # skip the index-names line
            continue
        if current is not None:
            if not line.strip() or line.startswith("*") or line.startswith("-"):
                current = None
            else:
                cells = re.findall(_CELL, line)
                label_part = re.split(_CELL, line)[0].split()
                current.append([label_part[-1] if label_part else "", *cells])
        i += 1
    return tables


def ours_as_rows(tables: Sequence[object]) -> list[list[list[str]]]:
    """Our formatted tables in the form of :func:`parse_original_tables`."""
    out: list[list[list[str]]] = []
    for table in tables:
        frame: pd.DataFrame = table.frame  # type: ignore[attr-defined]
        rows = [[str(c) for c in frame.columns]]
        for idx, row in frame.iterrows():
            label = idx[-1] if isinstance(idx, tuple) else idx
            rows.append([str(label), *["NaN" if not isinstance(v, str) else v for v in row.tolist()]])
        out.append(rows)
    return out


_MEASURE_HELPER = r"""
import os, subprocess, sys, time, json
cmd = json.loads(sys.argv[1]); cwd = sys.argv[2] or None; cpus = json.loads(sys.argv[3])
if cpus:
    os.sched_setaffinity(0, set(cpus))  # the command inherits it: "one core" really is one core
start = time.perf_counter()
proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out, err = proc.communicate()
wall = time.perf_counter() - start
import resource
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak_kb = usage.ru_maxrss
sys.stdout.write(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_kb": peak_kb,
                             "rc": proc.returncode,
                             "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace")[-3000:]}))
"""


def measure(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
            cpus: Sequence[int] = ()) -> tuple[float, int, str, float]:
    """Wall seconds, peak RSS in bytes, stdout and CPU seconds of ``cmd``, measured from a fresh helper process.

    A fresh helper per run makes ``RUSAGE_CHILDREN``'s high-water mark belong to this one command only. ``cpus``:
    the only CPUs the command may run on (empty: all).
    """
    helper = subprocess.run([sys.executable, "-c", _MEASURE_HELPER, json.dumps(cmd), str(cwd or ""),
                             json.dumps(list(cpus))],
                            capture_output=True, text=True, env=env, check=False)
    if helper.returncode != 0:
        raise BenchlabError(f"could not measure {' '.join(cmd)}: {helper.stderr.strip()[-2000:]}")
    data = json.loads(helper.stdout)
    if data["rc"] != 0:
        raise BenchlabError(f"command failed (exit {data['rc']}): {' '.join(cmd)}\n{data['err'].strip()}")
    return float(data["wall"]), int(data["peak_kb"]) * 1024, str(data["out"]), float(data["cpu"])


@dataclass
class _Job:
    name: str
    cmd: list[str]
    env: dict[str, str]
    cwd: Path | None = None
    cpus: tuple[int, ...] = ()
    busy: tuple[int, ...] = ()  # CPUs kept busy by a spinning process while the job runs
    prepare: Callable[[], None] | None = None  # run before each measurement (not timed)


_SPIN = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True: pass\n"


@dataclass
class _Figures:
    """Minimum wall and CPU seconds and peak RSS per measured command, in alternating rounds (the machine is
    shared: every command gets the same share of quiet and busy moments, and the minimum is the least disturbed)."""

    repeat: int
    rows: dict[str, tuple[float, int, float, float]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)

    def run_rounds(self, jobs: Sequence[_Job]) -> None:
        """Each round runs every job once, in order; figures are the minimum over rounds."""
        for _ in range(self.repeat):
            for job in jobs:
                if job.prepare is not None:
                    job.prepare()
                spinners = [subprocess.Popen([sys.executable, "-c", _SPIN, str(c)]) for c in job.busy]
                try:
                    wall, peak, out, cpu = measure(job.cmd, cwd=job.cwd, env=job.env, cpus=job.cpus)
                finally:
                    for spinner in spinners:
                        spinner.kill()
                        spinner.wait()
                load = os.getloadavg()[0]
                self.outputs.setdefault(job.name, out)
                old = self.rows.get(job.name)
                if old is None:
                    self.rows[job.name] = (wall, peak, cpu, load)
                else:
                    best = wall < old[0]
                    self.rows[job.name] = (min(wall, old[0]), min(peak, old[1]), min(cpu, old[2]),
                                           load if best else old[3])

    def lines(self) -> list[str]:
        base = self.rows.get(ORIGINAL_NAME)
        out = []
        for name, (wall, peak, cpu, load) in self.rows.items():
            line = (f"  {name:<36} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak RSS {peak / 2**20:7.1f} MB"
                    f"  (load {load:.2f})")
            if base is not None and name != ORIGINAL_NAME:
                line += (f"   -> {base[0] / wall:4.1f}x faster (cpu {base[2] / cpu:4.1f}x), "
                         f"{peak / base[1]:.2f}x the memory")
            out.append(line)
        return out


_BUILD_INDEX = "import sys\nfrom benchlab.data.worldsense.trial_index import open_index\nopen_index(sys.argv[1])\n"


def _keep_only_indexes(cache: Path) -> None:
    """Empty ``cache`` except the test-set indexes (``<cache>/worldsense/index-*``): decoded columns, results and
    tables go, so the next scoring is a first one."""
    folder = cache / "worldsense"
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.is_file():
                entry.unlink()


def _bench_one(testset: Path, figures: _Figures, env: dict[str, str], original: Path | None,
               original_python: str | None) -> bool | None:
    """Measure ours (nothing cached: all cores, one core, the other core busy; the test set's index built by a
    session, one core; cached; through the CLI; the console script repeating a printed scoring) and the original
    on one test set, in alternating rounds; whether the tables agree."""
    lean_cmd = [sys.executable, "-m", "benchlab.data.worldsense"]
    cli_cmd = [sys.executable, "-m", "benchlab.tui.cli", "score", "worldsense"]
    script_cmd = [sys.executable, "-m", "benchlab.tui.entry", "score", "worldsense"]  # the `benchlab` script
    with tempfile.TemporaryDirectory(prefix="benchlab-bench-cache-") as cache_home:
        run_env = {**env, "XDG_CACHE_HOME": cache_home, "BENCHLAB_CACHE_DIR": ""}
        usable = sorted(os.sched_getaffinity(0))
        one = (usable[0],) if len(usable) > 1 else ()
        jobs = [_Job("benchlab, first run (no cache)", [*lean_cmd, "-t", str(testset), "--no-cache"], run_env)]
        if len(usable) > 1:
            jobs.append(_Job("benchlab, first run, one core", [*lean_cmd, "-t", str(testset), "--no-cache"], run_env,
                             cpus=one))
            jobs.append(_Job("benchlab, first run, other core busy", [*lean_cmd, "-t", str(testset), "--no-cache"],
                             run_env, busy=(usable[1],)))
        # the first scoring once a session, a server or `benchlab fetch` has built the test set's index: only the
        # index is in the cache folder (no decoded columns, results or tables), so the text is not decompressed
        indexed = Path(cache_home) / "index-only"
        indexed_env = {**env, "BENCHLAB_CACHE_DIR": str(indexed)}
        jobs.append(_Job("benchlab, first run, index built, one core", [*lean_cmd, "-t", str(testset)], indexed_env,
                         cpus=one, prepare=lambda: _keep_only_indexes(indexed)))
        jobs.append(_Job("benchlab, second run (cached)", [*lean_cmd, "-t", str(testset)], run_env))
        jobs.append(_Job("`benchlab score` CLI, cached", [*cli_cmd, "-t", str(testset)], run_env))
        jobs.append(_Job("`benchlab score` script, repeated", [*script_cmd, "-t", str(testset)], run_env))
        if original is not None:
            script = original / "analyse_results.py"
            if not script.exists():
                raise BenchlabError("no analyse_results.py in this folder", original)
            jobs.append(_Job(ORIGINAL_NAME, [original_python or sys.executable, str(script), "-t", str(testset)],
                             env, cwd=original))
        measure([sys.executable, "-c", _BUILD_INDEX, str(testset)], env=indexed_env)  # the session's index, once
        measure([*script_cmd, "-t", str(testset)], env=run_env)  # fill the caches (and the script's replay)
        figures.run_rounds(jobs)
    if original is None:
        return None
    theirs = parse_original_tables(figures.outputs[ORIGINAL_NAME])
    return bool(theirs) and theirs == parse_original_tables(figures.outputs["benchlab, first run (no cache)"])


def bench_worldsense(testsets: Sequence[Path], emit: Callable[[str], None], *, original: Path | None = None,
                     original_python: str | None = None, repeat: int = 3) -> None:
    """Time ``score worldsense`` on each test set (and the original with ``original``), emitting lines as measured.

    Raises :class:`BenchlabError` after the figures when some table differs from the original's.
    """
    env = {**os.environ, "COLUMNS": "250"}
    # The original runs in its own folder: paths given relative to here must not change meaning there.
    original = original.resolve() if original is not None else None
    if original_python is not None and (os.sep in original_python or Path(original_python).exists()):
        original_python = str(Path(original_python).absolute())
    emit(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, Python "
         f"{sys.version.split()[0]}; {repeat} alternating round(s) per figure (minimum wall, CPU and peak RSS)")
    all_identical = True
    for testset in testsets:
        testset = testset.resolve()
        emit(f"\n== data set {testset}")
        figures = _Figures(repeat)
        identical = _bench_one(testset, figures, env, original, original_python)
        for line in figures.lines():
            emit(line)
        if identical is not None:
            all_identical = all_identical and identical
            emit(f"  printed tables identical to the original's, cell for cell: {'yes' if identical else 'NO'}")
    if original is not None and not all_identical:
        raise BenchlabError("some tables differ from the original's (see above)")
