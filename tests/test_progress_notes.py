"""Issue 12, "waiting without a word": the first figure says it may take a while (only when matplotlib's font cache
is missing), a missing matplotlib is reported with an install hint that works where benchlab is installed."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from benchlab.annotations.comparison_output import check_plot
from benchlab.data.analysis import plots
from benchlab.data.errors import BenchlabError
from tests.test_compare_sort import run_cli, write_csv


def test_first_figure_warns_only_without_a_font_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib

    cache = tmp_path / "mplcache"
    cache.mkdir()
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(cache))
    check_plot(tmp_path / "fig.png")
    assert "the first figure on this machine may take a while" in capsys.readouterr().err
    (cache / "fontlist-v390.json").write_text("{}")
    check_plot(tmp_path / "fig.png")
    assert capsys.readouterr().err == ""


def test_missing_matplotlib_hint_fits_a_checkout_and_an_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(BenchlabError) as raised:
        plots.check_plot_path("fig.png")
    assert "pip install -e '.[plot]'" in str(raised.value)  # the tests run from a checkout
    assert str(Path(plots.__file__).resolve().parents[2]) in str(raised.value)
    monkeypatch.setattr(plots, "_checkout", lambda: None)  # installed from an index
    with pytest.raises(BenchlabError) as raised:
        plots.check_plot_path("fig.png")
    assert "pip install 'benchlab[plot]'" in str(raised.value) and "-e" not in str(raised.value)
    assert not plots.font_cache_missing()  # no matplotlib: nothing to warn about, the hint says it all


class Terminal(io.StringIO):
    """stderr as a terminal (the spinner shows only there)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def sort_results(tmp_path: Path) -> Path:
    res = tmp_path / "results"
    write_csv(res / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)])
    for p in ("p1", "p2"):
        write_csv(res / f"250-s20-human-{p}_results.csv", f"human-{p}", [i < 16 for i in range(20)], p,
                  [1000.0 + 100 * i for i in range(20)])
    return res


@pytest.mark.parametrize("command", [["compare", "sort", "--boot", "200"], ["score", "sort"]])
def test_compare_and_score_show_a_status_on_a_terminals_stderr_only(
        sort_results: Path, command: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*command, str(sort_results)]) == 0
    plain_out, plain_err = capsys.readouterr()
    assert "files" not in plain_err  # not a terminal (a pipe, a log): no status at all
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run_cli([*command, str(sort_results)]) == 0
    out, _ = capsys.readouterr()
    assert out == plain_out  # stdout stays the same clean table
    shown = terminal.getvalue()
    assert "reading 3 files" in shown
    assert ("bootstrapping (200 resamples)" in shown) == (command[0] == "compare")
