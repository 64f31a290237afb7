"""Issue 24 item 3: the models' intervals drawn ahead by a helper process (what ``compare worldsense`` does) are the
ones drawn in place, to the bit, in every table; a helper that cannot start, fails its draws, is slow or goes
silent changes nothing but where the intervals are drawn; no process is left behind; library calls without a helper
ask nothing ahead."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.stats import bootstrap as bootstrap_module
from benchlab.data.analysis.stats import intervals_ahead
from benchlab.data.analysis.stats.intervals_ahead import drawing_ahead
from benchlab.data.sort.compare import SortDesign, compare_sort
from benchlab.data.worldsense.compare import WorldSenseDesign, compare_worldsense
from tests.compare_fixtures import make_testset, write_results, write_two_people, wrong
from tests.test_compare_sort import write_csv


def _ws_lab(tmp_path: Path) -> tuple[Path, Path]:
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and (s + i) % 3 == 0) else g)
    write_results(ts / "results" / "basic___Llama___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (t + i) % 2 else g)
    return ts, write_two_people(tmp_path / "lab")


def _sort_lab(tmp_path: Path) -> Path:
    res = tmp_path / "sort"
    for excerpt in (250, 1000):
        write_csv(res / f"{excerpt}-s20-hf_M_results.csv", "M", [i % 3 != 0 for i in range(20)],
                  excerpt_length=excerpt)
        write_csv(res / f"{excerpt}-s20-human-p1_results.csv", "human-p1", [i < 15 for i in range(20)], "p1",
                  excerpt_length=excerpt)
        write_csv(res / f"{excerpt}-s20-human-p2_results.csv", "human-p2", [i % 4 != 1 for i in range(20)], "p2",
                  excerpt_length=excerpt)
    return res


def _printed(comp: Comparison) -> list[str]:
    return [t.frame.to_string() for t in comp.tables()]


def _same(got: Comparison, want: Comparison) -> None:
    """Every cell and every printed table of ``got`` is ``want``'s (the intervals to the bit)."""
    assert got.cells == want.cells and got.tests == want.tests
    assert _printed(got) == _printed(want)


def _ws_in_place(tmp_path: Path) -> tuple[Path, Path, Comparison]:
    """The WorldSense lab and its comparison drawn in place (no helper)."""
    ts, out = _ws_lab(tmp_path)
    return ts, out, compare_worldsense(ts, [out], n_boot=300)


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[intervals_ahead._Helper, int]]:
    """(helper, intervals sent to it) for every helper that was sent draws."""
    sent: list[tuple[intervals_ahead._Helper, int]] = []
    real = intervals_ahead._Helper.sent_all

    def sent_all(self: intervals_ahead._Helper) -> None:
        sent.append((self, len(self.jobs)))
        real(self)
    monkeypatch.setattr(intervals_ahead._Helper, "sent_all", sent_all)
    return sent


def _fake(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Draws sent to ``tests/fake_draw_helper.py`` in ``mode`` instead of the real helper."""
    monkeypatch.setattr(intervals_ahead, "HELPER_ARGS", (str(Path(__file__).with_name("fake_draw_helper.py")),))
    monkeypatch.setenv("FAKE_DRAW_HELPER", mode)


def _in_place(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the intervals drawn in this process (the helper's are drawn in its own)."""
    here: list[int] = []
    real = bootstrap_module._percentile_interval
    monkeypatch.setattr(bootstrap_module, "_percentile_interval", lambda *a: here.append(1) or real(*a))
    return here


def test_worldsense_drawn_ahead_prints_what_is_drawn_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helpers: list[tuple[intervals_ahead._Helper, int]]) -> None:
    ts, out = _ws_lab(tmp_path)
    here = _in_place(monkeypatch)
    in_place = compare_worldsense(ts, [out], n_boot=300)
    drawn_in_place = len(here)
    assert helpers == []  # a library call draws in place
    monkeypatch.setattr(intervals_ahead._Helper, "_draw_last_here", lambda self: False)  # only the helper draws
    with drawing_ahead():
        ahead = compare_worldsense(ts, [out], n_boot=300)
    (helper, sent), = helpers
    assert sent >= 4  # the models' cells and bias figures (those with variation in every stratum)
    # none of them drawn here again (intervals of the same content, e.g. two models' equal cells, are served too)
    assert len(here) - drawn_in_place <= drawn_in_place - sent
    assert helper.process is None  # stopped and reaped when the block ended
    _same(ahead, in_place)
    assert ahead.extra_tables["bias"][1].frame.equals(in_place.extra_tables["bias"][1].frame)


