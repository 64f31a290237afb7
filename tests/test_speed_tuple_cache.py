"""A large results file's tuple scores are kept by content (``data/worldsense/tuple_cache.py``): scoring again gives
the same tuples and the same warnings without scoring that file again; a changed file, another test set or
columns without a content digest are scored afresh."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.worldsense import result_columns, tuple_scores
from benchlab.data.worldsense.columns import ResultColumns, TrialColumns, read_trial_columns
from benchlab.data.worldsense.scoring import load_results_dirs
from tests.test_speed_command_replay import _testset  # the sample with a file that has an incomplete tuple


def _score(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple_scores.TupleScores, list[str], list[str]]:
    """The tuple scores of every results file, the warnings, and the labels of the files actually scored."""
    scored: list[str] = []
    original = tuple_scores._score_file

    def counting(table: TrialColumns, ix: object, f: ResultColumns, warn: Callable[[str], None]) -> object:
        scored.append(Path(f.label).name)
        return original(table, ix, f, warn)  # type: ignore[arg-type]

    monkeypatch.setattr(tuple_scores, "_score_file", counting)
    warnings: list[str] = []
    result = tuple_scores.tuple_scores(read_trial_columns(folder), load_results_dirs([folder / "results"]),
                                       warnings.append)
    monkeypatch.setattr(tuple_scores, "_score_file", original)
    return result, warnings, scored


def _same(a: tuple_scores.TupleScores, b: tuple_scores.TupleScores) -> None:
    assert (a.promptings, a.models, a.tuple_names, a.problem_names) == (b.promptings, b.models, b.tuple_names,
                                                                       b.problem_names)
    for name in ("file", "tuple_code", "problem_code", "size", "acc", "bias"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), name


def test_a_large_file_is_scored_once_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(result_columns, "RESULTS_CACHE_MIN_BYTES", 0)  # the sample's files count as large here
    folder = _testset(tmp_path)
    first, warned, scored = _score(folder, monkeypatch)
    assert len(scored) == 5 and any("incomplete" in w and "cot___small" in w for w in warned)
    again, warned_again, scored_again = _score(folder, monkeypatch)
    assert scored_again == []
    assert warned_again == warned
    _same(first, again)

    gpt4 = folder / "results" / "basic___GPT4___results.jsonl"
    lines = gpt4.read_text().splitlines()
    gpt4.write_text("\n".join(lines[: len(lines) // 2]) + "\n")  # half the answers: fewer complete tuples
    changed, _, scored_changed = _score(folder, monkeypatch)
    assert scored_changed == [gpt4.name]
    monkeypatch.setattr(result_columns, "RESULTS_CACHE_MIN_BYTES", 1 << 40)  # nothing large: everything scored afresh
    fresh, _, scored_fresh = _score(folder, monkeypatch)
    assert len(scored_fresh) == 5 and len(changed.acc) < len(first.acc)
    _same(changed, fresh)


def test_another_test_set_is_scored_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(result_columns, "RESULTS_CACHE_MIN_BYTES", 0)
    folder = _testset(tmp_path)
    _score(folder, monkeypatch)
    table = read_trial_columns(folder)
    other = TrialColumns(**{**table.__dict__, "content_sha256": "another test set"})
    scored: list[str] = []
    original = tuple_scores._score_file
    monkeypatch.setattr(tuple_scores, "_score_file", lambda t, ix, f, w: (scored.append(f.label), original(
        t, ix, f, w))[1])
    tuple_scores.tuple_scores(other, load_results_dirs([folder / "results"]), lambda m: None)
    assert len(scored) == 5
