"""WorldSense's command cards (:mod:`benchlab.annotations.cards`): its commands' help, written once here. The
declarations (:mod:`benchlab.annotations.worldsense.commands`, ``power.py``) take their help from these cards, and
``benchlab --help`` lists the commands from them without importing the declarations."""

from __future__ import annotations

from benchlab.annotations.cards import Card

_AT = "benchlab.annotations.worldsense.commands"

CARDS: tuple[Card, ...] = (
    Card("score worldsense", """Print the original analyse_results.py tables: average accuracy, accuracy and bias per
problem (95% CI).

Warnings (incomplete tuples, unknown Keys, answers outside the options, ...) go to stderr, one line each.""",
         f"{_AT}:SCORE"),
    Card("compare worldsense", """WorldSense: each participant, the pooled humans and each model per problem, with 95%
CIs and tests.

Files whose model name starts with "human" are participants. Without --results, the sessions' default output folder
(./benchlab-results/worldsense/<test set>/results) is read when it exists. Example:

    benchlab compare worldsense -t data/worldsense/test_set --results lab/out/results --plot fig.png""",
         f"{_AT}:COMPARE"),
    Card("fetch worldsense", "Download the official test sets and published results: checksummed, resumable.",
         f"{_AT}:FETCH"),
    Card("bench worldsense", """Wall time and peak memory of `benchlab score worldsense` (cold and cached),
optionally vs the original.

Each run is a separate process, timed from start to exit (imports included), as a user would experience it. With
--original, the original script runs on the same data (COLUMNS=250) and its printed cells are compared with ours cell
for cell.""", f"{_AT}:BENCH"),
    Card("bench compare", "Time `compare worldsense` on synthetic participants next to the published models; print "
         "figures.", f"{_AT}:BENCH_COMPARE"),
    Card("power worldsense", "WorldSense: expected pooled CI width and power against a model's published score, and "
         "the smallest number of participants for a target power.",
         "benchlab.annotations.worldsense.power:power_command"),
    # made by benchlab.tui from the task's face (title, options: tests/test_help_cards.py checks that they open its
    # page)
    Card("run worldsense", "Run a WorldSense session for one participant (kiosk mode; experimenter menu: Ctrl+X, "
         "then type menu, or $BENCHLAB_EXPERIMENTER_KEYS).", "benchlab.annotations.worldsense.face:FACE"),
    Card("serve worldsense", "Serve WorldSense sessions in a web browser: one private link per participant (printed "
         "and written to OUT/links.csv).", "benchlab.annotations.worldsense.face:FACE"),
)
