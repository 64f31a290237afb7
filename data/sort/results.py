"""SORT results files, ``{L_E}-s{L_S}-{model}_results.csv``, for models and people alike.

The original evaluation writes one CSV per configuration with the dataset columns (minus the segment texts),
``model_name``, ``A_is_first``, ``answer`` (A, B or X for no answer), ``ground_truth`` and ``correct``. Human
sessions write the same columns plus timing and provenance, one row per trial, appended and fsynced before the
next trial shows, so the same reader (and the original ``calc_accuracy``) scores both.

This module holds the format (names, the shared columns, reading for scoring); the human row with its timing
columns and the fsynced log a session appends it to are the session's, in :mod:`benchlab.annotations.sort.human_record`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import pandas as pd

from benchlab.data.errors import BenchlabError

RESULTS_RE = re.compile(r"^(?P<le>\d+)-s(?P<ls>\d+)-(?P<model>.+)_results\.csv$")

#: Dataset columns a results file keeps (the original drops segment_1/segment_2; excerpt_text stays).
DATASET_COLUMNS = [
    "book_idx", "excerpt_idx", "segment_idx", "seg1_pos", "seg2_pos", "distance_bin", "present_seg1_first",
    "excerpt_pos", "excerpt_text", "book_title", "num_words", "segment_length", "excerpt_length",
]
SCORE_COLUMNS = ["model_name", "A_is_first", "answer", "ground_truth", "correct"]
Answer = Literal["A", "B", "X"]


def results_filename(excerpt_length: int, segment_length: int, model_name: str) -> str:
    """``{L_E}-s{L_S}-{model}_results.csv`` (the original's name with our model part, e.g. human-P01)."""
    if not model_name or "/" in model_name or "\\" in model_name or model_name.strip() != model_name:
        raise BenchlabError(f"the model name {model_name!r} cannot be used in a file name")
    return f"{excerpt_length}-s{segment_length}-{model_name}_results.csv"


def human_model_name(participant: str) -> str:
    return f"human-{participant}"


# ---------------------------------------------------------------------------------------------------------------
# Reading results for scoring (models and people).

READ_COLUMNS = ["source", "line", "model_name", "is_human", "participant", "condition", "simulated", "excerpt_length",
                "segment_length", "book_idx", "distance_bin", "answer", "ground_truth", "correct", "practice", "rt_ms",
                "reading_ms", "design"]


def find_results(paths: Iterable[str | Path]) -> list[Path]:
    """Results CSVs named by ``paths`` (files, or folders searched recursively for ``*_results.csv``)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*_results.csv") if f.is_file())
            if not found:
                raise BenchlabError("no *_results.csv files in this folder", p)
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise BenchlabError("no such file or folder", p)
    return out


def _read_csv(p: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(p, keep_default_na=False, dtype=str, index_col=False)
    except FileNotFoundError as exc:
        raise BenchlabError("no such file", p) from exc
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise BenchlabError(f"cannot read this CSV ({str(exc).strip()})", p) from exc


def _ints(frame: pd.DataFrame, p: Path, col: str, fallback: int | None) -> pd.Series:
    """An integer column; ``fallback`` (from the file name) when the column is missing, else an error."""
    if col in frame.columns:
        values = pd.to_numeric(frame[col], errors="coerce")
        if values.isna().any():
            i = int(values.isna().to_numpy().nonzero()[0][0])
            raise BenchlabError(f"field '{col}': not a number: {frame[col].iloc[i]!r}", p, i + 2)
        return values.astype(int)
    if fallback is None:
        raise BenchlabError(f"missing column '{col}' and the file name does not say it "
                            "(expected {L_E}-s{L_S}-{model}_results.csv)", p)
    return pd.Series([fallback] * len(frame), dtype=int)


def _answers(frame: pd.DataFrame, p: Path) -> pd.Series:
    """A, B or X (no answer) per row; anything else is an error naming its line."""
    answer = frame["answer"].str.strip().str.upper().replace({"": "X"})
    bad = ~answer.isin(["A", "B", "X"])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise BenchlabError(f"field 'answer': {frame['answer'].iloc[i]!r} is not A, B or X", p, i + 2)
    return answer


def _ground_truth(frame: pd.DataFrame, p: Path) -> pd.Series:
    """A or B per row, from ``ground_truth``, else ``A_is_first``, else ``present_seg1_first``."""
    if "ground_truth" in frame.columns:
        truth = frame["ground_truth"].str.strip().str.upper()
    elif "A_is_first" in frame.columns:
        truth = frame["A_is_first"].map(lambda v: "A" if str(v).strip() in ("1", "True", "true") else "B")
    elif "present_seg1_first" in frame.columns:
        truth = _ints(frame, p, "present_seg1_first", None).map(lambda v: "A" if v == 1 else "B")
    else:
        raise BenchlabError("no ground truth: needs a ground_truth, A_is_first or present_seg1_first column", p)
    bad = ~truth.isin(["A", "B"])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise BenchlabError(f"field 'ground_truth': {truth.iloc[i]!r} is not A or B", p, i + 2)
    return truth


def _model_names(frame: pd.DataFrame, p: Path, m: re.Match[str] | None) -> pd.Series:
    """``model_name`` when every row has one, else the model of the file name."""
    if "model_name" in frame.columns and (frame["model_name"] != "").all():
        return frame["model_name"]
    if m:
        return pd.Series([m["model"]] * len(frame))
    raise BenchlabError("missing column 'model_name' and the file name does not name the model", p)


def _optional(frame: pd.DataFrame, col: str, default: object) -> pd.Series:
    return frame[col] if col in frame.columns else pd.Series([default] * len(frame))


def _optional_float(frame: pd.DataFrame, col: str) -> pd.Series:
    if col not in frame.columns:
        return pd.Series([float("nan")] * len(frame))
    return pd.to_numeric(frame[col], errors="coerce")


def _designs(frame: pd.DataFrame, p: Path) -> pd.Series:
    """``excerpt`` or ``whole-book`` per row (the optional ``design`` column; files without it are excerpt trials)."""
    design = _optional(frame, "design", "").astype(str).str.strip().replace("", "excerpt")
    bad = ~design.isin(["excerpt", "whole-book"])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise BenchlabError(f"field 'design': {design.iloc[i]!r} is not excerpt or whole-book", p, i + 2)
    return design


def read_results(path: str | Path) -> pd.DataFrame:
    """One results file as a scoring frame (``READ_COLUMNS``); practice rows are kept and flagged.

    ``design`` is ``whole-book`` for the paper's whole-book trials (their ``distance_bin`` is a gap bin), else
    ``excerpt``. ``correct`` is recomputed as answer == ground_truth (files written before the original added the column
    score the same); ground truth comes from ``ground_truth``, else ``A_is_first``, else ``present_seg1_first``.
    """
    p = Path(path)
    frame = _read_csv(p)
    m = RESULTS_RE.match(p.name)
    if "answer" not in frame.columns:
        raise BenchlabError("missing column 'answer' (is this a SORT results file?)", p)
    le = _ints(frame, p, "excerpt_length", int(m["le"]) if m else None)
    ls = _ints(frame, p, "segment_length", int(m["ls"]) if m else None)
    answer = _answers(frame, p)
    truth = _ground_truth(frame, p)
    model = _model_names(frame, p, m)
    practice = (frame["practice"].isin(["True", "true", "1"]) if "practice" in frame.columns
                else pd.Series([False] * len(frame)))
    return pd.DataFrame({
        "source": str(p), "line": pd.Series(range(2, len(frame) + 2)), "model_name": model.astype(str),
        "is_human": model.astype(str).str.startswith("human-"),
        "participant": _optional(frame, "participant", "").astype(str),
        "condition": _optional(frame, "condition", "").astype(str),
        "simulated": _optional(frame, "simulated", "").astype(str),
        "excerpt_length": le, "segment_length": ls,
        "book_idx": _ints(frame, p, "book_idx", 0), "distance_bin": _ints(frame, p, "distance_bin", 0),
        "answer": answer, "ground_truth": truth, "correct": answer == truth, "practice": practice.astype(bool),
        "rt_ms": _optional_float(frame, "rt_ms"), "reading_ms": _optional_float(frame, "reading_ms"),
        "design": _designs(frame, p),
    })[READ_COLUMNS]


def read_many(paths: Iterable[str | Path]) -> pd.DataFrame:
    files = find_results(paths)
    if not files:
        raise BenchlabError("no results files given")
    return pd.concat([read_results(f) for f in files], ignore_index=True)
