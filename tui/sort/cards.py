"""SORT's command cards as the ``benchlab.cards`` entry ``sort`` gives them: those of
:mod:`benchlab.annotations.sort.cards` and the card of the command its tool (:mod:`benchlab.tui.sort.tool`) adds.
That card lives here, in the tui, because it names where the command is declared (``benchlab.tui``), which a card
of the annotations layer cannot. The command takes its help from this card, and its ``--help`` page is laid out
from the module the card names, without building the whole CLI."""

from __future__ import annotations

from benchlab.annotations.cards import Card
from benchlab.annotations.sort.cards import CARDS as DECLARED

CARDS: tuple[Card, ...] = (
    *DECLARED,
    Card("bench sort-screen", "Load -> first paint of a long excerpt and continue -> question times, on a real "
         "pseudo-terminal.", "benchlab.tui.sort.screen_bench_command:SCREEN_BENCH"),
)
