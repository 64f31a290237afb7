"""Remembered bootstrap intervals are the computed ones to the bit, are keyed by what was resampled (other values,
strata weights or seed: computed again), and nothing is remembered outside an opened memo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.analysis.stats import bootstrap as bootstrap_module
from benchlab.data.analysis.stats import bootstrap_ci
from benchlab.data.analysis.stats.interval_memo import remembered_intervals


def test_remembered_intervals_equal_computed_ones_and_follow_the_content(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    memo = tmp_path / "memo.json"
    rng = np.random.default_rng(1)
    values = rng.integers(0, 2, 300).astype(float)
    strata = [f"s{i % 6}" for i in range(300)]
    weights = {f"s{k}": 1.0 + k for k in range(6)}
    computed = bootstrap_ci(values, strata, weights, n_boot=500, seed=3)
    with remembered_intervals(memo):
        assert bootstrap_ci(values, strata, weights, n_boot=500, seed=3) == computed
    assert len(json.loads(memo.read_text())["intervals"]) == 1
    calls: list[int] = []
    real = bootstrap_module.draw_means
    monkeypatch.setattr(bootstrap_module, "draw_means", lambda *a: calls.append(1) or real(*a))
    with remembered_intervals(memo):
        assert bootstrap_ci(values, strata, weights, n_boot=500, seed=3) == computed
        assert calls == []  # from the memo
        other = values.copy()
        other[0] = 1 - other[0]
        bootstrap_ci(other, strata, weights, n_boot=500, seed=3)
        bootstrap_ci(values, strata, {**weights, "s0": 9.0}, n_boot=500, seed=3)
        bootstrap_ci(values, strata, weights, n_boot=500, seed=4)
        assert len(calls) == 3
    assert len(json.loads(memo.read_text())["intervals"]) == 4
    bootstrap_ci(values, strata, weights, n_boot=500, seed=5)  # no memo open: computed, not stored
    assert len(calls) == 4 and len(json.loads(memo.read_text())["intervals"]) == 4


def test_a_damaged_memo_is_ignored(tmp_path: Path) -> None:
    memo = tmp_path / "memo.json"
    memo.write_text("{not json")
    values = np.arange(20.0)
    with remembered_intervals(memo):
        got = bootstrap_ci(values, n_boot=200)
    assert got == bootstrap_ci(values, n_boot=200)
    assert len(json.loads(memo.read_text())["intervals"]) == 1
