"""``benchlab export trials BENCHMARK``: what people produced, one tidy row per participant x trial (or per recorded
event, such as a curation edit), for mixed-effects models in R or pandas.

The comparison tables aggregate; a reviewer who wants ``glmer(correct ~ condition + (1|participant) + (1|item))``
needs the trials themselves, with the same item identity, condition, response, correctness and timing the tables
were computed from, and the provenance (session, block, practice, simulated pilot, flags) to filter on. Every
task gives the same leading columns (:data:`COMMON_COLUMNS`), then its own design variables. A task offers the
export by declaring :class:`~benchlab.annotations.task.ExportsTrials` (its rows and column notes, shown in
``--help``); this command names no task. Rows are read from the files sessions write (nothing is recomputed from a
cache), so the row count is the count of trials on disk.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_output import err
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.options import Options, option
from benchlab.annotations.registry import registry
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import Command, ExportsTrials, ToolGroup, TrialRows
from benchlab.data.atomic import atomic_write_bytes, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.output_paths import check_output_path
from benchlab.data.tidy_types import csv_ready, typed_frame

if TYPE_CHECKING:
    import pandas as pd

EXPORT = ToolGroup("export", help_of(CARDS, "export"))

#: Leading columns of every export, in this order (how a task fills some of them: its ``shared_notes``).
COMMON_COLUMNS: dict[str, str] = {
    "benchmark": "the task's name (BENCHMARK)",
    "participant": "participant id",
    "session": "session id",
    "trial_index": "position of the trial in the session, from 0",
    "block": "block number (empty when the task has none)",
    "practice": "TRUE for practice trials (left out of the scores; filter them out before modelling)",
    "simulated": "the pilot strategy of a simulated participant (oracle, random, ...); empty for a person",
    "item": "item id shared across participants",
    "condition": "the condition the tables key by",
    "response": "the answer given",
    "correct": "whether the answer is right by the task's scoring rule",
    "rt_ms": "response time in ms from the frame-accurate onset; empty when not recorded or the trial was skipped",
    "onset_source": "how the onset was stamped: frame_written (the frame reached the terminal) or after_refresh",
    "timestamp": "wall-clock time of the answer (UTC ISO 8601)",
    "flags": "';'-separated per-trial marks: skipped, interrupted (RT from the fresh onset), reading_timed_out, "
             "duplicate (a repeated answer; the tables keep the first), no_rt",
    "source_file": "the file the row was read from",
}

#: Common columns that are labels, written as text even when they look numeric (a session "1", an item "17").
TEXT_COLUMNS = ("benchmark", "participant", "session", "simulated", "item", "condition", "response",
                "onset_source", "timestamp", "flags", "source_file")


def exporters() -> dict[str, TrialRows]:
    """Every registered benchmark that offers trial export, by name, in registry order."""
    return {name: b.trial_export for name, b in registry().benchmarks.items() if isinstance(b, ExportsTrials)}


def exporter(name: str) -> TrialRows:
    """The trial export of benchmark ``name`` (a one-line error naming the ones that offer it otherwise)."""
    offered = exporters()
    if name not in offered:
        raise BenchlabError(f"{name!r} offers no trial export (tasks that do: {', '.join(offered) or 'none'})")
    return offered[name]


def own_columns(export: TrialRows) -> list[str]:
    """The task's own columns, in order (a key in parentheses is a note, not a column)."""
    return [c for c in export.columns if not (c.startswith("(") and c.endswith(")"))]


