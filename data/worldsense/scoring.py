"""WorldSense scoring, shared by models and humans: the original ``analyse_results.py`` tables, reproduced.

Algorithm (spec sections 6-8): each tuple (all trials sharing ``tuple_ID``, one per possible gold answer) becomes
one accuracy and one bias value, weighted so each tuple is answer-balanced; cells (problem x size) are then
averaged with equal weight, sizes first, then problems, with pooled second moments for the standard error, and
cells print as ``"value (1.96 * sem)"``. Cell statistics are bit-identical to pandas' (``cellstats.py``), and the
collapsing steps use the same pandas operations in the same order as the original, so the formatted cells are
identical, ``-0.00`` and ``(nan)`` included. Data is reduced with numpy before pandas is even imported, which
keeps time and peak memory low on the full test set.

Where the original fails silently (spec section 10) this scorer says what it did, as one warning line each:
a model name under two promptings is scored per (prompting, model) instead of being dropped, duplicate Keys keep
their first answer, incomplete tuples are counted and left out, answers outside the options are counted, Keys not
in the test set are counted (and a file with no known Key at all is refused), and cells with a single tuple are
named because their CI prints as ``nan``. ``resp`` is read as a string, so all-numeric answers score correctly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.cellstats import GroupStats, group_stats
from benchlab.data.worldsense.columns import (
    ResultColumns,
    TrialColumns,
    read_result_columns,
    read_trial_columns,
    trial_columns,
)
from benchlab.data.worldsense.results import find_results
from benchlab.data.worldsense.rules import (
    ANSWER_CLASS,
    BIAS_SIGN,
    GOLD_WEIGHT,
    MODEL_ORDER,
    PROBLEM_ORDER,
    PROMPTING_ORDER,
)

if TYPE_CHECKING:  # pandas is imported only once the data is reduced to cells (see cellstats.py)
    import pandas as pd

    from benchlab.data.tables import Table
    from benchlab.data.worldsense.records import ResultLine, Trial

OVERALL_TITLE = "AVERAGE ACCURACY ACROSS ALL PROBLEMS (with 95% confidence interval)"
ACCURACY_TITLE = "ACCURACY for each of the problems  (with 95% confidence interval)"
BIAS_TITLE = "BIAS for each of the problems (with 95% confidence interval)"

ResultsInput = Union[  # noqa: UP007 (a runtime alias; ResultLine is imported for type checking only)
    Sequence[ResultColumns], Mapping[tuple[str, str], Iterable["ResultLine"]], str, Path
]


@dataclass
class WorldSenseTables:
    """Scores of every (prompting, model): numeric statistics, formatted tables and what was left out.

    ``overall`` is indexed by (prompting, modelname), ``accuracy`` by (prompting, modelname, problemname),
    ``bias`` by (prompting, problemname, modelname); each has mean, sem, count, var, std and conf95 (= 1.96 sem).
    ``tuples`` has one row per scored tuple (acc, bias). ``overall`` is ``None`` when only one problem is present,
    as in the original, which then prints no overall table.
    """

    overall: pd.DataFrame | None
    accuracy: pd.DataFrame
    bias: pd.DataFrame
    tuples: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    def overall_table(self) -> pd.DataFrame | None:
        if self.overall is None:
            return None
        return pivot_cells(self.overall, index=["modelname"], columns="prompting", scale=100.0)

    def accuracy_table(self) -> pd.DataFrame:
        return pivot_cells(self.accuracy, index=["prompting", "modelname"], columns="problemname", scale=100.0)

    def bias_table(self) -> pd.DataFrame:
        return pivot_cells(self.bias, index=["prompting", "modelname"], columns="problemname", scale=1.0)

    def tables(self) -> list[Table]:
        """The original's three tables (two when one problem only), cells as ``"value (CI)"`` strings."""
        from benchlab.data.tables import Table

        out: list[Table] = []
        overall = self.overall_table()
        if overall is not None:
            out.append(Table(OVERALL_TITLE, overall))
        out.append(Table(ACCURACY_TITLE, self.accuracy_table()))
        out.append(Table(BIAS_TITLE, self.bias_table()))
        return out


# --------------------------------------------------------------------------------------------- entry points


