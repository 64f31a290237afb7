"""Issue 24 item 3: a WorldSense comparison's files read and scored by the helper process while the command loads
pandas (data/worldsense/compare_inputs.py, the calls of data/analysis/stats/intervals_ahead.py) give the same
arrays, warnings and printed tables as reading them in place; a call that fails, a module outside benchlab or no
helper at all means reading in place, with the same errors."""

from __future__ import annotations

import pickle
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.analysis.stats import intervals_ahead
from benchlab.data.analysis.stats.intervals_ahead import call_ahead, called, drawing_ahead, returned_value
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense import compare_inputs
from benchlab.data.worldsense.compare import compare_worldsense
from benchlab.data.worldsense.compare_inputs import inputs_read, read_ahead, scored_inputs
from tests.test_speed_intervals_ahead import _same, _ws_lab


def _equal(a: object, b: object) -> None:
    """Two dataclasses with the same fields, arrays equal in dtype and values."""
    assert type(a) is type(b)
    for f in fields(a):  # type: ignore[arg-type]
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        else:
            assert x == y, f.name


@pytest.fixture
def answered(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each :func:`called` found the helper's result."""
    seen: list[bool] = []
    real = compare_inputs.called

    def spy(*args: object) -> tuple[bool, object]:
        done = real(*args)  # type: ignore[arg-type]
        seen.append(done[0])
        return done
    monkeypatch.setattr(compare_inputs, "called", spy)
    return seen


def test_the_helper_reads_what_this_process_reads(tmp_path: Path, answered: list[bool]) -> None:
    ts, out = _ws_lab(tmp_path)
    here = scored_inputs(str(ts), (str(out),), True)
    with drawing_ahead():
        read_ahead(ts, [out], include_published=True)
        ahead = inputs_read(ts, [out], True)
    assert answered == [True]
    _equal(ahead.trials, here.trials)
    _equal(ahead.scored, here.scored)
    assert ahead.files == here.files and ahead.warnings == here.warnings
    ahead.scored.acc[0] = ahead.scored.acc[0]  # the arrays are this process's to use (mapped copy-on-write)


def test_a_comparison_read_ahead_prints_what_one_read_here_prints(tmp_path: Path, answered: list[bool]) -> None:
    ts, out = _ws_lab(tmp_path)
    here = compare_worldsense(ts, [out], n_boot=300)
    with drawing_ahead():
        read_ahead(ts, [out], include_published=True)
        ahead = compare_worldsense(ts, [out], n_boot=300)
    assert answered == [False, True]  # the first comparison had no helper
    _same(ahead, here)


def test_a_read_that_fails_is_made_here_with_its_own_error(tmp_path: Path, answered: list[bool]) -> None:
    ts, _out = _ws_lab(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(BenchlabError) as here:
        compare_worldsense(ts, [empty])
    with drawing_ahead():
        read_ahead(ts, [empty], include_published=True)
        with pytest.raises(BenchlabError) as ahead:
            compare_worldsense(ts, [empty])
    assert str(ahead.value) == str(here.value) and "no results files here" in str(here.value)
    assert answered == [False, False]


def test_only_benchlab_s_modules_are_called_and_other_arguments_are_not_taken(tmp_path: Path) -> None:
    ts, out = _ws_lab(tmp_path)
    with drawing_ahead():
        call_ahead("os", "getcwd")
        assert called("os", "getcwd") == (False, None)
        read_ahead(ts, [out], include_published=True)
        assert called(compare_inputs.__name__, "scored_inputs", str(ts), (str(out),), False) == (False, None)
        assert called(compare_inputs.__name__, "scored_inputs", str(ts), (str(out),), True)[0]


def test_without_a_helper_nothing_is_sent_and_everything_is_read_here(tmp_path: Path,
                                                                      answered: list[bool]) -> None:
    ts, out = _ws_lab(tmp_path)
    read_ahead(ts, [out], include_published=True)
    assert inputs_read(ts, [out], True).scored.n > 0 and answered == [False]


def test_an_answer_through_the_pipe_or_a_broken_one(tmp_path: Path) -> None:
    value = {"a": np.arange(5)}
    body = pickle.dumps((value, []), protocol=pickle.HIGHEST_PROTOCOL)
    done, got = returned_value(["call", "0", "bytes", str(len(body))], body, 0)
    assert done and np.array_equal(got["a"], value["a"])
    assert returned_value(["call", "0", "failed"], b"", 0) == (False, None)
    assert returned_value(["call", "0", "memfd", "99999", "10"], b"", 0) == (False, None)  # no such file


def test_a_silent_helper_means_reading_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            answered: list[bool]) -> None:
    monkeypatch.setattr(intervals_ahead, "HELPER_ARGS", (str(Path(__file__).with_name("fake_draw_helper.py")),))
    monkeypatch.setenv("FAKE_DRAW_HELPER", "silent")
    monkeypatch.setattr(intervals_ahead, "SILENCE_S", 0.5)
    ts, out = _ws_lab(tmp_path)
    here = compare_worldsense(ts, [out], n_boot=300)
    with drawing_ahead():
        read_ahead(ts, [out], include_published=True)
        ahead = compare_worldsense(ts, [out], n_boot=300)
    assert answered == [False, False]
    _same(ahead, here)
