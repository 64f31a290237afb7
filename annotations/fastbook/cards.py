"""fastbook's command cards (:mod:`benchlab.annotations.cards`): its commands (and its tool's) as
``benchlab --help`` lists them, read without importing :mod:`benchlab.annotations.fastbook.commands`
(tests/test_help_cards.py checks that they say what the declarations say)."""

from __future__ import annotations

from benchlab.annotations.cards import Card

_AT = "benchlab.annotations.fastbook.commands"

CARDS: tuple[Card, ...] = (
    Card("fastbook", "fastbook-benchmark: audit the contexts, make baseline/oracle runs, import published\nruns, "
         "list chunks.\n\nScore runs with `benchlab score fastbook`; edit contexts with `benchlab curate fastbook`.",
         kind="group"),
    Card("fastbook assign", "Split the questions between curators: a plan file each curator's editor shows as their "
         "queue\n(benchlab curate fastbook --plan PLAN --curator NAME).", f"{_AT}:ASSIGN"),
    Card("fastbook audit", "Which contexts the scoring can never match, and why.", f"{_AT}:AUDIT"),
    Card("fastbook baseline", "Write a SQLite FTS5 (bm25) retrieval run over the chunks, then print its scores (no "
         "model needed).", f"{_AT}:BASELINE"),
    Card("fastbook chapters", "Build chapter_N.txt from the fastbook notebooks with the benchmark's rule, and report "
         "their chunks.", f"{_AT}:CHAPTERS"),
    Card("fastbook chunks", "List the benchmark's passages: where each chunk starts and ends in chapter_N.txt "
         "(offset\nand line).", f"{_AT}:CHUNKS"),
    Card("fastbook import-run", "Convert results made with the benchmark's notebooks into run files.",
         f"{_AT}:IMPORT_RUN"),
    Card("fastbook oracle", "Write the best possible run with these chunks (the ceiling every retriever is measured "
         "against).", f"{_AT}:ORACLE"),
    Card("score fastbook", "Modified MRR@k and Modified Recall@k of retrieval runs, overall and per chapter, side "
         "by\nside.", f"{_AT}:SCORE"),
    Card("compare fastbook", "Agreement between two curators' edited copies of fastbook-benchmark.json.",
         f"{_AT}:COMPARE"),
    Card("bench fastbook", "Time loading, chunking, scoring one run and auditing every context; compare with the\n"
         "reference loop.", f"{_AT}:BENCH"),
    Card("curate fastbook", "Edit the contexts of the fastbook-benchmark: select spans of the chapter text, undo/redo, "
         "save safely."),
    Card("bench curate-fastbook", "Time what a curator waits for in the editor: open, each edit (logged, re-scored), "
         "undo, diff, save."),
)