def score_testset_dir(
    testset_dir: str | Path, results_dirs: Sequence[str | Path] | None = None, *, cache: bool = True
) -> WorldSenseTables:
    """Score every results file under ``<testset_dir>/results`` (or ``results_dirs``), like the original script."""
    dirs = [Path(d) for d in results_dirs] if results_dirs else [Path(testset_dir) / "results"]
    return score_worldsense(read_trial_columns(testset_dir, cache=cache), load_results_dirs(dirs, cache=cache))


def load_results_dirs(dirs: Sequence[Path], *, cache: bool = True) -> list[ResultColumns]:
    """Read every results file found (recursively) in ``dirs``; refuses a folder with none."""
    loaded: list[ResultColumns] = []
    for folder in dirs:
        files = find_results(folder)
        if not files:
            raise BenchlabError(
                "no results files here (expected <prompting>___<modelname>___results.jsonl, searched recursively)",
                folder,
            )
        loaded.extend(read_result_columns(f.path, f.prompting, f.modelname, cache=cache) for f in files)
    return loaded


def score_worldsense(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    *,
    on_warning: Callable[[str], None] | None = None,
) -> WorldSenseTables:
    """Score results against a test set.

    ``trials``: the scoring view, loaded :class:`Trial` records, or a test-set folder/file. ``results``: read
    results files, a mapping ``{(prompting, modelname): result lines}`` (e.g. a live session), or a results folder.
    Warnings are returned in ``.warnings`` (and passed to ``on_warning`` as they arise).
    """
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        if on_warning is not None:
            on_warning(message)

    table = _as_trial_columns(trials)
    files = _as_result_columns(results)
    if not files:
        raise BenchlabError("no results to score")
    _check_names(files, warn)
    scored = _tuple_scores(table, files, warn)
    del files, results  # the answers are reduced to tuple scores; free them before pandas is loaded
    if scored.n == 0:
        raise BenchlabError(
            "no complete tuple to score: every trial of a tuple needs an answer (see the warnings above)"
        )
    cells = _cells(scored)
    _warn_cells(cells, table, warn)
    del table, trials
    cells_frame = _cells_frame(cells)
    tuples = scored.frame()
    overall = None
    if len(set(cells["problemname"])) > 1:
        overall = stats_by_group(tuples, ["prompting", "modelname"], "acc", cells_frame)
    accuracy = stats_by_group(tuples, ["prompting", "modelname", "problemname"], "acc", cells_frame)
    bias = stats_by_group(tuples, ["prompting", "problemname", "modelname"], "bias", cells_frame)
    return WorldSenseTables(overall=overall, accuracy=accuracy, bias=bias, tuples=tuples, warnings=warnings)


def _as_trial_columns(trials: TrialColumns | Sequence[Trial] | str | Path) -> TrialColumns:
    if isinstance(trials, TrialColumns):
        return trials
    if isinstance(trials, str | Path):
        return read_trial_columns(trials)
    return trial_columns(list(trials))


def _as_result_columns(results: ResultsInput) -> list[ResultColumns]:
    if isinstance(results, str | Path):
        return load_results_dirs([Path(results)])
    if isinstance(results, Mapping):
        out = []
        for (prompting, modelname), lines in results.items():
            lines = list(lines)
            out.append(ResultColumns.from_pairs(prompting, modelname, [ln.Key for ln in lines],
                                                [ln.resp for ln in lines]))
        return out
    return list(results)


# --------------------------------------------------------------------------------------------- checks


def _check_names(files: Sequence[ResultColumns], warn: Callable[[str], None]) -> None:
    seen: dict[tuple[str, str], ResultColumns] = {}
    promptings: dict[str, list[str]] = {}
    for f in files:
        key = (f.prompting, f.modelname)
        if key in seen:
            raise BenchlabError(
                f"two results files for prompting {f.prompting!r} and model {f.modelname!r} "
                f"(the other is {seen[key].label}); merge them or rename one",
                f.source,
            )
        seen[key] = f
        promptings.setdefault(f.modelname, []).append(f.prompting)
        for note in f.notes:
            warn(f"{f.label}: {note}")
    for model, names in promptings.items():
        if len(names) > 1:
            warn(
                f"model {model!r} appears under {len(names)} promptings ({', '.join(sorted(names))}): each is scored "
                "separately (the original analyse_results.py would drop all of its tuples)"
            )


