"""Issue 24 item 3: the quicker ways a comparison selects, stratifies and checks its units give exactly what the
pandas expressions they replace give, so the printed figures cannot move."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchlab.data.analysis.design import OVERALL, RowsWhere
from benchlab.data.analysis.stats import has_constant_stratum
from benchlab.data.worldsense import compare_strata as cs
from benchlab.data.worldsense.compare import compare_worldsense
from tests.compare_fixtures import make_testset, write_results, wrong


def test_row_names_problems_and_trivial_share_from_codes() -> None:
    prompting = pd.Series(pd.Categorical(["basic", "basic", "cot", "basic"]))
    model = pd.Series(pd.Categorical(["human-a", "GPT4", "GPT4", "human-a"], categories=["GPT4", "human-a", "x"]))
    who_of = {("basic", "human-a"): "a", ("basic", "GPT4"): "basic/GPT4", ("cot", "GPT4"): "cot/GPT4"}
    assert cs.row_names(prompting, model, who_of) == ["a", "basic/GPT4", "cot/GPT4", "a"]
    problems = pd.Series(pd.Categorical(["Infer.normal", "Compl.trivial", None, "Infer.normal"],
                                        categories=["Compl.trivial", "Infer.normal", "Consist.trivial"]))
    assert cs.first_seen(problems.dropna()) == ["Infer.normal", "Compl.trivial"]
    assert cs.first_seen(problems)[:2] == ["Infer.normal", "Compl.trivial"]  # a missing value: the Python path
    assert cs.is_trivial(problems).tolist() == problems.astype(str).str.endswith(".trivial").tolist()


def _pandas_constant(values: np.ndarray, labels: list[object]) -> bool:
    return bool(pd.Series(values).groupby(pd.Series(labels, dtype=object)).nunique().min() < 2)


@pytest.mark.parametrize("seed", range(40))
def test_constant_stratum_is_the_pandas_groupby_answer(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    values = rng.choice([0.0, 0.5, 1.0, np.nan], size=n, p=[0.4, 0.1, 0.4, 0.1])
    labels: list[object] = list(rng.choice(["a|3", "a|4", "b|3", None], size=n, p=[0.4, 0.3, 0.2, 0.1]))
    assert has_constant_stratum(values, labels) == _pandas_constant(values, labels)


def test_constant_stratum_edge_cases() -> None:
    assert has_constant_stratum(np.array([1.0, 1.0, 0.0, 1.0]), ["x", "x", "y", "y"])  # x has one value
    assert not has_constant_stratum(np.array([1.0, 0.0, 0.0, 1.0]), ["x", "x", "y", "y"])
    assert has_constant_stratum(np.array([np.nan, 1.0, 0.0]), ["x", "y", "y"])  # x: nothing but a NaN
    assert not has_constant_stratum(np.array([1.0, 1.0]), [None, None])  # no stratum at all, as pandas says


def test_rows_where_selects_what_the_mask_selects() -> None:
    frame = pd.DataFrame({
        "problemname": pd.Categorical(["b", "a", "b", None, "a"], categories=["a", "b", "c"]),
        "who": pd.Series(["p1", "p2", "p1", "p2", "p1"], dtype="str"),
        "score": [1.0, 0.0, 0.5, 1.0, 0.0],
    }, index=[10, 11, 12, 13, 14])
    rows = RowsWhere()
    for column, value in [("problemname", "a"), ("problemname", "b"), ("problemname", "c"),
                          ("problemname", "z"), ("who", "p1"), ("who", "p3")]:
        expected = frame[frame[column] == value]
        got = rows(frame, column, value)
        pd.testing.assert_frame_equal(got, expected)
        assert got.index.equals(expected.index)
    assert rows(frame, "who", "p2") is not rows(frame, "who", "p2")  # a new frame each time, never a shared one


def _weights_through_python(frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> tuple[list[object],
                                                                                       dict[object, float]]:
    with monkeypatch.context() as patch:
        patch.setattr(cs, "coded_cells", lambda _frame: None)
        return cs.strata_weights(frame, OVERALL)


@pytest.mark.parametrize("seed", range(10))
def test_overall_strata_from_codes_are_the_python_ones(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    frame = pd.DataFrame({
        "problemname": pd.Categorical(rng.choice(["Infer.normal", "Compl.trivial", "Consist.normal"], size=n),
                                      categories=["Compl.trivial", "Consist.normal", "Infer.normal", "unused"]),
        "problemsize": rng.choice([3, 4, 5], size=n).astype(np.int64),
    })
    labels, weights = cs.strata_weights(frame, OVERALL)
    python_labels, python_weights = _weights_through_python(frame, monkeypatch)
    assert labels == python_labels
    assert list(weights.items()) == list(python_weights.items())  # same order: the sums add up in that order


def _lab(tmp_path: Path) -> tuple[Path, Path]:
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and s == 4) else g)
    out = tmp_path / "lab"
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g if t else wrong(g))
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: g if t < 2 else wrong(g))
    return ts, out


def test_benchmark_ci95_left_out_only_changes_the_export_column(tmp_path: Path) -> None:
    ts, out = _lab(tmp_path)
    full = compare_worldsense(ts, [out], n_boot=200)
    lean = compare_worldsense(ts, [out], n_boot=200, benchmark_ci95=False)
    assert any("benchmark_ci95" in cell.extra for cell in full.cells.values())
    assert not any("benchmark_ci95" in cell.extra for cell in lean.cells.values())
    for key, cell in full.cells.items():
        other = lean.cells[key]
        assert (cell.value, cell.ci_low, cell.ci_high, cell.method) == (other.value, other.ci_low, other.ci_high,
                                                                        other.method)
    assert [t.frame.to_string() for t in lean.tables()] == [t.frame.to_string() for t in full.tables()]
    paper = compare_worldsense(ts, [out], n_boot=200, ci="benchmark", benchmark_ci95=False)
    assert all("benchmark_ci95" in cell.extra for cell in paper.cells.values())  # --ci benchmark prints it


def _frame_mcnemar(answers: pd.DataFrame, name: str, model: pd.Series, model_rows: pd.DataFrame) -> object:
    """What the per-person path replaces: that person's own frame, then the frame test."""
    from benchlab.data.analysis import model_tests

    return model_tests._mcnemar_test(None, answers[answers["who"] == name], model, model_rows, "c", None)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(30))
