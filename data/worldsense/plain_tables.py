"""WorldSense's printed tables without pandas: the collapse and ``--format table`` text, identical to pandas' own.

Why: on a first run ``import pandas`` and building its frames cost about 0.3 CPU-seconds, as much as everything
but the decompression of the trials file, for tables of a few dozen cells. So ``score worldsense`` (the default
table format) reduces the cell statistics and lays out the text here, in plain Python, and uses pandas only where
this module declines (labels it has not been checked against, see :func:`is_plain_label`).

Bit-identical to :mod:`benchlab.data.worldsense.score_tables` (``stats_by_group`` then ``pivot_cells``) and to
:func:`benchlab.data.tables.render`: the same float operations in the same order (pandas' grouped sum is
Kahan-compensated and skips NaN; ``x ** 2`` is ``x * x``; ``x ** 0.5`` is a square root), and the layout rules of
``DataFrame.to_string`` for string cells under named indexes (``tests/test_worldsense_plain_tables.py`` compares
both on the published sets and on generated ones).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from benchlab.data.worldsense.score_tables import _ordered, format_cell

_NAN = float("nan")


def is_plain_label(value: object) -> bool:
    """Whether pandas prints ``value`` as itself in a table: a non-empty printable ASCII string without outer
    spaces (other labels, e.g. with tabs or non-ASCII letters, go through pandas)."""
    return isinstance(value, str) and value != "" and value.isascii() and value.isprintable() and value == value.strip()


def _kahan_sum(values: Sequence[float]) -> float:
    """pandas' grouped float sum: Kahan-compensated, in row order, NaN skipped (an all-NaN group sums to 0)."""
    total = 0.0
    compensation = 0.0
    for value in values:
        if value != value:
            continue
        y = value - compensation
        t = total + y
        compensation = t - total - y
        if compensation != compensation:
            compensation = 0.0
        total = t
    return total


def _sqrt(value: float) -> float:
    return math.sqrt(value) if value >= 0 else _NAN  # NaN compares False: NaN in, NaN out


Row = tuple[tuple[Any, ...], float, float, float]  # key, count, mean, var


def _collapse(rows: list[Row], drop: int) -> list[Row]:
    """Average, with equal weight, the rows that differ only in key position ``drop`` (``score_tables._collapse``).

    ``rows`` are sorted by key; the result is too, so the sums run in the order pandas' ``groupby`` visits them.
    """
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(row[0][:drop] + row[0][drop + 1:], []).append(row)
    out: list[Row] = []
    for key in sorted(groups):
        members = groups[key]
        count = float(min(r[1] for r in members))
        sums = _kahan_sum([r[2] * count for r in members])
        sums_sq = _kahan_sum([(r[3] + r[2] * r[2]) * count for r in members])
        counts = _kahan_sum([count] * len(members))
        mean = sums / counts
        mean_sq = sums_sq / counts
        out.append((key, counts, mean, mean_sq - mean * mean))
    return out


def collapsed_stats(cells: dict[str, list[Any]], by: list[str], value: str) -> list[tuple[tuple[Any, ...], float,
                                                                                          float]]:
    """``(group, mean, sem)`` per group of ``by``, sorted by group: ``score_tables.stats_by_group`` on the cells of
    :func:`~benchlab.data.worldsense.tuple_scores.tuple_cells` (``value``: ``"acc"`` or ``"bias"``)."""
    rebalance = [f for f in ("problemsize", "problemname") if f not in by]
    keys = by + rebalance
    columns = [cells[k] for k in keys]
    rows: list[Row] = sorted(
        (tuple(c[i] for c in columns), cells["count"][i], cells[f"{value}.mean"][i], cells[f"{value}.var"][i])
        for i in range(len(cells["count"]))
    )
    if not rebalance:
        raise ValueError("nothing to collapse: by already holds problemsize and problemname")
    for name in rebalance:
        rows = _collapse(rows, keys.index(name))
        keys = [k for k in keys if k != name]
    return [(key, mean, _sqrt(var) / _sqrt(count)) for key, count, mean, var in rows]


