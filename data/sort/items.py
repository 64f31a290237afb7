"""SORT trials with their item identity: what the comparison and the pooled humans of ``score sort`` both read.

An item is (configuration, book, excerpt, distance bin); people who answered the same item are pooled on it and
a participant is paired with a model on it. Kept apart from :mod:`benchlab.data.sort.compare` so that scoring
does not depend on the comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.results import find_results, read_results


def config_name(le: int, ls: int) -> str:
    """A configuration's column name, ``e{L_E}-s{L_S}``."""
    return f"e{le}-s{ls}"


def bin_name(config: str, distance_bin: int, design: str = "excerpt") -> str:
    """``e250-s20 d62`` (a distance bin, right edge) or, for whole-book trials, ``e69607-s20 gap 25k-40k``."""
    if design == "whole-book":
        from benchlab.data.sort.whole_book import gap_bin_label

        return f"{config} gap {gap_bin_label(int(distance_bin))}"
    return f"{config} d{distance_bin}"


def read_rows(paths: Sequence[str | Path], on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Scoring rows plus ``item`` (configuration/book/excerpt/bin), ``config``, ``bin`` and ``who``."""
    files = find_results(paths)
    if not files:
        raise BenchlabError("no results files given")
    return item_rows(pd.concat([read_results(f, on_warning) for f in files], ignore_index=True))


def item_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`benchlab.data.sort.results.read_results` without practice, with their item identity."""
    frame = frame[~frame["practice"]].copy()
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    frame["config"] = [config_name(a, b)
                       for a, b in zip(frame["excerpt_length"], frame["segment_length"], strict=True)]
    frame["bin"] = [bin_name(c, b, d) for c, b, d in zip(frame["config"], frame["distance_bin"], frame["design"],
                                                          strict=True)]
    frame["item"] = [f"{c}/{bk}/{ex}/{b}" for c, bk, ex, b in zip(frame["config"], frame["book_idx"],
                                                                  frame["excerpt_idx"], frame["distance_bin"],
                                                                  strict=True)]
    frame["who"] = [p if h and p else (m[len("human-"):] if h else m)
                    for p, h, m in zip(frame["participant"], frame["is_human"], frame["model_name"], strict=True)]
    frame["correct"] = frame["correct"].astype(bool)
    return frame
