"""Journal figures of a comparison, read back from the files: size in inches, every condition with a readable
label, n under every human bar, an interval or a hatched bar for every bar, pilots apart, truthful titles,
per-participant RT distributions, a colour-blind-safe palette; and the CLI flags that ask for them."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import pytest

from benchlab.data.analysis.compare import POOLED, Comparison
from benchlab.data.analysis.figure_content import figure_content
from benchlab.data.analysis.figure_labels import condition_label
from benchlab.data.sort.compare import compare_sort
from tests.test_compare_sort import run_cli, write_csv

OKABE_ITO = {"#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000"}
CONFIGS = (250, 1000, 2500)


@pytest.fixture
def three_configs(tmp_path: Path) -> Path:
    """Three configurations x 4 distance bins (16 conditions with overall: more than the old 12-condition cap),
    two people with RTs (20 and 8 trials: unequal n), one model, and an oracle pilot."""
    res = tmp_path / "results"
    for le in CONFIGS:
        write_csv(res / f"{le}-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)],
                  excerpt_length=le)
        write_csv(res / f"{le}-s20-human-p1_results.csv", "human-p1", [i % 5 != 0 for i in range(20)], "p1",
                  [1000.0 + 97 * i for i in range(20)], excerpt_length=le)
        write_csv(res / f"{le}-s20-human-p2_results.csv", "human-p2", [i % 3 != 0 for i in range(8)], "p2",
                  [2500.0 + 300 * i for i in range(8)], excerpt_length=le)
    write_csv(res / "250-s20-human-PILOT_results.csv", "human-PILOT", [True] * 20, "PILOT", [400.0] * 20,
              simulated="oracle")
    return res


def svg_text(path: Path) -> str:
    """The visible text of an SVG written with text kept as text (tags stripped, entities decoded)."""
    import html

    raw = path.read_text()
    return html.unescape(" ".join(re.findall(r"<text[^>]*>(.*?)</text>", raw, flags=re.S)))


def pages_text(written: list[Path]) -> str:
    """The visible text of every SVG page written (a figure taller than a page is several files), words joined
    by single spaces (a wrapped title reads as one line)."""
    return " ".join(" ".join(svg_text(p) for p in written if p.suffix == ".svg").split())


def figures(comp: Comparison, width: str, **kw: object) -> list[Any]:
    from benchlab.data.analysis.plots import comparison_figures

    return comparison_figures(comp, width, **kw)  # type: ignore[arg-type]


def write(comp: Comparison, path: Path, **kw: object) -> tuple[list[Path], list[str]]:
    from benchlab.data.analysis.plots import write_figure

    return write_figure(comp, path, **kw)  # type: ignore[arg-type]


def test_column_and_page_widths_in_inches_in_pdf_svg_and_300_dpi_png(three_configs: Path, tmp_path: Path) -> None:
    """QA: the figure was 3140x1360 px at no declared width, unreadable at a paper's column width."""
    comp = compare_sort([three_configs], n_boot=200)
    for width, inches in (("column", 3.5), ("page", 7.0)):
        written, _notes = write(comp, tmp_path / f"fig_{width}.pdf", width=width, formats=("pdf", "svg", "png"))
        assert sorted({p.suffix for p in written}) == [".pdf", ".png", ".svg"]
        pdf = (tmp_path / f"fig_{width}.pdf").read_bytes()
        box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
        assert box is not None and float(box[1]) == pytest.approx(72 * inches)
        assert b"/FontType 3" not in pdf and b"/Subtype /Type3" not in pdf  # TrueType fonts, as journals ask
        svg = (tmp_path / f"fig_{width}.svg").read_text()
        w = re.search(r'<svg[^>]* width="([\d.]+)pt"', svg)
        assert w is not None and float(w[1]) == pytest.approx(72 * inches)
        png = (tmp_path / f"fig_{width}.png").read_bytes()
        px_w, _px_h = struct.unpack(">II", png[16:24])
        assert px_w == round(300 * inches)
        ppm = png.index(b"pHYs")  # 300 dpi recorded in the file (11811 pixels per metre)
        assert struct.unpack(">I", png[ppm + 4:ppm + 8])[0] == pytest.approx(300 / 0.0254, abs=1)


def test_fonts_readable_at_column_width(three_configs: Path) -> None:
    from matplotlib.text import Text

    from benchlab.data.analysis.plots import comparison_figure

    fig = comparison_figure(compare_sort([three_configs], n_boot=200), "column")
    assert fig.get_size_inches()[0] == pytest.approx(3.5)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_text().strip() and t.get_visible()]
    assert sizes and min(sizes) >= 6.0


