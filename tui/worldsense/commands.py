"""``benchlab score|fetch|bench worldsense``: the benchmark's own tables, its data, our speed vs the original."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import FORMAT_OPTION, bench, fetch, score


def _warn(message: str) -> None:
    click.echo(f"benchlab: warning: {message}", err=True)


def score_sample_demo() -> str:
    """The bundled sample's tables as text (what ``benchlab demo`` printed before the app existed)."""
    from benchlab.data.samples import sample_path
    from benchlab.data.tables import render
    from benchlab.data.worldsense.scoring import score_testset_dir

    folder = sample_path("worldsense")
    tables = score_testset_dir(folder)
    head = (f"WorldSense sample ({folder}): {tables.tuples['tuple_ID'].nunique()} tuples, "
            f"{tables.tuples['modelname'].nunique()} models, scored like analyse_results.py\n\n")
    return head + render(tables.tables(), "table")


@score.command("worldsense")
@click.option("-t", "--testset", "testset", type=click.Path(path_type=Path),
              help="Test-set folder holding trials.jsonl.bz2 and results/ (e.g. .../worldsense/test_set).")
@click.option("--sample", is_flag=True, help="Score the bundled sample instead of a test-set folder.")
@click.option("--results", "results_dirs", multiple=True, type=click.Path(path_type=Path),
              help="Results folder(s) to search recursively instead of <testset>/results (repeatable).")
@FORMAT_OPTION
@click.option("--tuples-out", type=click.Path(path_type=Path),
              help="Also write the per-tuple scores (acc, bias) to this CSV file.")
@click.option("--no-cache", is_flag=True, help="Decode the files even if cached copies exist (cache: by content).")
def score_worldsense_cmd(testset: Path | None, sample: bool, results_dirs: tuple[Path, ...], fmt: str,
                         tuples_out: Path | None, no_cache: bool) -> None:
    """Print the original analyse_results.py tables: average accuracy, accuracy and bias per problem (95% CI).

    Warnings (incomplete tuples, unknown Keys, answers outside the options, ...) go to stderr, one line each.
    """
    from benchlab.data.atomic import atomic_write_text
    from benchlab.data.tables import render
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.scoring import load_results_dirs, score_worldsense

    if sample:
        from benchlab.data.samples import sample_path

        testset = sample_path("worldsense")
    if testset is None:
        raise click.UsageError("give a test-set folder with -t/--testset (or --sample for the bundled sample)")
    if tuples_out is not None and not tuples_out.parent.is_dir():  # say so before scoring, not after the tables
        raise BenchlabError("the folder for --tuples-out does not exist (or is a file)", tuples_out.parent)
    if tuples_out is not None and tuples_out.is_dir():
        raise BenchlabError("--tuples-out is a folder; give a file name", tuples_out)
    dirs = list(results_dirs) or [testset / "results"]
    tables = score_worldsense(read_trial_columns(testset, cache=not no_cache),
                              load_results_dirs(dirs, cache=not no_cache), on_warning=_warn)
    click.echo(render(tables.tables(), fmt), nl=False)
    if tuples_out is not None:
        atomic_write_text(tuples_out, tables.tuples.to_csv(index=False))
        click.echo(f"benchlab: wrote {len(tables.tuples)} tuple scores to {tuples_out}", err=True)


@fetch.command("worldsense")
@click.option("--dest", type=click.Path(path_type=Path), default=None,
              help="Download folder (default: the user data folder); files land in <dest>/worldsense/.")
@click.option("--base-url", default=None,
              help="Repository root to download from (default: the benchmark's public repository at the pinned "
                   "commit, or $BENCHLAB_WORLDSENSE_BASE_URL).")
@click.option("--only", multiple=True, type=click.Choice(["test_set", "other_tests", "training_set"]),
              help="Download only these parts (repeatable; default: everything, 26 MB).")
