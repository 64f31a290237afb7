"""SORT results files, ``{L_E}-s{L_S}-{model}_results.csv``, for models and people alike.

The original evaluation writes one CSV per configuration with the dataset columns (minus the segment texts),
``model_name``, ``A_is_first``, ``answer`` (A, B or X for no answer), ``ground_truth`` and ``correct``. Human
sessions write the same columns plus timing and provenance, one row per trial, appended and fsynced before the
next trial shows, so the same reader (and the original ``calc_accuracy``) scores both.

This module reads the format for scoring with pandas; the file names and the shared columns are in
:mod:`benchlab.data.sort.results_format` (a session needs only those); the human row with its timing
columns and the fsynced log a session appends it to are the session's, in :mod:`benchlab.annotations.sort.human_record`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import pairwise
from pathlib import Path

import pandas as pd

from benchlab.data.errors import BenchlabError
from benchlab.data.record_log import first_records, torn_record_warning
from benchlab.data.sort.distance_bins import distance_bin_edges
from benchlab.data.sort.results_format import ANSWERS, RESULTS_RE
from benchlab.data.sort.results_format import human_model_name as human_model_name
from benchlab.data.sort.results_format import results_filename as results_filename
from benchlab.data.text_io import find_named_files, read_csv_records

# ---------------------------------------------------------------------------------------------------------------
# Reading results for scoring (models and people).

READ_COLUMNS = ["source", "line", "model_name", "is_human", "participant", "condition", "simulated", "excerpt_length",
                "segment_length", "book_idx", "distance_bin", "answer", "ground_truth", "correct", "practice", "rt_ms",
                "reading_ms", "design", "delay_ms", "session", "seg1_pos", "seg2_pos", "seen_share"]


def find_results(paths: Iterable[str | Path]) -> list[Path]:
    """Results CSVs named by ``paths`` (files, or folders searched recursively for ``*_results.csv``)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = find_named_files(p, lambda name: name.endswith("_results.csv"))  # FIFOs, folders: errors
            if not found:
                raise BenchlabError("no *_results.csv files in this folder", p)
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise BenchlabError("no such file or folder", p)
    return out


#: The columns scoring reads (the long texts of a results file, excerpt and prompt, are never held).
SCORING_COLUMNS = frozenset({
    "answer", "ground_truth", "A_is_first", "present_seg1_first", "model_name", "participant", "condition",
    "simulated", "practice", "excerpt_length", "segment_length", "book_idx", "excerpt_idx", "distance_bin",
    "seg1_pos", "seg2_pos", "rt_ms", "reading_ms", "design", "delay_ms", "session", "seen_share",
})


def read_table(p: Path, on_warning: Callable[[str], None] | None = None) -> tuple[pd.DataFrame, list[int]]:
    """A results CSV's scoring columns as strings, with the line each row starts on; a cut last row is left out
    with a warning.

    Read strictly (UTF-8, closed quotes, every row as wide as the header): anything malformed before the last
    row is an error naming its line. A human file's rows always end with a newline, so its last row without
    one is torn even when it looks complete (as ``--resume`` would cut it).
    """
    records = read_csv_records(p, rows_end_with_newline=lambda header: "trial_id" in header,
                               expected="a SORT results file", keep=SCORING_COLUMNS.__contains__)
    if records.torn_line is not None and on_warning is not None:
        on_warning(torn_record_warning(p, records.torn_line))
    header = records.columns
    if not records.header:  # killed while writing the header with the first row: nothing recorded yet
        header = sorted(SCORING_COLUMNS)
    if len(set(header)) != len(header):
        dup = next(c for c in header if header.count(c) > 1)
        raise BenchlabError(f"the column {dup!r} appears twice in the header", p, 1)
    frame = pd.DataFrame([row for _line, row in records.rows], columns=header, dtype=str)
    return frame, [line for line, _row in records.rows]


def _bad_line(mask: pd.Series, lines: list[int]) -> tuple[int, int]:
    """(row position, file line) of the first row flagged in ``mask``."""
    i = int(mask.to_numpy().nonzero()[0][0])
    return i, lines[i]


def _ints(frame: pd.DataFrame, p: Path, lines: list[int], col: str, fallback: int | None) -> pd.Series:
    """An integer column; ``fallback`` (from the file name) when the column is missing, else an error."""
    if col in frame.columns:
        values = pd.to_numeric(frame[col], errors="coerce")
        if values.isna().any():
            i, line = _bad_line(values.isna(), lines)
            raise BenchlabError(f"field '{col}': not a number: {frame[col].iloc[i]!r}", p, line)
        return values.astype(int)
    if fallback is None:
        raise BenchlabError(f"missing column '{col}' and the file name does not say it "
                            "(expected {L_E}-s{L_S}-{model}_results.csv)", p, 1)
    return pd.Series([fallback] * len(frame), dtype=int)


