"""``benchlab booksort ...`` (make, check, info), ``benchlab score sort`` and ``benchlab bench booksort``."""

from __future__ import annotations

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
    from benchlab.data.booksort.books import prepare
    from benchlab.data.booksort.generator import generate_many
    from benchlab.data.booksort.writers import write_layout

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

    from benchlab.data.booksort.loaders import load_frame
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
              help="Book text(s) to also check every excerpt verbatim at its position.")
def check(path: Path, texts: tuple[Path, ...]) -> None:
    """Validate a BookSORT data set: segments verbatim at their positions, distances in bins, balance."""
    from benchlab.data.booksort.books import prepare
    from benchlab.data.booksort.generator import check_trials
    from benchlab.data.booksort.loaders import load_records

    books = {b.book_idx: b for b in (prepare(t) for t in texts)}
    records = load_records(path)
    groups: dict[tuple[int, int, int], list] = {}
    for r in records:
        groups.setdefault((r.book_idx, r.excerpt_length, r.segment_length), []).append(r)
    failed = 0
    for (book, le, ls), recs in sorted(groups.items()):
        words = books[book].words if book in books else None
        problems = check_trials(recs, words)
        status = "ok" if not problems else f"{len(problems)} problems: " + "; ".join(problems[:3])
        failed += bool(problems)
        click.echo(f"{book} e{le}/s{ls}: {len(recs)} trials{' (excerpts checked in text)' if words else ''}: "
                   f"{status}")
    if failed:
        raise BenchlabError(f"{failed} of {len(groups)} book/configuration groups failed", path)


@score.command("sort")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--include-practice", is_flag=True, help="Also score practice trials (normally left out).")
@FORMAT_OPTION
def score_sort(paths: tuple[Path, ...], include_practice: bool, fmt: str) -> None:
    """Score SORT results files ({L_E}-s{L_S}-{model}_results.csv) of people and models alike."""
    from benchlab.data.booksort.scoring import score_paths
    from benchlab.data.tables import render

    click.echo(render(score_paths(paths, include_practice), fmt), nl=False)


@bench.command("booksort")
@click.option("--texts", "folder", type=click.Path(path_type=Path), default=None,
              help="Folder with the nine Gutenberg files (default: ../shared/datasets/booksort/pg_full_text).")
@click.option("--published-seconds", type=float, default=52.0, show_default=True,
              help="The published script's time for the same job, for the ratio.")
def bench_booksort(folder: Path | None, published_seconds: float) -> None:
    """Generation speed: the four small configurations for the nine books, vs the published script."""
    from benchlab.data.booksort.books import prepare
    from benchlab.data.booksort.generator import generate_many

    folder = folder or Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "booksort" / "pg_full_text"
    files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    if not files:
        raise BenchlabError("no book texts here (pass --texts FOLDER)", folder)
    started = time.perf_counter()
    n = 0
    for f in files:
        t0 = time.perf_counter()
        book = prepare(f)
        recs, _, _ = generate_many(book, STANDARD_CONFIGS)
        n += len(recs)
        click.echo(f"  {book.book_idx} {book.title[:40]:<40} {len(recs):>5} trials  {time.perf_counter() - t0:6.2f} s")
    total = time.perf_counter() - started
    click.echo(f"generate 4 configurations x {len(files)} books: {n:,} trials in {total:.1f} s "
               f"(published script: ~{published_seconds:.0f} s; ratio {published_seconds / total:.1f}x faster)")
