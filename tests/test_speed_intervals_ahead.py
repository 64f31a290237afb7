"""Issue 24 item 3: the models' intervals drawn ahead by a helper process (what ``compare`` does) are the ones drawn
in place, to the bit, in every table; a helper that dies or a draw that fails there changes nothing but where the
interval is drawn; no process is left behind; library calls without the helper ask nothing ahead."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.stats import bootstrap as bootstrap_module
from benchlab.data.analysis.stats import intervals_ahead
from benchlab.data.analysis.stats.intervals_ahead import drawing_ahead
from benchlab.data.sort.compare import SortDesign, compare_sort
from benchlab.data.worldsense.compare import WorldSenseDesign, compare_worldsense
from tests.compare_fixtures import make_testset, write_results, wrong
from tests.test_compare_sort import write_csv


def _ws_lab(tmp_path: Path) -> tuple[Path, Path]:
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and (s + i) % 3 == 0) else g)
    write_results(ts / "results" / "basic___Llama___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (t + i) % 2 else g)
    out = tmp_path / "lab"
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g if t else wrong(g),
                  rt=lambda p, s, t, i: 2000.0 + 100 * t)
    write_results(out / "basic___human-p2___results.jsonl", lambda p, s, t, i, g: g if t < 2 else wrong(g),
                  rt=lambda p, s, t, i: 3000.0 + 10 * i)
    return ts, out


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


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(helper pid, intervals asked of it) for every helper started."""
    started: list[tuple[int, int]] = []
    real = intervals_ahead._Helper.start

    def start(self: intervals_ahead._Helper) -> None:
        real(self)
        if self.pid is not None:
            started.append((self.pid, len(self.jobs)))
    monkeypatch.setattr(intervals_ahead._Helper, "start", start)
    return started


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_worldsense_drawn_ahead_prints_what_is_drawn_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              helpers: list[tuple[int, int]]) -> None:
    ts, out = _ws_lab(tmp_path)
    here: list[int] = []  # intervals drawn in this process (the helper's draws are counted in its own copy)
    real = bootstrap_module._percentile_interval
    monkeypatch.setattr(bootstrap_module, "_percentile_interval", lambda *a: here.append(1) or real(*a))
    in_place = compare_worldsense(ts, [out], n_boot=300)
    drawn_in_place = len(here)
    assert helpers == []  # a library call draws in place
    with drawing_ahead():
        ahead = compare_worldsense(ts, [out], n_boot=300)
    (pid, asked), = helpers
    assert asked >= 4  # the models' cells and bias figures (those with variation in every stratum)
    # none of them drawn here again (intervals of the same content, e.g. two models' equal cells, are served too)
    assert len(here) - drawn_in_place <= drawn_in_place - asked
    assert _gone(pid)  # killed (if still drawing) and reaped when the block ended
    assert ahead.cells == in_place.cells and ahead.tests == in_place.tests
    assert _printed(ahead) == _printed(in_place)
    assert ahead.extra_tables["bias"][1].frame.equals(in_place.extra_tables["bias"][1].frame)


def test_sort_drawn_ahead_prints_what_is_drawn_in_place(tmp_path: Path, helpers: list[tuple[int, int]]) -> None:
    res = _sort_lab(tmp_path)
    in_place = compare_sort([res], n_boot=300)
    with drawing_ahead():
        ahead = compare_sort([res], n_boot=300)
    assert [jobs for _pid, jobs in helpers] == [1]  # the model's overall: stratified by configuration
    assert ahead.cells == in_place.cells and ahead.tests == in_place.tests
    assert _printed(ahead) == _printed(in_place)


def test_a_helper_that_dies_or_fails_a_draw_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            helpers: list[tuple[int, int]]) -> None:
    ts, out = _ws_lab(tmp_path)
    in_place = compare_worldsense(ts, [out], n_boot=300)
    monkeypatch.setattr(intervals_ahead, "_draw_all", lambda jobs, fd: os._exit(0))  # dies before any draw
    with drawing_ahead():
        died = compare_worldsense(ts, [out], n_boot=300)
    monkeypatch.undo()
    parent = os.getpid()
    real = bootstrap_module._percentile_interval

    def fails_in_helper(*args: object) -> tuple[float, float]:
        if os.getpid() != parent:
            raise MemoryError("the helper ran out of memory")
        return real(*args)  # type: ignore[arg-type]
    monkeypatch.setattr(bootstrap_module, "_percentile_interval", fails_in_helper)
    with drawing_ahead():
        failed = compare_worldsense(ts, [out], n_boot=300)
    assert died.cells == failed.cells == in_place.cells
    assert _printed(died) == _printed(failed) == _printed(in_place)


def test_a_helper_that_goes_silent_is_killed_and_the_rest_drawn_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helpers: list[tuple[int, int]]) -> None:
    ts, out = _ws_lab(tmp_path)
    in_place = compare_worldsense(ts, [out], n_boot=300)
    monkeypatch.setattr(intervals_ahead, "SILENCE_S", 0.5)
    monkeypatch.setattr(intervals_ahead, "_draw_all", lambda jobs, fd: (time.sleep(120), os._exit(0)))  # stuck
    started = time.monotonic()
    with drawing_ahead():
        stuck = compare_worldsense(ts, [out], n_boot=300)
    assert time.monotonic() - started < 60  # waited for the silence limit, not for the stuck helper
    assert _gone(helpers[0][0])
    assert stuck.cells == in_place.cells and _printed(stuck) == _printed(in_place)


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
