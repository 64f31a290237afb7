"""``benchlab booksort ...`` (make, check, info), ``benchlab score sort`` and ``benchlab bench booksort``."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import FORMAT_OPTION, bench, cli, run, score

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


SIMULATED = {"random": "random", "oracle": "oracle", "always-a": "biased"}


@run.command("sort")
@click.option("--participant", required=True, help="Participant id (letters, digits, '.', '-'); names the results.")
@click.option("--data", "dataset", type=click.Path(path_type=Path), default=None,
              help="BookSORT folder or file (parquet, three CSVs or JSONL). Default: the bundled sample.")
@click.option("--excerpt-length", "-e", type=int, default=250, show_default=True, help="Excerpt length L_E.")
@click.option("--segment-length", "-s", type=int, default=20, show_default=True, help="Segment length L_S.")
@click.option("--book", default=None, help="Book: Gutenberg id or part of the title (default: all in the data).")
@click.option("--condition", type=click.Choice(["stm", "ltm"]), default="stm", show_default=True,
              help="stm: read the excerpt, then answer; ltm: book title and segments only.")
@click.option("--trials", type=int, default=20, show_default=True,
              help="Scored trials, spread evenly over the 4 distance bins (and A/B inside each bin).")
@click.option("--practice", type=int, default=2, show_default=True, help="Practice trials (validation split).")
@click.option("--block-size", type=int, default=10, show_default=True, help="Trials per block; a break between blocks.")
@click.option("--delay", type=float, default=0.0, show_default=True,
              help="Seconds between the end of reading and the question (a blank wait screen).")
@click.option("--min-reading", type=float, default=0.0, show_default=True,
              help="Seconds before the participant may continue from the excerpt.")
@click.option("--max-reading", type=float, default=None, help="Seconds after which the question appears anyway.")
@click.option("--seed", type=int, default=None, help="Plan seed (default: random; it is saved with the plan).")
@click.option("--session", default="1", show_default=True, help="Session id of this participant.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: ./benchlab-results/sort/<data folder name>).")
@click.option("--resume", is_flag=True, help="Continue an interrupted session at its next unanswered trial.")
@click.option("--simulate", type=click.Choice(list(SIMULATED)), default=None,
              help="Run a simulated participant through the same engine and files (oracle: 100%; always-a: the "
                   "share of A ground truths; random: about 50%).")
@click.option("--sim-delay", type=float, default=0.0, help="Seconds a simulated participant waits per trial.")
@click.option("--consent", "consent_file", type=click.Path(path_type=Path), default=None,
              help="Consent text (markdown) shown first; declining ends with nothing recorded.")
@click.option("--instructions", "instructions_file", type=click.Path(path_type=Path), default=None,
              help="Instructions (markdown, pages separated by a line '---'). Default: built-in instructions.")
@click.option("--no-instructions", is_flag=True, help="Skip the instruction pages.")
def run_sort(
    participant: str, dataset: Path | None, excerpt_length: int, segment_length: int, book: str | None,
    condition: str, trials: int, practice: int, block_size: int, delay: float, min_reading: float,
    max_reading: float | None, seed: int | None, session: str, out: Path | None, resume: bool, simulate: str | None,
    sim_delay: float, consent_file: Path | None, instructions_file: Path | None, no_instructions: bool,
) -> None:
    """Run a SORT session for one participant (kiosk mode; experimenter menu: Ctrl+X then Ctrl+E).

    Responses go to OUT/results/{L_E}-s{L_S}-human_<participant>_results.csv in the SORT results layout;
    score them with ``benchlab score sort OUT/results``.
    """
    from benchlab.tui.commands.run import given_options, run_session, warn_ignored_on_resume
    from benchlab.tui.sort.task_ui import SortUI
    from benchlab.tui.task_registry import SessionRequest

    task_ui = SortUI()
    extra = {"excerpt_length": str(excerpt_length), "segment_length": str(segment_length), "condition": condition,
             "book": book or "", "delay": str(delay), "min_reading": str(min_reading),
             "max_reading": "" if max_reading is None else str(max_reading)}
    request = SessionRequest(
        dataset=str(dataset) if dataset is not None else str(task_ui.default_dataset()), participant=participant,
        session=session, out=str(out) if out else "", seed=seed, practice=practice, block_size=block_size,
        items_per_cell=trials, resume=resume, consent_file=str(consent_file) if consent_file else None,
        instructions_file=str(instructions_file) if instructions_file else None, no_instructions=no_instructions,
        simulated=simulate, extra=extra,
    )
    if sim_delay < 0:
        raise BenchlabError("--sim-delay cannot be negative")
    given = given_options({"dataset": "--data", "seed": "--seed", "trials": "--trials", "practice": "--practice",
                           "block_size": "--block-size", "delay": "--delay", "min_reading": "--min-reading",
                           "max_reading": "--max-reading"})
    if simulate is None:
        run_session(task_ui, request, given=given, planned=_sort_plan_values)
        return
    from benchlab.annotations.simulate import SimulatedParticipant, simulate_session

    runner = task_ui.prepare(request)
    warn_ignored_on_resume(runner, given, _sort_plan_values)
    try:
        participant_sim = SimulatedParticipant(SIMULATED[simulate], seed=runner.plan.seed)
        try:
            simulate_session(runner, participant_sim, delay_s=sim_delay)
        except KeyboardInterrupt:
            runner.abort()
            click.echo(runner.summary())
            raise
        click.echo(runner.summary())
    finally:
        runner.close()


def _sort_plan_values(plan: Any) -> dict[str, Any]:
    c = plan.config
    return {"--data": Path(plan.dataset), "--seed": plan.seed, "--trials": len(plan.main_items),
            "--practice": len(plan.practice), "--block-size": c.get("block_size"), "--delay": c.get("delay_s"),
            "--min-reading": c.get("min_reading_s"), "--max-reading": c.get("max_reading_s")}


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