def _warn_cells(cells: dict[str, list], table: TrialColumns, warn: Callable[[str], None]) -> None:
    """Name the cells that make a CI undefined and the sizes that silently drop out of a problem's average."""
    keys = list(zip(cells["prompting"], cells["modelname"], cells["problemname"], cells["problemsize"], strict=True))
    single = [k for k, n in zip(keys, cells["count"], strict=True) if n == 1]
    if single:
        p, m, prob, size = single[0]
        warn(
            f"{len(single)} (problem, size) cell(s) hold a single tuple (e.g. {p}/{m} {prob} size {size}): "
            "their variance is undefined, so confidence intervals involving them print as nan"
        )
    sizes_in_test: dict[str, set[int]] = {}
    for code, size in set(zip(table.problem_code.tolist(), table.size.tolist(), strict=True)):
        sizes_in_test.setdefault(table.problem_names[code], set()).add(int(size))
    present: dict[tuple[str, str, str], set[int]] = {}
    for p, m, prob, size in keys:
        present.setdefault((p, m, prob), set()).add(int(size))
    for (p, m, prob), sizes in present.items():
        missing = sorted(sizes_in_test.get(prob, set()) - sizes)
        if missing:
            warn(
                f"{p}/{m} {prob}: no complete tuple of size {', '.join(map(str, missing))}, so its average covers "
                f"sizes {', '.join(map(str, sorted(sizes)))} only"
            )


# --------------------------------------------------------------------------------------------- tuples


@dataclass
class _Scored:
    """One entry per scored tuple, in the original's row order (file by file, tuples in trial-file order)."""

    promptings: list[str]
    models: list[str]
    tuple_names: list[str]
    problem_names: list[str]
    file: np.ndarray
    tuple_code: np.ndarray
    problem_code: np.ndarray
    size: np.ndarray
    acc: np.ndarray
    bias: np.ndarray

    @property
    def n(self) -> int:
        return len(self.acc)

    def frame(self) -> pd.DataFrame:
        """The public per-tuple table; names are categoricals whose sorted categories group like the strings."""
        import pandas as pd

        def categorical(codes: np.ndarray, names: list[str]) -> Any:
            ordered = sorted(set(names))
            rank = np.array([ordered.index(n) for n in names], dtype=np.int64)
            return pd.Categorical.from_codes(rank[codes], dtype=pd.CategoricalDtype(pd.Index(ordered, dtype=object)))

        return pd.DataFrame(
            {
                "prompting": categorical(self.file, self.promptings),
                "modelname": categorical(self.file, self.models),
                "tuple_ID": pd.Categorical.from_codes(
                    self.tuple_code, dtype=pd.CategoricalDtype(pd.Index(self.tuple_names, dtype=object)),
                    validate=False),
                "problemname": categorical(self.problem_code, self.problem_names),
                "problemsize": self.size,
                "acc": self.acc,
                "bias": self.bias,
            }
        )


def _cells(scored: _Scored) -> dict[str, list[Any]]:
    """Statistics per (prompting, model, problem, size) cell, cells sorted like pandas sorts the keys."""
    p_sorted = sorted(set(scored.promptings))
    m_sorted = sorted(set(scored.models))
    b_sorted = sorted(set(scored.problem_names))
    p_rank = np.array([p_sorted.index(p) for p in scored.promptings], dtype=np.int64)[scored.file]
    m_rank = np.array([m_sorted.index(m) for m in scored.models], dtype=np.int64)[scored.file]
    b_rank = np.array([b_sorted.index(b) for b in scored.problem_names], dtype=np.int64)[scored.problem_code]
    sizes, s_rank = np.unique(scored.size, return_inverse=True)
    key = ((p_rank * len(m_sorted) + m_rank) * len(b_sorted) + b_rank) * len(sizes) + s_rank
    cell_keys, cell_of_row = np.unique(key, return_inverse=True)
    n_cells = len(cell_keys)
    acc = group_stats(cell_of_row, scored.acc, n_cells) or _pandas_group_stats(cell_of_row, scored.acc)
    bias = group_stats(cell_of_row, scored.bias, n_cells) or _pandas_group_stats(cell_of_row, scored.bias)
    s_idx = cell_keys % len(sizes)
    rest = cell_keys // len(sizes)
    b_idx = rest % len(b_sorted)
    rest = rest // len(b_sorted)
    m_idx = rest % len(m_sorted)
    p_idx = rest // len(m_sorted)
    cells: dict[str, list[Any]] = {
        "prompting": [p_sorted[i] for i in p_idx],
        "modelname": [m_sorted[i] for i in m_idx],
        "problemname": [b_sorted[i] for i in b_idx],
        "problemsize": [int(sizes[i]) for i in s_idx],
        "count": acc.count.tolist(),
    }
    for name, stats in (("acc", acc), ("bias", bias)):
        cells[f"{name}.mean"] = stats.mean.tolist()
        cells[f"{name}.sem"] = stats.sem.tolist()
        cells[f"{name}.var"] = stats.var.tolist()
        cells[f"{name}.std"] = stats.std.tolist()
    return cells


