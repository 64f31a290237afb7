"""The excerpt view's wrapping, and the sort-screen benchmark running end to end on a real pty (no timed asserts)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from benchlab.tui.sort.excerpt_view import wrap_words
from benchlab.tui.sort.screen_bench import run_sort_screen_bench, summarise


def _reference_wrap(widths: list[int], width: int) -> list[tuple[int, int]]:
    lines, start, used = [], 0, -1
    for i, w in enumerate(widths):
        need = w if used < 0 else used + 1 + w
        if used >= 0 and need > width:
            lines.append((start, i))
            start, used = i, w
        else:
            used = need
    if widths:
        lines.append((start, len(widths)))
    return lines


@given(st.lists(st.integers(1, 30), max_size=200), st.integers(1, 60))
def test_wrap_matches_a_word_by_word_greedy_wrap(widths: list[int], width: int) -> None:
    lines = wrap_words(widths, width)
    assert lines == _reference_wrap(widths, width)
    # Every word once, in order; no line wider than the view unless it is a single long word.
    assert [i for a, b in lines for i in range(a, b)] == list(range(len(widths)))
    for a, b in lines:
        assert b - a == 1 or sum(widths[a:b]) + (b - a - 1) <= width


def test_sort_screen_bench_runs_on_a_pty(tmp_path: Path) -> None:
    figures = run_sort_screen_bench(trials=2, words=2000, workdir=tmp_path)
    for key in ("first_paint_ms", "continue_to_question_ms", "key_write_to_question_ms",
                "naive_static_first_paint_ms", "bare_view_first_paint_ms"):
        assert len(figures[key]) == 2 and all(v > 0 for v in figures[key])
    report = summarise(figures)
    assert "load -> first paint" in report and "target < 250 ms" in report and "target < 100 ms" in report
