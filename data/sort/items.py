"""SORT trials with their item identity: what the comparison and the pooled humans of ``score sort`` both read.

An item is (memory condition, configuration, book, excerpt, distance bin); people who answered the same item are
pooled on it and a participant is paired with a model on it. The *memory condition* is STM/LTM with the delay
(``STM``, ``LTM``, ``LTM delay 30 s``): answers under different ones are different measurements and never pooled
or paired. Kept apart from :mod:`benchlab.data.sort.compare` so that scoring does not depend on the comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.errors import BenchlabError
from benchlab.data.file_cache import read_once
from benchlab.data.sort.results import find_results, read_results
from benchlab.data.sort.session_plans import PlannedSession, plans_near
from benchlab.data.sort.whole_book import gap_bin_label


def config_name(le: int, ls: int) -> str:
    """A configuration's column name, ``e{L_E}-s{L_S}``."""
    return f"e{le}-s{ls}"


def memory_label(condition: str, delay_s: float) -> str:
    """``STM`` / ``LTM`` (upper case), with ``delay N s`` when the question was designed to come after a wait.

    The whole-book design needs no mark here: its configuration (``e69607-s20``, the whole book) is its own.
    """
    label = condition.strip().upper()
    if label and delay_s == delay_s and delay_s > 0:
        label += f" delay {delay_s:g} s"
    return label


def memory_conditions(frame: pd.DataFrame) -> list[str]:
    """Each row's memory condition (:func:`memory_label`): STM/LTM and the delay its *session* was designed with.

    A results file holds all of a participant's sessions of one configuration, so the delay is taken per session
    (participant, session, condition), never per file: from the session's saved plan
    (:func:`benchlab.data.sort.session_plans.plans_near`) when it is there, labelled as designed (a 2.5 s plan is
    "delay 2.5 s" whatever the frames measured); without a plan, from the median measured delay of that session's
    real trials to a tenth of a second (``measured_delay_sessions`` lists those).
    """
    return _memory_and_source(frame)[0]


def measured_delay_sessions(frame: pd.DataFrame) -> list[str]:
    """Sessions whose delay label comes from measured times (no saved plan found), for the methods notes."""
    return _memory_and_source(frame)[1]


def _memory_and_source(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    out = [""] * len(frame)
    measured: list[str] = []
    if frame.empty:
        return out, measured
    real = ~frame["practice"].to_numpy(dtype=bool)
    delay = frame["delay_ms"].to_numpy(dtype=float)
    conditions = frame["condition"].astype(str).to_numpy(dtype=object)
    sessions = (frame["session"].astype(str).to_numpy(dtype=object) if "session" in frame.columns
                else np.full(len(frame), "", dtype=object))
    keys = list(zip(frame["source"].astype(str), frame["participant"].astype(str), sessions,
                    [str(c).strip().lower() for c in conditions], strict=True))
    plans: dict[str, dict[tuple[str, str, str], PlannedSession]] = {}
    rows_of: dict[tuple[str, str, str, str], list[int]] = {}
    for i, key in enumerate(keys):
        rows_of.setdefault(key, []).append(i)
    for (source, participant, session, condition), rows in rows_of.items():
        idx = np.asarray(rows)
        if source not in plans:
            plans[source] = plans_near(source)
        planned = plans[source].get((participant, session, condition))
        if planned is not None:
            delay_s = planned.delay_s
        else:
            mine = idx[real[idx]] if real[idx].any() else idx
            chosen = delay[mine]
            delay_s = (round(float(np.nanmedian(chosen)) / 1000.0, 1) if np.isfinite(chosen).any() else np.nan)
            if delay_s == delay_s and delay_s < 1:
                delay_s = 0.0  # a frame or two of showing the question is no designed delay
            elif delay_s == delay_s:
                who = participant or Path(source).name
                measured.append(f"{who} session {session or '?'} ({condition or 'no condition'})")
        for i in rows:
            out[i] = memory_label(str(conditions[i]), delay_s)
    return out, measured


#: The condition a model results file without a ``condition`` column is taken to have when people's files say theirs:
#: the original evaluation's default (``in_context: true``, the excerpt in the prompt).
MODEL_DEFAULT_MEMORY = "STM"


def bin_name(config: str, distance_bin: int, design: str = "excerpt") -> str:
    """``e250-s20 d62`` (a distance bin, right edge) or, for whole-book trials, ``e69607-s20 gap 25k-40k``."""
    if design == "whole-book":
        return f"{config} gap {gap_bin_label(int(distance_bin))}"
    return f"{config} d{distance_bin}"


def read_rows(paths: Sequence[str | Path], on_warning: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Scoring rows plus ``item`` (memory/configuration/book/excerpt/bin), ``memory``, ``config``, ``bin`` and
    ``who`` (see :func:`item_rows`)."""
    files = find_results(paths)
    if not files:
        raise BenchlabError("no results files given")
    # each file validated once per content (data/file_cache.py): a lab's comparison rereads every file on each run
    frames = [read_once("sort-results", f, read_results, on_warning) for f in files]
    return item_rows(pd.concat(frames, ignore_index=True))


def item_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`benchlab.data.sort.results.read_results` without practice, with their item identity.

    ``memory`` is the memory condition (:func:`memory_conditions`: ``STM``, ``LTM delay 30 s`` ...);
    ``config`` is ``e{L_E}-s{L_S}``, prefixed by it when the rows have more than one (``STM e250-s20``). Each
    participant's ``who`` is the participant id; when one id has rows of more than one kind (a person and a pilot,
    or two pilot kinds), the simulated rows get their own ``who`` (``P01 (simulated oracle)``), so they are never
    one row.
    """
    memory, measured = _memory_and_source(frame)
    frame = frame.assign(memory=memory)
    frame = frame[~frame["practice"]].copy()
    frame.attrs["measured_delays"] = measured  # sessions labelled from measured delays (no plan): said in notes
    if frame.empty:
        raise BenchlabError("no scored trials (only practice rows?)")
    if (frame["memory"] != "").any():
        frame.loc[~frame["is_human"] & (frame["memory"] == ""), "memory"] = MODEL_DEFAULT_MEMORY
    several = frame["memory"].nunique() > 1  # one condition for every row: columns keep their plain names
    frame["config"] = [f"{d} {config_name(a, b)}" if d and several else config_name(a, b)
                       for d, a, b in zip(frame["memory"], frame["excerpt_length"], frame["segment_length"],
                                          strict=True)]
    frame["bin"] = [bin_name(c, b, d) for c, b, d in zip(frame["config"], frame["distance_bin"], frame["design"],
                                                          strict=True)]
    frame["item"] = [f"{c}/{bk}/{ex}/{b}" for c, bk, ex, b in zip(frame["config"], frame["book_idx"],
                                                                  frame["excerpt_idx"], frame["distance_bin"],
                                                                  strict=True)]
    frame["who"] = [p if h and p else (m[len("human-"):] if h else m)
                    for p, h, m in zip(frame["participant"], frame["is_human"], frame["model_name"], strict=True)]
    humans = frame["is_human"]
    kinds = frame[humans].groupby("who")["simulated"].nunique()
    mixed = frame["who"].isin(kinds[kinds > 1].index) & humans & (frame["simulated"] != "")
    frame.loc[mixed, "who"] = frame.loc[mixed, "who"] + " (simulated " + frame.loc[mixed, "simulated"] + ")"
    frame["correct"] = frame["correct"].astype(bool)
    return frame
