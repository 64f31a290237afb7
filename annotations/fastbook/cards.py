"""fastbook's command cards (:mod:`benchlab.annotations.cards`): its declared commands' help, written once here.
The declarations (:mod:`benchlab.annotations.fastbook.commands`) take their help from these cards, and ``benchlab
--help`` lists the commands from them without importing the declarations. The cards of its tool's commands (the
editor and its bench) are in :mod:`benchlab.tui.fastbook.cards`, which adds them to these (they name tui code)."""

from __future__ import annotations

from benchlab.annotations.cards import Card

_AT = "benchlab.annotations.fastbook.commands"

CARDS: tuple[Card, ...] = (
    Card("fastbook", """fastbook-benchmark: audit the contexts, make baseline/oracle runs, import published
runs, list chunks.

Score runs with `benchlab score fastbook`; edit contexts with `benchlab curate fastbook`.""", kind="group"),
    Card("fastbook assign", """Split the questions between curators: a plan file each curator's editor shows as
their queue (benchlab curate fastbook --plan PLAN --curator NAME).

Chapters are shuffled (with --seed) and cut into equal contiguous blocks, so whole chapters stay with one curator
except at the cuts; --overlap gives that share of the questions to a second curator too, to measure agreement
(compare fastbook) and merge (curate fastbook --review).""", f"{_AT}:ASSIGN"),
    Card("fastbook audit", """Which contexts the scoring can never match, and why.

For every answer context: is it in the chapter text (after ftfy), does it fit inside one chunk; if not, the reason
(crosses a chunk boundary or the halving cut, fenced code/output, escaped characters, letter case, whitespace). Also
empty components, components and questions that can never score, and the best MRR@10/Recall@10 any retriever could
reach with these chunks.""", f"{_AT}:AUDIT"),
    Card("fastbook baseline", "Write a SQLite FTS5 (bm25) retrieval run over the chunks, then print its scores (no "
         "model needed).", f"{_AT}:BASELINE"),
    Card("fastbook chapters", "Build chapter_N.txt from the fastbook notebooks with the benchmark's rule, and report "
         "their chunks.", f"{_AT}:CHAPTERS"),
    Card("fastbook chunks", """List the benchmark's passages: where each chunk starts and ends in chapter_N.txt (offset
and line).

A context is scorable only inside one of these; consecutive chunks overlap, and no chunk crosses the halving cut
(marked with *).""", f"{_AT}:CHUNKS"),
    Card("fastbook import-run", """Convert results made with the benchmark's notebooks into run files.

SOURCE is either the notebooks' results table (.csv or the published .xlsx workbook: one column of joined passages
per method) or a JSON list with one list of passages per question in the benchmark's order.""", f"{_AT}:IMPORT_RUN"),
    Card("fastbook oracle", "Write the best possible run with these chunks (the ceiling every retriever is measured "
         "against).", f"{_AT}:ORACLE"),
    Card("score fastbook", """Modified MRR@k and Modified Recall@k of retrieval runs, overall and per chapter, side by
side.

RUNS are JSONL files, one line per question: {"chapter": 1, "question_number": 2, "passages": [...]}, passages ranked
best first. Scored exactly like the benchmark's notebooks (ftfy on both sides, a component with no context makes the
question's MRR 0, fewer than k passages are not padded). Questions a run has no line for score 0 (warned).""",
         f"{_AT}:SCORE"),
    Card("compare fastbook", """Agreement between two curators' edited copies of fastbook-benchmark.json.

Which components' contexts differ, how much their passages overlap (word F1, and character span F1 in the chapter
text), and agreement on the explicit/extraneous flags (percent and Cohen's kappa).""", f"{_AT}:COMPARE"),
    Card("bench fastbook", """Time loading, chunking, scoring one run and auditing every context; compare with the
reference loop.

Prints medians of --repeat runs. The reference-style scorer calls ftfy on every (context, passage) pair as the
benchmark's utils.py does; ours normalises each distinct string once.""", f"{_AT}:BENCH"),
)