def _pandas_group_stats(groups: np.ndarray, values: np.ndarray) -> GroupStats:
    """The same statistics from pandas itself (scores off the quarter grid: non-standard tuples)."""
    import pandas as pd

    stats = pd.DataFrame({"g": groups, "v": values}).groupby("g")["v"].agg(["count", "mean", "var"])
    return GroupStats(count=stats["count"].to_numpy(), mean=stats["mean"].to_numpy(), var=stats["var"].to_numpy())


def _cells_frame(cells: dict[str, list[Any]]) -> pd.DataFrame:
    """The cells as the DataFrame pandas' ``groupby(CELL_KEYS)[["acc", "bias"]].aggregate(_STATS)`` would give."""
    import pandas as pd

    index = pd.MultiIndex.from_arrays([cells[k] for k in CELL_KEYS], names=CELL_KEYS)
    data = {}
    for value in ("acc", "bias"):
        for stat in _STATS:
            column = cells["count"] if stat == "count" else cells[f"{value}.{stat}"]
            data[(value, stat)] = np.asarray(column, dtype=np.int64 if stat == "count" else np.float64)
    return pd.DataFrame(data, index=index)


def _tuple_scores(table: TrialColumns, files: Sequence[ResultColumns], warn: Callable[[str], None]) -> _Scored:
    """One row per (prompting, modelname, tuple) with complete answers: acc and bias (spec section 6)."""
    n_trials = len(table)
    n_tuples = len(table.tuple_names)
    tuple_codes = table.tuple_code.astype(np.int64)
    n_options = np.array([o.count("|") + 1 for o in table.options_names], dtype=np.int64)[table.options_code]
    trials_per_tuple = np.bincount(tuple_codes, minlength=n_tuples)
    first_row = np.full(n_tuples, n_trials, dtype=np.int64)
    np.minimum.at(first_row, tuple_codes, np.arange(n_trials))
    expected = n_options[first_row]
    broken = trials_per_tuple != expected
    if broken.any():
        warn(
            f"{table.name}: {int(broken.sum())} tuple(s) of the test set do not have one trial per answer option "
            f"(e.g. {table.tuple_names[int(np.flatnonzero(broken)[0])]}); they can never be complete and are not scored"
        )
    order = np.argsort(table.key, kind="stable")
    sorted_keys = table.key[order]
    classes = sorted(set(ANSWER_CLASS.values()))
    class_id = {c: i for i, c in enumerate(classes)}
    gold_weight = np.array([GOLD_WEIGHT.get(g, np.nan) for g in table.gold_names], dtype=float)[table.gold_code]
    gold_class = np.array([class_id.get(ANSWER_CLASS.get(g, ""), -2) for g in table.gold_names])[table.gold_code]
    options_sets = [set(o.split("|")) for o in table.options_names]

    parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
    for file_index, f in enumerate(files):
        label = f.label
        slot = np.searchsorted(sorted_keys, f.keys)
        slot_ok = slot < n_trials
        found = np.zeros(len(f.keys), dtype=bool)
        found[slot_ok] = sorted_keys[slot[slot_ok]] == f.keys[slot_ok]
        if len(found) and not found.any():
            raise BenchlabError(
                f"none of its {len(found)} Keys is in the test set {table.name!r} (e.g. Key {int(f.keys[0])}): "
                "results for another test set?",
                f.source,
            )
        if not found.all():
            warn(
                f"{label}: {int((~found).sum())} answer(s) for Keys not in the test set {table.name!r} "
                f"(e.g. Key {int(f.keys[~found][0])}), ignored"
            )
        pos = order[slot[found]]
        rcode = f.resp_code[found]
        first_answer = np.zeros(len(pos), dtype=bool)
        # The first answer per trial: unique() on positions returns first indexes.
        _, first_idx = np.unique(pos, return_index=True)
        first_answer[first_idx] = True
        if not first_answer.all():
            dup_keys = table.key[pos[~first_answer]]
            warn(
                f"{label}: {int((~first_answer).sum())} repeated answer(s) to the same Key (e.g. Key "
                f"{int(dup_keys[0])}); the first answer of each is scored (the original would drop or corrupt "
                "those tuples)"
            )
            pos, rcode = pos[first_answer], rcode[first_answer]
        values = f.resp_values
        # Small lookup tables per distinct answer string, then one fancy-index per row.
        valid_table = np.array([[v in opts for v in values] for opts in options_sets], dtype=bool).reshape(
            len(options_sets), len(values))
        is_empty = np.array([v == "" for v in values], dtype=bool)
        resp_class = np.array([class_id.get(ANSWER_CLASS.get(v, ""), -1) for v in values], dtype=np.int64)
        resp_sign = np.array([BIAS_SIGN.get(v, np.nan) for v in values], dtype=float)
        invalid = ~valid_table[table.options_code[pos], rcode] & ~is_empty[rcode] if len(values) else np.zeros(
            0, dtype=bool)
        if invalid.any():
            example = values[int(rcode[invalid][0])]
            warn(
                f"{label}: {int(invalid.sum())} answer(s) are not one of the trial's options (e.g. {example!r}); "
                "scored as wrong, as the original does"
            )
        codes = tuple_codes[pos]
        answered = np.bincount(codes, minlength=n_tuples)
        complete = (answered == expected) & ~broken
        partial = (answered > 0) & ~complete & ~broken
        if partial.any():
            warn(
                f"{label}: {int(partial.sum())} tuple(s) incomplete ({int(answered[partial].sum())} answers), "
                "not scored: every trial of a tuple needs an answer"
            )
        keep = complete[codes]
        pos, rcode, codes = pos[keep], rcode[keep], codes[keep]
        if len(pos) == 0:
            warn(f"{label}: no complete tuple, nothing scored for this file")
            continue
        correct = (resp_class[rcode] == gold_class[pos]).astype(float)
        w = gold_weight[pos]
        signed = w * resp_sign[rcode]
        w_sum = np.bincount(codes, weights=w, minlength=n_tuples)
        acc_sum = np.bincount(codes, weights=w * correct, minlength=n_tuples)
        bias_sum = np.bincount(codes, weights=np.where(np.isnan(signed), 0.0, signed), minlength=n_tuples)
        scored = np.flatnonzero(complete)
        scored = scored[np.argsort(first_row[scored], kind="stable")]  # tuples in trial-file order
        parts.append((file_index, scored, acc_sum[scored] / w_sum[scored], bias_sum[scored] / w_sum[scored]))
    tuple_code = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    rows = first_row[tuple_code]
    return _Scored(
        promptings=[f.prompting for f in files],
        models=[f.modelname for f in files],
        tuple_names=table.tuple_names,
        problem_names=table.problem_names,
        file=np.concatenate([np.full(len(p[1]), p[0], dtype=np.int64) for p in parts]) if parts else np.zeros(
            0, dtype=np.int64),
        tuple_code=tuple_code,
        problem_code=table.problem_code[rows].astype(np.int64),
        size=table.size[rows],
        acc=np.concatenate([p[2] for p in parts]) if parts else np.zeros(0),
        bias=np.concatenate([p[3] for p in parts]) if parts else np.zeros(0),
    )


# --------------------------------------------------------------------------------------------- aggregation


CELL_KEYS = ["prompting", "modelname", "problemname", "problemsize"]
_STATS = ["mean", "sem", "count", "var", "std"]


def stats_by_group(tuples: pd.DataFrame, by: list[str], value: str, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean, sem, count (and var, std, conf95) of ``value`` per group, sizes then problems rebalanced (spec 7)."""
    import pandas as pd

    rebalance = [f for f in ("problemsize", "problemname") if f not in by]
    keys = by + rebalance
    stats: pd.DataFrame
    if cells is not None and sorted(keys) == sorted(str(n) for n in cells.index.names):
        stats = cells[value].reorder_levels(keys).sort_index()  # type: ignore[arg-type,assignment]
    else:
        stats = tuples.groupby(keys, observed=True)[value].aggregate(_STATS)  # type: ignore[arg-type]
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
