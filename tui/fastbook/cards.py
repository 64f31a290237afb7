"""fastbook's command cards as the ``benchlab.cards`` entry ``fastbook`` gives them: those of
:mod:`benchlab.annotations.fastbook.cards` and the cards of the commands its tool (:mod:`benchlab.tui.fastbook.tool`)
adds. These live here, in the tui, because their cards name where the commands are made (``benchlab.tui``), which a
card of the annotations layer cannot. The commands take their help from these cards, and their ``--help`` pages are
laid out from the module each card names, without building the whole CLI."""

from __future__ import annotations

from benchlab.annotations.cards import Card
from benchlab.annotations.fastbook.cards import CARDS as DECLARED

_AT = "benchlab.tui.fastbook.curate_command"

CARDS: tuple[Card, ...] = (
    *DECLARED,
    Card("curate fastbook", """Edit the contexts of the fastbook-benchmark: select spans of the chapter text,
undo/redo, save safely.

Saves keep the previous file as <file>.bak and refuse to overwrite a file changed on disk since it was
loaded unless you confirm. Every edit is appended to <file>.changes.jsonl (who, when, question, component,
before, after) the moment you make it.""", f"{_AT}:CURATE_COMMAND"),
    Card("bench curate-fastbook", "Time what a curator waits for in the editor: open, each edit (logged, re-scored), "
         "undo, diff, save.", f"{_AT}:BENCH_COMMAND"),
)
