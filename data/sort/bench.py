"""Generation speed and memory of ``benchlab booksort make`` against the published BookSORT scripts (the four
standard configurations, the nine books), for the closing notes.

With the published repository given (``--published``, a checkout of bridge-ai-neuro/SORT), both run here, side by
side, each as its own process measured from start to exit (wall, CPU, peak RSS): the published
``preprocess_pg_books.py`` then ``run_booksort_creation.py``, and ``benchlab booksort make`` with the same books and
configurations, so the ratio comes from one run on one machine. Without it, ours is measured and the published
figure printed is the stored reference, with the date and machine it was measured on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.native_draws import native_available
from benchlab.data.sort.settings import booksort_texts_dir

#: The published data set's configurations (L_E, L_S) that the published script's timing covers.
STANDARD_CONFIGS = ((250, 20), (250, 50), (1000, 20), (1000, 50))

#: The published scripts measured on their own (preprocess + generate, 4 configurations x 9 books), for when their
#: source is not at hand: (wall seconds, peak RSS MB, when and where).
STORED_REFERENCE = (48.6, 353.0, "2026-11-26 11:41 UTC, 2-vCPU AMD EPYC shared machine, load 0.9")

_HELPER = r"""
import json, os, resource, subprocess, sys, time
cmd, cwd, env = json.loads(sys.argv[1]), sys.argv[2] or None, json.loads(sys.argv[3])
start = time.perf_counter()
proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": u.ru_utime + u.ru_stime, "peak": u.ru_maxrss * 1024, "rc": proc.returncode,
                  "err": proc.stderr.decode("utf-8", "replace")[-2000:]}))
"""


@dataclass(frozen=True)
class Figure:
    wall: float
    cpu: float
    peak: int
    load: float

    def __add__(self, other: Figure) -> Figure:
        """Two steps of one job: times add up, the peak is the larger one."""
        return Figure(self.wall + other.wall, self.cpu + other.cpu, max(self.peak, other.peak),
                      max(self.load, other.load))

    def line(self, name: str) -> str:
        return (f"  {name:<44} wall {self.wall:7.1f} s  cpu {self.cpu:7.1f} s  peak RSS {self.peak / 2**20:6.0f} MB"
                f"  (load {self.load:.2f})")


def measure(cmd: Sequence[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> Figure:
    """One run of ``cmd`` in a fresh helper process (its children's peak RSS is this command's alone)."""
    helper = subprocess.run([sys.executable, "-c", _HELPER, json.dumps(list(cmd)), str(cwd or ""),
                             json.dumps(env or {})], capture_output=True, text=True, check=False)
    if helper.returncode != 0:
        raise BenchlabError(f"could not measure {' '.join(cmd)}: {helper.stderr.strip()[-2000:]}")
    data = json.loads(helper.stdout)
    if data["rc"] != 0:
        raise BenchlabError(f"command failed (exit {data['rc']}): {' '.join(cmd)}\n{data['err'].strip()}")
    return Figure(float(data["wall"]), float(data["cpu"]), int(data["peak"]), os.getloadavg()[0])


_CONSOLE_SCRIPT = "from benchlab.tui.entry import main; main()"  # what the `benchlab` command runs


def _ours(files: Sequence[Path], out: Path) -> Figure:
    # As a user runs it: through the console script, which runs a declared command from its own declaration once
    # any earlier command or --help has recorded the CLI's listing (this --help does, if nothing had).
    subprocess.run([sys.executable, "-c", _CONSOLE_SCRIPT, "booksort", "make", "--help"], capture_output=True,
                   check=False, timeout=120)
    cmd = [sys.executable, "-c", _CONSOLE_SCRIPT, "booksort", "make", "--out", str(out)]
    for f in files:
        cmd += ["--text", str(f)]
    for le in sorted({le for le, _ in STANDARD_CONFIGS}):
        cmd += ["-e", str(le)]
    for ls in sorted({ls for _, ls in STANDARD_CONFIGS}):
        cmd += ["-s", str(ls)]
    return measure(cmd)


def _published(repo: Path, python: str, texts: Path, work: Path) -> Figure:
    script = repo / "sort" / "dataset_creation" / "preprocess_pg_books.py"
    if not script.exists():
        raise BenchlabError("not a checkout of the published SORT repository (no "
                            "sort/dataset_creation/preprocess_pg_books.py)", repo)
    arrays = work / "text_arrays"
    arrays.mkdir(parents=True)
    env = {"PYTHONPATH": str(repo)}
    prep = measure([python, str(script), "--full_text_path", str(texts), "--output_path", str(arrays)], cwd=work,
                   env=env)
    les = sorted({str(le) for le, _ in STANDARD_CONFIGS})
    lss = sorted({str(ls) for _, ls in STANDARD_CONFIGS})
    gen = measure([python, "-m", "sort.dataset_creation.run_booksort_creation", "-ta", str(arrays), "-el", *les,
                   "-sl", *lss, "-o", str(work / "out")], cwd=repo, env=env)
    return prep + gen


def bench_booksort(folder: Path | None, emit: Callable[[str], None], *, published: Path | None = None,
                   published_python: str | None = None, published_seconds: float | None = None) -> None:
    """Run ours (and the published scripts when ``published`` is given) on every ``*.txt`` book in ``folder``."""
    folder = (folder or booksort_texts_dir()).resolve()
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if not files:
        raise BenchlabError("no book texts here (pass --texts FOLDER)", folder)
    python = published_python or sys.executable
    if published_python is not None and (os.sep in published_python or Path(published_python).exists()):
        python = str(Path(published_python).absolute())  # the published scripts run in their own folder
    emit(f"data set: {folder} ({len(files)} books), configurations "
         f"{', '.join(f'e{le}/s{ls}' for le, ls in STANDARD_CONFIGS)}; {os.cpu_count()} CPUs, load average "
         f"{os.getloadavg()[0]:.2f}; one run each, one after the other")
    emit("the published draws run " + ("in compiled code (benchlab.data.sort.native_draws)" if native_available()
                                       else "in numpy (no C compiler here: several times slower)"))
    with tempfile.TemporaryDirectory(prefix="benchlab-bench-booksort-") as tmp:
        ours = _ours(files, Path(tmp) / "ours")
        emit(ours.line("benchlab booksort make (streaming)"))
        if published is None:
            wall, peak, when = STORED_REFERENCE
            if published_seconds is not None:
                wall, when = published_seconds, "on this machine by you (--published-seconds); memory: stored " + when
            emit(f"  published preprocess + generate: {wall:.1f} s wall, {peak:.0f} MB peak RSS (stored reference, "
                 f"measured {when}; pass --published SORT_CHECKOUT to run it here)")
            emit(f"  -> {wall / ours.wall:.1f}x faster than the stored reference (not measured side by side), "
                 f"{ours.peak / 2**20 / peak:.2f}x its memory")
            return
        theirs = _published(published.absolute(), python, folder, Path(tmp) / "published")
        emit(theirs.line("published preprocess + generate"))
        emit(f"  -> {theirs.wall / ours.wall:.1f}x faster (cpu {theirs.cpu / ours.cpu:.1f}x), "
             f"{ours.peak / theirs.peak:.2f}x the memory (same run, same machine)")
