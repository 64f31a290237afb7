"""``benchlab score fastbook``, ``benchlab fastbook audit|baseline|oracle|chunks|import-run|chapters``, ``bench``.

Everything is checked before anything is written: a malformed benchmark, a missing chapter or a run naming an
unknown question ends with one ``benchlab: error: <file>:<line>: ...`` line.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.groups import FORMAT_OPTION, bench, cli, score

if TYPE_CHECKING:
    from benchlab.data.fastbook.benchmark import Benchmark
    from benchlab.data.fastbook.chapters import Chapter

BENCHMARK_OPTION = click.option(
    "--benchmark", "benchmark_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="fastbook-benchmark.json (default: the full dataset if found, else the bundled synthetic sample).")
CHAPTERS_OPTION = click.option(
    "--chapters", "chapters_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Folder with chapter_N.txt or the notebooks (default: beside the benchmark file).")
K_OPTION = click.option("--k", type=click.IntRange(min=1), default=10, show_default=True,
                        help="Only the first k passages count (MRR@k, Recall@k).")


def _warn(message: str) -> None:
    click.echo(f"benchlab: warning: {message}", err=True)


def _note(message: str) -> None:
    click.echo(f"benchlab: {message}", err=True)


def _benchmark(path: Path | None) -> tuple[Path, Benchmark]:
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.benchmark import load_benchmark, require_questions

    resolved = path if path is not None else locate.default_benchmark_path()
    if path is None and locate.is_sample(resolved):
        _note(f"using the bundled synthetic sample {resolved} (give --benchmark for the real file)")
    return resolved, require_questions(load_benchmark(resolved), resolved)


def _chapters(bench_path: Path, benchmark: Benchmark, folder: Path | None) -> dict[int, Chapter]:
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.chapters import load_chapters

    chapters = load_chapters(folder if folder is not None else locate.chapters_dir_for(bench_path),
                             benchmark.chapters)
    for chapter in chapters.values():
        chapter.chunks  # noqa: B018 - chunk now so a missing chunker fails before any output
    return chapters


def _unique_names(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


# -- score ---------------------------------------------------------------------------------------------------------
@score.command("fastbook")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@BENCHMARK_OPTION
@K_OPTION
@FORMAT_OPTION
@click.option("--per-question", is_flag=True, help="Also print every question's MRR and Recall for each run.")
@click.option("--ci", is_flag=True,
              help="Also bootstrap 95% CIs over questions, and paired bootstrap tests of each run against the first.")
@click.option("--seed", type=int, default=None, help="Seed of the bootstrap (default: benchlab's fixed seed).")
def score_fastbook_cmd(runs: tuple[Path, ...], benchmark_path: Path | None, k: int, fmt: str,
                       per_question: bool, ci: bool, seed: int | None) -> None:
    """Modified MRR@k and Modified Recall@k of retrieval runs, overall and per chapter, side by side.

    RUNS are JSONL files, one line per question: {"chapter": 1, "question_number": 2, "passages": [...]},
    passages ranked best first. Scored exactly like the benchmark's notebooks (ftfy on both sides, a
    component with no context makes the question's MRR 0, fewer than k passages are not padded). Questions a
    run has no line for score 0 (warned).
    """
    from benchlab.data.fastbook.runs import read_run
    from benchlab.data.fastbook.scoring import Scorer, question_table, score_tables, uncertainty_tables
    from benchlab.data.tables import render

    _, benchmark = _benchmark(benchmark_path)
    loaded = [read_run(p, benchmark) for p in runs]
    for run, name in zip(loaded, _unique_names([r.name for r in loaded]), strict=True):
        run.name = name
        missing = run.missing(benchmark)
        if missing:
            shown = ", ".join(f"{q.chapter}.{q.question_number}" for q in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            _warn(f"{run.path}: no passages for {len(missing)} question(s) ({shown}{more}); they score 0")
    scorer = Scorer(benchmark, k=k)
    scores = [scorer.score(run) for run in loaded]
    tables = score_tables(scores)
    if ci:
        tables.extend(uncertainty_tables(scores, seed=seed))
    if per_question:
        tables.append(question_table(scores))
    click.echo(render(tables, fmt), nl=False)


# -- fastbook group ------------------------------------------------------------------------------------------------
@cli.group()
def fastbook() -> None:
    """fastbook-benchmark: audit the contexts, make baseline/oracle runs, import published runs, list chunks.

    Score runs with `benchlab score fastbook`; edit contexts with `benchlab curate fastbook`.
    """


@fastbook.command("audit")
@BENCHMARK_OPTION
@CHAPTERS_OPTION
@FORMAT_OPTION
@click.option("--summary", is_flag=True, help="Only the per-chapter summary, reasons and ceilings (no list).")
def audit_cmd(benchmark_path: Path | None, chapters_dir: Path | None, fmt: str, summary: bool) -> None:
    """Which contexts the scoring can never match, and why.

    For every answer context: is it in the chapter text (after ftfy), does it fit inside one chunk; if not,
    the reason (crosses a chunk boundary or the halving cut, fenced code/output, escaped characters, letter
    case, whitespace). Also empty components, components and questions that can never score, and the best
    MRR@10/Recall@10 any retriever could reach with these chunks.
    """
    from benchlab.data.fastbook.audit import audit_benchmark
    from benchlab.data.tables import render

    path, benchmark = _benchmark(benchmark_path)
    report = audit_benchmark(benchmark, _chapters(path, benchmark, chapters_dir))
    tables = [report.summary_table(), report.reasons_table(), report.ceilings_table()]
    if not summary:
        tables.append(report.problems_table())
    click.echo(render(tables, fmt), nl=False)


@fastbook.command("baseline")
@BENCHMARK_OPTION
@CHAPTERS_OPTION
@click.option("--query", type=click.Choice(["keywords", "question"]), default="keywords", show_default=True,
              help="keywords: OR of the published fts_keywords.csv words (the repo's bm25_500 run); "
                   "question: OR of the question's own words.")
@click.option("--keywords", "keywords_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="fts_keywords.csv (default: beside the benchmark file).")
@K_OPTION
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Run file to write (JSONL, one line per question).")
def baseline_cmd(benchmark_path: Path | None, chapters_dir: Path | None, query: str, keywords_path: Path | None,
                 k: int, out_path: Path) -> None:
    """Write a SQLite FTS5 (bm25) retrieval run over the chunks, then print its scores (no model needed)."""
    from benchlab.data.fastbook import locate
    from benchlab.data.fastbook.baseline import fts_run, read_keywords
    from benchlab.data.fastbook.runs import write_run
    from benchlab.data.fastbook.scoring import Scorer

    path, benchmark = _benchmark(benchmark_path)
    chapters = _chapters(path, benchmark, chapters_dir)
    keywords = None
    if query == "keywords":
        keywords_path = keywords_path or locate.keywords_path_for(path)
        if keywords_path is None:
            raise BenchlabError(f"no {locate.KEYWORDS_NAME} beside the benchmark; give --keywords FILE or use "
                                "--query question", path)
        keywords = read_keywords(keywords_path, benchmark)
    run = fts_run(benchmark, chapters, query=query, keywords=keywords, k=k,  # type: ignore[arg-type]
                  keywords_path=keywords_path)
    write_run(out_path, run, benchmark.ids())
    result = Scorer(benchmark, chapters, k=k).score(run)
    _note(f"wrote {len(run.results)} questions to {out_path}")
    click.echo(f"{run.name}: Modified MRR@{k} {result.mrr:.5f}  Modified Recall@{k} {result.recall:.5f}  "
               f"({len(result.questions)} questions; score with: benchlab score fastbook {out_path})")


@fastbook.command("oracle")
@BENCHMARK_OPTION
@CHAPTERS_OPTION
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Run file to write (JSONL, one line per question).")
def oracle_cmd(benchmark_path: Path | None, chapters_dir: Path | None, out_path: Path) -> None:
    """Write the best possible run with these chunks (the ceiling every retriever is measured against)."""
    from benchlab.data.fastbook.audit import audit_benchmark, oracle_run
    from benchlab.data.fastbook.runs import write_run
    from benchlab.data.fastbook.scoring import Scorer

    path, benchmark = _benchmark(benchmark_path)
    chapters = _chapters(path, benchmark, chapters_dir)
    report = audit_benchmark(benchmark, chapters)
    run = oracle_run(report, chapters)
    write_run(out_path, run, benchmark.ids())
    result = Scorer(benchmark, chapters).score(run)
    _note(f"wrote {len(run.results)} questions to {out_path}")
    click.echo(f"oracle: Modified MRR@10 {result.mrr:.5f}  Modified Recall@10 {result.recall:.5f}  "
               f"({len(report.never_scoring_questions)} questions can never score MRR > 0)")


@fastbook.command("chunks")
@BENCHMARK_OPTION
@CHAPTERS_OPTION
@click.option("--chapter", "only", type=int, multiple=True, help="Only this chapter (repeatable).")
@FORMAT_OPTION
def chunks_cmd(benchmark_path: Path | None, chapters_dir: Path | None, only: tuple[int, ...], fmt: str) -> None:
    """List the benchmark's passages: where each chunk starts and ends in chapter_N.txt (offset and line).

    A context is scorable only inside one of these; consecutive chunks overlap, and no chunk crosses the
    halving cut (marked with *).
    """
    import pandas as pd

    from benchlab.data.tables import Table, render

    path, benchmark = _benchmark(benchmark_path)
    chapters = _chapters(path, benchmark, chapters_dir)
    rows = []
    for number, chapter in chapters.items():
        if only and number not in only:
            continue
        for chunk in chapter.chunks:
            rows.append({
                "chapter": number, "chunk": chunk.index, "start": chunk.start, "end": chunk.end,
                "lines": f"{chapter.line_of(chunk.start)}-{chapter.line_of(chunk.end)}",
                "chars": chunk.end - chunk.start,
                "half": 1 if chunk.end <= chapter.halving_cut else 2,
                "begins": chunk.text[:40].replace("\n", "⏎"), "ends": chunk.text[-40:].replace("\n", "⏎"),
            })
    if not rows:
        raise BenchlabError(f"no such chapter; the benchmark has chapters {', '.join(map(str, chapters))}", path)
    frame = pd.DataFrame(rows).set_index(["chapter", "chunk"]).astype(object)
    cuts = ", ".join(f"ch{n} at {c.halving_cut}" for n, c in chapters.items() if not only or n in only)
    click.echo(render([Table(f"fastbook-benchmark chunks (halving cut: {cuts})", frame)], fmt), nl=False)


@fastbook.command("import-run")
@click.argument("source", type=click.Path(dir_okay=False, path_type=Path))
@BENCHMARK_OPTION
@click.option("--column", "columns", multiple=True,
              help="Method column(s) of a results CSV/workbook (default: all, e.g. bm25_500, colbertv2_500).")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write <method>.jsonl run files into.")
@click.option("--no-repair", is_flag=True, help="Do not undo the workbook's Mac-Roman mojibake.")
def import_run_cmd(source: Path, benchmark_path: Path | None, columns: tuple[str, ...], out_dir: Path,
                   no_repair: bool) -> None:
    """Convert results made with the benchmark's notebooks into run files.

    SOURCE is either the notebooks' results table (.csv or the published .xlsx workbook: one column of joined
    passages per method) or a JSON list with one list of passages per question in the benchmark's order.
    """
    from benchlab.data.fastbook.imports import read_positional_json, read_results_table, result_columns
    from benchlab.data.fastbook.runs import write_run

    _, benchmark = _benchmark(benchmark_path)
    if source.suffix.lower() == ".json":
        runs = [read_positional_json(source, benchmark)]
    else:
        names = list(columns) or result_columns(source)
        if not names:
            raise BenchlabError("no method columns found (give --column)", source)
        runs = [read_results_table(source, benchmark, name, repair=not no_repair) for name in names]
    for run in runs:
        target = out_dir / f"{run.name}.jsonl"
        write_run(target, run, [q.id for q in benchmark if q.id in run.results])
        click.echo(f"{run.name}: {len(run.results)} questions -> {target}")


@fastbook.command("chapters")
@click.argument("notebooks", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write chapter_N.txt into.")
def chapters_cmd(notebooks: Path, out_dir: Path) -> None:
    """Build chapter_N.txt from the fastbook notebooks with the benchmark's rule, and report their chunks."""
    from benchlab.data.atomic import atomic_write_text
    from benchlab.data.fastbook.chapters import NOTEBOOK_NAMES, Chapter, notebook_to_text

    made = 0
    for number, name in NOTEBOOK_NAMES.items():
        nb = notebooks / name
        if not nb.is_file():
            continue
        text = notebook_to_text(nb)
        target = out_dir / f"chapter_{number}.txt"
        atomic_write_text(target, text)
        chunks = Chapter(number, text, target).chunks
        click.echo(f"chapter {number}: {len(text):,} chars, {len(chunks)} chunks -> {target}")
        made += 1
    if not made:
        raise BenchlabError(f"no fastbook notebooks here (expected e.g. {NOTEBOOK_NAMES[1]})", notebooks)