def test_sort_drawn_ahead_prints_what_is_drawn_in_place(
        tmp_path: Path, helpers: list[tuple[intervals_ahead._Helper, int]]) -> None:
    res = _sort_lab(tmp_path)
    in_place = compare_sort([res], n_boot=300)
    with drawing_ahead():
        ahead = compare_sort([res], n_boot=300)
    assert [sent for _helper, sent in helpers] == [1]  # the model's overall: stratified by configuration
    _same(ahead, in_place)


@pytest.mark.parametrize("mode", ["fail", "missing"])
def test_a_helper_that_fails_or_cannot_start_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            mode: str) -> None:
    ts, out, in_place = _ws_in_place(tmp_path)
    _fake(monkeypatch, mode)
    if mode == "missing":  # a module that is not there: the helper ends at once
        monkeypatch.setattr(intervals_ahead, "HELPER_ARGS", ("-m", "benchlab.no_such_helper"))
    with drawing_ahead():
        ahead = compare_worldsense(ts, [out], n_boot=300)
    _same(ahead, in_place)


def test_while_the_helper_draws_the_one_wanted_the_last_ones_are_drawn_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helpers: list[tuple[intervals_ahead._Helper, int]]) -> None:
    ts, out, in_place = _ws_in_place(tmp_path)
    _fake(monkeypatch, "slow")
    stolen: list[bool] = []
    real_last = intervals_ahead._Helper._draw_last_here
    monkeypatch.setattr(intervals_ahead._Helper, "_draw_last_here",
                        lambda self: stolen.append(real_last(self)) or stolen[-1])
    with drawing_ahead():
        shared = compare_worldsense(ts, [out], n_boot=300)
    (_helper, sent), = helpers
    # while the helper drew the one wanted, this process drew from the end of the list
    assert sent >= 4 and 1 <= sum(stolen) < sent
    _same(shared, in_place)


def test_a_helper_that_goes_silent_is_stopped_and_the_rest_drawn_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helpers: list[tuple[intervals_ahead._Helper, int]]) -> None:
    ts, out, in_place = _ws_in_place(tmp_path)
    _fake(monkeypatch, "silent")
    monkeypatch.setattr(intervals_ahead, "SILENCE_S", 0.5)
    started = time.monotonic()
    with drawing_ahead():
        stuck = compare_worldsense(ts, [out], n_boot=300)
    assert time.monotonic() - started < 60  # waited for the silence limit, not for the stuck helper
    assert helpers[0][0].process is None
    _same(stuck, in_place)


def test_nothing_is_asked_ahead_without_a_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    for design in (WorldSenseDesign, SortDesign):
        monkeypatch.setattr(design, "ask_ahead", lambda self, *a: asked.append(type(self).__name__))
    ts, out = _ws_lab(tmp_path)
    compare_worldsense(ts, [out], n_boot=200)
    compare_sort([_sort_lab(tmp_path)], n_boot=200)
    assert asked == []
    with drawing_ahead():
        compare_worldsense(ts, [out], n_boot=200)
        compare_sort([_sort_lab(tmp_path)], n_boot=200)
    assert asked == ["WorldSenseDesign", "SortDesign"]
