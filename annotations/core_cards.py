"""The cards (:mod:`benchlab.annotations.cards`) of the commands benchlab's annotations layer declares itself, no
benchmark's: ``study``, ``export``, ``power``, ``release``, ``report``, ``withdraw`` and ``bench
coverage|faults|startup``. Their declarations take their help from here (a module of ``tui/`` cannot be imported
below it); :mod:`benchlab.tui.core_cards` adds these cards to the CLI's own."""

from __future__ import annotations

from benchlab.annotations.cards import Card

CARDS: tuple[Card, ...] = (
    Card("bench coverage", "Coverage of the pooled-human 95% intervals and false-positive rate of the human-vs-model "
         "test in simulated studies of the designs the installed benchmarks declare, for 3-20 people and three "
         "person SDs.", "benchlab.annotations.stats_commands:COVERAGE"),
    Card("bench faults", "Kill -9 simulated sessions of every built-in task at random moments, resume each, and "
         "print lost / duplicated / resumed counts; then run the file cases the benchmarks declare (damaged and "
         "hostile study files, exports, reviews, serve) and count lost, duplicated and internal errors.",
         "benchlab.annotations.harness.faults:FAULTS"),
    Card("bench startup", "Time benchlab --help (uncached CLI, first call, after a setting changed, cached call, "
         "after an edit) against the 0.15 s target.", "benchlab.annotations.harness.startup_bench:STARTUP"),
    Card("export", "Tidy exports for analysis in R or pandas (one row per participant x trial).", kind="group"),
    # the declaration adds each installed task's columns below this help
    Card("export trials", """One row per participant x trial (or per recorded event, e.g. a curation edit), for R /
pandas.

Reads the files a task's sessions wrote (what each task reads: below); CSV on stdout or --out FILE (.csv,
.parquet). Example:

    benchlab export trials BENCHMARK lab/out/results --out trials.parquet""",
         "benchlab.annotations.trial_export:TRIALS"),
    Card("study", "Study files: a lab day's benchmark, options, texts, arms and assignment rule in one folder.",
         kind="group"),
    Card("study init", "Write a commented study file (and its JSON Schema for editors) into a new study folder.",
         "benchlab.annotations.study_commands:INIT"),
    Card("study reconcile", "Reconcile a platform's submissions export (Prolific or MTurk CSV) with the study's "
         "records: a table of categories and a CSV of approve/review decisions.",
         "benchlab.annotations.online.commands:RECONCILE"),
    Card("study set-password", "Set the password of the online study's experimenter dashboard (stored as a salted "
         "scrypt hash in the study's private folder; read from the terminal, or the first line of stdin).",
         "benchlab.annotations.online.commands:SET_PASSWORD"),
    Card("study show", "Check a study folder and show its arms, how many participants each has, and whether the "
         "study file changed after sessions started; each arm is planned once against its data set.",
         "benchlab.annotations.study_commands:SHOW"),
    Card("power", "Plan a study: expected pooled CI width and power against a model's published score, by "
         "simulation through the comparison's own intervals and tests.", kind="created"),
    Card("release", "Make a publishable bundle: per-trial data with ids re-keyed and platform ids and free text "
         "dropped, codebook, materials, study file, the commands that rebuild the tables, the report, a SHA-256 "
         "manifest. Refuses a non-empty folder.", "benchlab.annotations.release.command:RELEASE"),
    Card("report", "Write the study report: participant flow, design, timing, paradata, exclusions, results with the "
         "primary tests corrected (Holm by default), robustness, precision vs plan, integrity hashes and the Wei et "
         "al. reporting checklist (HTML, Markdown, LaTeX methods).", "benchlab.annotations.report.command:REPORT"),
    Card("withdraw", "Remove a participant's data from a study (results, events, plans, assignments, derived outputs) "
         "with an audit line holding no personal data; refuses while their session is live.",
         "benchlab.annotations.withdraw:WITHDRAW"),
)
