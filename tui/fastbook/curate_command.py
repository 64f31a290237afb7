"""``benchlab curate fastbook``: open the context-annotation editor on a fastbook-benchmark file.

Everything is loaded and checked before the terminal UI starts, so a malformed file, a missing chapter or a run
naming unknown questions ends with one ``benchlab: error: <file>:<line>: ...`` line and nothing is written.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from benchlab.annotations.cards import help_of
from benchlab.annotations.fastbook.curate_options import CurateOptions
from benchlab.annotations.option_models import declared_hints
from benchlab.annotations.options import OptionInfo, option_infos
from benchlab.data.tables import Table, render
from benchlab.tui.commands.declared import model_from_click, to_click
from benchlab.tui.commands.format_option import FORMAT_OPTION
from benchlab.tui.fastbook.cards import CARDS

if TYPE_CHECKING:
    from benchlab.annotations.fastbook.editor_bench import Figure

_FILE = click.Path(dir_okay=False, path_type=Path)
_FOLDER = click.Path(file_okay=False, path_type=Path)


def _fixed_length(info: OptionInfo) -> int | None:
    """How many values a fixed-length tuple option takes (``tuple[Path, Path]``: 2); ``None`` for any other."""
    annotation = declared_hints(CurateOptions)[info.name]  # the declaration's own: no pydantic model is built
    for shape in (annotation, *typing.get_args(annotation)):
        args = typing.get_args(shape)
        if typing.get_origin(shape) is tuple and args and Ellipsis not in args:
            return len(args)
    return None


def curate_param(info: OptionInfo) -> click.Parameter:
    """One declared option of :class:`CurateOptions` as its click parameter.

    The generic generator knows paths, not files and folders: here a file option refuses a folder and says FILE
    in ``--help`` (a folder option DIRECTORY), and ``--review A B`` takes its two files, as before the options
    were declared once. Flag, default and help still come from the model.
    """
    pair = _fixed_length(info)
    if pair is not None:
        return click.Option([info.flag, info.name], type=_FILE, nargs=pair, default=None, metavar=info.metavar,
                            help=info.help)
    param = to_click(info)
    if info.kind == "path":
        param.type = _FOLDER if info.widget == "folder" else _FILE
    return param


@click.command("fastbook", params=[curate_param(i) for i in option_infos(CurateOptions) if i.cli],
               help=help_of(CARDS, "curate fastbook"))
def curate_fastbook(**params: Any) -> None:
    """``benchlab curate fastbook``: the editor, or with ``--review`` the merge of two curators' copies."""
    opts = model_from_click(CurateOptions, params)
    if opts.review:
        # deferred: the review app loads Textual and the curation library, which ``benchlab --help`` never needs.
        from benchlab.tui.fastbook.review_app import build_review_app

        build_review_app(opts.review[0], opts.review[1], opts.chapters, opts.runs, opts.curator, k=opts.k,
                         output=opts.out).run()
        return
    if opts.out is not None:
        raise click.UsageError("--out names the merged file of a --review")
    # deferred: the editor app loads Textual and the curation library, which ``benchlab --help`` never needs.
    from benchlab.tui.fastbook.curate_app import build_app

    app = build_app(opts.benchmark, opts.chapters, opts.runs, opts.curator, opts.k, plan=opts.plan)
    app.run()


#: ``benchlab curate fastbook``: the wiring adds it to the ``curate`` group.
CURATE_COMMAND: click.Command = curate_fastbook


@click.command("curate-fastbook", help=help_of(CARDS, "bench curate-fastbook"))
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
    """``benchlab bench curate-fastbook``: the curation library's steps, then the editor's own, headless."""
    # deferred: pandas and the curation library are needed only when the bench runs, not for ``--help``.
    import pandas as pd

    from benchlab.annotations.fastbook.editor_bench import measure
    from benchlab.annotations.fastbook.editor_inputs import default_benchmark, default_chapters

    path = benchmark_path if benchmark_path is not None else default_benchmark()
    folder = chapters_dir if chapters_dir is not None else default_chapters(path)
    figures = measure(path, folder, edits=edits, n_runs=n_runs)
    figures.extend(_measure_ui(path, folder, edits))
    frame = pd.DataFrame({"ms": [round(f.ms, 2) for f in figures], "detail": [f.detail for f in figures]},
                         index=pd.Index([f.what for f in figures], name="step"))
    click.echo(render([Table(f"benchlab curate fastbook: time per step ({path.name})", frame)], fmt))


#: ``benchlab bench curate-fastbook`` (added to the ``bench`` group by the CLI builder).


def _measure_ui(path: Path, folder: Path, edits: int) -> list[Figure]:
    """Open the real editor headless on a temporary copy; time start-up and keypress-to-idle for flag toggles."""
    # deferred: the editor app (Textual) is loaded only when the bench runs, not for ``--help``.
    import asyncio

    from benchlab.annotations.fastbook.editor_bench import Figure, spread
    from benchlab.tui.fastbook.curate_app import build_app

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
                spread("keypress to idle screen: unbound key (baseline)", times["z"]),
                spread("keypress to idle screen: toggle a flag (headless)", times["x"]),
                Figure("move to the next question (2 keys, chapter marks)", moved)]

    with tempfile.TemporaryDirectory(prefix="benchlab-bench-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        return asyncio.run(run(copy))


#: ``benchlab bench curate-fastbook``: the wiring adds it to the ``bench`` group.
BENCH_COMMAND: click.Command = bench_curate_fastbook
