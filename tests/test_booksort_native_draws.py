"""The compiled BookSORT draws give numpy's results and leave numpy's stream where numpy would (issue 24).

`booksort make` reproduces the published trials only if every draw is the same, so each compiled call is checked
against the numpy call it replaces, on the value and on the stream that follows. Without a compiler (or with a
damaged library in the cache) the generator falls back to numpy with the same trials.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.settings import reset_settings
from benchlab.data.sort import native_draws
from benchlab.data.sort.generator import MAX_PAIR_TRIES, _pick_pair
from benchlab.data.sort.native_draws import LegacyStream
from tests.conftest import full_data


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled library built in this test's cache folder (and loaded afresh)."""
    monkeypatch.setenv("BENCHLAB_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "native-cache"))
    monkeypatch.delenv("BENCHLAB_NO_NATIVE", raising=False)
    reset_settings()
    monkeypatch.setattr(native_draws, "_tried", False)
    monkeypatch.setattr(native_draws, "_lib", None)


def test_the_compiler_is_there_so_the_compiled_path_is_what_these_tests_check() -> None:
    assert native_draws.native_available()


@pytest.mark.parametrize("n", [1, 2, 3, 4095, 4096, 4097, 65_535, 65_536, 65_537, 131_073, 262_150])
@pytest.mark.parametrize("before", [0, 1, 623, 624, 1000])
def test_permutation_head_is_numpys_first_item_and_stream(n: int, before: int) -> None:
    ours, theirs = LegacyStream(n + before), np.random.RandomState(n + before)
    theirs.random_sample(before)  # the stream part-way through a block of the Twister's state
    ours.random_state.random_sample(before)
    for _ in range(3):
        assert ours.permutation_head(n) == int(theirs.permutation(n)[0])
    assert ours.random_state.randint(0, 2**31, size=5).tolist() == theirs.randint(0, 2**31, size=5).tolist()
    assert ours.random_state.standard_normal() == theirs.standard_normal()


def test_a_stream_is_numpys_random_state_for_every_other_draw() -> None:
    ours, theirs = LegacyStream(2024), np.random.RandomState(2024)
    assert ours.random_state.permutation(10).tolist() == theirs.permutation(10).tolist()
    assert ours.random_state.choice(50, 7, replace=False).tolist() == theirs.choice(50, 7, replace=False).tolist()


def _candidates(rng: np.random.RandomState, n: int, spread: int) -> np.ndarray:
    return np.unique(np.concatenate(([0], rng.randint(1, spread, size=n)))).astype(np.int64)


@pytest.mark.parametrize("case", range(60))
def test_pair_draw_is_the_numpy_sampler(case: int) -> None:
    rng = np.random.RandomState(case)
    cand = _candidates(rng, int(rng.randint(1, 400)), int(rng.randint(20, 1000)))
    lower = int(rng.randint(0, 200))
    upper = lower + int(rng.randint(1, 300))
    ours, theirs = LegacyStream(case), np.random.RandomState(case)
    for _ in range(4):
        assert ours.pair(cand, lower, upper, MAX_PAIR_TRIES + 1) == _pick_pair(theirs, cand, lower, upper)
    assert ours.random_state.randint(2**31) == theirs.randint(2**31)


@pytest.mark.parametrize("case", range(12))
def test_pairs_of_a_bin_in_one_call_are_the_numpy_sampler_excerpt_after_excerpt(case: int) -> None:
    rng = np.random.RandomState(100 + case)
    lower = int(rng.randint(10, 120))
    upper = lower + int(rng.randint(1, 200))
    candidates = [_candidates(rng, int(rng.randint(1, 300)), int(rng.randint(20, 800))) for _ in range(40)]
    candidates[3] = candidates[17] = np.zeros(0, dtype=np.int64)  # an excerpt without candidates draws nothing
    candidates[5] = np.array([0, 5, 9], dtype=np.int64)  # nor pairs: every try spent
    ours, theirs = LegacyStream(case), np.random.RandomState(case)
    expected = [_pick_pair(theirs, cand, lower, upper) if len(cand) else None for cand in candidates]
    assert ours.pairs(candidates, lower, upper, MAX_PAIR_TRIES + 1) == expected
    assert expected[3] is None and expected[5] is None and sum(e is not None for e in expected) > 20
    assert ours.random_state.randint(2**31) == theirs.randint(2**31)


def test_a_hopeless_pair_spends_every_try_as_published() -> None:
    cand = np.array([0, 5, 9], dtype=np.int64)  # nothing lies 100-200 words away
    ours, theirs = LegacyStream(7), np.random.RandomState(7)
    assert ours.pair(cand, 100, 200, MAX_PAIR_TRIES + 1) is None
    assert _pick_pair(theirs, cand, 100, 200) is None
    assert ours.random_state.randint(2**31) == theirs.randint(2**31)


_MAKE_ONE = """
import json, sys
from benchlab.data.sort.books import prepare
from benchlab.data.sort.generator import generate
from benchlab.data.sort.native_draws import native_available
book = prepare(sys.argv[1])
records, _ = generate(book, 250, 20)
print(json.dumps({"native": native_available(), "records": [r.model_dump() for r in records]}))
"""


def _make(book: Path, cache: Path, **env: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _MAKE_ONE, str(book)], capture_output=True, text=True, check=True,
                          env={**os.environ, "BENCHLAB_CACHE_DIR": str(cache), **env}, timeout=300)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_without_a_compiler_with_a_plain_build_or_a_damaged_library_the_trials_are_the_same(tmp_path: Path) -> None:
    book = sorted(full_data("booksort", "pg_full_text").glob("*.txt"))[0]
    compiled = _make(book, tmp_path / "a")
    assert compiled["native"] is True
    no_compiler = _make(book, tmp_path / "b", CC="false")  # the compiler fails: numpy draws
    assert no_compiler["native"] is False
    assert no_compiler["records"] == compiled["records"]
    cc = tmp_path / "cc-without-target-clones"  # a compiler that refuses per-CPU function versions
    cc.write_text('#!/bin/sh\ncase "$*" in *-DBENCHLAB_PLAIN*) ;; *) exit 1 ;; esac\nexec cc "$@"\n')
    cc.chmod(0o755)
    plain = _make(book, tmp_path / "c", CC=str(cc))
    assert plain["native"] is True and plain["records"] == compiled["records"]
    damaged = next((tmp_path / "a" / "native").glob("*.so"))
    damaged.write_bytes(b"not a library")
    rebuilt = _make(book, tmp_path / "a")
    assert rebuilt["native"] is True and rebuilt["records"] == compiled["records"]