def fetch_worldsense_cmd(dest: Path | None, base_url: str | None, only: tuple[str, ...]) -> None:
    """Download the official test sets and published results: checksummed, resumable."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TransferSpeedColumn

    from benchlab.data.worldsense.fetch import FetchEvent, default_dest, fetch_worldsense

    target = dest or default_dest()
    console_err = sys.stderr.isatty()
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=Console(stderr=True), disable=not console_err, transient=False) as progress:
        tasks: dict[str, TaskID] = {}

        def on_event(event: FetchEvent) -> None:
            name = event.file.dest
            if name not in tasks:
                tasks[name] = progress.add_task(name, total=event.file.size)
            task = tasks[name]
            progress.update(task, completed=event.done)
            if not console_err and event.kind in ("skip", "done", "resume", "retry"):
                label = {"skip": "ok (already there)", "done": "downloaded, sha256 ok",
                         "resume": event.message, "retry": event.message}[event.kind]
                click.echo(f"{name}: {label}", err=True)

        summary = fetch_worldsense(target, base_url=base_url, only=only, on_event=on_event)
    click.echo(f"WorldSense: {len(summary.downloaded)} file(s) downloaded, {len(summary.skipped)} already there, "
               f"all verified, in {summary.dest / 'worldsense'}")
    fetched = [p.parent for p in [*summary.downloaded, *summary.skipped] if p.name == "trials.jsonl.bz2"]
    test_set = fetched[0] if fetched else summary.dest / "worldsense" / "test_set"
    click.echo(f"Score the published results with:\n  benchlab score worldsense -t {test_set}")


# ------------------------------------------------------------------------------------------------- bench

_CELL = r"(?:-?\d+\.\d+|-?nan|-?inf) \((?:-?\d+\.\d+|-?nan|-?inf)\)|NaN"
_SECTION_TITLES = ("AVERAGE ACCURACY ACROSS ALL PROBLEMS", "ACCURACY for each", "BIAS for each")


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
    import pandas as pd

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
cmd = json.loads(sys.argv[1]); cwd = sys.argv[2] or None
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


def _measure(cmd: list[str], cwd: Path | None = None,
             env: dict[str, str] | None = None) -> tuple[float, int, str, float]:
    """Wall seconds, peak RSS in bytes, stdout and CPU seconds of ``cmd``, measured from a fresh helper process.

    A fresh helper per run makes ``RUSAGE_CHILDREN``'s high-water mark belong to this one command only.
    """
    import json

    helper = subprocess.run([sys.executable, "-c", _MEASURE_HELPER, json.dumps(cmd), str(cwd or "")],
                            capture_output=True, text=True, env=env, check=False)
    if helper.returncode != 0:
        raise BenchlabError(f"could not measure {' '.join(cmd)}: {helper.stderr.strip()[-2000:]}")
    data = json.loads(helper.stdout)
    if data["rc"] != 0:
        raise BenchlabError(f"command failed (exit {data['rc']}): {' '.join(cmd)}\n{data['err'].strip()}")
    return float(data["wall"]), int(data["peak_kb"]) * 1024, str(data["out"]), float(data["cpu"])


@bench.command("worldsense")
@click.option("-t", "--testset", "testsets", multiple=True, type=click.Path(path_type=Path, exists=True),
              help="Test-set folder(s) to score (repeatable; default: the bundled sample).")
@click.option("--original", type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="Checkout of the original repository (with analyse_results.py): run it too and compare.")
@click.option("--original-python", default=None,
              help="Python that runs the original (needs pandas; default: this one).")
@click.option("--repeat", default=3, show_default=True, type=click.IntRange(1, 20),
              help="Runs per measurement; the median wall time and largest peak are reported.")
def bench_worldsense_cmd(testsets: tuple[Path, ...], original: Path | None, original_python: str | None,
                         repeat: int) -> None:
    """Wall time and peak memory of `benchlab score worldsense` (cold and cached), optionally vs the original.

    Each run is a separate process, timed from start to exit (imports included), as a user would experience it.
    With --original, the original script runs on the same data (COLUMNS=250) and its printed cells are compared
    with ours cell for cell.
    """
    from statistics import median

    from benchlab.data.samples import sample_path

    sets = list(testsets) or [sample_path("worldsense")]
    env = {**os.environ, "COLUMNS": "250"}
    lean_cmd = [sys.executable, "-m", "benchlab.data.worldsense"]
    cli_cmd = [sys.executable, "-m", "benchlab.tui.cli", "score", "worldsense"]
    click.echo(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, Python "
               f"{sys.version.split()[0]}; {repeat} run(s) per figure (median wall and CPU time, max peak RSS)")
    all_identical = True
    for testset in sets:
        testset = testset.resolve()
        click.echo(f"\n== {testset}")
        figures: dict[str, tuple[float, int, float]] = {}

        def measure(name: str, cmd: list[str], run_env: dict[str, str], cwd: Path | None = None,
                    figures: dict[str, tuple[float, int, float]] = figures) -> str:
            runs = [_measure(cmd, cwd=cwd, env=run_env) for _ in range(repeat)]
            figures[name] = (median(r[0] for r in runs), max(r[1] for r in runs), median(r[3] for r in runs))
            return runs[0][2]

        with tempfile.TemporaryDirectory(prefix="benchlab-bench-cache-") as cache_home:
            run_env = {**env, "XDG_CACHE_HOME": cache_home}
            ours_out = measure("benchlab, first run (no cache)", [*lean_cmd, "-t", str(testset), "--no-cache"],
                               run_env)
            _measure([*lean_cmd, "-t", str(testset)], env=run_env)  # fill the cache
            measure("benchlab, second run (cached)", [*lean_cmd, "-t", str(testset)], run_env)
            measure("`benchlab score` CLI, cached", [*cli_cmd, "-t", str(testset)], run_env)
        identical: bool | None = None
        original_name = "original analyse_results.py"
        if original is not None:
            script = original / "analyse_results.py"
            if not script.exists():
                raise BenchlabError("no analyse_results.py in this folder", original)
            theirs_out = measure(original_name, [original_python or sys.executable, str(script), "-t", str(testset)],
                                 env, cwd=original)
            theirs = parse_original_tables(theirs_out)
            identical = bool(theirs) and theirs == parse_original_tables(ours_out)
            all_identical = all_identical and identical
        base = figures.get(original_name)
        for name, (wall, peak, cpu) in figures.items():
            line = f"  {name:<32} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak RSS {peak / 2**20:7.1f} MB"
            if base is not None and name != original_name:
                line += (f"   -> {base[0] / wall:4.1f}x faster (cpu {base[2] / cpu:4.1f}x), "
                         f"{peak / base[1]:.2f}x the memory")
            click.echo(line)
        if identical is not None:
            click.echo(f"  printed tables identical to the original's, cell for cell: {'yes' if identical else 'NO'}")
    if original is not None and not all_identical:
        raise BenchlabError("some tables differ from the original's (see above)")
