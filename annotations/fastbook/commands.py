"""fastbook-benchmark's commands, declared once: ``score fastbook``, ``compare fastbook`` (curator agreement),
``fastbook audit|baseline|oracle|chunks|import-run|chapters|assign`` and ``bench fastbook``.

Everything is checked before anything is written: a malformed benchmark, a missing chapter or a run naming an
unknown question ends with one ``benchlab: error: <file>:<line>: ...`` line. fastbook has no participant sessions;
its commands have the same shape as the other benchmarks' (:class:`~benchlab.annotations.task.Command`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_options import FormatOptions
from benchlab.annotations.command_output import note, say, warn
from benchlab.annotations.fastbook.cards import CARDS
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import render

if TYPE_CHECKING:
    from benchlab.data.fastbook.benchmark import Benchmark
    from benchlab.data.fastbook.chapters import Chapter

FASTBOOK = ToolGroup("fastbook", help_of(CARDS, "fastbook"))


class BenchmarkOptions(Options):
    """``--benchmark``: which fastbook-benchmark.json."""

    benchmark_path: Path | None = option(None, label="Benchmark file", flag="--benchmark", widget="path",
                                         metavar="FILE",
                                         help="fastbook-benchmark.json (default: the full dataset if found, else the "
                                         "bundled synthetic sample).")


class ChaptersOptions(Options):
    """``--chapters``: where the chapter texts are."""

    chapters_dir: Path | None = option(None, label="Chapters folder", flag="--chapters", widget="folder",
                                       metavar="DIRECTORY",
                                       help="Folder with chapter_N.txt or the notebooks (default: beside the "
                                       "benchmark file).")


class KOptions(Options):
    """``--k``: the ranking cut-off."""

    k: int = option(10, label="k", ge=1, help="Only the first k passages count (MRR@k, Recall@k).")


class _RunFile(Options):
    out_path: Path = option(label="Run file", flag="--out", widget="path", metavar="FILE",
                            help="Run file to write (JSONL, one line per question).")


def load(path: Path | None) -> tuple[Path, Benchmark]:
    """The benchmark given (or the default one, said on stderr when it is the synthetic sample), with questions."""
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.benchmark import load_benchmark, require_questions

    resolved = path if path is not None else locate.default_benchmark_path()
    if path is None and locate.is_sample(resolved):
        note(f"using the bundled synthetic sample {resolved} (give --benchmark for the real file)")
    return resolved, require_questions(load_benchmark(resolved), resolved)


def chapters_of(bench_path: Path, benchmark: Benchmark, folder: Path | None) -> dict[int, Chapter]:
    """The benchmark's chapters, chunked now so that a missing chunker fails before any output."""
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.chapters import load_chapters

    chapters = load_chapters(folder if folder is not None else locate.chapters_dir_for(bench_path),
                             benchmark.chapters)
    for chapter in chapters.values():
        chapter.chunks  # noqa: B018
    return chapters


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


# -- score fastbook ------------------------------------------------------------------------------------------------
class _Runs(Options):
    runs: tuple[Path, ...] = option(label="Run files", argument=True, help="Run files (JSONL).")


class ScoreOptions(FormatOptions, KOptions, ChaptersOptions, BenchmarkOptions, _Runs):
    """``benchlab score fastbook RUNS``: runs, ``--benchmark``, ``--k``, ``--format``, then the extra tables."""

    per_question: bool = option(False, label="Per question",
                                help="Also print every question's MRR and Recall for each run.")
    ci: bool = option(False, label="Bootstrap CIs", help="Also bootstrap 95% CIs over questions, and paired "
                      "sign-flip permutation tests of each run against the first.")
    seed: int | None = option(None, label="Bootstrap seed",
                              help="Seed of the bootstrap (default: benchlab's fixed seed).")


