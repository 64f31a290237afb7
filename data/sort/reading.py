"""SORT's reading phase per person and pooled: reading time, seen share and the delays as they happened.

An STM trial's answer depends on how the excerpt was read: how long (``reading_ms``), how much of it was on screen
(``seen_share``, the furthest line shown / all lines) and how long after reading the question came (``delay_ms``,
the designed delay plus the time to show the question). A reviewer asks for these beside the accuracy (was the
text read? was the delay the one designed?), so ``compare sort`` prints them (section ``reading``), the export
carries them per trial, and the report calls :func:`reading_tables` (or :func:`reading_summary` for the numbers).
``compare`` prints the table when any person's trial recorded one of them (:func:`recorded_reading`).

One row per (person, memory condition), then one pooled row per memory condition over the people pooled in the
comparison ("all people"; simulated pilots only when they are pooled). Practice trials are left out, as in the
scores. LTM trials have no reading phase: their reading columns are empty, their delay is whatever was measured.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchlab.data.tables import Table

POOLED_LABEL = "all people"
#: a trial counts as fully seen from this share on (the last line shown)
FULL = 0.999
NUMERIC_COLUMNS = ["who", "memory", "trials", "reading_trials", "reading_ms_median", "reading_ms_q1",
                   "reading_ms_q3", "seen_share_median", "seen_share_min", "fully_seen", "delay_ms_median",
                   "delay_ms_min", "delay_ms_max"]


def recorded_reading(humans: pd.DataFrame) -> bool:
    """Whether any person's trial has a reading time, seen share or delay (files of models or of older sessions
    have none: no table of blanks then)."""
    cols = [c for c in ("reading_ms", "seen_share", "delay_ms") if c in humans.columns]
    return bool(cols) and bool(humans[cols].apply(pd.to_numeric, errors="coerce").notna().to_numpy().any())


def _quantile(values: np.ndarray, q: float) -> float:
    return float(np.quantile(values, q)) if len(values) else float("nan")


def _summary(who: str, memory: str, rows: pd.DataFrame) -> dict[str, object]:
    reading = rows["reading_ms"].to_numpy(dtype=float)
    reading = reading[np.isfinite(reading)]
    seen = rows["seen_share"].to_numpy(dtype=float) if "seen_share" in rows else np.array([])
    seen = seen[np.isfinite(seen)]
    delay = rows["delay_ms"].to_numpy(dtype=float)
    delay = delay[np.isfinite(delay)]
    return {
        "who": who, "memory": memory, "trials": len(rows), "reading_trials": len(reading),
        "reading_ms_median": _quantile(reading, 0.5), "reading_ms_q1": _quantile(reading, 0.25),
        "reading_ms_q3": _quantile(reading, 0.75),
        "seen_share_median": _quantile(seen, 0.5), "seen_share_min": float(seen.min()) if len(seen) else float("nan"),
        "fully_seen": int((seen >= FULL).sum()) if len(seen) else None,
        "delay_ms_median": _quantile(delay, 0.5), "delay_ms_min": float(delay.min()) if len(delay) else float("nan"),
        "delay_ms_max": float(delay.max()) if len(delay) else float("nan"),
    }


def reading_summary(humans: pd.DataFrame, pooled: set[str] | None = None) -> pd.DataFrame:
    """The numbers, one row per (person, memory condition) and one pooled row per memory condition.

    ``humans``: scored (non-practice) trials of people with ``who``, ``memory``, ``reading_ms``, ``delay_ms`` and
    optionally ``seen_share`` (the rows :func:`benchlab.data.sort.items.read_rows` gives for people); ``pooled``:
    who is in the pooled row (default: everyone without a ``simulated`` mark).
    """
    if humans.empty:
        return pd.DataFrame(columns=NUMERIC_COLUMNS)
    frame = humans.assign(memory=humans["memory"].astype(str).replace("", "STM"))
    if pooled is None:
        marks = frame["simulated"].astype(str) if "simulated" in frame else pd.Series("", index=frame.index)
        pooled = set(frame.loc[marks == "", "who"])
    rows = [_summary(str(who), str(mem), part)
            for (who, mem), part in frame.groupby(["who", "memory"], sort=True)]
    for mem, part in frame[frame["who"].isin(pooled)].groupby("memory", sort=True):
        rows.append(_summary(POOLED_LABEL, str(mem), part))
    return pd.DataFrame(rows, columns=NUMERIC_COLUMNS)


def _ms(x: object) -> str:
    v = float(x)  # type: ignore[arg-type]
    return "" if v != v else f"{v / 1000:.1f} s"


def _share(x: object) -> str:
    v = float(x)  # type: ignore[arg-type]
    return "" if v != v else f"{100 * v:.0f}%"


def _formatted(summary: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in summary.to_dict("records"):
        reading = (f"{_ms(r['reading_ms_median'])} [{_ms(r['reading_ms_q1'])}, {_ms(r['reading_ms_q3'])}]"
                   if r["reading_trials"] else "")
        seen = (f"{_share(r['seen_share_median'])} (min {_share(r['seen_share_min'])}, fully seen "
                f"{r['fully_seen']} of {r['trials']})" if r["fully_seen"] is not None else "")
        delay = (f"{_ms(r['delay_ms_median'])} [{_ms(r['delay_ms_min'])}, {_ms(r['delay_ms_max'])}]"
                 if r["delay_ms_median"] == r["delay_ms_median"] else "")
        rows.append({"who": r["who"], "memory": r["memory"], "trials": r["trials"],
                     "reading time median [IQR]": reading, "seen share median": seen,
                     "delay median [min, max]": delay})
    frame = pd.DataFrame(rows, columns=["who", "memory", "trials", "reading time median [IQR]",
                                        "seen share median", "delay median [min, max]"])
    return frame.set_index(["who", "memory"])


TITLE = "SORT: reading time, seen share and delay per person and pooled (scored trials)"


def reading_tables(humans: pd.DataFrame, pooled: set[str] | None = None) -> tuple[Table, Table]:
    """(formatted, numeric) tables of :func:`reading_summary`: the pair ``compare``'s extra tables take (the
    formatted one for the terminal, markdown and LaTeX; the numeric one for csv/json and the report's numbers)."""
    summary = reading_summary(humans, pooled)
    numeric = summary.set_index(["who", "memory"]) if not summary.empty else summary
    return (Table(TITLE, _formatted(summary), empty_text="(no trials by people)"),
            Table(TITLE, numeric, empty_text="(no trials by people)"))