# --------------------------------------------------------------------------------------------- the text


def pivot_text(title: str, stats: list[tuple[tuple[Any, ...], float, float]], by: list[str], index: list[str],
               column: str, scale: float) -> str | None:
    """The table ``render([Table(title, pivot_cells(...))], "table")`` prints, or ``None`` where a label is not
    plain (the caller then asks pandas)."""
    pos = {name: by.index(name) for name in [*index, column]}
    cells: dict[tuple[tuple[Any, ...], Any], str] = {}
    for key, mean, sem in stats:
        cells[(tuple(key[pos[n]] for n in index), key[pos[column]])] = format_cell(mean, sem, scale)
    column_order = _ordered((key[pos[column]] for key, _, _ in stats), column)
    level_orders = [_ordered((key[pos[n]] for key, _, _ in stats), n) for n in index]
    rank = [{v: i for i, v in enumerate(order)} for order in level_orders]
    row_keys = sorted(dict.fromkeys(k for k, _ in cells), key=lambda k: tuple(rank[i][v] for i, v in enumerate(k)))
    labels = [*index, column, *column_order, *(v for k in row_keys for v in k)]
    if not row_keys or not all(is_plain_label(v) for v in labels):
        return None
    # The row labels: one column per level, the name on top, repeated outer values left blank (sparsified).
    levels: list[list[str]] = [[name] for name in index]
    previous: tuple[Any, ...] | None = None
    for key in row_keys:
        differs = False
        for i, v in enumerate(key):
            differs = differs or previous is None or i == len(key) - 1 or previous[i] != v
            levels[i].append(str(v) if differs else "")
        previous = key
    widths = [max(len(s) for s in level) for level in levels]
    index_lines = [" ".join(level[r].ljust(w) for level, w in zip(levels, widths, strict=True))
                   for r in range(len(row_keys) + 1)]
    index_column = [column, *index_lines]
    # Each value column: header, the (blank) row-name line, then " cell" right-justified to one width.
    value_columns = []
    for col in column_order:
        values = [" " + cells.get((key, col), "NaN") for key in row_keys]
        width = max(len(str(col)), *(len(v) for v in values))
        value_columns.append([str(col).rjust(width), "".rjust(width), *(v.rjust(width) for v in values)])
    all_columns = [index_column, *value_columns]
    widths = [max(len(s) for s in c) + 1 for c in all_columns[:-1]]
    lines = []
    for r in range(len(index_column)):
        parts = [c[r].ljust(w) for c, w in zip(all_columns[:-1], widths, strict=True)]
        lines.append(("".join(parts) + all_columns[-1][r]).rstrip())
    return title + "\n" + "\n".join(lines)


def plain_tables_text(cells: dict[str, list[Any]], titles: tuple[str, str, str]) -> str | None:
    """What ``render(tables.tables(), "table")`` prints for these cells (overall, accuracy and bias titles), or
    ``None`` when a label is not plain."""
    parts = []
    if len(set(cells["problemname"])) > 1:
        by = ["prompting", "modelname"]
        parts.append(pivot_text(titles[0], collapsed_stats(cells, by, "acc"), by, ["modelname"], "prompting", 100.0))
    by = ["prompting", "modelname", "problemname"]
    parts.append(pivot_text(titles[1], collapsed_stats(cells, by, "acc"), by, ["prompting", "modelname"],
                            "problemname", 100.0))
    by = ["prompting", "problemname", "modelname"]
    parts.append(pivot_text(titles[2], collapsed_stats(cells, by, "bias"), by, ["prompting", "modelname"],
                            "problemname", 1.0))
    if any(p is None for p in parts):
        return None
    return "\n\n".join(p for p in parts if p is not None).rstrip("\n") + "\n"
