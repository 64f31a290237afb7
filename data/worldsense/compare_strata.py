"""WorldSense's problem x size strata and the other per-row columns of a comparison, from category codes.

Why a module of its own: a comparison asks for the strata of every row in every condition and names ~165k tuples
(nearly all the models'), so these run on the columns' integer codes with numpy and make one Python object per
category, not one per row. Each has a plain-Python fallback (a column that is not categorical, or has missing
values) that gives the same labels, in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from benchlab.data.analysis.design import OVERALL


def labels_of(column: pd.Series) -> list[Any]:
    """``column.astype(object).tolist()``; a categorical column through its categories (one Python string per
    category, then a list lookup per row: converting 160k pyarrow-backed strings one by one cost ~0.1 s a call)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        names = column.cat.categories.astype(object).tolist()
        codes = column.cat.codes.to_numpy()
        if not (codes < 0).any():
            return [names[c] for c in codes.tolist()]
    return list(column.astype(object).tolist())


def coded_cells(frame: pd.DataFrame) -> tuple[list[tuple[object, int]], np.ndarray] | None:
    """The (problem, size) cells of ``frame`` in order of first appearance, and each row's cell number, from the
    problem column's category codes with numpy (no Python tuple per row); ``None`` where the column is not
    categorical, has missing values, or the frame is empty (then :func:`strata_weights` goes through Python)."""
    column = frame["problemname"]
    sizes = frame["problemsize"].to_numpy()
    if not isinstance(column.dtype, pd.CategoricalDtype) or not len(sizes) or sizes.dtype.kind not in "iu":
        return None
    codes = column.cat.codes.to_numpy().astype(np.int64)
    if (codes < 0).any():
        return None
    low = int(sizes.min())
    key = codes * (int(sizes.max()) - low + 1) + (sizes.astype(np.int64) - low)
    _uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the cells in order of first appearance
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    names = column.cat.categories.astype(object).tolist()
    cells = [(names[codes[first[i]]], int(sizes[first[i]])) for i in order.tolist()]
    return cells, rank[inverse.ravel()]


def strata_weights(frame: pd.DataFrame, condition: str) -> tuple[list[object], dict[object, float]]:
    """Strata and weights reproducing the benchmark's rebalancing for this condition."""
    if condition == OVERALL:
        coded = coded_cells(frame)
        if coded is not None:
            in_order, cell_of_row = coded
            labels = [f"{p}|{z}" for p, z in in_order]
            sizes_of: dict[object, int] = {}
            for p, _z in in_order:
                sizes_of[p] = sizes_of.get(p, 0) + 1
            share: dict[object, float] = {lab: 1.0 / (len(sizes_of) * sizes_of[p])
                                          for lab, (p, _z) in zip(labels, in_order, strict=True)}
            return np.asarray(labels, dtype=object)[cell_of_row].tolist(), share
        # plain Python over the two columns: the pandas string concatenation and groupby cost ~2 ms a call, and
        # this runs for every row and condition; same labels ("problem|size") and weights, in the same order
        pairs = list(zip(labels_of(frame["problemname"]), frame["problemsize"].tolist(), strict=True))
        cells = dict.fromkeys(pairs)
        sizes_per_problem: dict[object, int] = {}
        for p, _z in cells:
            sizes_per_problem[p] = sizes_per_problem.get(p, 0) + 1
        n_problems = len(sizes_per_problem)
        label = {cell: f"{cell[0]}|{cell[1]}" for cell in cells}  # formatted once per cell, not once per row
        weights: dict[object, float] = {label[(p, z)]: 1.0 / (n_problems * sizes_per_problem[p]) for p, z in cells}
        return [label[pair] for pair in pairs], weights
    sizes = frame["problemsize"].to_numpy()
    uniq = set(sizes.tolist())
    return list(sizes.tolist()), {z: 1.0 / len(uniq) for z in uniq}


def is_trivial(problem: pd.Series) -> np.ndarray:
    """``problem.astype(str).str.endswith(".trivial")``, for a categorical column once per category."""
    if isinstance(problem.dtype, pd.CategoricalDtype):
        codes = problem.cat.codes.to_numpy()
        per_category = np.array([str(c).endswith(".trivial") for c in problem.cat.categories] + [False], dtype=bool)
        return per_category[codes]  # a missing value (code -1) takes the appended False, as "nan" would
    return problem.astype(str).str.endswith(".trivial").to_numpy(dtype=bool)


def first_seen(column: pd.Series) -> list[Any]:
    """``list(dict.fromkeys(labels_of(column)))``: the distinct values in order of first appearance, for a
    categorical column from its codes (no Python object per row)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        if len(codes) and not (codes < 0).any():
            _uniq, first = np.unique(codes, return_index=True)
            names = column.cat.categories.astype(object).tolist()
            return [names[codes[i]] for i in np.sort(first).tolist()]
    return list(dict.fromkeys(labels_of(column)))


def row_names(prompting: pd.Series, modelname: pd.Series, who_of: Mapping[tuple[Any, Any], str]) -> list[str]:
    """``who_of[(prompting, modelname)]`` of every row; for two categorical columns looked up once per pair of
    codes (a comparison's tuples are ~165k rows, nearly all the models')."""
    if isinstance(prompting.dtype, pd.CategoricalDtype) and isinstance(modelname.dtype, pd.CategoricalDtype):
        pc, mc = prompting.cat.codes.to_numpy(), modelname.cat.codes.to_numpy()
        if len(pc) and not ((pc < 0).any() or (mc < 0).any()):
            width = len(modelname.cat.categories)
            pairs, row_pair = np.unique(pc.astype(np.int64) * width + mc, return_inverse=True)
            p_names = prompting.cat.categories.astype(object).tolist()
            m_names = modelname.cat.categories.astype(object).tolist()
            names = [who_of[(p_names[k // width], m_names[k % width])] for k in pairs.tolist()]
            return list(np.asarray(names, dtype=object)[row_pair.ravel()].tolist())
    return [who_of[k] for k in zip(labels_of(prompting), labels_of(modelname), strict=True)]
