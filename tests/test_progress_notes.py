"""Issue 12, "waiting without a word": the first figure says it may take a while (only when matplotlib's font cache
is missing), a missing matplotlib is reported with an install hint that works where benchlab is installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchlab.annotations.comparison_output import check_plot
from benchlab.data.analysis import plots
from benchlab.data.errors import BenchlabError


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