def score(opts: ScoreOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.runs import read_run
    from benchlab.data.fastbook.scoring import Scorer, question_table, score_tables, uncertainty_tables

    path, benchmark = load(opts.benchmark_path)
    # --chapters: score against the chapter texts given (as baseline/oracle do), else the published chunks
    chapters = chapters_of(path, benchmark, opts.chapters_dir) if opts.chapters_dir is not None else None
    loaded = [read_run(p, benchmark) for p in opts.runs]
    for run, name in zip(loaded, _unique_names([r.name for r in loaded]), strict=True):
        run.name = name
        missing = run.missing(benchmark)
        if missing:
            shown = ", ".join(f"{q.chapter}.{q.question_number}" for q in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            warn(f"{run.path}: no passages for {len(missing)} question(s) ({shown}{more}); they score 0")
    scorer = Scorer(benchmark, chapters, k=opts.k)
    scores = [scorer.score(run) for run in loaded]
    tables = score_tables(scores)
    if opts.ci:
        tables.extend(uncertainty_tables(scores, seed=opts.seed))
    if opts.per_question:
        tables.append(question_table(scores))
    return render(tables, opts.fmt)


# -- compare fastbook ----------------------------------------------------------------------------------------------
class _CuratorFiles(Options):
    file_a: Path = option(label="First curator's file", argument=True, help="An edited fastbook-benchmark.json.")
    file_b: Path = option(label="Second curator's file", argument=True, help="Another edited copy.")
    chapters_dir: Path | None = option(None, label="Chapters folder", flag="--chapters", widget="folder",
                                       help="Folder with chapter_N.txt or the notebooks (default: beside FILE_A if "
                                       "they are there), for the character span overlap.")


class CompareOptions(FormatOptions, _CuratorFiles):
    """``benchlab compare fastbook FILE_A FILE_B``."""


def compare(opts: CompareOptions) -> str:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.agreement import compare_files

    for path in (opts.file_a, opts.file_b):
        if not path.exists():
            raise BenchlabError("no such file", path)
    return render(compare_files(opts.file_a, opts.file_b, opts.chapters_dir).tables(), opts.fmt)


# -- fastbook audit / baseline / oracle ----------------------------------------------------------------------------
class AuditOptions(FormatOptions, ChaptersOptions, BenchmarkOptions):
    """``benchlab fastbook audit``."""

    summary: bool = option(False, label="Summary only",
                           help="Only the per-chapter summary, reasons and ceilings (no list).")


def audit(opts: AuditOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.audit import audit_benchmark

    path, benchmark = load(opts.benchmark_path)
    report = audit_benchmark(benchmark, chapters_of(path, benchmark, opts.chapters_dir))
    tables = [report.summary_table(), report.reasons_table(), report.ceilings_table()]
    if not opts.summary:
        tables.append(report.problems_table())
    return render(tables, opts.fmt)


class _Query(Options):
    query: Literal["keywords", "question"] = option("keywords", label="Query",
                                                    help="keywords: OR of the published fts_keywords.csv words (the "
                                                    "repo's bm25_500 run); question: OR of the question's own words.")
    keywords_path: Path | None = option(None, label="Keywords file", flag="--keywords", widget="path",
                                        metavar="FILE",
                                        help="fts_keywords.csv (default: beside the benchmark file).")


class BaselineOptions(_RunFile, KOptions, _Query, ChaptersOptions, BenchmarkOptions):
    """``benchlab fastbook baseline``."""


def baseline(opts: BaselineOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.baseline import fts_run, read_keywords
    from benchlab.data.fastbook.runs import write_run
    from benchlab.data.fastbook.scoring import Scorer

    path, benchmark = load(opts.benchmark_path)
    chapters = chapters_of(path, benchmark, opts.chapters_dir)
    keywords = None
    keywords_path = opts.keywords_path
    if opts.query == "keywords":
        keywords_path = keywords_path or locate.keywords_path_for(path)
        if keywords_path is None:
            raise BenchlabError(f"no {locate.KEYWORDS_NAME} beside the benchmark; give --keywords FILE or use "
                                "--query question", path)
        keywords = read_keywords(keywords_path, benchmark)
    run = fts_run(benchmark, chapters, query=opts.query, keywords=keywords, k=opts.k, keywords_path=keywords_path)
    write_run(opts.out_path, run, benchmark.ids())
    result = Scorer(benchmark, chapters, k=opts.k).score(run)
    note(f"wrote {len(run.results)} questions to {opts.out_path}")
    return (f"{run.name}: Modified MRR@{opts.k} {result.mrr:.5f}  Modified Recall@{opts.k} {result.recall:.5f}  "
            f"({len(result.questions)} questions; score with: benchlab score fastbook {opts.out_path})")


class OracleOptions(_RunFile, ChaptersOptions, BenchmarkOptions):
    """``benchlab fastbook oracle``."""


def oracle(opts: OracleOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.audit import audit_benchmark, oracle_run
    from benchlab.data.fastbook.runs import write_run
    from benchlab.data.fastbook.scoring import Scorer

    path, benchmark = load(opts.benchmark_path)
    chapters = chapters_of(path, benchmark, opts.chapters_dir)
    report = audit_benchmark(benchmark, chapters)
    run = oracle_run(report, chapters)
    write_run(opts.out_path, run, benchmark.ids())
    result = Scorer(benchmark, chapters).score(run)
    note(f"wrote {len(run.results)} questions to {opts.out_path}")
    return (f"oracle: Modified MRR@10 {result.mrr:.5f}  Modified Recall@10 {result.recall:.5f}  "
            f"({len(report.never_scoring_questions)} questions can never score MRR > 0)")


# -- fastbook chunks / import-run / chapters -----------------------------------------------------------------------
class _ChunksChoice(Options):
    only: tuple[int, ...] = option((), label="Chapters", flag="--chapter", help="Only this chapter (repeatable).")


class ChunksOptions(FormatOptions, _ChunksChoice, ChaptersOptions, BenchmarkOptions):
    """``benchlab fastbook chunks``."""


def chunks(opts: ChunksOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.chunk_table import chunk_table

    path, benchmark = load(opts.benchmark_path)
    return render([chunk_table(path, chapters_of(path, benchmark, opts.chapters_dir), opts.only)], opts.fmt)


class _Source(Options):
    source: Path = option(label="Results source", argument=True, help="Results table, workbook or JSON list.")


class ImportOptions(BenchmarkOptions, _Source):
    """``benchlab fastbook import-run SOURCE``."""

    columns: tuple[str, ...] = option((), label="Method columns", flag="--column",
                                      help="Method column(s) of a results CSV/workbook (default: all, e.g. bm25_500, "
                                      "colbertv2_500).")
    out_dir: Path = option(label="Output folder", widget="folder", metavar="DIRECTORY",
                           help="Folder to write <method>.jsonl run files into.")
    no_repair: bool = option(False, label="Keep the mojibake", help="Do not undo the workbook's Mac-Roman mojibake.")


def import_run(opts: ImportOptions) -> None:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.imports import read_positional_json, read_results_table, result_columns
    from benchlab.data.fastbook.runs import write_run

    _, benchmark = load(opts.benchmark_path)
    if opts.source.suffix.lower() == ".json":
        runs = [read_positional_json(opts.source, benchmark)]
    else:
        names = list(opts.columns) or result_columns(opts.source)
        if not names:
            raise BenchlabError("no method columns found (give --column)", opts.source)
        runs = [read_results_table(opts.source, benchmark, name, repair=not opts.no_repair) for name in names]
    for run in runs:
        target = opts.out_dir / f"{run.name}.jsonl"
        write_run(target, run, [q.id for q in benchmark if q.id in run.results])
        say(f"{run.name}: {len(run.results)} questions -> {target}")


class NotebooksOptions(Options):
    notebooks: Path = option(label="Notebooks folder", argument=True, help="The fastbook notebooks' folder.")
    out_dir: Path = option(label="Output folder", flag="--out", widget="folder", metavar="DIRECTORY",
                           help="Folder to write chapter_N.txt into.")


def chapters(opts: NotebooksOptions) -> None:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.data.fastbook.chapters import NOTEBOOK_NAMES, Chapter, notebook_to_text

    if not opts.notebooks.is_dir():
        raise BenchlabError("no such folder", opts.notebooks)
    made = 0
    for number, name in NOTEBOOK_NAMES.items():
        nb = opts.notebooks / name
        if not nb.is_file():
            continue
        text = notebook_to_text(nb)
        target = opts.out_dir / f"chapter_{number}.txt"
        atomic_write_text(target, text)
        found = Chapter(number, text, target).chunks
        say(f"chapter {number}: {len(text):,} chars, {len(found)} chunks -> {target}")
        made += 1
    if not made:
        raise BenchlabError(f"no fastbook notebooks here (expected e.g. {NOTEBOOK_NAMES[1]})", opts.notebooks)


# -- fastbook assign ----------------------------------------------------------------------------------------------
class AssignOptions(BenchmarkOptions):
    """``benchlab fastbook assign``."""

    curators: tuple[str, ...] = option(label="Curators", metavar="NAMES",
                                       help="Curator names, separated by commas (e.g. ada,bob).")
    overlap: float = option(0.0, label="Overlap", ge=0.0, le=1.0,
                            help="Share of the questions also given to a second curator, to measure agreement "
                            "(e.g. 0.2).")
    seed: int | None = option(None, label="Seed", help="Seed of the chapter order and of the shared questions "
                              "(same seed, same plan).")
    out_path: Path = option(label="Plan file", flag="--out", widget="path", metavar="FILE",
                            help="The plan to write (CSV: curator,chapter,question_number); never overwritten.")


def assign(opts: AssignOptions) -> str:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.fastbook.assignment import make_plan, parse_curators, write_plan

    curators = parse_curators(opts.curators)
    _, benchmark = load(opts.benchmark_path)
    plan = make_plan(benchmark, curators, overlap=opts.overlap, seed=opts.seed)
    write_plan(opts.out_path, plan)
    counts = ", ".join(f"{name} {len(plan.queue(name))}" for name in curators)
    return (f"wrote {opts.out_path}: {len(benchmark)} questions, {len(plan.shared())} shared by two curators; "
            f"{counts}")


# -- bench fastbook ------------------------------------------------------------------------------------------------
class BenchOptions(ChaptersOptions, BenchmarkOptions):
    """``benchlab bench fastbook``."""

    repeat: int = option(5, label="Repetitions", ge=1, help="Timed repetitions.")


def bench(opts: BenchOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.fastbook.bench import fastbook_timings

    path, benchmark = load(opts.benchmark_path)
    return fastbook_timings(path, benchmark, chapters_of(path, benchmark, opts.chapters_dir), opts.repeat)


def _tool(name: str, options: type[Options], run: Callable[[Any], str | None]) -> Command:
    """``benchlab fastbook NAME``, with the help of its card."""
    return Command("tool", help_of(CARDS, f"fastbook {name}"), options, run, name=name, tool=FASTBOOK)


SCORE = Command("score", help_of(CARDS, "score fastbook"), ScoreOptions, score, name="fastbook")
COMPARE = Command("compare", help_of(CARDS, "compare fastbook"), CompareOptions, compare, name="fastbook")
AUDIT = _tool("audit", AuditOptions, audit)
BASELINE = _tool("baseline", BaselineOptions, baseline)
ORACLE = _tool("oracle", OracleOptions, oracle)
CHUNKS = _tool("chunks", ChunksOptions, chunks)
IMPORT_RUN = _tool("import-run", ImportOptions, import_run)
CHAPTERS = _tool("chapters", NotebooksOptions, chapters)
ASSIGN = _tool("assign", AssignOptions, assign)
BENCH = Command("bench", help_of(CARDS, "bench fastbook"), BenchOptions, bench, name="fastbook")

#: Every fastbook command (it has no sessions, so no task yet; ``benchlab.tui`` registers these directly).
COMMANDS: tuple[Command, ...] = (SCORE, COMPARE, AUDIT, BASELINE, ORACLE, CHUNKS, IMPORT_RUN, CHAPTERS, ASSIGN,
                                 BENCH)