def trials_frame(benchmark: str, paths: list[Path], testset: Path | None = None) -> pd.DataFrame:
    """Every recorded trial (edit) of ``benchmark`` under ``paths``, common columns first."""
    # deferred: pandas loads only when `trials_frame` runs (this module loads with the CLI)
    import pandas as pd

    export = exporter(benchmark)
    rows = export.rows(paths, testset)
    own = own_columns(export)
    extra = list(dict.fromkeys(k for r in rows for k in r if k not in COMMON_COLUMNS and k not in own))
    frame = pd.DataFrame(rows, columns=[*COMMON_COLUMNS, *own, *extra])
    frame["benchmark"] = benchmark
    frame["practice"] = frame["practice"].astype("boolean")
    frame["correct"] = frame["correct"].astype("boolean")
    frame["rt_ms"] = pd.to_numeric(frame["rt_ms"], errors="coerce").astype("Float64")
    for col in ("block", "trial_index"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("Int64")
    # Labels stay text; the task's own text columns too (JSON values, ids); the columns carried verbatim from the
    # results file are typed by their values (numbers, times and true/false for R and Parquet readers).
    own_text = [c for c in own if _all_text([r.get(c) for r in rows])]
    return typed_frame(frame, keep_text=[*TEXT_COLUMNS, *own_text])


def _all_text(values: list[object]) -> bool:
    """Whether a task's own column holds text (at least one value, and every value a string)."""
    present = [v for v in values if v not in (None, "")]
    return bool(present) and all(isinstance(v, str) for v in present)


def write_frame(frame: pd.DataFrame, out: Path | None) -> str | None:
    """CSV on stdout (returned), or a .csv / .parquet file written atomically."""
    if out is None:
        return csv_ready(frame).to_csv(index=False).removesuffix("\n")
    suffix = out.suffix.lower()
    if not out.parent.is_dir():
        raise BenchlabError("the folder for the export does not exist", out.parent)
    if suffix == ".csv":
        atomic_write_text(out, csv_ready(frame).to_csv(index=False))
    elif suffix == ".parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False, engine="pyarrow")
        atomic_write_bytes(out, buf.getvalue())
    else:
        raise BenchlabError("unsupported export format (use .csv or .parquet)", out)
    err(f"{len(frame)} rows written to {out}")
    return None


class ExportTrialsOptions(Options):
    """``benchlab export trials BENCHMARK PATHS``."""

    benchmark: str = option(label="Task", argument=True, help="A task offering trial export (listed below).")
    paths: tuple[Path, ...] = option(label="Results or change logs", argument=True,
                                     help="The files or folders the task's sessions wrote (what each task reads: "
                                     "listed below).")
    testset: Path | None = option(None, label="Test set", short="-t", widget="path",
                                  help="The test set the sessions ran on, for a task whose rows need it (gold "
                                  "answers ...; listed below).")
    out: Path | None = option(None, label="Output file", short="-o", widget="path", metavar="FILE",
                              help="Write to FILE: .csv or .parquet (default: CSV on stdout).")


def planned_dataset(benchmark: str, paths: list[Path]) -> tuple[Path | None, list[BenchlabError]]:
    """The data set the sessions under ``paths`` ran on, as their saved plans record it (the ``sessions/`` folder
    beside a ``results/`` folder, or inside a folder given): one data set for all of them, else ``None``; and the
    errors of plans that could not be read (each naming its file and line, for the message when none is found)."""
    folders: list[Path] = []
    for p in paths:
        base = p.parent if p.is_file() else p
        folders += [base / "sessions", base.parent / "sessions", *base.glob("**/sessions")]
    datasets: set[str] = set()
    damaged: list[BenchlabError] = []
    for folder in dict.fromkeys(f for f in folders if f.is_dir()):
        for plan_path in folder.glob("*.plan.json"):
            try:
                plan = SessionPlan.load(plan_path)
            except BenchlabError as exc:
                damaged.append(exc)
                continue
            if plan.task == benchmark:
                datasets.add(plan.dataset)
    return (Path(datasets.pop()) if len(datasets) == 1 else None), damaged


def export_trials(opts: ExportTrialsOptions) -> str | None:
    export = exporter(opts.benchmark)
    if export.testset_needed is not None and opts.testset is None:
        found, damaged = planned_dataset(opts.benchmark, list(opts.paths))  # the plans record the data set
        if found is None and damaged:  # the plan that would have named it is damaged: say which, and where
            first = damaged[0]
            raise BenchlabError(f"export trials {opts.benchmark} needs the test set (-t/--testset), and this session "
                                f"plan, which would name it, cannot be read: {first.message}", first.path, first.line)
        if found is None:
            raise BenchlabError(f"export trials {opts.benchmark} needs the test set (-t/--testset): "
                                f"{export.testset_needed} (the sessions' plans name none, or several)")
        opts = opts.model_copy(update={"testset": found})
    if opts.out is not None and opts.out.suffix.lower() not in (".csv", ".parquet"):
        raise BenchlabError("unsupported export format (use .csv or .parquet)", opts.out)
    if opts.out is not None:  # before reading anything: never onto an input or into a session's folders
        check_output_path(opts.out, [*opts.paths, *([opts.testset] if opts.testset else [])], what="the export")
    frame = trials_frame(opts.benchmark, list(opts.paths), opts.testset)
    if frame.empty:
        raise BenchlabError(f"no {opts.benchmark} trials by people found here", opts.paths[0])
    return write_frame(mark_exclusions(frame, list(opts.paths)), opts.out)


def mark_exclusions(frame: pd.DataFrame, paths: list[Path]) -> pd.DataFrame:
    """The ``excluded`` column (the declared rules' reasons, empty for people kept) when the results belong to a
    study declaring exclusions: the same people ``compare`` and ``benchlab report`` leave out."""
    # deferred: the exclusion reader loads the session layouts; only export runs it
    from benchlab.annotations.exclusions.applied import exclusions_for

    log = exclusions_for(paths)
    if log is None:
        return frame
    reasons = {p: "; ".join(r) for p, r in log.excluded.items()}
    return frame.assign(excluded=frame["participant"].map(lambda p: reasons.get(str(p), "")).astype("string"))


def _task_help(name: str, export: TrialRows) -> str:
    """One task's block of ``--help``: what it reads, how it fills shared columns, its own columns."""
    needs = f"; -t/--testset required: {export.testset_needed}" if export.testset_needed else ""
    lines = [f"  {n} (shared): {t}" for n, t in export.shared_notes.items()]
    lines += [f"  {n}: {t}" for n, t in export.columns.items()]
    return f"\b\nThen, for {name} (reads {export.inputs}{needs}):\n" + "\n".join(lines)


def _columns_help() -> str:
    """The column documentation, each block kept as written by click (``\\b``)."""
    blocks = ["\b\nColumns (every task):\n" + "\n".join(f"  {n}: {t}" for n, t in COMMON_COLUMNS.items())]
    blocks += [_task_help(name, export) for name, export in exporters().items()]
    return "\n\n".join(blocks)


TRIALS = Command("tool", f"{help_of(CARDS, 'export trials')}\n\n{_columns_help()}", ExportTrialsOptions, export_trials,
                 name="trials", tool=EXPORT)

COMMANDS: tuple[Command, ...] = (TRIALS,)