def test_every_condition_drawn_with_readable_labels_none_dropped(three_configs: Path, tmp_path: Path) -> None:
    """QA: `max_conditions=12` silently dropped the e2500 distance bins; axes were labelled "e250-s20 d83"."""
    comp = compare_sort([three_configs], n_boot=200)
    assert len(comp.conditions) == 16
    written, _notes = write(comp, tmp_path / "fig.svg", width="column")
    text = pages_text(written)
    for code in comp.conditions:
        label = condition_label(code)
        assert label.row in text, code
        assert label.panel in text, code
    assert "excerpt 2500 words, segment 20 words" in text and "distance 200 words" in text
    assert "e250-s20" not in text and " d83" not in text
    assert set(figure_content(comp).conditions) == set(comp.conditions)


def test_condition_labels_keep_every_condition_apart() -> None:
    codes = ["overall", "e250-s20", "e250-s20 d62", "e250-s50 d62", "e1000-s20 d250", "STM e250-s20 d62",
             "LTM e250-s20 d62", "LTM delay-1d e250-s20 d62", "LTM g25k-40k", "Infer.trivial", "Compl.normal"]
    fulls = [condition_label(c).full for c in codes]
    assert len(set(fulls)) == len(codes)
    assert condition_label("e250-s20 d62").full == "excerpt 250 words, segment 20 words, distance 62 words"
    assert "long-term memory" in condition_label("LTM g25k-40k").full
    assert "gap 25k-40k words" in condition_label("LTM g25k-40k").row
    assert condition_label("Infer.trivial").full == "inference (trivial control)"


def test_n_under_every_human_bar(three_configs: Path, tmp_path: Path) -> None:
    comp = compare_sort([three_configs], n_boot=200)
    written, _ = write(comp, tmp_path / "fig.svg", width="page")
    text = pages_text(written)
    content = figure_content(comp)
    human_bars = [b for p in content.panels for r in p.rows for b in r.bars if b.kind == "humans"]
    assert len(human_bars) == len(comp.conditions)
    for bar in human_bars:
        assert bar.n_text in text
    pooled = comp.cell(POOLED, "e250-s20 d62")
    assert pooled is not None
    assert f"n=2 people, {pooled.n_units} trials" in text


