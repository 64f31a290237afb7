"""The core commands' cards (:mod:`benchlab.annotations.cards`): what ``benchlab --help`` and the group pages list
of the commands benchlab itself adds, read without building the CLI. The plain groups take their help from here;
tests/test_help_cards.py checks that every other card says what its command says."""

from __future__ import annotations

from benchlab.annotations.cards import Card

CARDS: tuple[Card, ...] = (
    Card("score", "Score human and model results with the benchmark's own scoring rules.", kind="group"),
    Card("fetch", "Download full benchmark data (checksummed, resumable).", kind="group"),
    Card("compare", "Compare humans with models (tables with CIs and tests) and curators with each other.",
         kind="group"),
    Card("bench", "Speed and memory benchmarks that print figures (for closing notes and methods sections).",
         kind="group"),
    Card("curate", "Curate benchmark annotations in the terminal (edits are undoable, logged and saved safely).",
         kind="created"),
    Card("run", "Run a human (or simulated) session.", "benchlab.tui.commands.study_groups:run_group", "group"),
    Card("serve", "Serve sessions to participants in a web browser (one private link per participant).",
         "benchlab.tui.commands.study_groups:serve_group", "group"),
    Card("demo", "Open benchlab on the bundled sample (no network, no other data needed).",
         "benchlab.tui.commands.root:demo_entry"),
    Card("plugins", "List the plug-ins: loaded, or broken with the reason.",
         "benchlab.tui.commands.plugins:plugins_command"),
    Card("timing-check", "Measure response-time and onset accuracy of the trial screen in a pseudo-terminal (prints "
         "figures).", "benchlab.tui.commands.timing_check_command:timing_check"),
    Card("models", "Models on the items people saw: run (through inspect_ai), import inspect/lm-eval logs, export "
         "people as inspect logs, list runs.", kind="group"),
    Card("models export", "Export the human sessions under RESULTS as inspect_ai EvalLog files (model "
         "human/<participant>), so people appear beside models in `inspect view` and "
         "inspect_ai.analysis.samples_df.",
         "benchlab.tui.commands.models:export_cmd"),
    Card("models import", "Import an inspect_ai log or an lm-evaluation-harness --log_samples file as TASK's model "
         "results.",
         "benchlab.tui.commands.models:import_cmd"),
    Card("models list", "Model runs and imports under FOLDER with their provenance (model, prompt template, date, "
         "items).",
         "benchlab.tui.commands.models:list_cmd"),
    Card("models run", "Ask a model the items of TASK people saw (a study's or results folder's plans), with the "
         "benchmark's own prompts, through inspect_ai; write the benchmark's results format and an inspect log. "
         "Cached: a rerun asks only what is not answered yet.",
         "benchlab.tui.commands.models:run_cmd"),
    Card("bench models", "8 items on SmolLM2 (llama-cpp-python's server on 127.0.0.1): wall time and requests, the "
         "cached rerun, and `benchlab models import` of a 10,000-sample inspect log (wall and CPU seconds, with the "
         "load).", "benchlab.tui.commands.models_bench:bench_models"),
    Card("bench serve", "Load test of ``benchlab serve`` (sessions of a choice task, by default the first, on its "
         "full data set when present, else its bundled sample): answer -> record latency, start time, CPU and "
         "memory, and a Chromium probe's client_rt_ms error."),
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
    Card("export trials", "One row per participant x trial (or per recorded event, e.g. a curation edit), for R /\n"
         "pandas.", "benchlab.annotations.trial_export:TRIALS"),
    Card("study", "Study files: a lab day's benchmark, options, texts, arms and assignment rule in one folder.",
         kind="group"),
    Card("study init", "Write a commented study file (and its JSON Schema for editors) into a new study folder.",
         "benchlab.annotations.study_commands:INIT"),
    Card("study reconcile", "Reconcile a platform's submissions export (Prolific or MTurk CSV) with the study's "
         "records: a table of categories and a CSV of approve/review decisions."),
    Card("study set-password", "Set the password of the online study's experimenter dashboard (stored as a salted "
         "scrypt hash in the study's private folder; read from the terminal, or the first line of stdin)."),
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
