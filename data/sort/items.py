"""SORT trials with their item identity: what the comparison and the pooled humans of ``score sort`` both read.

An item is (configuration, book, excerpt, distance bin); people who answered the same item are pooled on it and
a participant is paired with a model on it. Kept apart from :mod:`benchlab.data.sort.compare` so that scoring
does not depend on the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
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


def read_rows(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Scoring rows plus ``item`` (configuration/book/excerpt/bin), ``config``, ``bin`` and ``rt_ms``."""
    frames = []
    for file in find_results(paths):
        scored = read_results(file)
        try:
            raw = pd.read_csv(file, keep_default_na=False, dtype=str, index_col=False)
        except (OSError, ValueError, pd.errors.ParserError) as exc:  # read_results would have raised first
            raise BenchlabError(f"cannot read this CSV ({exc})", file) from exc
        n = len(scored)
        excerpt = raw["excerpt_idx"] if "excerpt_idx" in raw.columns else pd.Series([""] * n)
        rt = pd.to_numeric(raw["rt_ms"], errors="coerce") if "rt_ms" in raw.columns else pd.Series([np.nan] * n)
        scored = scored.assign(
            excerpt_idx=excerpt.to_numpy(), rt_ms=rt.to_numpy(dtype=float),
        )
        frames.append(scored)
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[~frame["practice"]].copy()
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    frame["config"] = [config_name(a, b)
                       for a, b in zip(frame["excerpt_length"], frame["segment_length"], strict=True)]
    frame["bin"] = [bin_name(c, b, d) for c, b, d in zip(frame["config"], frame["distance_bin"], frame["design"],
                                                          strict=True)]
    frame["item"] = [f"{c}/{bk}/{ex}/{b}" if ex != "" else ""
                     for c, bk, ex, b in zip(frame["config"], frame["book_idx"], frame["excerpt_idx"],
                                             frame["distance_bin"], strict=True)]
    frame["who"] = [p if h and p else (m[len("human-"):] if h else m)
                    for p, h, m in zip(frame["participant"], frame["is_human"], frame["model_name"], strict=True)]
    frame["correct"] = frame["correct"].astype(bool)
    return frame
