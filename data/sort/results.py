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
                "reading_ms"]


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


def read_results(path: str | Path) -> pd.DataFrame:
    """One results file as a scoring frame (``READ_COLUMNS``); practice rows are kept and flagged.

    ``correct`` is recomputed as answer == ground_truth (files written before the original added the column
    score the same); ground truth comes from ``ground_truth``, else ``A_is_first``, else ``present_seg1_first``.
    """
    p = Path(path)
    try:
        frame = pd.read_csv(p, keep_default_na=False, dtype=str, index_col=False)
    except FileNotFoundError as exc:
        raise BenchlabError("no such file", p) from exc
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise BenchlabError(f"cannot read this CSV ({str(exc).strip()})", p) from exc
    m = RESULTS_RE.match(p.name)
    n = len(frame)
    lines = pd.Series(range(2, n + 2))
    if "answer" not in frame.columns:
        raise BenchlabError("missing column 'answer' (is this a SORT results file?)", p)

    def ints(col: str, fallback: int | None) -> pd.Series:
        if col in frame.columns:
            values = pd.to_numeric(frame[col], errors="coerce")
            if values.isna().any():
                i = int(values.isna().to_numpy().nonzero()[0][0])
                raise BenchlabError(f"field '{col}': not a number: {frame[col].iloc[i]!r}", p, i + 2)
            return values.astype(int)
        if fallback is None:
            raise BenchlabError(f"missing column '{col}' and the file name does not say it "
                                "(expected {L_E}-s{L_S}-{model}_results.csv)", p)
        return pd.Series([fallback] * n, dtype=int)

    le = ints("excerpt_length", int(m["le"]) if m else None)
    ls = ints("segment_length", int(m["ls"]) if m else None)
    answer = frame["answer"].str.strip().str.upper().replace({"": "X"})
    bad = ~answer.isin(["A", "B", "X"])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise BenchlabError(f"field 'answer': {frame['answer'].iloc[i]!r} is not A, B or X", p, i + 2)
    if "ground_truth" in frame.columns:
        truth = frame["ground_truth"].str.strip().str.upper()
    elif "A_is_first" in frame.columns:
        truth = frame["A_is_first"].map(lambda v: "A" if str(v).strip() in ("1", "True", "true") else "B")
    elif "present_seg1_first" in frame.columns:
        truth = ints("present_seg1_first", None).map(lambda v: "A" if v == 1 else "B")
    else:
        raise BenchlabError("no ground truth: needs a ground_truth, A_is_first or present_seg1_first column", p)
    bad = ~truth.isin(["A", "B"])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise BenchlabError(f"field 'ground_truth': {truth.iloc[i]!r} is not A or B", p, i + 2)
    if "model_name" in frame.columns and (frame["model_name"] != "").all():
        model = frame["model_name"]
    elif m:
        model = pd.Series([m["model"]] * n)
    else:
        raise BenchlabError("missing column 'model_name' and the file name does not name the model", p)
    practice = (frame["practice"].isin(["True", "true", "1"]) if "practice" in frame.columns
                else pd.Series([False] * n))
    participant = frame["participant"] if "participant" in frame.columns else pd.Series([""] * n)
    condition = frame["condition"] if "condition" in frame.columns else pd.Series([""] * n)
    simulated = frame["simulated"] if "simulated" in frame.columns else pd.Series([""] * n)
    def optional_float(col: str) -> pd.Series:
        if col not in frame.columns:
            return pd.Series([float("nan")] * n)
        return pd.to_numeric(frame[col], errors="coerce")

    return pd.DataFrame({
        "source": str(p), "line": lines, "model_name": model.astype(str),
        "is_human": model.astype(str).str.startswith("human-"), "participant": participant.astype(str),
        "condition": condition.astype(str), "simulated": simulated.astype(str),
        "excerpt_length": le, "segment_length": ls,
        "book_idx": ints("book_idx", 0), "distance_bin": ints("distance_bin", 0),
        "answer": answer, "ground_truth": truth, "correct": answer == truth, "practice": practice.astype(bool),
        "rt_ms": optional_float("rt_ms"), "reading_ms": optional_float("reading_ms"),
    })[READ_COLUMNS]


def read_many(paths: Iterable[str | Path]) -> pd.DataFrame:
    files = find_results(paths)
    if not files:
        raise BenchlabError("no results files given")
    return pd.concat([read_results(f) for f in files], ignore_index=True)
