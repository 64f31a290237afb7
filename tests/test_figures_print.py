"""Figures a journal prints, checked on the drawn figure: every page 3.5 or 7 in wide and at most 9 in tall (more
panels go to more pages and files), no text overlapping another or leaving the page (the text boxes the renderer
drew), the right number of people in the title, RT panels optional, and a colour of its own for every series (the
paper figure and the Results screen's chart)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchlab.data.analysis.figure_colours import HUMAN_COLOUR, other_colours, series_colours
from benchlab.data.analysis.figure_content import figure_content
from benchlab.data.analysis.figure_fit import text_problems, visible_texts
from benchlab.data.sort.compare import compare_sort
from tests.test_compare_sort import write_csv
from tests.test_figures import svg_text, three_configs  # noqa: F401  (fixture)

MODELS = ("Llama3", "GPT-4o-2024-08-06", "Claude-3-5-Sonnet-20241022", "Mistral-Large-Instruct-2407",
          "Qwen2.5-72B-Instruct", "gemma-2-27b-it", "Phi-3-medium-128k-instruct", "DeepSeek-V2.5", "Yi-1.5-34B")


@pytest.fixture
def spread_people(tmp_path: Path) -> Path:
    """Three people spread over two configurations (at most 2 per configuration: the "2 people" for 3 of the QA),
    long panel titles, two models with long names and RTs."""
    res = tmp_path / "results"
    for le in (250, 1000):
        for model, k in (("Llama3", 2), ("GPT-4o-2024-08-06", 3)):
            write_csv(res / f"{le}-s20-hf_{model}_results.csv", model, [i % k != 0 for i in range(40)],
                      excerpt_length=le)
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [i % 5 != 0 for i in range(20)], "p1",
              [1000.0 + 97 * i for i in range(20)])
    write_csv(res / "1000-s20-human-p1_results.csv", "human-p1", [i % 4 != 0 for i in range(20)], "p1",
              [1500.0 + 97 * i for i in range(20)], excerpt_length=1000)
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [i % 3 != 0 for i in range(20)], "p2",
              [2500.0 + 300 * i for i in range(20)], first_item=4)
    write_csv(res / "1000-s20-human-p3_results.csv", "human-p3", [i % 2 != 0 for i in range(16)], "p3",
              [1800.0 + 120 * i for i in range(16)], excerpt_length=1000, first_item=8)
    return res


def pages(comp: Any, width: str, **kw: Any) -> list[Any]:
    from benchlab.data.analysis.plots import comparison_figures

    return comparison_figures(comp, width, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("width,inches", [("column", 3.5), ("page", 7.0)])
def test_every_page_fits_the_width_and_9_inches_with_no_overlapping_or_clipped_text(
        spread_people: Path, three_configs: Path, width: str, inches: float) -> None:  # noqa: F811
    """QA: panel titles overlapped and ran off the edge, the footnote was clipped, figures were 12-13 in tall."""
    for folder in (spread_people, three_configs):
        comp = compare_sort([folder], n_boot=200)
        figures = pages(comp, width)
        drawn = [t.get_text() for fig in figures for t in visible_texts(fig)]
        for fig in figures:
            w, h = fig.get_size_inches()
            assert w == pytest.approx(inches) and h <= 9.0 + 1e-9
            assert text_problems(fig) == []
        # nothing dropped by paging: every condition's heading and every panel title is on some page
        content = figure_content(comp)
        joined = " ".join(" ".join(drawn).split())
        for panel in content.panels:
            assert " ".join(panel.title.split()) in joined
        if len(figures) > 1:
            assert any("(page 2 of" in " ".join(t.split()) for t in drawn)
        close_all(figures)


def close_all(figures: list[Any]) -> None:
    """pyplot keeps every figure until it is closed: close the pages once checked."""
    import matplotlib.pyplot as plt

    for fig in figures:
        plt.close(fig)


def test_overlap_check_finds_overlapping_and_clipped_text() -> None:
    """The check itself fails on a bad figure (so its silence above means something)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(3.5, 2))
    fig.text(0.1, 0.5, "a long label that runs on")
    fig.text(0.2, 0.5, "another one")
    fig.text(0.9, 0.1, "off the right edge of the page")
    problems = text_problems(fig)
    plt.close(fig)
    assert any(p.startswith("overlap:") for p in problems)
    assert any(p.startswith("outside the figure:") and "off the right edge" in p for p in problems)


def test_title_counts_everyone_drawn(spread_people: Path) -> None:
    """QA: the title said "2 people" for 3 (the largest cell had 2 of them)."""
    content = figure_content(compare_sort([spread_people], n_boot=200))
    assert content.title == "SORT: accuracy, 3 people vs 2 models (95% CI)"