@pytest.mark.parametrize("missing", [float("nan"), None])
def test_bar_without_interval_is_hatched_not_certain(three_configs: Path, tmp_path: Path,
                                                     missing: float | None) -> None:
    """QA: a missing CI was drawn as a bar without whisker, so the least certain bar looked the most precise."""
    from matplotlib.patches import Rectangle


    comp = compare_sort([three_configs], n_boot=200)
    cell = comp.cell(POOLED, "e1000-s20 d83")
    assert cell is not None
    cell.ci_low = cell.ci_high = missing  # type: ignore[assignment]
    content = figure_content(comp)
    bar = next(b for p in content.panels for r in p.rows for b in r.bars
               if r.code == "e1000-s20 d83" and b.kind == "humans")
    assert bar.interval is None
    assert any("No 95% CI" in n and "distance 83 words" in n for n in content.notes)
    axes = [ax for fig in figures(comp, "column") for ax in fig.axes]
    hatched = [p for ax in axes for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert len(hatched) == 1 and hatched[0].get_width() == pytest.approx(100 * bar.value)
    written, _ = write(comp, tmp_path / "fig.svg", width="column")
    assert "no CI" in pages_text(written)
    # every other bar has its whisker
    whiskers = sum(len(c.get_segments()) for ax in axes for c in ax.collections
                   if c.__class__.__name__ == "LineCollection")
    bars = sum(len(r.bars) for p in content.panels for r in p.rows)
    assert whiskers >= bars - 1


def test_title_names_only_what_is_drawn(three_configs: Path, tmp_path: Path) -> None:
    """QA: SORT figures were titled "humans vs models" with no model in them."""
    for f in three_configs.glob("*Llama3*"):
        f.unlink()
    comp = compare_sort([three_configs], n_boot=200)
    written, _ = write(comp, tmp_path / "fig.svg", width="column")
    text = svg_text(written[0])
    assert "model" not in text.lower()
    assert "SORT: accuracy, 2 people (95% CI)" in text
    with_model = figure_content(compare_sort([tmp_path / "results"], n_boot=200))
    assert "vs" not in with_model.title


def test_pilots_left_out_with_a_note_or_in_their_own_panel(three_configs: Path, tmp_path: Path) -> None:
    """QA: simulated pilots were mixed into the figure (RT histogram) next to people."""
    comp = compare_sort([three_configs], n_boot=200)
    written, notes = write(comp, tmp_path / "fig.svg", width="column")
    text = pages_text(written)
    assert "PILOT" not in text.replace("Left out: simulated pilots PILOT", "")
    assert any(n.startswith("Left out: simulated pilots PILOT") for n in notes)
    content = figure_content(comp, include_pilots=True)
    pilot_panels = [p for p in content.panels if p.pilots]
    assert pilot_panels and all(b.kind == "pilot" for p in pilot_panels for r in p.rows for b in r.bars)
    assert all(b.kind != "pilot" for p in content.panels if not p.pilots for r in p.rows for b in r.bars)
    assert "PILOT" not in {d.who for p in content.panels for r in p.rows for b in r.bars for d in b.dots}
    written, _ = write(comp, tmp_path / "pilots.svg", width="column", include_pilots=True)
    assert "simulated pilots: excerpt 250 words, segment 20 words" in pages_text(written)


def test_rt_per_participant_ecdf_per_condition(three_configs: Path) -> None:
    """QA: RT histograms had fractional count ticks and were not comparable across unequal n; conditions pooled."""

    comp = compare_sort([three_configs], n_boot=200)
    rt_axes = [ax for fig in figures(comp, "column") for ax in fig.axes if ax.get_xlabel() == "response time (s)"]
    assert len(rt_axes) == len(CONFIGS)  # one per configuration, never pooled
    for ax in rt_axes:
        assert ax.get_ylim() == (0, 1)
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
        assert set(lines) == {"p1 (n=20)", "p2 (n=8)"}  # no pilot, n in the legend
        for ln in lines.values():
            assert max(ln.get_ydata()) == pytest.approx(1.0)  # normalised: each person's curve reaches 1


def test_colour_blind_safe_palette(three_configs: Path) -> None:
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    from benchlab.data.analysis.plots import comparison_figure

    fig = comparison_figure(compare_sort([three_configs], n_boot=200), "page")
    colours = {to_hex(p.get_facecolor()) for ax in fig.axes for p in ax.patches if isinstance(p, Rectangle)
               and p.get_facecolor()[3] > 0}
    assert colours and colours <= OKABE_ITO


def test_cli_width_formats_and_notes(three_configs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "out" / "figure.pdf"
    base.parent.mkdir()
    assert run_cli(["compare", "sort", str(three_configs), "--only", "methods", "--boot", "200", "--plot",
                    str(base), "--plot-width", "column", "--plot-format", "pdf", "--plot-format", "svg",
                    "--plot-format", "png"]) == 0
    err = capsys.readouterr().err
    for suffix in ("pdf", "svg", "png"):
        assert (base.parent / f"figure.{suffix}").exists()
    assert "figure note: Left out: simulated pilots PILOT" in err
    svg = (base.parent / "figure.svg").read_text()
    assert 'width="252pt"' in svg
    assert run_cli(["compare", "sort", str(three_configs), "--plot", str(base), "--plot-format", "jpg"]) == 2


def test_flagged_participants_are_marked(three_configs: Path, tmp_path: Path) -> None:
    """Partial/attention-flagged people are marked in the figure (open markers, a key, a note)."""
    from matplotlib.colors import to_rgba

    from benchlab.data.analysis.stats import AttentionCriterion

    comp = compare_sort([three_configs], n_boot=200, criterion=AttentionCriterion(fast_ms=2000.0))
    assert {e.name for e in comp.flagged} == {"p1", "PILOT"}  # p1: 11 of 20 answers under 2 s
    open_markers = [c for fig in figures(comp, "column") for ax in fig.axes for c in ax.collections
                    if c.get_label() == "flagged participants"]
    assert len(open_markers) == len(comp.conditions)
    assert all(tuple(fc) == to_rgba("none") for c in open_markers for fc in c.get_facecolors())
    written, notes = write(comp, tmp_path / "fig.svg", width="column")
    assert "open: flagged" in pages_text(written)
    assert any("Flagged by the attention criterion" in n and "p1" in n for n in notes)


def test_bad_input_gives_a_figure_with_notes_never_a_traceback(tmp_path: Path) -> None:
    """Only a pilot (no people, no model), then one person with a single trial: a figure and notes, no crash."""
    res = tmp_path / "results"
    write_csv(res / "250-s20-human-PILOT_results.csv", "human-PILOT", [True] * 8, "PILOT", simulated="oracle")
    comp = compare_sort([res], n_boot=200)
    content = figure_content(comp)
    assert content.panels == [] and content.title == "SORT: accuracy (no data)"
    assert any("no data from people or models" in n for n in content.notes)
    written, notes = write(comp, tmp_path / "only_pilot.svg", width="column")
    assert "no data from people or models" in svg_text(written[0])
    assert any(n.startswith("Left out: simulated pilots PILOT") for n in notes)
    write_csv(res / "250-s20-human-p9_results.csv", "human-p9", [True], "p9", [900.0])
    comp = compare_sort([res], n_boot=200)
    written, _ = write(comp, tmp_path / "one_trial.svg", width="column")
    text = svg_text(written[0])
    assert "n=1 person, 1 trial" in text and "SORT: accuracy, 1 person (95% CI)" in text
