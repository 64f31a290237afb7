"""Pieces of the first (uncached) scoring run made cheaper, each giving what the general code gives: the trials
reader's codes for each trial's answer options (one code per distinct list, named by the options joined by ``|``),
the compact results reader's Keys, and the cell statistics of accuracy and bias computed in one pass."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data.worldsense.cellstats import group_stats
from benchlab.data.worldsense.columns import _option_combinations
from benchlab.data.worldsense.compact import read_compact_results

OPTIONS = st.sampled_from(["TRUE", "FALSE", "1", "2", "3", "POSSIBLE", "", "a|b", "ü"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(OPTIONS, min_size=1, max_size=5), min_size=1, max_size=40), st.integers(0, 39))
def test_each_option_list_has_one_code_named_by_its_options(lists: list[list[str]], cut: int) -> None:
    column = pa.array(lists, type=pa.list_(pa.string()))
    column = column.slice(min(cut, len(lists) - 1))  # a slice starts at a non-zero offset
    expected = lists[min(cut, len(lists) - 1):]
    result = _option_combinations(column)
    assert result is not None
    codes, names = result
    assert len(codes) == len(expected)
    by_list: dict[tuple[str, ...], int] = {}
    for options, code in zip(expected, codes.tolist(), strict=True):
        assert by_list.setdefault(tuple(options), code) == code  # the same list, the same code
    assert len(by_list) == len(names)  # different lists, different codes
    # a name is the options joined (lists that join alike, e.g. ["a|b"] and ["a", "b"], still get two codes)
    for options, code in by_list.items():
        assert names[code] == "|".join(options)


def test_the_published_option_lists() -> None:
    lists = [["TRUE", "FALSE"], ["1", "2", "3"], ["POSSIBLE", "IMPOSSIBLE"], ["TRUE", "FALSE"], ["1", "2", "3"]]
    result = _option_combinations(pa.array(lists))
    assert result is not None
    codes, names = result
    assert [names[c] for c in codes.tolist()] == ["TRUE|FALSE", "1|2|3", "POSSIBLE|IMPOSSIBLE", "TRUE|FALSE", "1|2|3"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-4, 4), st.integers(0, 4)), min_size=1, max_size=300))
def test_two_measures_in_one_pass_are_each_pandas_to_the_bit(rows: list[tuple[int, int, int]]) -> None:
    _, groups = np.unique(np.array([g for g, _, _ in rows]), return_inverse=True)
    values = np.array([[b / 4, a / 4] for _, b, a in rows])
    got = group_stats(groups, values, int(groups.max()) + 1)
    assert got is not None
    for column in (0, 1):
        expected = pd.DataFrame({"g": groups, "v": values[:, column]}).groupby("g")["v"].agg(["mean", "var"])
        assert np.array_equal(got.mean[:, column], expected["mean"].to_numpy())
        assert np.array_equal(got.var[:, column], expected["var"].to_numpy(), equal_nan=True)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-1000, 1000) | st.sampled_from(
    [0, -(2**63), 2**63 - 1, 10**18, -(10**18), 99999999, 100000000]), min_size=1, max_size=50))
def test_compact_keys_are_the_json_keys(keys: list[int]) -> None:
    raw = "".join(json.dumps({"Key": k, "resp": "TRUE"}, separators=(",", ":")) + "\n" for k in keys).encode()
    result = read_compact_results(raw)
    assert result is not None
    assert result[0].tolist() == keys


def test_compact_keys_beyond_64_bits_or_not_digits_are_left_to_the_careful_reader() -> None:
    for key in ("9223372036854775808", "9999999999999999999", "-9999999999999999999", "18446744073709551616",
                "-9223372036854775809", "-0a", "12a4", "1.5", "+1", "-", "1e3"):
        assert read_compact_results(f'{{"Key":{key},"resp":"TRUE"}}\n'.encode()) is None, key


def test_answers_in_file_order_or_shuffled_score_the_same() -> None:
    """The published files answer every trial in file order (no Key lookup needed); any other order, the same."""
    import random

    from benchlab.data.samples import sample_path
    from benchlab.data.worldsense.columns import ResultColumns, read_trial_columns
    from benchlab.data.worldsense.tuple_scores import tuple_scores

    trials = read_trial_columns(sample_path("worldsense"), cache=False)
    resps = [random.Random(key).choice(["TRUE", "FALSE", "1", "3", "POSSIBLE", ""]) for key in trials.key.tolist()]
    in_order = ResultColumns.from_pairs("basic", "m", trials.key, resps)
    shuffled = list(zip(trials.key.tolist(), resps, strict=True))
    random.Random(7).shuffle(shuffled)
    other = ResultColumns.from_pairs("basic", "m", [k for k, _ in shuffled], [r for _, r in shuffled])
    a, b = (tuple_scores(trials, [f], lambda _: None) for f in (in_order, other))
    assert a.n == b.n > 0
    for name in ("tuple_code", "problem_code", "size", "acc", "bias"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet="ABTRUEF123 xyzé", max_size=20), min_size=1, max_size=60))
def test_compact_answers_are_the_json_answers(resps: list[str]) -> None:
    """Few or many distinct answers, short or long (up to 16 bytes they are compared as two integers)."""
    raw = "".join(json.dumps({"Key": i, "resp": r}, separators=(",", ":"), ensure_ascii=False) + "\n"
                  for i, r in enumerate(resps)).encode()
    result = read_compact_results(raw)
    assert result is not None
    _, codes, names = result
    assert [names[c] for c in codes.tolist()] == resps
    assert names == sorted(set(resps), key=lambda v: v.encode())