def _design(frame: pd.DataFrame, p: Path, lines: list[int], col: str, why: str) -> pd.Series:
    """A column that places a trial in the design (book, excerpt): without it the trial cannot be scored."""
    if col not in frame.columns:
        raise BenchlabError(f"missing column '{col}' ({why})", p, 1)
    return _ints(frame, p, lines, col, None)


def _distance_bins(frame: pd.DataFrame, p: Path, lines: list[int], le: pd.Series, ls: pd.Series,
                   design: pd.Series, on_warning: Callable[[str], None] | None) -> pd.Series:
    """``distance_bin``, else derived from the segment positions with the design's bin edges.

    Excerpt trials (spec 3.2 and 8): the right edge of the published interval strictly holding
    ``seg2_pos - seg1_pos``. Whole-book trials: the right edge of the gap bin ``[lo, hi)`` holding the words
    between the segments, ``seg2_pos - seg1_pos - segment_length``. So a file without the column but with both
    positions loses nothing; without either it cannot be grouped by distance.
    """
    if "distance_bin" in frame.columns:
        return _ints(frame, p, lines, "distance_bin", None)
    if "seg1_pos" not in frame.columns or "seg2_pos" not in frame.columns:
        raise BenchlabError("missing column 'distance_bin' (the trials cannot be grouped by distance; it can only be "
                            "derived from seg1_pos and seg2_pos, which are missing too)", p, 1)
    # deferred: scipy loads only when `_distance_bins` runs (annotations.sort.human_record loads this module without it)
    from benchlab.data.sort.whole_book import GAP_EDGES, WHOLE_BOOK

    distance = (_ints(frame, p, lines, "seg2_pos", None) - _ints(frame, p, lines, "seg1_pos", None)).abs()
    bins = []
    for i, (d, e, s, kind) in enumerate(zip(distance.tolist(), le.tolist(), ls.tolist(), design.tolist(),
                                            strict=True)):
        if kind == WHOLE_BOOK:
            gap = int(d) - int(s)
            right = next((hi for lo, hi in pairwise(GAP_EDGES) if lo <= gap < hi), None)
            what = f"the gap {gap} is in no whole-book gap bin (edges {list(GAP_EDGES)})"
        else:
            edges = distance_bin_edges(int(e), int(s))
            right = next((hi for lo, hi in pairwise(edges) if lo < d < hi), None)
            what = f"the segment distance {d} is in no distance bin of e{e}/s{s} (edges {edges})"
        if right is None:
            raise BenchlabError(f"no 'distance_bin' column, and {what}; add the column", p, lines[i])
        bins.append(right)
    if on_warning is not None and len(frame):
        on_warning(f"{p}: no 'distance_bin' column; derived from seg2_pos - seg1_pos with the published bin edges")
    return pd.Series(bins, dtype=int)


def _answers(frame: pd.DataFrame, p: Path, lines: list[int]) -> pd.Series:
    """A, B or X (no answer) per row; anything else is an error naming its line."""
    answer = frame["answer"].str.strip().str.upper().replace({"": "X"})
    bad = ~answer.isin(ANSWERS)
    if bad.any():
        i, line = _bad_line(bad, lines)
        raise BenchlabError(f"field 'answer': {frame['answer'].iloc[i]!r} is not A, B or X", p, line)
    return answer


def _ground_truth(frame: pd.DataFrame, p: Path, lines: list[int]) -> pd.Series:
    """A or B per row, from ``ground_truth``, else ``A_is_first``, else ``present_seg1_first``."""
    if "ground_truth" in frame.columns:
        truth = frame["ground_truth"].str.strip().str.upper()
    elif "A_is_first" in frame.columns:
        truth = frame["A_is_first"].map(lambda v: "A" if str(v).strip() in ("1", "True", "true") else "B")
    elif "present_seg1_first" in frame.columns:
        truth = _ints(frame, p, lines, "present_seg1_first", None).map(lambda v: "A" if v == 1 else "B")
    else:
        raise BenchlabError("no ground truth: needs a ground_truth, A_is_first or present_seg1_first column", p, 1)
    bad = ~truth.isin(["A", "B"])
    if bad.any():
        i, line = _bad_line(bad, lines)
        raise BenchlabError(f"field 'ground_truth': {truth.iloc[i]!r} is not A or B", p, line)
    return truth


def _model_names(frame: pd.DataFrame, p: Path, m: re.Match[str] | None) -> pd.Series:
    """``model_name`` when every row has one, else the model of the file name."""
    if "model_name" in frame.columns and (frame["model_name"] != "").all():
        return frame["model_name"]
    if m:
        return pd.Series([m["model"]] * len(frame))
    raise BenchlabError("missing column 'model_name' and the file name does not name the model", p, 1)


