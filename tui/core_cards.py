"""The core commands' cards (:mod:`benchlab.annotations.cards`): the help of the commands benchlab itself adds,
written once here, and what ``benchlab --help`` and the group pages list of them without building the CLI. The
commands of ``benchlab.tui`` take their help from these cards, those ``benchlab.annotations`` declares from
:mod:`benchlab.annotations.core_cards` (added at the end)."""

from __future__ import annotations

from benchlab.annotations.cards import Card
from benchlab.annotations.core_cards import CARDS as ANNOTATIONS_CARDS

CARDS: tuple[Card, ...] = (
    Card("score", "Score human and model results with the benchmark's own scoring rules.", kind="group"),
    Card("fetch", "Download full benchmark data (checksummed, resumable).", kind="group"),
    Card("compare", "Compare humans with models (tables with CIs and tests) and curators with each other.",
         kind="group"),
    Card("bench", "Speed and memory benchmarks that print figures (for closing notes and methods sections).",
         kind="group"),
    Card("curate", "Curate benchmark annotations in the terminal (edits are undoable, logged and saved safely).",
         kind="created"),
    Card("run", """Run a human (or simulated) session.

Either "benchlab run BENCHMARK [OPTIONS]", or "benchlab run --study DIR --participant P01": the benchmark,
options and the participant's arm come from the study file.""", "benchlab.tui.commands.study_groups:run_group",
         "group"),
    Card("serve", """Serve sessions to participants in a web browser (one private link per participant).

Either "benchlab serve BENCHMARK [OPTIONS]", or "benchlab serve --study DIR [--admin]": one study link for
a crowd recruited on Prolific, SONA or MTurk (see docs/online.md).""", "benchlab.tui.commands.study_groups:serve_group",
         "group"),
    Card("demo", "Open benchlab on the bundled sample (no network, no other data needed).",
         "benchlab.tui.commands.root:demo_entry"),
    Card("plugins", """List the plug-ins: loaded, or broken with the reason.

One row per entry of the groups benchlab.tasks, benchlab.trial_screens and benchlab.tools: its package,
built-in or plug-in, loaded or broken (and the one-line reason).""", "benchlab.tui.commands.plugins:plugins_command"),
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
         "memory, and a Chromium probe's client_rt_ms error.", "benchlab.tui.commands.serve_bench_command:bench_serve"),
    *ANNOTATIONS_CARDS,
)
