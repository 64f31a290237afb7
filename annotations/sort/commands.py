"""SORT / BookSORT commands, declared once: ``score sort``, ``compare sort``, ``booksort make|info|check``,
``bench booksort`` (and the options of ``bench sort-screen``, whose terminal harness lives in ``benchlab.tui``).

Each is an options model plus a function (:class:`~benchlab.annotations.task.Command`); ``benchlab.tui`` turns
them into command-line commands.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_options import ComparisonOptions, FormatOptions, SameItemsOptions
from benchlab.annotations.command_output import err, say, warn
from benchlab.annotations.command_status import count_files, files, working
from benchlab.annotations.options import Options, option
from benchlab.annotations.sort.cards import CARDS
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.collector import collector_paused
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import Table, render

if TYPE_CHECKING:
    from benchlab.data.sort.books import PreparedBook
    from benchlab.data.sort.records import BookSortRecord

#: The results files the SORT readers take from a folder (searched recursively).
RESULTS_GLOB = "*_results.csv"
BOOKSORT = ToolGroup("booksort", help_of(CARDS, "booksort"))


# -- score sort ----------------------------------------------------------------------------------------------------
class _ScoreInputs(Options):
    paths: tuple[Path, ...] = option(label="Results files or folders", argument=True,
                                     help="SORT results CSVs or folders holding them.")
    include_practice: bool = option(False, label="Score practice trials",
                                    help="Also score practice trials (normally left out).")


class ScoreOptions(SameItemsOptions, FormatOptions, _ScoreInputs):
    """``benchlab score sort PATHS``: the inputs, ``--format`` and ``--all-items``."""


def score(opts: ScoreOptions) -> str:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.sort.scoring import score_paths

    with working(f"reading {files(count_files(opts.paths, RESULTS_GLOB))}, scoring..."):
        tables = score_paths(opts.paths, opts.include_practice, on_warning=warn, same_items=not opts.all_items)
    return render(tables, opts.fmt)


# -- compare sort --------------------------------------------------------------------------------------------------
class _CompareInputs(Options):
    paths: tuple[Path, ...] = option(label="Results files or folders", argument=True,
                                     help="SORT results CSVs or folders holding them.")
    no_bins: bool = option(False, label="Only per configuration", help="Only per configuration, not per distance bin.")
    no_participant_tests: bool = option(False, label="Only the pooled humans",
                                        help="Only test the pooled humans against each model.")


class CompareOptions(ComparisonOptions, _CompareInputs):
    """``benchlab compare sort PATHS``: the inputs, then the options every comparison has."""


def compare(opts: CompareOptions) -> None:
    # deferred: the figure check and the replay store load only when the command runs (`--help` stays quick)
    from benchlab.annotations.comparison_output import check_plot
    from benchlab.annotations.comparison_replay import may_replay, replayable

    check_plot(opts.plot_path, opts.plot_formats)
    # a bounded computation: the cyclic collector paused (data/collector.py)
    with collector_paused(), replayable(opts.paths, offer=may_replay(opts.paths, opts.plot_path, opts.exclude)):
        _compare(opts)


def _compare(opts: CompareOptions) -> None:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.annotations.comparison_output import emit_comparison
    from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
    from benchlab.data.analysis.stats.interval_memo import remembered_intervals
    from benchlab.data.sort.compare import compare_sort

    log = exclusions_for(list(opts.paths), opts.exclude)
    status = f"reading {files(count_files(opts.paths, RESULTS_GLOB))}, bootstrapping ({opts.n_boot} resamples)..."
    with remembered_intervals(), working(status):
        comp = compare_sort(list(opts.paths), criterion=opts.criterion(), exclude_flagged=opts.exclude_flagged,
                            n_boot=opts.n_boot, seed=opts.seed, by_bin=not opts.no_bins,
                            participant_tests=not opts.no_participant_tests,
                            include_simulated=opts.include_simulated, excluded=log.excluded if log else None,
                            same_items=not opts.all_items, tables=opts.tables_needed())
    comp.notes.extend(exclusion_notes(log))
    emit_comparison(comp, opts)


# -- booksort make -------------------------------------------------------------------------------------------------
class MakeOptions(Options):
    texts: tuple[Path, ...] = option(label="Book texts", flag="--text", widget="path",
                                     help="Plain-text book (repeat for several books). The nine BookSORT Gutenberg "
                                     "files are recognised by name (69087-0.txt ...) and get the published "
                                     "preprocessing.")
    title: str | None = option(None, label="Title", help="Book title as written in the data (default: from the "
                               "Gutenberg header). Only with a single --text.")
    book_id: int | None = option(None, label="Book id", help="Numeric book_idx (default: the Gutenberg id, or a "
                                 "stable number from the title). Only with a single --text.")
    excerpt_lengths: tuple[int, ...] = option((250,), label="Excerpt lengths", short="-e", flag="--excerpt-length",
                                              help="Excerpt length L_E in words (repeatable).")
    segment_lengths: tuple[int, ...] = option((20,), label="Segment lengths", short="-s", flag="--segment-length",
                                              help="Segment length L_S in words (repeatable).")
    seed: int | None = option(None, label="Seed", help="numpy seed for every configuration (default: book id + L_E + "
                              "L_S, the published rule, which reproduces BookSORT exactly for its nine books).")
    out: Path = option(Path("booksort-trials"), label="Output folder", widget="folder", help="Output folder.")
    layouts: tuple[Literal["parquet", "csv", "jsonl"], ...] = option(("parquet",), label="Layouts", flag="--layout",
                                                                     help="Output layout(s) (repeatable).")
    generic: bool = option(False, label="Generic cleaner",
                           help="Use the generic text cleaner even for the nine BookSORT books.")
    design: Literal["excerpt", "whole-book"] = option(
        "excerpt", label="Design", problem="must be excerpt or whole-book, not {input!r}",
        help="excerpt: the published BookSORT trials (both segments in one excerpt); whole-book: the paper's human "
        "design, pairs of segments from across the whole book in gap bins 0-400 ... 25k-40k words, 110 per bin "
        "(--excerpt-length is not used).")


def make(opts: MakeOptions) -> None:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.sort.books import prepare
    from benchlab.data.sort.generator import generate_many
    from benchlab.data.sort.stream_writer import StreamingLayouts

    if len(opts.texts) > 1 and (opts.title or opts.book_id is not None):
        raise BenchlabError("--title and --book-id apply to a single --text")
    configs = [(le, ls) for le in opts.excerpt_lengths for ls in opts.segment_lengths]
    started = time.perf_counter()
    # Each book's trials are spooled to disk as soon as they are made (memory stays at one book's).
    with StreamingLayouts(opts.out, opts.layouts) as spool:
        for text in opts.texts:
            book = prepare(text, title=opts.title, book_idx=opts.book_id, generic=opts.generic)
            if opts.design == "whole-book":
                spool.add(_make_whole_book(book, opts))
                continue
            recs, reports, skipped = generate_many(book, configs, opts.seed)
            if not recs:
                raise BenchlabError("text too short for every requested configuration: " + "; ".join(skipped), text)
            for skipped_note in skipped:
                err(f"skipped: {skipped_note}")
            for rep in reports:
                say(f"{book.book_idx} {book.title!r} e{rep.excerpt_length}/s{rep.segment_length}: "
                    f"{len(book.words):,} words ({book.method} cleaning), seed {rep.seed}, "
                    f"{rep.bad_excerpts} excerpts without a pair in some bin dropped first, "
                    f"segment KS p={rep.segment_ks_p:.2f}, checks passed")
            spool.add(recs)
            del recs, book
        written = spool.finish()
        count = spool.count
    say(f"{count:,} trials in {time.perf_counter() - started:.1f} s:")
    for path in written:
        say(f"  {path}")


def _make_whole_book(book: PreparedBook, opts: MakeOptions) -> list[BookSortRecord]:
    """The whole-book design of one book for every segment length, with one report line each."""
    # deferred: scipy and numpy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.sort.whole_book import gap_bin_label, generate_whole_book

    out: list[BookSortRecord] = []
    for ls in opts.segment_lengths:
        recs, rep = generate_whole_book(book, ls, opts.seed)
        left_out = (f"; left out (text too short): {', '.join(gap_bin_label(b) for b in rep.left_out)}"
                    if rep.left_out else "")
        say(f"{book.book_idx} {book.title!r} whole-book/s{ls}: {len(book.words):,} words ({book.method} cleaning), "
            f"seed {rep.seed}, {len(rep.bins)} gap bins x {len(recs) // len(rep.bins)} pairs "
            f"({', '.join(gap_bin_label(b) for b in rep.bins)}){left_out}, anchor KS p={rep.anchor_ks_p:.2f}, "
            "checks passed")
        out.extend(recs)
    return out


# -- booksort info / check -----------------------------------------------------------------------------------------
class _DataSet(Options):
    path: Path = option(label="BookSORT folder or file", argument=True, help="BookSORT folder or file.")


class InfoOptions(FormatOptions, _DataSet):
    """``benchlab booksort info PATH``."""


def info(opts: InfoOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    import pandas as pd

    from benchlab.data.sort.loaders import load_frame

    frame = load_frame(opts.path)
    counts = frame.groupby(["excerpt_length", "segment_length", "book_idx", "book_title", "split"]).size()
    table = counts.unstack("split", fill_value=0)
    share = frame.groupby(["excerpt_length", "segment_length", "book_idx", "book_title"])["present_seg1_first"].mean()
    table["share_A_first"] = share.round(3)
    return render([Table(f"BookSORT trials in {opts.path}", pd.DataFrame(table))], opts.fmt)


class CheckOptions(_DataSet):
    texts: tuple[Path, ...] = option((), label="Book texts", flag="--text", widget="path",
                                     help="Book text(s) to also check every excerpt verbatim at its position. A text "
                                     "must be one of the data's books (matched by id, else by its excerpts): "
                                     "otherwise the check fails.")


def check(opts: CheckOptions) -> None:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.sort.check import books_for_check, group_records, report_groups
    from benchlab.data.sort.loaders import load_records

    groups = group_records(load_records(opts.path))
    books, mismatches = books_for_check(opts.texts, groups)
    failed = report_groups(groups, books, bool(opts.texts), say)
    for text, message in mismatches:
        err(f"benchlab: error: {text}: {message}")
    if mismatches:
        raise BenchlabError(f"{len(mismatches)} --text file(s) are not books of this data set (see above)"
                            + (f"; {failed} of {len(groups)} book/configuration groups failed too" if failed else ""),
                            opts.path)
    if failed:
        raise BenchlabError(f"{failed} of {len(groups)} book/configuration groups failed", opts.path)


# -- bench booksort / sort-screen ----------------------------------------------------------------------------------
class BenchOptions(Options):
    folder: Path | None = option(None, label="Book texts folder", flag="--texts", widget="folder",
                                 help="Folder with the nine Gutenberg files (default: "
                                 "../shared/datasets/booksort/pg_full_text).")
    published: Path | None = option(None, label="Published SORT repository", widget="folder", metavar="DIRECTORY",
                                    help="Checkout of the published SORT repository: its preprocess and generation "
                                    "scripts run here too, side by side (default: print the stored reference).")
    published_python: str | None = option(None, label="Python of the published scripts",
                                          help="Python that runs the published scripts (needs numpy, scipy, pandas; "
                                          "default: this one).")
    published_seconds: float | None = option(None, label="Published script's seconds",
                                             help="Without --published: the published scripts' time measured on "
                                             "this machine, used instead of the stored reference.")


def bench(opts: BenchOptions) -> None:
    # deferred: the measuring helpers load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.sort.bench import bench_booksort

    bench_booksort(opts.folder, say, published=opts.published, published_python=opts.published_python,
                   published_seconds=opts.published_seconds)


class ScreenBenchOptions(Options):
    """``benchlab bench sort-screen`` (the run function is the terminal harness in ``benchlab.tui.sort``)."""

    trials: int = option(10, label="Trials", ge=1, help="Trials to time.")
    words: int = option(20_000, label="Excerpt words", ge=100, help="Excerpt length in words.")
    as_json: bool = option(False, label="JSON", flag="--json", help="Print the raw figures as JSON.")


SCORE = Command("score", help_of(CARDS, "score sort"), ScoreOptions, score, name="sort")
COMPARE = Command("compare", help_of(CARDS, "compare sort"), CompareOptions, compare, name="sort")
MAKE = Command("tool", help_of(CARDS, "booksort make"), MakeOptions, make, name="make", tool=BOOKSORT)
INFO = Command("tool", help_of(CARDS, "booksort info"), InfoOptions, info, name="info", tool=BOOKSORT)
CHECK = Command("tool", help_of(CARDS, "booksort check"), CheckOptions, check, name="check", tool=BOOKSORT)
BENCH = Command("bench", help_of(CARDS, "bench booksort"), BenchOptions, bench, name="booksort")

#: Every SORT command (``TASK.commands``); ``bench sort-screen`` is added by ``benchlab.tui`` (a terminal harness).
COMMANDS: tuple[Command, ...] = (SCORE, COMPARE, MAKE, INFO, CHECK, BENCH)
