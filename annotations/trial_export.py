"""``benchlab export trials worldsense|sort|fastbook``: what people produced, one tidy row per participant x trial
(or per curation edit), for mixed-effects models in R or pandas.

The comparison tables aggregate; a reviewer who wants ``glmer(correct ~ condition + (1|participant) + (1|item))``
needs the trials themselves, with the same item identity, condition, response, correctness and timing the tables
were computed from, and the provenance (session, block, practice, simulated pilot, flags) to filter on. Every
benchmark gives the same leading columns (:data:`COMMON_COLUMNS`), then its own design variables; the columns are
documented once here and shown in ``--help``. Rows are read from the files sessions write (nothing is recomputed
from a cache), so the row count is the count of trials on disk.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from benchlab.annotations.command_output import err
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command, ToolGroup
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    import pandas as pd

EXPORT = ToolGroup("export", "Tidy exports for analysis in R or pandas (one row per participant x trial).")

Benchmark = Literal["worldsense", "sort", "fastbook"]

#: Leading columns of every export, in this order.
COMMON_COLUMNS: dict[str, str] = {
    "benchmark": "worldsense, sort or fastbook",
    "participant": "participant id (fastbook: the curator)",
    "session": "session id",
    "trial_index": "position of the trial in the session (fastbook: of the edit in the editor session), from 0",
    "block": "block number (empty when the benchmark has none)",
    "practice": "true for practice trials (left out of the scores; filter them out before modelling)",
    "simulated": "the pilot strategy of a simulated participant (oracle, random, ...); empty for a person",
    "item": "item id shared across participants (WorldSense: the trial Key as text; SORT: configuration/book/"
            "excerpt/distance bin; fastbook: chapter/question/component)",
    "condition": "the condition the tables key by (WorldSense: problem; SORT: memory condition and configuration, "
                 "e.g. 'stm e250-s20'; fastbook: the edit action)",
    "response": "the answer given (WorldSense: option string; SORT: A, B or X; fastbook: the value after the edit, "
                "as JSON)",
    "correct": "whether the answer is right by the benchmark's scoring rule (empty for curation edits)",
    "rt_ms": "response time in ms from the frame-accurate onset; empty when not recorded or the trial was skipped",
    "onset_source": "how the onset was stamped: frame_written (the frame reached the terminal) or after_refresh",
    "timestamp": "wall-clock time of the answer (UTC ISO 8601)",
    "flags": "';'-separated per-trial marks: skipped, interrupted (RT from the fresh onset), reading_timed_out, "
             "duplicate (a repeated answer; the tables keep the first), no_rt",
    "source_file": "the file the row was read from",
}

#: Benchmark-specific columns after the common ones (the benchmark's own module fills them).
OWN_COLUMNS: dict[str, dict[str, str]] = {
    "worldsense": {
        "tuple_id": "the tuple the item belongs to (the scoring unit: the items of one tuple are scored together)",
        "problem": "problem name (Infer.trivial ... Compl.normal)",
        "problem_size": "number of objects (3, 4, 5)",
        "gold": "the correct option",
    },
    "sort": {
        "memory": "stm (excerpt read just before) or ltm (no text shown)",
        "excerpt_length": "excerpt length in words (L_E)",
        "segment_length": "segment length in words (L_S)",
        "distance_bin": "distance bin (its upper edge in words, start to start)",
        "distance_words": "distance between the two segments' starts in words",
        "book_idx": "book id", "excerpt_idx": "excerpt index",
        "present_seg1_first": "1 when the earlier segment was shown as A",
        "ground_truth": "the correct answer (A or B)",
        "reading_ms": "STM: time spent reading the excerpt (ms)",
        "delay_ms": "delay between reading and question (ms)",
        "(more)": "any further column of the results file (e.g. of newer designs), verbatim; excerpt_text is "
                  "left out",
    },
    "fastbook": {
        "action": "the edit (add_context, replace_context, ..., undo, redo, save)",
        "file": "the benchmark file edited", "chapter": "chapter", "question_number": "question",
        "component": "answer component", "field": "the edited field", "before": "value before (JSON)",
        "undoes": "for undo/redo: the action undone or redone",
        "ms_since_previous": "ms since the curator's previous logged change in the same editor session",
        "sha256": "save: hash of the file written", "base_sha256": "hash of the file the edit applies to",
        "backup": "save: where the previous version was kept",
    },
}

#: The module of each benchmark's reader: ``rows(paths, testset) -> list of dicts`` (common + own columns).
READERS: dict[str, str] = {
    "worldsense": "benchlab.annotations.worldsense.trial_export",
    "sort": "benchlab.annotations.sort.trial_export",
    "fastbook": "benchlab.annotations.fastbook.trial_export",
}


def flags_text(*marks: tuple[str, bool]) -> str:
    return ";".join(name for name, on in marks if on)


def session_files(paths: list[Path], patterns: tuple[str, ...]) -> list[Path]:
    """Files matching ``patterns`` under each folder of ``paths`` (and in the ``practice`` folder beside a
    ``results`` folder, where sessions put practice answers), plus the files named directly; sorted, each once."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            roots = [p] + ([p.parent / "practice"] if p.name == "results" else [])
            found += [f for root in roots if root.is_dir() for pat in patterns for f in sorted(root.rglob(pat))
                      if f.is_file()]
        elif p.is_file():
            found.append(p)
        else:
            raise BenchlabError("no such file or folder", p)
    return list(dict.fromkeys(found))


