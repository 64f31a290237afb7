"""Publication figures of a comparison (matplotlib, the ``plot`` extra; imported only when a figure is asked for).

What is drawn is decided in :mod:`benchlab.data.analysis.figure_content` (shared with the terminal view); this
module only draws it the way journals ask for: a fixed width (3.5 in column, 7 in page), fonts of 7-9 pt at that
size, vector PDF (TrueType fonts) and SVG (text kept as text) or 300-dpi PNG, the colour-blind-safe Okabe-Ito
palette, horizontal bars so long condition names stay readable, a whisker on every bar (hatched bar where no
interval exists), n under every human bar, participants as dots, and response times as per-participant ECDFs
(cumulative share of trials: comparable across people with different numbers of trials) per condition group.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.figure_content import Bar, FigureContent, Panel, figure_content
from benchlab.data.analysis.figure_labels import condition_label
from benchlab.data.atomic import atomic_write_bytes
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
PlotWidth = Literal["column", "page"]
WIDTHS: dict[str, float] = {"column": 3.5, "page": 7.0}  # inches (journal column / full page width)
DPI = 300
#: Okabe & Ito (2008): distinguishable with the common colour-vision deficiencies and in grey scale
HUMAN_COLOUR = "#0072B2"
MODEL_COLOURS = ["#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
PILOT_COLOUR = "#999999"
LINESTYLES = ["-", "--", ":", "-."]
#: read when the file is written: SVG text stays text (searchable, editable), PDF fonts are TrueType (Type 42), as
#: journals ask, not Type 3
SAVE_RC = {"svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42}


@dataclass(frozen=True)
class Style:
    """Sizes for one width: readable when printed at that width (no downscaling)."""

    width: float
    font: float
    small: float
    row_in: float  # inches per bar row
    panel_cols: int


MAX_ROWS = {"column": 8, "page": 10}  # conditions per panel before a panel is split in parts
STYLES = {"column": Style(3.5, 8.0, 6.5, 0.16, 1), "page": Style(7.0, 9.0, 7.0, 0.17, 2)}


def _checkout() -> Path | None:
    """The source checkout benchlab runs from (an editable install), or ``None`` when installed from an index:
    there ``pip install 'benchlab[plot]'`` would fetch a second benchlab instead of adding matplotlib."""
    root = Path(__file__).resolve().parents[2]  # data/analysis/plots.py -> the checkout's root
    return root if (root / "pyproject.toml").is_file() else None


def install_hint() -> str:
    """How to add matplotlib, in words that work where benchlab is installed."""
    root = _checkout()
    if root is not None:
        return (f"in the checkout {root}: pip install -e '.[plot]'; from an index: pip install 'benchlab[plot]'")
    return "pip install 'benchlab[plot]'"


def font_cache_missing() -> bool:
    """True when matplotlib has no font list cached yet: its first figure then scans every font on the machine
    (26 s seen on a fresh machine). Only ``matplotlib`` itself is imported (not pyplot, which builds the cache)."""
    try:
        # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is
        # reported)
        import matplotlib
    except ImportError:
        return False
    try:
        return not any(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json"))
    except OSError:
        return True


def _pyplot() -> Any:
    try:
        # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is
        # reported)
        import matplotlib

        matplotlib.use("Agg", force=True)
        # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is
        # reported)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise BenchlabError(f"figures need matplotlib: install the plot extra ({install_hint()})") from exc
    return plt


def _colour(content: FigureContent, bar: Bar) -> str:
    if bar.kind == "humans":
        return HUMAN_COLOUR
    if bar.kind == "pilot":
        return PILOT_COLOUR
    models = [s for s in content.series if s != content.series[0]] if content.series else []
    idx = models.index(bar.series) if bar.series in models else 0
    return MODEL_COLOURS[idx % len(MODEL_COLOURS)]


def _layout(panel: Panel) -> list[tuple[float, str, Bar | None]]:
    """(y, label, bar) per line of a panel, top to bottom: a heading per condition, then its bars."""
    out: list[tuple[float, str, Bar | None]] = []
    y = 0.0
    for row in panel.rows:
        out.append((y, row.label, None))
        y += 1.15
        for bar in row.bars:
            out.append((y, bar.series, bar))
            y += 1.55 if bar.kind != "model" else 1.0
        y += 0.25
    return out


def _panel_units(panel: Panel) -> float:
    lines = _layout(panel)
    return (lines[-1][0] + 1.0) if lines else 1.0


def _draw_panel(ax: Axes, content: FigureContent, panel: Panel, style: Style) -> None:
    # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is reported)
    import matplotlib.transforms as mtransforms

    heading = mtransforms.blended_transform_factory(ax.transAxes, ax.transData)
    ticks, labels = [], []
    for y, label, bar in _layout(panel):
        if bar is None:
            ax.text(0.0, y, label, transform=heading, fontsize=style.font, fontstyle="italic", va="center",
                    ha="left")
            continue
        ticks.append(y)
        labels.append(label)
        colour = _colour(content, bar)
        value = 100 * bar.value
        if bar.interval is None:
            ax.barh(y, value, height=0.7, facecolor="none", edgecolor=colour, hatch="////", linewidth=0.8)
            ax.text(value + 1.5, y, "no CI", fontsize=style.small, va="center")
        else:
            lo, hi = (100 * bar.interval[0], 100 * bar.interval[1])
            ax.barh(y, value, height=0.7, color=colour)
            ax.errorbar(value, y, xerr=[[max(0.0, value - lo)], [max(0.0, hi - value)]], fmt="none",
                        ecolor="#222222", elinewidth=0.9, capsize=2)
        if bar.kind != "model":
            ax.text(0.5, y + 0.66, bar.n_text, fontsize=style.small, va="center", ha="left", color="#333333")
        if bar.dots:
            xs = [100 * d.value for d in bar.dots]
            offsets = [y + 0.22 * (((k % 5) - 2) / 2) for k in range(len(xs))]
            plain = [(x, o) for (x, o), d in zip(zip(xs, offsets, strict=True), bar.dots, strict=True)
                     if not d.flagged]
            flagged = [(x, o) for (x, o), d in zip(zip(xs, offsets, strict=True), bar.dots, strict=True)
                       if d.flagged]
            if plain:
                ax.scatter([p[0] for p in plain], [p[1] for p in plain], s=7, color="black", edgecolors="white",
                           linewidths=0.3, zorder=3, clip_on=False, label="participants")
            if flagged:
                ax.scatter([p[0] for p in flagged], [p[1] for p in flagged], s=12, facecolors="none",
                           edgecolors="black", zorder=3, linewidths=0.7, clip_on=False, label="flagged participants")
    ax.axvline(100 * content.chance, color="#666666", linestyle="--", linewidth=0.8)
    ax.set_yticks(ticks, labels, fontsize=style.small)
    ax.tick_params(axis="x", labelsize=style.small)
    ax.set_ylim(_panel_units(panel), -0.8)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"{content.score_name} (%)", fontsize=style.small)
    if panel.title:
        ax.set_title(textwrap.fill(panel.title, 60 if style.width < 5 else 80), fontsize=style.font, loc="left")
    ax.spines[["top", "right"]].set_visible(False)


def _draw_rt(fig: Figure, grid: Any, content: FigureContent, style: Style) -> None:
    groups = list(dict.fromkeys(c.group for c in content.rts))
    who = list(dict.fromkeys(c.who for c in content.rts))
    cols = min(len(groups), 2 if style.width < 5 else 3)
    sub = grid.subgridspec((len(groups) + cols - 1) // cols, cols)
    top = max(max(c.seconds) for c in content.rts)
    for k, g in enumerate(groups):
        ax = fig.add_subplot(sub[k // cols, k % cols])
        for c in (c for c in content.rts if c.group == g):
            i = who.index(c.who)
            y = np.arange(1, len(c.seconds) + 1) / len(c.seconds)
            ax.step(c.seconds, y, where="post", linewidth=0.9, color=MODEL_COLOURS[i % len(MODEL_COLOURS)]
                    if len(who) > 1 else HUMAN_COLOUR, linestyle=LINESTYLES[(i // len(MODEL_COLOURS)) % 4],
                    label=f"{c.who} (n={len(c.seconds)})")
        ax.set_xlim(0, top * 1.02)
        ax.set_ylim(0, 1)
        ax.set_yticks([0, 0.5, 1])
        ax.tick_params(labelsize=style.small)
        ax.set_title(textwrap.fill(condition_label(g).full if g else "all trials", 22 if cols > 1 and style.width < 5
                                   else 45), fontsize=style.small,
                     loc="left")
        ax.set_xlabel("response time (s)", fontsize=style.small)
        if k % cols == 0:
            ax.set_ylabel("share of trials\n(cumulative)", fontsize=style.small)
        if len(who) <= 6:
            ax.legend(fontsize=style.small - 0.5, frameon=False, loc="lower right", handlelength=1.2)
        ax.spines[["top", "right"]].set_visible(False)


def _panel_rows(panels: list[Panel], cols: int) -> list[list[Panel]]:
    """Panels side by side (up to ``cols``) only when they are about as tall, so none is stretched; a panel of
    another height (the overall one) gets a row of its own."""
    rows: list[list[Panel]] = []
    for panel in panels:
        last = rows[-1] if rows else None
        if (last is not None and len(last) < cols
                and abs(_panel_units(panel) - _panel_units(last[0])) <= 0.15 * _panel_units(last[0])):
            last.append(panel)
        else:
            rows.append([panel])
    return rows


def comparison_figure(comp: Comparison, width: PlotWidth = "page", *, include_pilots: bool = False,
                      content: FigureContent | None = None) -> Figure:
    """The figure of ``comp`` at ``width`` (see the module docstring); every condition, in panels."""
    plt = _pyplot()
    style = STYLES[width]
    content = content or figure_content(comp, max_rows=MAX_ROWS[width], include_pilots=include_pilots)
    panels = content.panels
    layout = _panel_rows(panels, style.panel_cols) or [[Panel("no data from people or models", ())]]
    prow = len(layout)
    row_heights = [max(_panel_units(p) for p in row) * style.row_in + 0.6 for row in layout]
    rt_groups = len({c.group for c in content.rts})
    rt_cols = min(rt_groups, 2 if width == "column" else 3)
    rt_height = ((rt_groups + rt_cols - 1) // rt_cols) * 1.45 if content.rts else 0.0
    foot = [n for n in content.notes if n.startswith("Left out") or n.startswith("No 95% CI")]
    foot_text = "\n".join(textwrap.fill(n, 70 if width == "column" else 140) for n in foot)
    foot_height = 0.13 * (foot_text.count("\n") + 1) if foot_text else 0.0
    height = sum(row_heights) + rt_height + 0.5 + foot_height + 0.2
    with plt.rc_context({"font.size": style.font, "hatch.linewidth": 0.6, **SAVE_RC}):
        fig = plt.figure(figsize=(style.width, height), layout="constrained")
        ratios = row_heights + ([rt_height] if content.rts else []) + ([foot_height] if foot_text else [])
        grid = fig.add_gridspec(len(ratios), 1, height_ratios=ratios)
        first = None
        for r, row in enumerate(layout):
            cells = grid[r].subgridspec(1, len(row))
            for k, panel in enumerate(row):
                ax = fig.add_subplot(cells[0, k])
                first = first or ax
                if panel.rows:
                    _draw_panel(ax, content, panel, style)
                else:
                    ax.text(0.5, 0.5, panel.title, ha="center", va="center", transform=ax.transAxes)
                    ax.set_axis_off()
        if content.rts:
            _draw_rt(fig, grid[prow], content, style)
        if foot_text:
            ax = fig.add_subplot(grid[-1])
            ax.set_axis_off()
            ax.text(0, 1, foot_text, fontsize=style.small, va="top", ha="left", transform=ax.transAxes)
        fig.suptitle(textwrap.fill(content.title, 55 if width == "column" else 110), fontsize=style.font + 0.5)
        if first is not None:
            flagged = any(d.flagged for p in panels for r in p.rows for b in r.bars for d in b.dots)
            key = f"dashed: chance ({content.chance:.0%})"
            if any(b.dots for p in panels for r in p.rows for b in r.bars):
                key += "; dots: participants" + (" (open: flagged)" if flagged else "")
            first.text(1.0, 1.0, key, transform=first.transAxes,
                       fontsize=style.small, ha="right", va="bottom", color="#444444")
    return fig


def plot_paths(path: str | Path, formats: Sequence[str] = ()) -> list[tuple[Path, str]]:
    """The files to write: ``path`` in its suffix's format, or ``path`` with each of ``formats`` as suffix."""
    p = Path(path)
    if formats:
        return [(p.with_suffix(f".{f}"), f) for f in dict.fromkeys(formats)]
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise BenchlabError("unsupported figure format (use .png, .svg or .pdf)", p)
    return [(p, fmt)]


