"""Timings of loading, chunking, scoring and auditing fastbook-benchmark, next to the benchmark's reference loop.

The reference-style scorer calls ftfy on every (context, passage) pair as the benchmark's ``utils.py`` does; ours
normalises each distinct string once. Figures are medians of ``repeat`` runs.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import ftfy

from benchlab.data.fastbook.audit import Auditor, audit_benchmark
from benchlab.data.fastbook.baseline import fts_run
from benchlab.data.fastbook.benchmark import load_benchmark
from benchlab.data.fastbook.chapters import chunk_spans, chunking_available
from benchlab.data.fastbook.scoring import Scorer

if TYPE_CHECKING:
    from benchlab.data.fastbook.benchmark import Benchmark
    from benchlab.data.fastbook.chapters import Chapter
    from benchlab.data.fastbook.runs import Run


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall seconds of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _retrieved(comp_context: Sequence[str], passage: str) -> bool:
    """The notebook's matching rule, normalising both sides on every call as its helper does."""
    return any(ftfy.fix_text(c) in ftfy.fix_text(passage) for c in comp_context)


def reference_scores(benchmark: Benchmark, run: Run, k: int = 10) -> tuple[float, float]:
    """Modified MRR@k and Recall@k as the notebook computes them: two separate functions, each walking the
    (component, passage) pairs with ftfy on both sides (spec section 5). Returns the means over the questions."""
    mrrs: list[float] = []
    recalls: list[float] = []
    for q in benchmark:
        passages = run.passages(q.id)[:k]
        worst = 0
        for comp in q.answer_context:  # MRR: the rank at which every component is covered, 0 if one never is
            rank = next((i + 1 for i, p in enumerate(passages) if _retrieved(comp.context, p)), None)
            if rank is None:
                worst = 0
                break
            worst = max(worst, rank)
        mrrs.append(1.0 / worst if worst else 0.0)
        found = sum(1 for comp in q.answer_context if any(_retrieved(comp.context, p) for p in passages))
        recalls.append(found / len(q.answer_context))  # Recall: the share of components retrieved in the top k
    return sum(mrrs) / len(mrrs), sum(recalls) / len(recalls)


def _reference_loop(benchmark: Benchmark, run: Run) -> Callable[[], None]:
    """The benchmark's scoring, MRR and Recall (what the notebook runs for one result set)."""
    def loop() -> None:
        reference_scores(benchmark, run)

    return loop


def _audit_rows(benchmark: Benchmark, chapters: dict[int, Chapter], repeat: int) -> list[tuple[str, float]]:
    rows = [("auditor set-up (ftfy of chapters and chunks, once)", median_seconds(lambda: Auditor(chapters), repeat))]
    n_contexts = sum(len(c.context) for q in benchmark for c in q.answer_context)
    rows.append((f"audit all {n_contexts} contexts, fresh auditor (target < 500 ms)",
                 median_seconds(lambda: audit_benchmark(benchmark, chapters), repeat)))
    auditor = Auditor(chapters)

    def audit_prepared() -> None:
        auditor.clear_cache()  # verdicts computed afresh; only the normalised chapter and chunk texts are kept
        audit_benchmark(benchmark, chapters, auditor)

    rows.append(("audit all contexts, chapters and chunks prepared", median_seconds(audit_prepared, repeat)))
    return rows


def fastbook_timings(path: Path, benchmark: Benchmark, chapters: dict[int, Chapter], repeat: int) -> str:
    """The timings table as printed by ``benchlab bench fastbook``."""
    rows: list[tuple[str, float]] = [("load benchmark JSON", median_seconds(lambda: load_benchmark(path), repeat))]
    rows.append(("chunk spans, bundled table (all chapters)",
                 median_seconds(lambda: [chunk_spans(c.text) for c in chapters.values()], repeat)))
    if chunking_available():
        rows.append(("chunk with the benchmark's splitter (all chapters)",
                     median_seconds(lambda: [chunk_spans(c.text, recompute=True) for c in chapters.values()], 1)))
    run = fts_run(benchmark, chapters, query="question")
    rows.append(("FTS5 baseline run (index + all questions)",
                 median_seconds(lambda: fts_run(benchmark, chapters, query="question"), repeat)))
    rows.append(("scorer set-up (ftfy of chunks and contexts, once)",
                 median_seconds(lambda: Scorer(benchmark, chapters), repeat)))
    scorer = Scorer(benchmark, chapters)
    ours = median_seconds(lambda: scorer.score(run), repeat)
    rows.append((f"score one run, {len(benchmark)} questions (target < 100 ms)", ours))
    ref = median_seconds(_reference_loop(benchmark, run), max(1, repeat // 2))
    rows.append(("score one run, reference (notebook's MRR and Recall, ftfy per pair)", ref))
    ref_mrr, ref_recall = reference_scores(benchmark, run)
    mine = scorer.score(run)
    agree = abs(ref_mrr - mine.mrr) < 1e-12 and abs(ref_recall - mine.recall) < 1e-12
    rows.extend(_audit_rows(benchmark, chapters, repeat))
    width = max(len(name) for name, _ in rows)
    lines = [f"fastbook-benchmark timings (data set {path}, {len(benchmark)} questions, "
             f"{sum(len(c.chunks) for c in chapters.values())} chunks; median of {repeat}; load average "
             f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)"]
    lines.extend(f"  {name:<{width}}  {seconds * 1000:9.1f} ms" for name, seconds in rows)
    lines.append(f"  same scores as the reference: MRR@10 {mine.mrr:.5f} / {ref_mrr:.5f}, "
                 f"Recall@10 {mine.recall:.5f} / {ref_recall:.5f}: {'yes' if agree else 'NO'}")
    lines.append(f"  speed-up of cached scoring over the reference (one run each, medians above): {ref / ours:.0f}x"
                 if ours > 0 else "")
    return "\n".join(lines)