# -- bench ---------------------------------------------------------------------------------------------------------
def _time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@bench.command("fastbook")
@BENCHMARK_OPTION
@CHAPTERS_OPTION
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Timed repetitions.")
def bench_fastbook_cmd(benchmark_path: Path | None, chapters_dir: Path | None, repeat: int) -> None:
    """Time loading, chunking, scoring one run and auditing every context; compare with the reference loop.

    Prints medians of --repeat runs. The reference-style scorer calls ftfy on every (context, passage) pair as
    the benchmark's utils.py does; ours normalises each distinct string once.
    """
    import ftfy

    from benchlab.data.fastbook.audit import Auditor, audit_benchmark
    from benchlab.data.fastbook.baseline import fts_run
    from benchlab.data.fastbook.benchmark import load_benchmark
    from benchlab.data.fastbook.chapters import chunk_spans, chunking_available
    from benchlab.data.fastbook.scoring import Scorer

    path, benchmark = _benchmark(benchmark_path)
    rows: list[tuple[str, float]] = []
    rows.append(("load benchmark JSON", _time(lambda: load_benchmark(path), repeat)))
    chapters = _chapters(path, benchmark, chapters_dir)
    rows.append(("chunk spans, bundled table (all chapters)",
                 _time(lambda: [chunk_spans(c.text) for c in chapters.values()], repeat)))
    if chunking_available():
        rows.append(("chunk with the benchmark's splitter (all chapters)",
                     _time(lambda: [chunk_spans(c.text, recompute=True) for c in chapters.values()], 1)))
    run = fts_run(benchmark, chapters, query="question")
    rows.append(("FTS5 baseline run (index + all questions)",
                 _time(lambda: fts_run(benchmark, chapters, query="question"), repeat)))
    rows.append(("scorer set-up (ftfy of chunks and contexts, once)", _time(lambda: Scorer(benchmark, chapters),
                                                                              repeat)))
    scorer = Scorer(benchmark, chapters)
    ours = _time(lambda: scorer.score(run), repeat)
    rows.append((f"score one run, {len(benchmark)} questions (target < 100 ms)", ours))

    def reference_style() -> None:
        for q in benchmark:
            passages = run.passages(q.id)[:10]
            for comp in q.answer_context:
                for passage in passages:
                    if any(ftfy.fix_text(c) in ftfy.fix_text(passage) for c in comp.context):
                        break

    ref = _time(reference_style, max(1, repeat // 2))
    rows.append(("score one run, reference loop (ftfy per pair, MRR only)", ref))
    rows.append(("auditor set-up (ftfy of chapters and chunks, once)", _time(lambda: Auditor(chapters), repeat)))
    n_contexts = sum(len(c.context) for q in benchmark for c in q.answer_context)
    rows.append((f"audit all {n_contexts} contexts, fresh auditor (target < 500 ms)",
                 _time(lambda: audit_benchmark(benchmark, chapters), repeat)))
    auditor = Auditor(chapters)

    def audit_prepared() -> None:
        auditor.clear_cache()  # verdicts computed afresh; only the normalised chapter and chunk texts are kept
        audit_benchmark(benchmark, chapters, auditor)

    rows.append(("audit all contexts, chapters and chunks prepared", _time(audit_prepared, repeat)))
    width = max(len(name) for name, _ in rows)
    click.echo(f"fastbook-benchmark timings ({path.name}, {len(benchmark)} questions, "
               f"{sum(len(c.chunks) for c in chapters.values())} chunks; median of {repeat})")
    for name, seconds in rows:
        click.echo(f"  {name:<{width}}  {seconds * 1000:9.1f} ms")
    click.echo(f"  speed-up of cached scoring over the reference loop: {ref / ours:.0f}x" if ours > 0 else "")