def check_plot_path(path: str | Path, formats: Sequence[str] = ()) -> str:
    """The figure format for ``path``, or a clear error (suffix, folder, matplotlib) before any work is done."""
    p = Path(path)
    out = plot_paths(p, formats)
    for f in formats:
        if f not in FORMATS.values():
            raise BenchlabError(f"unsupported figure format {f!r} (use png, svg or pdf)", p)
    if not p.parent.is_dir():
        raise BenchlabError("the folder for the figure does not exist", p.parent)
    _pyplot()  # the import is the check (a broken or blocked install counts as missing)
    return out[0][1]


def write_figure(comp: Comparison, path: str | Path, *, width: PlotWidth = "page", formats: Sequence[str] = (),
                 include_pilots: bool = False) -> tuple[list[Path], list[str]]:
    """Write the figure (atomically) in each format: the files written and the figure's notes (what was left
    out, where no interval exists), which the caller prints so nothing is dropped silently."""
    check_plot_path(path, formats)
    plt = _pyplot()
    content = figure_content(comp, max_rows=MAX_ROWS[width], include_pilots=include_pilots)
    fig = comparison_figure(comp, width, content=content)
    written = []
    try:
        for p, fmt in plot_paths(path, formats):
            buf = io.BytesIO()
            with plt.rc_context(SAVE_RC):
                fig.savefig(buf, format=fmt, dpi=DPI, metadata={"Software": "benchlab"} if fmt == "png" else None)
            atomic_write_bytes(p, buf.getvalue())
            written.append(p)
    finally:
        plt.close(fig)
    return written, content.notes


def save_comparison_plot(comp: Comparison, path: str | Path, width: PlotWidth = "page") -> Path:
    """Write the figure; the format follows the suffix (.png, .svg, .pdf). Written atomically."""
    return write_figure(comp, path, width=width)[0][0]