def test_rt_panels_are_optional(spread_people: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from tests.test_compare_sort import run_cli

    comp = compare_sort([spread_people], n_boot=200)
    rt_axes = [ax for fig in pages(comp, "page") for ax in fig.axes if ax.get_xlabel() == "response time (s)"]
    assert len(rt_axes) == 2
    without = pages(comp, "page", rt_panels=False)
    assert not [ax for fig in without for ax in fig.axes if ax.get_xlabel() == "response time (s)"]
    target = tmp_path / "fig.svg"
    assert run_cli(["compare", "sort", str(spread_people), "--only", "methods", "--boot", "200", "--plot",
                    str(target), "--no-plot-rt"]) == 0
    assert "response time (s)" not in svg_text(target)
    assert run_cli(["compare", "sort", str(spread_people), "--only", "methods", "--boot", "200", "--plot",
                    str(target)]) == 0
    assert "response time (s)" in svg_text(target)


def test_tall_figures_go_to_more_pages_and_files(three_configs: Path, tmp_path: Path) -> None:  # noqa: F811
    from benchlab.data.analysis.plots import write_figure

    comp = compare_sort([three_configs], n_boot=200)
    written, notes = write_figure(comp, tmp_path / "fig.svg", width="column")
    assert [p.name for p in written][:2] == ["fig.svg", "fig-p2.svg"]
    assert not any("layout problem" in n for n in notes)
    text = " ".join(svg_text(written[-1]).split())
    assert f"(page {len(written)} of {len(written)})" in text


def test_every_series_has_a_colour_of_its_own(tmp_path: Path) -> None:
    """QA: two models were drawn in the same colour (the palette cycled after 7; the terminal chart let plotext
    choose)."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    assert len(set(other_colours(40))) == 40 and HUMAN_COLOUR not in other_colours(40)
    colours = series_colours(["humans (pooled)", *MODELS], ["humans (pooled)"])
    assert len(set(colours.values())) == len(MODELS) + 1
    res = tmp_path / "results"
    for m in MODELS:
        write_csv(res / f"250-s20-hf_{m}_results.csv", m, [i % 2 == 0 for i in range(8)])
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1", [900.0] * 8)
    comp = compare_sort([res], n_boot=200, by_bin=False)
    fills: dict[str, set[str]] = {}
    for fig in pages(comp, "page", rt_panels=False):
        for ax in fig.axes:
            labels = [t.get_text() for t in ax.get_yticklabels()]
            bars = [p for p in ax.patches if isinstance(p, Rectangle)]
            for label, bar in zip(labels, bars, strict=False):
                face = bar.get_facecolor()  # a hatched bar (no CI) is drawn in its edge colour
                colour = to_hex(face if face[3] > 0 else bar.get_edgecolor())
                fills.setdefault(colour, set()).add(label.replace("\n", ""))
    assert len(fills) == len(MODELS) + 1


async def test_results_screen_chart_draws_every_series_in_its_own_colour(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.compare_fixtures import make_testset, write_results, wrong
    from tests.test_results_screen import Host, make_screen, settle

    monkeypatch.chdir(tmp_path)
    ts = make_testset(tmp_path / "ts")
    for k, model in enumerate(MODELS):
        write_results(ts / "results" / f"basic___{model}___results.jsonl",
                      lambda p, s, t, i, g, k=k: wrong(g) if (t + k) % 3 == 0 else g)
    write_results(tmp_path / "lab" / "results" / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g,
                  rt=lambda p, s, t, i: 2000.0 + 300 * t)
    screen = make_screen(live=False)
    from textual.widgets import TabbedContent

    async with Host(screen).run_test(size=(160, 50)) as pilot:
        await settle(screen, pilot)
        screen.query_one(TabbedContent).active = "tab-chart"
        await pilot.pause()
        monitor = screen.query_one("#bars").plt._active.monitor  # type: ignore[attr-defined]
        by_label = {lab: str(col) for lab, col in zip(monitor.label, monitor.color, strict=True) if lab}
        assert len(by_label) == len(MODELS) + 1
        assert len(set(by_label.values())) == len(by_label)


def test_model_bar_covers_the_peoples_items_unless_asked_otherwise(spread_people: Path) -> None:
    """The model ran 40 items per configuration, the people 24 of them: side by side, the bars cover the same 24
    (the items the tests pair); ``model_items="all"`` draws the model on its 40 where the comparison kept them
    (``same_items=False``, ``--all-items``). ``compare`` already scores models on the people's items by default
    (issue 20): the figure draws that comparison's model cells once, as they are, and says "all" cannot widen them."""
    import pandas as pd

    comp = compare_sort([spread_people], n_boot=200, same_items=False)
    pooled = comp.cell("humans (pooled)", "e250-s20")
    assert pooled is not None and pooled.n_units == 24

    def model_bar(model_items: str, of: Any = comp) -> Any:
        content = figure_content(of, model_items=model_items)
        return next(b for p in content.panels for r in p.rows if r.code == "e250-s20" for b in r.bars
                    if b.series == "Llama3")

    same, everything = model_bar("same"), model_bar("all")
    default = compare_sort([spread_people], n_boot=200)  # models on the people's items already
    drawn, asked_all = model_bar("same", default), model_bar("all", default)
    assert asked_all == drawn and drawn.n_units == 24 and drawn.value == pytest.approx(same.value)
    assert drawn.method == default.cell("Llama3", "e250-s20").method  # the comparison's cell, not restricted twice
    assert any("compare with --all-items" in n for n in figure_content(default, model_items="all").notes)
    model = pd.read_csv(spread_people / "250-s20-hf_Llama3_results.csv")
    answered = set(range(0, 20)) | set(range(4, 24))  # p1 items 0-19, p2 items 4-23 (write_csv numbering)
    assert same.n_units == len(answered) == 24
    assert same.value == pytest.approx(model["correct"].iloc[sorted(answered)].mean())
    assert same.interval is not None and same.interval[0] < same.value < same.interval[1]
    assert everything.n_units == 40 and everything.value == pytest.approx(model["correct"].mean())
    assert any(n.startswith("Model bars: each model on the trials the people answered")
               for n in figure_content(comp).notes)
