"""WorldSense's tables from tuple scores: cells collapsed with equal weight (sizes, then problems, pooled moments)
and formatted as the original's ``"value (CI)"`` strings in the published order."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from benchlab.data.worldsense.rules import (
    MODEL_ORDER,
    PROBLEM_ORDER,
    PROMPTING_ORDER,
)

if TYPE_CHECKING:  # pandas is imported only once the data is reduced to cells (see cellstats.py)
    import pandas as pd


CELL_KEYS = ["prompting", "modelname", "problemname", "problemsize"]
CELL_STATS = ["mean", "sem", "count", "var", "std"]


def stats_by_group(tuples: pd.DataFrame, by: list[str], value: str, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean, sem, count (and var, std, conf95) of ``value`` per group, sizes then problems rebalanced (spec 7)."""
    # deferred: pandas loads only when `stats_by_group` runs (data.worldsense.scoring loads this module without it)
    import pandas as pd

    rebalance = [f for f in ("problemsize", "problemname") if f not in by]
    keys = by + rebalance
    stats: pd.DataFrame
    if cells is not None and sorted(keys) == sorted(str(n) for n in cells.index.names):
        stats = cells[value].reorder_levels(keys).sort_index()  # type: ignore[arg-type,assignment]
    else:
        stats = tuples.groupby(keys, observed=True)[value].aggregate(CELL_STATS)  # type: ignore[arg-type]
    for name in rebalance:
        keys = [k for k in keys if k != name]
        stats = _collapse(keys, stats)
    stats["conf95"] = 1.96 * stats["sem"]
    plain = stats.reset_index()
    for name in by:
        if isinstance(plain[name].dtype, pd.CategoricalDtype):
            plain[name] = plain[name].astype(object)
    return plain.set_index(by)


def _collapse(by: list[str], stats: pd.DataFrame) -> pd.DataFrame:
    """Average the cells of each coarser group with equal weight (count = smallest cell count), pooling moments."""
    st = stats.reset_index()
    st["mean_sq"] = st["var"] + st["mean"].pow(2)
    st["count"] = st.groupby(by, observed=True)["count"].transform("min").astype(float)
    st["sum"] = st["mean"] * st["count"]
    st["sum_sq"] = st["mean_sq"] * st["count"]
    out = st.groupby(by, observed=True)[["count", "sum", "sum_sq"]].sum()
    counts = out["count"].astype(float)
    out["mean"] = out["sum"] / counts
    out["mean_sq"] = out["sum_sq"] / counts
    out["var"] = out["mean_sq"] - out["mean"].pow(2)
    out["std"] = out["var"].pow(0.5)
    out["sem"] = out["std"] / counts.pow(0.5)
    return out


# --------------------------------------------------------------------------------------------- formatting


def format_cell(mean: float, sem: float, scale: float = 100.0) -> str:
    """``"value (CI)"``: 1 decimal for percentages (scale 100), 2 for bias (scale 1); plain Python formatting."""
    value = scale * mean
    conf = scale * 1.96 * sem
    if scale == 100:
        return f"{value:.1f} ({conf:.1f})"
    if scale == 1:
        return f"{value:.2f} ({conf:.2f})"
    raise ValueError(f"unsupported scale {scale!r} (use 100 for accuracy or 1 for bias)")


_ORDER = {"problemname": PROBLEM_ORDER, "modelname": MODEL_ORDER, "prompting": PROMPTING_ORDER}


def _ordered(values: Iterable[object], level: str) -> list[object]:
    """Known names in the published order, then the others in order of appearance (as the original)."""
    seen = list(dict.fromkeys(values))
    prefs = _ORDER.get(level, ())
    known = [v for v in prefs if v in seen]
    return known + [v for v in seen if v not in prefs]


def pivot_cells(stats: pd.DataFrame, index: list[str], columns: str, scale: float) -> pd.DataFrame:
    """Formatted ``"value (CI)"`` cells, rows ``index`` x columns ``columns``, in the published order."""
    # deferred: pandas loads only when `pivot_cells` runs (data.worldsense.scoring loads this module without it)
    import pandas as pd

    st = stats.reset_index()
    st["cell"] = [format_cell(m, s, scale) for m, s in zip(st["mean"], st["sem"], strict=True)]
    column_order = _ordered(st[columns], columns)
    level_orders = [_ordered(st[name], name) for name in index]
    rank = [{v: i for i, v in enumerate(order)} for order in level_orders]
    row_keys = sorted(
        dict.fromkeys(tuple(row) for row in st[index].itertuples(index=False, name=None)),
        key=lambda key: tuple(rank[i][v] for i, v in enumerate(key)),
    )
    cells = {(tuple(r[:-2]), r[-2]): r[-1] for r in st[[*index, columns, "cell"]].itertuples(index=False, name=None)}
    data = [[cells.get((key, col), np.nan) for col in column_order] for key in row_keys]
    if len(index) == 1:
        row_index = pd.Index([k[0] for k in row_keys], name=index[0])
    else:
        row_index = pd.MultiIndex.from_tuples(row_keys, names=index)
    frame = pd.DataFrame(data, index=row_index, columns=pd.Index(column_order, name=columns), dtype=object)
    return frame
