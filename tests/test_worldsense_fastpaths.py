"""The scorer's fast paths give exactly what the general code gives: pandas-identical cell statistics and a
vectorised reader of the published results form that agrees with ``json`` line by line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data.samples import sample_path
from benchlab.data.worldsense.cellstats import group_stats
from benchlab.data.worldsense.compact import read_compact_results


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-4, 4)), min_size=1, max_size=400))
def test_group_stats_are_bit_identical_to_pandas(rows: list[tuple[int, int]]) -> None:
    """Tuple scores are multiples of 1/4 in [-1, 1]; any group labels, any order."""
    groups = np.array([g for g, _ in rows])
    _, groups = np.unique(groups, return_inverse=True)  # ids 0..k-1, all present
    values = np.array([v / 4 for _, v in rows])
    expected = pd.DataFrame({"g": groups, "v": values}).groupby("g")["v"].agg(["count", "mean", "var", "std", "sem"])
    got = group_stats(groups, values, int(groups.max()) + 1)
    assert got is not None
    for name in ("count", "mean", "var", "std", "sem"):
        assert np.array_equal(getattr(got, name), expected[name].to_numpy(), equal_nan=True), name


def test_group_stats_leave_other_values_to_pandas() -> None:
    assert group_stats(np.zeros(4, dtype=np.int64), np.array([0.25, -0.5, -0.5, 0.3]), 1) is None


def test_compact_reader_agrees_with_json() -> None:
    raw = (sample_path("worldsense", "results", "basic___GPT4___results.jsonl")).read_bytes()
    parsed = read_compact_results(raw)
    assert parsed is not None
    keys, codes, values = parsed
    reference = [json.loads(line) for line in raw.splitlines()]
    assert keys.tolist() == [r["Key"] for r in reference]
    assert [values[c] for c in codes] == [r["resp"] for r in reference]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"Key": 1, "resp": "1"}\n',  # json.dump spacing: left to the general reader
        b'{"Key":1,"resp":"1","rt_ms":812}\n',  # extra fields
        b'{"Key":9223372036854775808,"resp":"1"}\n',  # beyond int64
        b'{"Key":1,"resp":"1"}',  # torn tail
        b'{"Key":1,"resp":1}\n',  # a number, not a string
        b'{"Key":1,"resp":"a,b"}\n',
        b'{"Key":"1","resp":"1"}\n',
    ],
)
def test_compact_reader_declines_anything_else(raw: bytes) -> None:
    assert read_compact_results(raw) is None


def test_compact_reader_handles_int64_extremes_and_empty_answers() -> None:
    raw = b'{"Key":-9223372036854775808,"resp":""}\n{"Key":9223372036854775807,"resp":"TRUE"}\n'
    parsed = read_compact_results(raw)
    assert parsed is not None
    keys, codes, values = parsed
    assert keys.tolist() == [-(2**63), 2**63 - 1]
    assert [values[c] for c in codes] == ["", "TRUE"]


def test_caches_follow_file_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached run gives the same tables; an edited results file is re-read (the key is its SHA-256)."""
    from benchlab.data.worldsense import columns, result_columns
    from benchlab.data.worldsense.scoring import score_testset_dir

    monkeypatch.setattr(result_columns, "RESULTS_CACHE_MIN_BYTES", 0)
    folder = tmp_path / "ts"
    shutil.copytree(sample_path("worldsense"), folder)
    first = score_testset_dir(folder).accuracy_table()
    assert len(list(columns.cache_folder().glob("*.npz"))) == 5  # trials + 4 results files
    assert score_testset_dir(folder).accuracy_table().equals(first)
    results = folder / "results" / "basic___GPT4___results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    flipped = [line.replace('"resp":"TRUE"', '"resp":"FALSE"') for line in lines]
    results.write_text("".join(flipped))
    assert flipped != lines
    changed = score_testset_dir(folder).accuracy_table()
    assert not changed.loc[("basic", "GPT4")].equals(first.loc[("basic", "GPT4")])
    for entry in columns.cache_folder().glob("*.npz"):
        entry.write_bytes(b"damaged")
    assert score_testset_dir(folder).accuracy_table().equals(changed)
