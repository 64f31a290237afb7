"""``benchlab booksort ...`` (make, check, info), ``benchlab score sort`` and ``benchlab bench booksort``.

``benchlab run sort`` is generated from the SORT task declaration (``benchlab.annotations.sort.task``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import FORMAT_OPTION, bench, cli, score

STANDARD_CONFIGS = ((250, 20), (250, 50), (1000, 20), (1000, 50))


@cli.group()
def booksort() -> None:
    """BookSORT / SORT data: make trials from any text, check and describe data sets."""


@booksort.command("make")
@click.option("--text", "texts", type=click.Path(path_type=Path), multiple=True, required=True,
              help="Plain-text book (repeat for several books). The nine BookSORT Gutenberg files are recognised "
                   "by name (69087-0.txt ...) and get the published preprocessing.")
@click.option("--title", default=None, help="Book title as written in the data (default: from the Gutenberg "
              "header). Only with a single --text.")
@click.option("--book-id", type=int, default=None, help="Numeric book_idx (default: the Gutenberg id, or a "
              "stable number from the title). Only with a single --text.")
@click.option("--excerpt-length", "-e", "excerpt_lengths", type=int, multiple=True, default=(250,),
              show_default=True, help="Excerpt length L_E in words (repeatable).")
@click.option("--segment-length", "-s", "segment_lengths", type=int, multiple=True, default=(20,),
              show_default=True, help="Segment length L_S in words (repeatable).")
@click.option("--seed", type=int, default=None,
              help="numpy seed for every configuration (default: book id + L_E + L_S, the published rule, "
                   "which reproduces BookSORT exactly for its nine books).")
@click.option("--out", type=click.Path(path_type=Path), default=Path("booksort-trials"), show_default=True,
              help="Output folder.")
@click.option("--layout", "layouts", type=click.Choice(["parquet", "csv", "jsonl"]), multiple=True,
              default=("parquet",), show_default=True, help="Output layout(s) (repeatable).")
@click.option("--generic", is_flag=True, help="Use the generic text cleaner even for the nine BookSORT books.")
def make(texts: tuple[Path, ...], title: str | None, book_id: int | None, excerpt_lengths: tuple[int, ...],
         segment_lengths: tuple[int, ...], seed: int | None, out: Path, layouts: tuple[str, ...],
         generic: bool) -> None:
    """Build SORT trials (110 excerpts x 4 distance bins; 100 test + 10 validation) from plain text."""
    from benchlab.data.sort.books import prepare
    from benchlab.data.sort.generator import generate_many
    from benchlab.data.sort.writers import write_layout

    if len(texts) > 1 and (title or book_id is not None):
        raise BenchlabError("--title and --book-id apply to a single --text")
    configs = [(le, ls) for le in excerpt_lengths for ls in segment_lengths]
    records = []
    started = time.perf_counter()
    for text in texts:
        book = prepare(text, title=title, book_idx=book_id, generic=generic)
        recs, reports, skipped = generate_many(book, configs, seed)
        if not recs:
            raise BenchlabError("text too short for every requested configuration: " + "; ".join(skipped), text)
        for note in skipped:
            click.echo(f"skipped: {note}", err=True)
        for rep in reports:
            click.echo(f"{book.book_idx} {book.title!r} e{rep.excerpt_length}/s{rep.segment_length}: "
                       f"{len(book.words):,} words ({book.method} cleaning), seed {rep.seed}, "
                       f"{rep.bad_excerpts} excerpts without a pair in some bin dropped first, "
                       f"segment KS p={rep.segment_ks_p:.2f}, checks passed")
        records.extend(recs)
    written = [p for layout in layouts for p in write_layout(records, out, layout)]
    click.echo(f"{len(records):,} trials in {time.perf_counter() - started:.1f} s:")
    for path in written:
        click.echo(f"  {path}")


@booksort.command("info")
@click.argument("path", type=click.Path(path_type=Path))
@FORMAT_OPTION
def info(path: Path, fmt: str) -> None:
    """Configurations, books and trials per split in a BookSORT folder or file."""
    import pandas as pd

    from benchlab.data.sort.loaders import load_frame
    from benchlab.data.tables import Table, render

    frame = load_frame(path)
    counts = frame.groupby(["excerpt_length", "segment_length", "book_idx", "book_title", "split"]).size()
    table = counts.unstack("split", fill_value=0)
    share = frame.groupby(["excerpt_length", "segment_length", "book_idx", "book_title"])["present_seg1_first"].mean()
    table["share_A_first"] = share.round(3)
    click.echo(render([Table(f"BookSORT trials in {path}", pd.DataFrame(table))], fmt), nl=False)


@booksort.command("check")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--text", "texts", type=click.Path(path_type=Path), multiple=True,
              help="Book text(s) to also check every excerpt verbatim at its position. A text must be one of the "
                   "data's books (matched by id, else by its excerpts): otherwise the check fails.")
def check(path: Path, texts: tuple[Path, ...]) -> None:
    """Validate a BookSORT data set: segments verbatim at their positions, distances in bins, balance."""
    from benchlab.data.sort.loaders import load_records

    records = load_records(path)
    groups: dict[tuple[int, int, int], list] = {}
    for r in records:
        groups.setdefault((r.book_idx, r.excerpt_length, r.segment_length), []).append(r)
    books, mismatches = _books_for_check(texts, groups)
    failed = _report_groups(groups, books, bool(texts))
    for text, message in mismatches:
        click.echo(f"benchlab: error: {text}: {message}", err=True)
    if mismatches:
        raise BenchlabError(f"{len(mismatches)} --text file(s) are not books of this data set (see above)"
                            + (f"; {failed} of {len(groups)} book/configuration groups failed too" if failed else ""),
                            path)
    if failed:
        raise BenchlabError(f"{failed} of {len(groups)} book/configuration groups failed", path)


def _report_groups(groups: dict[tuple[int, int, int], list], books: dict, texts_given: bool) -> int:
    """One line per book/configuration; returns how many failed."""
    from benchlab.data.sort.generator import check_trials

    failed = 0
    for (book, le, ls), recs in sorted(groups.items()):
        words = books[book].words if book in books else None
        problems = check_trials(recs, words)
        status = "ok" if not problems else f"{len(problems)} problems: " + "; ".join(problems[:3])
        failed += bool(problems)
        where = " (excerpts checked in text)" if words else " (no --text for this book)" if texts_given else ""
        click.echo(f"{book} e{le}/s{ls}: {len(recs)} trials{where}: {status}")
    return failed


def _books_for_check(texts: tuple[Path, ...], groups: dict[tuple[int, int, int], list]) -> tuple[dict, list]:
    """The data's books each --text stands for, and (text, why) for texts that are none of them.

    A text is matched by book id first; a text whose id the data lacks (made with --title or --book-id) is
    matched by content to the data book with the most of its excerpts. Silently skipping a text that matches
    nothing would print "ok" for a check that never happened.
    """
    from benchlab.data.sort.books import PreparedBook, prepare
    from benchlab.data.sort.generator import excerpts_in_text

    by_book: dict[int, list] = {}
    titles: dict[int, str] = {}
    for (book, _, _), recs in groups.items():
        by_book.setdefault(book, []).extend(recs)
        titles[book] = recs[0].book_title
    books: dict[int, PreparedBook] = {}
    pending: list[tuple[Path, PreparedBook]] = []
    for text in texts:
        try:
            prepared = prepare(text)
        except BenchlabError as exc:
            if "no title given" not in exc.message:
                raise
            prepared = prepare(text, title=text.stem)  # no Gutenberg header: match by content below
        if prepared.book_idx in by_book:
            books[prepared.book_idx] = prepared
        else:
            pending.append((text, prepared))
    mismatches: list[tuple[Path, str]] = []
    for text, prepared in pending:
        candidates = [b for b in sorted(by_book) if b not in books]
        counts = {b: excerpts_in_text(by_book[b], prepared.words) for b in candidates}
        best = max(counts, key=lambda b: counts[b][0], default=None)
        if best is not None and counts[best][0] > 0:
            books[best] = prepared
            continue
        data_books = ", ".join(f"{b} ({titles[b]!r})" for b in sorted(by_book))
        if best is None:
            why = f"book {prepared.book_idx} ({prepared.title!r}) is not in this data set (its books: {data_books})"
        else:
            missing = ", ".join(f"{counts[b][1]} of {counts[b][1]} excerpts of book {b}" for b in candidates)
            why = (f"{missing} not found in this text (book {prepared.book_idx}, {prepared.title!r}): the data was "
                   f"made from another book (its books: {data_books})")
        mismatches.append((text, why))
    return books, mismatches


@score.command("sort")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--include-practice", is_flag=True, help="Also score practice trials (normally left out).")
@FORMAT_OPTION
def score_sort(paths: tuple[Path, ...], include_practice: bool, fmt: str) -> None:
    """Score SORT results files ({L_E}-s{L_S}-{model}_results.csv) of people and models alike."""
    from benchlab.data.sort.scoring import score_paths
    from benchlab.data.tables import render

    click.echo(render(score_paths(paths, include_practice), fmt), nl=False)


@bench.command("booksort")
@click.option("--texts", "folder", type=click.Path(path_type=Path), default=None,
              help="Folder with the nine Gutenberg files (default: ../shared/datasets/booksort/pg_full_text).")
@click.option("--published-seconds", type=float, default=52.0, show_default=True,
              help="The published script's time for the same job, for the ratio.")
def bench_booksort(folder: Path | None, published_seconds: float) -> None:
    """Generation speed: the four small configurations for the nine books, vs the published script."""
    from benchlab.data.settings import get_settings
    from benchlab.data.sort.books import prepare
    from benchlab.data.sort.generator import generate_many

    folder = folder or get_settings().booksort_texts_dir
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if not files:
        raise BenchlabError("no book texts here (pass --texts FOLDER)", folder)
    started = time.perf_counter()
    cpu_started = time.process_time()
    n = 0
    for f in files:
        t0 = time.perf_counter()
        book = prepare(f)
        recs, _, _ = generate_many(book, STANDARD_CONFIGS)
        n += len(recs)
        click.echo(f"  {book.book_idx} {book.title[:40]:<40} {len(recs):>5} trials  {time.perf_counter() - t0:6.2f} s")
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    load = os.getloadavg()[0]
    click.echo(f"generate 4 configurations x {len(files)} books: {n:,} trials in {total:.1f} s wall, {cpu:.1f} s CPU "
               f"(load average {load:.1f} on {os.cpu_count()} CPUs)")
    click.echo(f"published script: ~{published_seconds:.0f} s for the same job -> {published_seconds / total:.1f}x "
               "faster (pass --published-seconds with its time measured on this machine for a fair ratio)")


@bench.command("sort-screen")
@click.option("--trials", type=int, default=10, show_default=True, help="Trials to time.")
@click.option("--words", type=int, default=20_000, show_default=True, help="Excerpt length in words.")
@click.option("--json", "as_json", is_flag=True, help="Print the raw figures as JSON.")
def bench_sort_screen(trials: int, words: int, as_json: bool) -> None:
    """Load -> first paint of a long excerpt and continue -> question times, on a real pseudo-terminal."""
    import json

    from benchlab.tui.sort.screen_bench import run_sort_screen_bench, summarise

    if trials < 1 or words < 100:
        raise BenchlabError("--trials must be at least 1 and --words at least 100")
    figures = run_sort_screen_bench(trials=trials, words=words)
    click.echo(json.dumps(figures, indent=2) if as_json else summarise(figures))
