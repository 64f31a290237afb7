"""``benchlab curate fastbook``: open the context-annotation editor on a fastbook-benchmark file.

Everything is loaded and checked before the terminal UI starts, so a malformed file, a missing chapter or a run
naming unknown questions ends with one ``benchlab: error: <file>:<line>: ...`` line and nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab.tui.commands.format_option import FORMAT_OPTION

if TYPE_CHECKING:
    from benchlab.annotations.fastbook.curation import CurationSession
    from benchlab.annotations.fastbook.editor_bench import Figure
    from benchlab.annotations.fastbook.progress import CuratorQueue
    from benchlab.data.fastbook.chapters import Chapter
    from benchlab.data.fastbook.runs import Run
    from benchlab.tui.fastbook.curate_app import CurateFastbookApp


@click.command("fastbook")
@click.option("--benchmark", "benchmark_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The fastbook-benchmark JSON to edit. Without it, the full dataset (else the bundled sample) "
                   "opens read-only: copy it and pass the copy to edit.")
@click.option("--chapters", "chapters_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder with chapter_N.txt (or the notebooks). Default: beside the benchmark file.")
@click.option("--runs", "run_paths", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Retrieval-run JSONL files to re-score after every edit (repeatable).")
@click.option("--curator", default=None, help="Your name for the change log (default: $BENCHLAB_CURATOR or $USER).")
@click.option("--plan", "plan_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="An assignment plan (benchlab fastbook assign): the list shows only --curator's queue, with "
                   "progress kept in <file>.progress.json.")
@click.option("--k", type=click.IntRange(min=1), default=10, show_default=True, help="Cut-off for MRR@k, Recall@k.")
@click.option("--review", "review", nargs=2, type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="A B", help="Review two curators' copies: every disagreement, take A, B or your own, save a "
                                  "merged file (never over A or B).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --review: the merged file (default: A's name with .merged before the suffix).")
def curate_fastbook(benchmark_path: Path | None, chapters_dir: Path | None, run_paths: tuple[Path, ...],
                    curator: str | None, plan_path: Path | None, k: int, review: tuple[Path, Path] | None,
                    out: Path | None) -> None:
    """Edit the contexts of the fastbook-benchmark: select spans of the chapter text, undo/redo, save safely.

    Saves keep the previous file as <file>.bak and refuse to overwrite a file changed on disk since it was
    loaded unless you confirm. Every edit is appended to <file>.changes.jsonl (who, when, question, component,
    before, after) the moment you make it.
    """
    if review:
        from benchlab.tui.fastbook.review_app import build_review_app

        build_review_app(review[0], review[1], chapters_dir, run_paths, curator, k=k, output=out).run()
        return
    if out is not None:
        raise click.UsageError("--out names the merged file of a --review")
    app = build_app(benchmark_path, chapters_dir, run_paths, curator, k, plan=plan_path)
    app.run()


#: ``benchlab curate fastbook`` (the CLI builder adds it to ``curate``, see :mod:`benchlab.tui.fastbook.tool`).
CURATE_COMMAND = curate_fastbook


def build_app(benchmark_path: Path | None, chapters_dir: Path | None, run_paths: tuple[Path, ...] | list[Path],
              curator: str | None, k: int = 10, *, plan: Path | None = None) -> CurateFastbookApp:
    """Load everything (raising ``BenchlabError`` on bad input) and return the editor app, not yet running."""
    from benchlab.tui.fastbook.curate_app import CurateFastbookApp

    session, chapters, runs = load_editor_inputs(benchmark_path, chapters_dir, run_paths, curator)
    queue = load_queue(plan, session) if plan is not None else None
    return CurateFastbookApp(session, chapters, runs, k=k, queue=queue)


def load_queue(plan: Path, session: CurationSession) -> CuratorQueue:
    """The session's curator's queue in ``plan``; progress is saved beside the file, so it must be a writable copy."""
    from benchlab.annotations.fastbook.progress import CuratorQueue
    from benchlab.data.errors import BenchlabError

    if not session.writable:
        raise BenchlabError(f"a plan's progress is kept beside the benchmark file, which is read-only here "
                            f"({session.read_only_reason}); open your working copy with --benchmark", session.path)
    return CuratorQueue.open(plan, session.path, session.benchmark, session.curator)


def load_editor_inputs(
    benchmark_path: Path | None, chapters_dir: Path | None, run_paths: tuple[Path, ...] | list[Path],
    curator: str | None,
) -> tuple[CurationSession, dict[int, Chapter], list[Run]]:
    """The session, chapters and runs the editor needs; every problem is a ``BenchlabError`` naming the file."""
    from benchlab.annotations.fastbook.curation import CurationSession
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.benchmark import require_questions
    from benchlab.data.fastbook.chapters import load_chapters
    from benchlab.data.fastbook.runs import read_run

    # The default file is the shared dataset (or the bundled sample): browse it, never edit it in place.
    path = benchmark_path if benchmark_path is not None else _default_benchmark()
    folder = chapters_dir if chapters_dir is not None else _default_chapters(path)
    session = CurationSession.open(path, curator=curator, read_only=benchmark_path is None or locate.is_sample(path),
                                   chapters_dir=folder)
    require_questions(session.benchmark, path)
    chapters = load_chapters(folder, session.benchmark.chapters)
    runs = [read_run(p, session.benchmark) for p in run_paths]
    return session, chapters, runs


def _default_benchmark() -> Path:
    from benchlab.data.fastbook import locate

    return Path(locate.default_benchmark_path())


def _default_chapters(benchmark_path: Path) -> Path:
    from benchlab.data.fastbook import locate

    return Path(locate.chapters_dir_for(benchmark_path))


@click.command("curate-fastbook")
@click.option("--benchmark", "benchmark_path", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, help="Benchmark file to time (only read; edits go to a temporary copy).")
@click.option("--chapters", "chapters_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder with chapter_N.txt (default: beside the benchmark file).")
@click.option("--edits", type=click.IntRange(2, 10_000), default=50, show_default=True, help="Edits to time.")
@click.option("--runs", "n_runs", type=click.IntRange(0, 50), default=4, show_default=True,
              help="Synthetic retrieval runs re-scored after each edit.")
@FORMAT_OPTION
def bench_curate_fastbook(benchmark_path: Path | None, chapters_dir: Path | None, edits: int, n_runs: int,
                          fmt: str) -> None:
    """Time what a curator waits for in the editor: open, each edit (logged, re-scored), undo, diff, save."""
    import pandas as pd

    from benchlab.annotations.fastbook.editor_bench import measure
    from benchlab.data.tables import Table, render

    path = benchmark_path if benchmark_path is not None else _default_benchmark()
    folder = chapters_dir if chapters_dir is not None else _default_chapters(path)
    figures = measure(path, folder, edits=edits, n_runs=n_runs)
    figures.extend(_measure_ui(path, folder, edits))
    frame = pd.DataFrame({"ms": [round(f.ms, 2) for f in figures], "detail": [f.detail for f in figures]},
                         index=pd.Index([f.what for f in figures], name="step"))
    click.echo(render([Table(f"benchlab curate fastbook: time per step ({path.name})", frame)], fmt))


#: ``benchlab bench curate-fastbook`` (added to the ``bench`` group by the CLI builder).
BENCH_COMMAND = bench_curate_fastbook


def _measure_ui(path: Path, folder: Path, edits: int) -> list[Figure]:
    """Open the real editor headless on a temporary copy; time start-up and keypress-to-idle for flag toggles."""
    import asyncio
    import shutil
    import tempfile
    import time

    from benchlab.annotations.fastbook.editor_bench import Figure, _spread

    async def run(copy: Path) -> list[Figure]:
        start = time.perf_counter()
        app = build_app(copy, folder, (), "bench")
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            opened = (time.perf_counter() - start) * 1000
            await pilot.press("tab")
            times: dict[str, list[float]] = {"z": [], "x": []}  # z: an unbound key (the test driver's own cost)
            for _ in range(edits):
                for key, spent in times.items():
                    t0 = time.perf_counter()
                    await pilot.press(key)
                    await pilot.pause()
                    spent.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            await pilot.press("down", "down")
            await pilot.pause()
            moved = (time.perf_counter() - t0) * 1000
        return [Figure("editor open, headless (load, audit, first screen)", opened),
                _spread("keypress to idle screen: unbound key (baseline)", times["z"]),
                _spread("keypress to idle screen: toggle a flag (headless)", times["x"]),
                Figure("move to the next question (2 keys, chapter marks)", moved)]

    with tempfile.TemporaryDirectory(prefix="benchlab-bench-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        return asyncio.run(run(copy))
