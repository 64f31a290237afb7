"""``score worldsense``'s table text, laid out without pandas, is byte for byte what pandas prints: on the published
test sets' shape (the bundled sample) and on generated answer sets with partial tuples, single-tuple cells (``nan``
CIs), missing cells, several promptings, long and unusual names; labels it does not handle go to pandas."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data.samples import sample_path
from benchlab.data.tables import render
from benchlab.data.worldsense.columns import ResultColumns, read_trial_columns
from benchlab.data.worldsense.loader import load_trials
from benchlab.data.worldsense.plain_tables import collapsed_stats, is_plain_label, plain_tables_text
from benchlab.data.worldsense.records import ResultLine
from benchlab.data.worldsense.scoring import (
    ACCURACY_TITLE,
    BIAS_TITLE,
    OVERALL_TITLE,
    load_results_dirs,
    score_text,
    score_worldsense,
)
from benchlab.data.worldsense.tuple_scores import tuple_cells, tuple_scores

SAMPLE = sample_path("worldsense")
TRIALS = load_trials(SAMPLE)
COLUMNS = read_trial_columns(SAMPLE, cache=False)

NAMES = ["GPT4", "GPT3.5", "Llama2-FT+0", "Llama2-chat", "human-01", "a", "a-very-long-model-name-indeed-x",
         "Zeta", "human p2", "Infer.trivial"]


def _pandas_text(results: dict[tuple[str, str], list[ResultLine]]) -> str:
    return render(score_worldsense(COLUMNS, results).tables(), "table")


def _plain_text(results: dict[tuple[str, str], list[ResultLine]]) -> str | None:
    files = [ResultColumns.from_pairs(p, m, [ln.Key for ln in lines], [ln.resp for ln in lines])
             for (p, m), lines in results.items()]
    return plain_tables_text(tuple_cells(tuple_scores(COLUMNS, files, lambda _: None)),
                             (OVERALL_TITLE, ACCURACY_TITLE, BIAS_TITLE))


def _answers(seed: int, share: float, problems: set[str] | None) -> list[ResultLine]:
    """Answers to a random share of the trials (whole tuples and stray trials), some empty or invalid."""
    rng = random.Random(seed)
    lines = []
    for trial in TRIALS:
        if problems is not None and trial.problemname not in problems:
            continue
        if rng.random() > share:
            continue
        resp = rng.choice([*trial.expectedresp, *trial.expectedresp, "", "maybe"])
        lines.append(ResultLine(Key=trial.Key, resp=resp))
    return lines


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["basic", "cot", "zero-shot"]), st.sampled_from(NAMES)), min_size=1,
             max_size=4, unique=True),
    st.integers(0, 10**6),
    st.sampled_from([1.0, 0.95, 0.8, 0.5]),
    st.sampled_from([None, {"Compl.normal"}, {"Infer.trivial", "Consist.normal"}]),
)
def test_plain_text_is_pandas_text(files: list[tuple[str, str]], seed: int, share: float,
                                   problems: set[str] | None) -> None:
    results = {key: _answers(seed + i, share, problems) for i, key in enumerate(files)}
    try:
        expected = _pandas_text(results)
    except Exception:
        return
    plain = _plain_text(results)
    assert plain is None or plain == expected  # None: a cell on a rounding edge, printed by pandas instead


def test_published_shape_is_identical_through_score_text() -> None:
    """The bundled sample (four published models): the text score worldsense prints."""
    results = load_results_dirs([SAMPLE / "results"], cache=False)
    text, warnings = score_text(COLUMNS, results, "table")
    assert text == render(score_worldsense(COLUMNS, results).tables(), "table")
    assert warnings == []


@pytest.mark.parametrize("name", ["modèle", "tab\there", " padded", ""])
def test_unusual_labels_are_left_to_pandas(name: str) -> None:
    assert not is_plain_label(name)
    results = {("basic", name or "x"): _answers(1, 1.0, None), ("basic", "GPT4"): _answers(2, 1.0, None)}
    if name:
        assert _plain_text(results) is None
        text, _ = score_text(COLUMNS, results, "table")  # pandas prints it, as before
        assert text == _pandas_text(results)


def test_other_formats_still_come_from_pandas(tmp_path: Path) -> None:
    results = {("basic", "GPT4"): _answers(3, 1.0, None)}
    text, _ = score_text(COLUMNS, results, "csv")
    assert text == render(score_worldsense(COLUMNS, results).tables(), "csv")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([1.0, 0.9, 0.7]))
def test_collapsed_statistics_bound_pandas_values(seed: int, share: float) -> None:
    """pandas' means and sems lie within the error bounds the plain collapse keeps (its sums may round differently)."""
    results = {("basic", "GPT4"): _answers(seed, share, None), ("cot", "human-01"): _answers(seed + 7, share, None)}
    files = [ResultColumns.from_pairs(p, m, [ln.Key for ln in lines], [ln.resp for ln in lines])
             for (p, m), lines in results.items()]
    cells = tuple_cells(tuple_scores(COLUMNS, files, lambda _: None))
    try:
        tables = score_worldsense(COLUMNS, results)
    except Exception:
        return
    for by, value, frame in ((["prompting", "modelname"], "acc", tables.overall),
                             (["prompting", "modelname", "problemname"], "acc", tables.accuracy),
                             (["prompting", "problemname", "modelname"], "bias", tables.bias)):
        assert frame is not None
        theirs = {key: (row["mean"], row["sem"]) for key, row in frame.iterrows()}
        ours = collapsed_stats(cells, by, value)
        assert [stat.key for stat in ours] == list(theirs)
        for stat in ours:
            mean, sem = theirs[stat.key]
            assert abs(stat.mean - mean) <= stat.mean_err
            lo, hi = stat.var - stat.var_err, stat.var + stat.var_err
            var = sem * sem * stat.count
            assert (sem != sem and lo < 0) or lo * (1 - 1e-15) <= var <= hi * (1 + 1e-15) + 1e-300


def test_the_sample_is_laid_out_without_pandas() -> None:
    results = load_results_dirs([SAMPLE / "results"], cache=False)
    files = list(results)
    assert plain_tables_text(tuple_cells(tuple_scores(COLUMNS, files, lambda _: None)),
                             (OVERALL_TITLE, ACCURACY_TITLE, BIAS_TITLE)) is not None
