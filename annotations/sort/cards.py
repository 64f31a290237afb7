"""SORT's command cards (:mod:`benchlab.annotations.cards`): its declared commands' help, written once here. The
declarations (:mod:`benchlab.annotations.sort.commands`, ``power.py``) take their help from these cards, and
``benchlab --help`` lists the commands from them without importing the declarations. The card of its tool's
command (the screen bench) is in :mod:`benchlab.tui.sort.cards`, which adds it to these (it names tui code)."""

from __future__ import annotations

from benchlab.annotations.cards import Card

_AT = "benchlab.annotations.sort.commands"

CARDS: tuple[Card, ...] = (
    Card("booksort", "BookSORT / SORT data: make trials from any text, check and describe data sets.", kind="group"),
    Card("booksort check", "Validate a BookSORT data set: segments verbatim at their positions, distances in bins, "
         "balance.", f"{_AT}:CHECK"),
    Card("booksort info", "Configurations, books and trials per split in a BookSORT folder or file.", f"{_AT}:INFO"),
    Card("booksort make", "Build SORT trials (110 excerpts x 4 distance bins; 100 test + 10 validation) from plain "
         "text; --design whole-book: the paper's human design (110 pairs from the whole book x 8 gap bins).",
         f"{_AT}:MAKE"),
    Card("score sort", "Score SORT results files ({L_E}-s{L_S}-{model}_results.csv) of people and models alike.",
         f"{_AT}:SCORE"),
    Card("compare sort", """SORT: each participant, the pooled humans and each model per configuration and
distance bin.

PATHS are results CSVs ({L_E}-s{L_S}-{model}_results.csv) or folders holding them; model names starting with
"human-" are participants. Example:

    benchlab compare sort lab/out/results models/results --format markdown --plot sort.pdf""", f"{_AT}:COMPARE"),
    Card("bench booksort", "Generation speed: the four small configurations for the nine books, vs the published "
         "script.", f"{_AT}:BENCH"),
    Card("power sort", "SORT: expected pooled CI width and power against a model's published score (or from pilot "
         "data), and the smallest number of participants for a target power.",
         "benchlab.annotations.sort.power:power_command"),
    # made by benchlab.tui from the task's face (title, options: tests/test_help_cards.py checks that they open its
    # page)
    Card("run sort", "Run a SORT (BookSORT) session for one participant (kiosk mode; experimenter menu: Ctrl+X, "
         "then type menu, or $BENCHLAB_EXPERIMENTER_KEYS).", "benchlab.annotations.sort.face:FACE"),
    Card("serve sort", "Serve SORT (BookSORT) sessions in a web browser: one private link per participant (printed "
         "and written to OUT/links.csv).", "benchlab.annotations.sort.face:FACE"),
)
