"""SORT results files' names and shared columns, apart from the pandas reader in :mod:`benchlab.data.sort.results`.

A session writing a results file needs only these; keeping them here lets the SORT session (and the trial screen
that ``benchlab --help`` loads to report broken trial-screen plug-ins) start without pandas.
"""

from __future__ import annotations

import re
from typing import Literal

from benchlab.data.errors import BenchlabError

RESULTS_RE = re.compile(r"^(?P<le>\d+)-s(?P<ls>\d+)-(?P<model>.+)_results\.csv$")

#: Dataset columns a results file keeps (the original drops segment_1/segment_2; excerpt_text stays).
DATASET_COLUMNS = [
    "book_idx", "excerpt_idx", "segment_idx", "seg1_pos", "seg2_pos", "distance_bin", "present_seg1_first",
    "excerpt_pos", "excerpt_text", "book_title", "num_words", "segment_length", "excerpt_length",
]
SCORE_COLUMNS = ["model_name", "A_is_first", "answer", "ground_truth", "correct"]
Answer = Literal["A", "B", "X"]
ANSWERS = ("A", "B", "X")


def answer_of(text: str | None) -> str | None:
    """An ``answer`` cell as the scorer reads it (trimmed, upper case, empty = X for no answer); ``None`` when it is
    not A, B or X, so every reader refuses the same cells."""
    answer = (text or "").strip().upper() or "X"
    return answer if answer in ANSWERS else None


def results_filename(excerpt_length: int, segment_length: int, model_name: str) -> str:
    """``{L_E}-s{L_S}-{model}_results.csv`` (the original's name with our model part, e.g. human-P01)."""
    if not model_name or "/" in model_name or "\\" in model_name or model_name.strip() != model_name:
        raise BenchlabError(f"the model name {model_name!r} cannot be used in a file name")
    return f"{excerpt_length}-s{segment_length}-{model_name}_results.csv"


def human_model_name(participant: str) -> str:
    return f"human-{participant}"
