"""WorldSense's command cards (:mod:`benchlab.annotations.cards`): its commands as ``benchlab --help`` lists them,
read without importing :mod:`benchlab.annotations.worldsense.commands` (tests/test_help_cards.py checks that they
say what the declarations say)."""

from __future__ import annotations

from benchlab.annotations.cards import Card

_AT = "benchlab.annotations.worldsense.commands"

CARDS: tuple[Card, ...] = (
    Card("score worldsense", "Print the original analyse_results.py tables: average accuracy, accuracy and bias per\n"
         "problem (95% CI).", f"{_AT}:SCORE"),
    Card("compare worldsense", "WorldSense: each participant, the pooled humans and each model per problem, with 95%\n"
         "CIs and tests.", f"{_AT}:COMPARE"),
    Card("fetch worldsense", "Download the official test sets and published results: checksummed, resumable.",
         f"{_AT}:FETCH"),
    Card("bench worldsense", "Wall time and peak memory of `benchlab score worldsense` (cold and cached), optionally "
         "vs\nthe original.", f"{_AT}:BENCH"),
    Card("bench compare", "Time `compare worldsense` on synthetic participants next to the published models; print "
         "figures.", f"{_AT}:BENCH_COMPARE"),
    Card("run worldsense", "Run a WorldSense session for one participant (kiosk mode; experimenter menu: Ctrl+X, "
         "then type menu, or $BENCHLAB_EXPERIMENTER_KEYS)."),
    Card("serve worldsense", "Serve WorldSense sessions in a web browser: one private link per participant (printed "
         "and written to OUT/links.csv)."),
    Card("power worldsense", "WorldSense: expected pooled CI width and power against a model's published score, and "
         "the smallest number of participants for a target power."),
)