def trials_frame(benchmark: Benchmark, paths: list[Path], testset: Path | None = None) -> pd.DataFrame:
    """Every recorded trial (edit) of ``benchmark`` under ``paths``, common columns first."""
    import pandas as pd

    module = importlib.import_module(READERS[benchmark])
    read: Callable[[list[Path], Path | None], list[dict[str, Any]]] = module.rows
    rows = read(paths, testset)
    own = [c for c in OWN_COLUMNS[benchmark] if c != "(more)"]
    extra = list(dict.fromkeys(k for r in rows for k in r if k not in COMMON_COLUMNS and k not in own))
    frame = pd.DataFrame(rows, columns=[*COMMON_COLUMNS, *own, *extra])
    frame["benchmark"] = benchmark
    frame["practice"] = frame["practice"].astype("boolean")
    frame["correct"] = frame["correct"].astype("boolean")
    frame["rt_ms"] = pd.to_numeric(frame["rt_ms"], errors="coerce").astype("Float64")
    for col in ("block", "trial_index"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("Int64")
    for col in frame.columns:
        if frame[col].dtype == object:
            frame[col] = frame[col].map(lambda v: None if v is None else str(v)).astype("string")
    return frame


def write_frame(frame: pd.DataFrame, out: Path | None) -> str | None:
    """CSV on stdout (returned), or a .csv / .parquet file written atomically."""
    from benchlab.data.atomic import atomic_write_bytes, atomic_write_text

    if out is None:
        return frame.to_csv(index=False).removesuffix("\n")
    suffix = out.suffix.lower()
    if not out.parent.is_dir():
        raise BenchlabError("the folder for the export does not exist", out.parent)
    if suffix == ".csv":
        atomic_write_text(out, frame.to_csv(index=False))
    elif suffix == ".parquet":
        import io

        buf = io.BytesIO()
        frame.to_parquet(buf, index=False, engine="pyarrow")
        atomic_write_bytes(out, buf.getvalue())
    else:
        raise BenchlabError("unsupported export format (use .csv or .parquet)", out)
    err(f"{len(frame)} rows written to {out}")
    return None


class ExportTrialsOptions(Options):
    """``benchlab export trials BENCHMARK PATHS``."""

    benchmark: Benchmark = option(label="Benchmark", argument=True, help="worldsense, sort or fastbook.")
    paths: tuple[Path, ...] = option(label="Results or change logs", argument=True,
                                     help="WorldSense: results folders/files (human-* files); SORT: results CSVs or "
                                     "folders; fastbook: benchmark files or their .changes.jsonl logs.")
    testset: Path | None = option(None, label="Test set", short="-t", widget="path",
                                  help="WorldSense: the test set the sessions ran on (gold answers, tuples, "
                                  "problems); required for worldsense.")
    out: Path | None = option(None, label="Output file", short="-o", widget="path", metavar="FILE",
                              help="Write to FILE: .csv or .parquet (default: CSV on stdout).")


def export_trials(opts: ExportTrialsOptions) -> str | None:
    if opts.benchmark == "worldsense" and opts.testset is None:
        raise BenchlabError("export trials worldsense needs the test set (-t/--testset): gold answers and tuples")
    if opts.out is not None and opts.out.suffix.lower() not in (".csv", ".parquet"):
        raise BenchlabError("unsupported export format (use .csv or .parquet)", opts.out)
    frame = trials_frame(opts.benchmark, list(opts.paths), opts.testset)
    if frame.empty:
        raise BenchlabError(f"no {opts.benchmark} trials by people found here", opts.paths[0])
    return write_frame(frame, opts.out)


def _columns_help() -> str:
    """The column documentation, each block kept as written by click (``\\b``)."""
    blocks = ["\b\nColumns (every benchmark):\n" + "\n".join(f"  {n}: {t}" for n, t in COMMON_COLUMNS.items())]
    blocks += [f"\b\nThen, for {bench}:\n" + "\n".join(f"  {n}: {t}" for n, t in cols.items())
               for bench, cols in OWN_COLUMNS.items()]
    return "\n\n".join(blocks)


TRIALS = Command("tool", f"""One row per participant x trial (fastbook: per curation edit), for R / pandas.

Reads the files sessions wrote (WorldSense human-* results, SORT human CSVs, fastbook change logs); CSV on stdout
or --out FILE (.csv, .parquet). Example:

    benchlab export trials sort lab/out/results --out trials.parquet

{_columns_help()}""", ExportTrialsOptions, export_trials, name="trials", tool=EXPORT)

COMMANDS: tuple[Command, ...] = (TRIALS,)