def _optional(frame: pd.DataFrame, col: str, default: object) -> pd.Series:
    return frame[col] if col in frame.columns else pd.Series([default] * len(frame))


def _optional_float(frame: pd.DataFrame, col: str) -> pd.Series:
    if col not in frame.columns:
        return pd.Series([float("nan")] * len(frame))
    return pd.to_numeric(frame[col], errors="coerce")


def _designs(frame: pd.DataFrame, p: Path, lines: list[int]) -> pd.Series:
    """``excerpt`` or ``whole-book`` per row (the optional ``design`` column; files without it are excerpt trials)."""
    design = _optional(frame, "design", "").astype(str).str.strip().replace("", "excerpt")
    bad = ~design.isin(["excerpt", "whole-book"])
    if bad.any():
        i, line = _bad_line(bad, lines)
        raise BenchlabError(f"field 'design': {design.iloc[i]!r} is not excerpt or whole-book", p, line)
    return design


def read_results(path: str | Path, on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """One results file as a scoring frame (``READ_COLUMNS`` plus ``excerpt_idx``); practice rows kept and flagged.

    ``design`` is ``whole-book`` for the paper's whole-book trials (their ``distance_bin`` is a gap bin), else
    ``excerpt``. ``correct`` is recomputed as answer == ground_truth (files written before the original added the column
    score the same); ground truth comes from ``ground_truth``, else ``A_is_first``, else ``present_seg1_first``.
    As WorldSense's scorer (through :func:`benchlab.data.record_log.first_records`): a trial answered again in
    the same file (same model or participant, condition, configuration, book, excerpt and bin) counts once,
    with its first answer, and a warning; a last row cut mid-write is left out with a warning naming its line.
    """
    p = Path(path)
    frame, lines = read_table(p, on_warning)
    m = RESULTS_RE.fullmatch(p.name)
    if "answer" not in frame.columns:
        raise BenchlabError("missing column 'answer' (is this a SORT results file?)", p, 1)
    le = _ints(frame, p, lines, "excerpt_length", int(m["le"]) if m else None)
    ls = _ints(frame, p, lines, "segment_length", int(m["ls"]) if m else None)
    book = _design(frame, p, lines, "book_idx", "the book of each trial")
    excerpt = _design(frame, p, lines, "excerpt_idx", "the excerpt of each trial")
    design = _designs(frame, p, lines)
    distance_bin = _distance_bins(frame, p, lines, le, ls, design, on_warning)
    answer = _answers(frame, p, lines)
    truth = _ground_truth(frame, p, lines)
    model = _model_names(frame, p, m)
    practice = (frame["practice"].isin(["True", "true", "1"]) if "practice" in frame.columns
                else pd.Series([False] * len(frame)))
    out = pd.DataFrame({
        "source": str(p), "line": pd.Series(lines, dtype=int), "model_name": model.astype(str),
        "is_human": model.astype(str).str.startswith("human-"),
        "participant": _optional(frame, "participant", "").astype(str),
        "condition": _optional(frame, "condition", "").astype(str),
        "simulated": _optional(frame, "simulated", "").astype(str),
        "excerpt_length": le, "segment_length": ls,
        "book_idx": book, "distance_bin": distance_bin,
        "answer": answer, "ground_truth": truth, "correct": answer == truth, "practice": practice.astype(bool),
        "rt_ms": _optional_float(frame, "rt_ms"), "reading_ms": _optional_float(frame, "reading_ms"),
        "design": design, "delay_ms": _optional_float(frame, "delay_ms"), "excerpt_idx": excerpt,
        "session": _optional(frame, "session", "").astype(str),
        "seg1_pos": _optional_float(frame, "seg1_pos"), "seg2_pos": _optional_float(frame, "seg2_pos"),
        "seen_share": _optional_float(frame, "seen_share"),
    })[[*READ_COLUMNS, "excerpt_idx"]]
    labels = [f"e{a}-s{b}/{bk}/{x}/{d}" for a, b, bk, x, d in zip(
        out["excerpt_length"], out["segment_length"], out["book_idx"], out["excerpt_idx"], out["distance_bin"],
        strict=True)]
    ids = [f"{who}\0{cond}\0{pr}\0{label}" for who, cond, pr, label in zip(
        out["model_name"] + "\0" + out["participant"], out["condition"], out["practice"], labels, strict=True)]
    keep = first_records(ids, lines, p, on_warning, labels=labels)
    if not all(keep):
        out = out[keep].reset_index(drop=True)
    return out


def read_many(paths: Iterable[str | Path], on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    files = find_results(paths)
    if not files:
        raise BenchlabError("no results files given")
    return pd.concat([read_results(f, on_warning) for f in files], ignore_index=True)