def test_each_persons_mcnemar_from_one_condition_is_the_frame_test(seed: int) -> None:
    """Every case of the paired score test per person (shared items, none shared so the two-proportion test, a
    person with no answers here, a model whose index repeats a label) gives the same outcome from the condition's
    answers of everyone as from that person's own frame."""
    from benchlab.data.analysis import model_tests

    rng = np.random.default_rng(seed)
    people = ["p1", "p2", "p3", "absent"]
    n = int(rng.integers(1, 40))
    answers = pd.DataFrame({"who": rng.choice(people[:3], size=n).astype(object),
                            "unit": rng.choice([f"i{k}" for k in range(25)], size=n).astype(object),
                            "score": rng.integers(0, 2, size=n).astype(float)})
    units = [f"i{k}" for k in range(int(rng.integers(0, 25)), 25)] + (["i24"] if seed % 5 == 0 else [])
    if seed % 7 == 0:
        units = [f"m{k}" for k in range(10)]  # nothing shared: the unpaired test
    model = pd.Series(rng.integers(0, 2, size=len(units)).astype(float), index=pd.Index(units, dtype=object))
    model_rows = pd.DataFrame({"score": model.to_numpy()})
    def outcome(make: Callable[[], object]) -> str:
        try:
            return repr(make())
        except ValueError as exc:  # a repeated label pairs one answer with two model scores: refused either way
            return f"refused: {exc}"

    for name in people:
        got = outcome(partial(lambda who: model_tests._mcnemar_per_person(answers, [who], model, model_rows)[who],
                              name))
        want = outcome(partial(_frame_mcnemar, answers, name, model, model_rows))
        assert got == want, name


@pytest.mark.parametrize("seed", range(40))
def test_shared_items_from_arrays_are_the_one_by_one_answer(seed: int) -> None:
    """The items answered by two or more people, grouped from arrays, are the ones a loop over every answer finds:
    same items in the same order, each person's first answer only, items without identity left out."""
    from benchlab.data.analysis import participant_summaries as ps
    from benchlab.data.analysis.design import Participant, Readings

    rng = np.random.default_rng(seed)
    pool: list[object] = [f"i{k}" for k in range(12)] + [3, 7, None] + ([float("nan")] if seed % 10 == 9 else [])
    people = []
    for n in range(int(rng.integers(0, 6))):
        size = int(rng.integers(0, 15))
        picks = [pool[int(k)] for k in rng.integers(0, len(pool), size=size)]
        answers = pd.DataFrame({"rt_ms": np.full(size, np.nan), "correct": rng.integers(0, 2, size=size).astype(bool),
                                "group": pd.Series(rng.choice(["a", "b"], size=size).tolist(), dtype=object),
                                "item": pd.Series(picks, dtype=object),
                                "answer": pd.Series(rng.choice(["TRUE", "FALSE", "x"], size=size).tolist(),
                                                    dtype=object)})
        people.append(Participant(f"p{n}", answers))
    readings = Readings(pd.DataFrame(), pd.DataFrame(), people, [], [], ["a", "b"])
    chosen = {p.name for p in people if rng.random() < 0.8}
    frames = [p.answers for p in people if p.name in chosen]
    got = ps.shared_items(readings, chosen)
    if not frames:
        assert got is None
        return
    item = np.concatenate([f["item"].to_numpy(dtype=object) for f in frames])
    person = np.repeat(np.arange(len(frames)), [len(f) for f in frames])
    assert repr(got) == repr(ps._shared_items_by_loop(frames, item, person))
