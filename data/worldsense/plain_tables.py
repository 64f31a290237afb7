"""WorldSense's printed tables without pandas: the collapse and ``--format table`` text, identical to pandas' own.

Why: on a first run ``import pandas`` and building its frames cost about 0.3 CPU-seconds, as much as everything
but the decompression of the trials file, for tables of a few dozen cells. So ``score worldsense`` (the default
table format) reduces the cell statistics and lays out the text here, in plain Python, and uses pandas only where
this module declines (labels it has not been checked against, see :func:`is_plain_label`).

The same text as :mod:`benchlab.data.worldsense.score_tables` (``stats_by_group`` then ``pivot_cells``) and
:func:`benchlab.data.tables.render`: the same float operations in the same order, and the layout rules of
``DataFrame.to_string`` for string cells under named indexes. pandas' grouped sums may differ from these in the
last bits, so every collapsed value carries an error bound and a cell whose printed digits are not the same
across its bound (a value on a rounding edge) hands the whole table to pandas. ``tests/test_worldsense_plain_tables.py``
compares both on the published sets' shape and on generated answer sets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchlab.data.worldsense.score_tables import _ordered, format_cell

_NAN = float("nan")


def is_plain_label(value: object) -> bool:
    """Whether pandas prints ``value`` as itself in a table: a non-empty printable ASCII string without outer
    spaces (other labels, e.g. with tabs or non-ASCII letters, go through pandas)."""
    return isinstance(value, str) and value != "" and value.isascii() and value.isprintable() and value == value.strip()


def _kahan_sum(values: Sequence[float]) -> float:
    """A compensated float sum in row order, NaN skipped (an all-NaN group sums to 0, as in pandas)."""
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


_EPS = 8 * 2.0**-52  # a generous unit of rounding error (8 ulps) for the bounds below


@dataclass(frozen=True)
class Stat:
    """One group's equal-weight mean and variance, each with a bound on its distance from pandas' value."""

    key: tuple[Any, ...]
    count: float
    mean: float
    var: float
    mean_err: float = 0.0
    var_err: float = 0.0

    @property
    def sem(self) -> float:
        return _sqrt(self.var) / _sqrt(self.count)

    def cell(self, scale: float) -> str | None:
        """``format_cell`` of the mean and sem, or ``None`` when a value anywhere within the error bounds would
        print differently (pandas' last bits may differ, so only a text both agree on is given)."""
        text = format_cell(self.mean, self.sem, scale)
        for mean in (self.mean - self.mean_err, self.mean + self.mean_err):
            for var in (self.var - self.var_err, self.var + self.var_err):
                if format_cell(mean, _sqrt(var) / _sqrt(self.count), scale) != text:
                    return None
        return text


def _sum_error(terms: Sequence[float]) -> float:
    """How far any summation order may land from this one: 0 when every partial sum, in any order, is exact
    (all terms multiples of one power of two, small enough), else a few ulps of the terms' total magnitude."""
    if not terms:
        return 0.0
    scale = max(t.as_integer_ratio()[1] for t in terms)  # floats are dyadic: the largest denominator divides all
    magnitude = sum(abs(t) for t in terms)
    if magnitude * scale < 2.0**52:
        return 0.0
    return (len(terms) + 2) * _EPS * magnitude


def _collapse(rows: list[Stat], drop: int) -> list[Stat]:
    """Average, with equal weight, the rows that differ only in key position ``drop`` (``score_tables._collapse``:
    count = the smallest cell count, pooled second moments), bounding the rounding error.

    pandas' grouped sums may round differently in the last bits; every operation here adds at most a few ulps of
    its operands' magnitude, so the bounds (``_EPS`` per operation on the magnitudes) cover pandas' result too.
    """
    groups: dict[tuple[Any, ...], list[Stat]] = {}
    for row in rows:
        groups.setdefault(row.key[:drop] + row.key[drop + 1:], []).append(row)
    out: list[Stat] = []
    for key in sorted(groups):
        members = groups[key]
        k = len(members)
        count = float(min(r.count for r in members))
        terms = [r.mean * count for r in members]
        sq_terms = [(r.var + r.mean * r.mean) * count for r in members]
        sums_err = count * sum(r.mean_err for r in members) + _sum_error(terms)
        sq_err = count * sum(r.var_err + 2 * abs(r.mean) * r.mean_err + r.mean_err**2
                             for r in members if r.var == r.var) + _sum_error([t for t in sq_terms if t == t])
        counts = _kahan_sum([count] * k)  # whole numbers: exact
        mean = _kahan_sum(terms) / counts
        mean_sq = _kahan_sum(sq_terms) / counts
        # The same operation on the same bits gives the same bits: errors only come from the sums.
        mean_err = sums_err / counts + _EPS * abs(mean) if sums_err else 0.0
        mean_sq_err = sq_err / counts + _EPS * abs(mean_sq) if sq_err else 0.0
        var = mean_sq - mean * mean
        var_err = (mean_sq_err + 2 * abs(mean) * mean_err + mean_err**2 + 2 * _EPS * (abs(mean_sq) + mean * mean)
                   if mean_err or mean_sq_err else 0.0)
        out.append(Stat(key, counts, mean, var, mean_err, var_err))
    return out


def collapsed_stats(cells: dict[str, list[Any]], by: list[str], value: str) -> list[Stat]:
    """One :class:`Stat` per group of ``by``, sorted by group: ``score_tables.stats_by_group`` on the cells of
    :func:`~benchlab.data.worldsense.tuple_scores.tuple_cells` (``value``: ``"acc"`` or ``"bias"``). The cells'
    own statistics are pandas' to the bit (``cellstats.py``), so their error bounds start at 0."""
    rebalance = [f for f in ("problemsize", "problemname") if f not in by]
    if not rebalance:
        raise ValueError("nothing to collapse: by already holds problemsize and problemname")
    keys = by + rebalance
    columns = [cells[k] for k in keys]
    rows = sorted(
        (Stat(tuple(c[i] for c in columns), float(cells["count"][i]), cells[f"{value}.mean"][i],
              cells[f"{value}.var"][i]) for i in range(len(cells["count"]))),
        key=lambda r: r.key,
    )
    for name in rebalance:
        rows = _collapse(rows, keys.index(name))
        keys = [k for k in keys if k != name]
    return rows


# --------------------------------------------------------------------------------------------- the text


def pivot_text(title: str, stats: list[Stat], by: list[str], index: list[str], column: str,
               scale: float) -> str | None:
    """The table ``render([Table(title, pivot_cells(...))], "table")`` prints, or ``None`` where a label is not
    plain or a cell's digits are not certain (the caller then asks pandas)."""
    pos = {name: by.index(name) for name in [*index, column]}
    cells: dict[tuple[tuple[Any, ...], Any], str] = {}
    for stat in stats:
        text = stat.cell(scale)
        if text is None:
            return None
        cells[(tuple(stat.key[pos[n]] for n in index), stat.key[pos[column]])] = text
    column_order = _ordered((stat.key[pos[column]] for stat in stats), column)
    level_orders = [_ordered((stat.key[pos[n]] for stat in stats), n) for n in index]
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
