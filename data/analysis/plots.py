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
from benchlab.data.analysis.figure_colours import HUMAN_COLOUR as _HUMAN
from benchlab.data.analysis.figure_colours import OKABE_ITO, series_colours
from benchlab.data.analysis.figure_content import Bar, FigureContent, ModelItems, Panel, figure_content
from benchlab.data.analysis.figure_fit import fit_text, renderer_of, text_problems
from benchlab.data.analysis.figure_labels import condition_label
from benchlab.data.atomic import atomic_write_bytes
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
PlotWidth = Literal["column", "page"]
WIDTHS: dict[str, float] = {"column": 3.5, "page": 7.0}  # inches (journal column / full page width)
DPI = 300
#: Okabe & Ito (2008): distinguishable with the common colour-vision deficiencies and in grey scale; every series
#: gets a colour of its own (:mod:`benchlab.data.analysis.figure_colours`)
HUMAN_COLOUR = _HUMAN
MODEL_COLOURS = OKABE_ITO
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
    rt_cols: int  # RT panels per row
    label_chars: int  # a bar's series label is wrapped at this many characters (long model names)


MAX_ROWS = {"column": 8, "page": 10}  # conditions per panel before a panel is split in parts
STYLES = {"column": Style(3.5, 8.0, 6.5, 0.16, 1, 2, 18), "page": Style(7.0, 9.0, 7.0, 0.17, 2, 3, 22)}
MAX_HEIGHT = 9.0  # inches: the tallest figure a journal page takes; more panels go onto more pages (files)
PANEL_MAX_IN = 6.0  # inches: a panel is split into parts before it grows taller than this
RT_ROW_IN = 1.6  # inches per row of RT panels
MARGIN_IN = 0.04  # inches kept free at the figure's left and right edges


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


def _colours(content: FigureContent) -> dict[str, str]:
    """A colour per bar series (humans blue, every model and pilot its own) and per RT participant."""
    humans = [b.series for p in content.panels for r in p.rows for b in r.bars if b.kind == "humans"]
    series = [*content.series, *(b.series for p in content.panels for r in p.rows for b in r.bars)]
    return series_colours(series, humans)


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


def _draw_panel(ax: Axes, content: FigureContent, panel: Panel, style: Style) -> Text | None:
    """Draw one panel; its title (to be wrapped once the layout is known), if any."""
    # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is reported)
    import matplotlib.transforms as mtransforms

    heading = mtransforms.blended_transform_factory(ax.transAxes, ax.transData)
    colours = _colours(content)
    ticks, labels = [], []
    for y, label, bar in _layout(panel):
        if bar is None:
            ax.text(0.0, y, label, transform=heading, fontsize=style.font, fontstyle="italic", va="center",
                    ha="left")
            continue
        ticks.append(y)
        labels.append(label)
        colour = colours.get(bar.series, HUMAN_COLOUR)
        value = 100 * bar.value
        if bar.interval is None:
            ax.barh(y, value, height=0.7, facecolor="none", edgecolor=colour, hatch="////", linewidth=0.8)
            ax.text(value + 1.5 if value < 80 else value - 1.5, y, "no CI", fontsize=style.small, va="center",
                    ha="left" if value < 80 else "right", bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
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
    ax.set_yticks(ticks, [textwrap.fill(lab, style.label_chars) for lab in labels], fontsize=style.small)
    ax.tick_params(axis="x", labelsize=style.small)
    ax.set_ylim(_panel_units(panel), -0.8)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"{content.score_name} (%)", fontsize=style.small)
    ax.spines[["top", "right"]].set_visible(False)
    return ax.set_title(panel.title, fontsize=style.font, loc="left") if panel.title else None


def _draw_rt(fig: Figure, grid: Any, content: FigureContent, groups: Sequence[str], style: Style) -> list[Text]:
    """One row of RT panels (``groups``, at most ``style.rt_cols``): per-participant ECDFs, a colour per person."""
    who = list(dict.fromkeys(c.who for c in content.rts))
    # people take the colours after the models' (a person's curve never looks like a model's bar)
    humans = [b.series for p in content.panels for r in p.rows for b in r.bars if b.kind == "humans"]
    everyone = series_colours([*content.series, *who], humans)
    colours = {w: HUMAN_COLOUR for w in who} if len(who) == 1 else {w: everyone[w] for w in who}
    sub = grid.subgridspec(1, style.rt_cols)
    top = max(max(c.seconds) for c in content.rts)
    titles = []
    for k, g in enumerate(groups):
        ax = fig.add_subplot(sub[0, k])
        for c in (c for c in content.rts if c.group == g):
            y = np.arange(1, len(c.seconds) + 1) / len(c.seconds)
            ax.step(c.seconds, y, where="post", linewidth=0.9, color=colours[c.who],
                    label=f"{c.who} (n={len(c.seconds)})")
        ax.set_xlim(0, top * 1.02)
        ax.set_ylim(0, 1)
        ax.set_yticks([0, 0.5, 1])
        ax.tick_params(labelsize=style.small)
        titles.append(ax.set_title(condition_label(g).full if g else "all trials", fontsize=style.small, loc="left"))
        ax.set_xlabel("response time (s)", fontsize=style.small)
        if k == 0:
            ax.set_ylabel("share of trials\n(cumulative)", fontsize=style.small)
        if len(who) <= 6:
            ax.legend(fontsize=style.small - 0.5, frameon=False, loc="lower right", handlelength=1.2)
        ax.spines[["top", "right"]].set_visible(False)
    return titles


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


@dataclass(frozen=True)
class Block:
    """One row of a page: panels side by side, or a row of RT panels (their groups), and its height in inches."""

    height: float
    panels: tuple[Panel, ...] = ()
    rt_groups: tuple[str, ...] = ()


def _blocks(content: FigureContent, style: Style, rt_panels: bool) -> list[Block]:
    layout = _panel_rows(content.panels, style.panel_cols) or [[Panel("no data from people or models", ())]]
    out = [Block(max(_panel_units(p) for p in row) * style.row_in + 0.75, tuple(row)) for row in layout]
    if rt_panels and content.rts:
        groups = list(dict.fromkeys(c.group for c in content.rts))
        for i in range(0, len(groups), style.rt_cols):
            out.append(Block(RT_ROW_IN, rt_groups=tuple(groups[i:i + style.rt_cols])))
    return out


def _pages(blocks: list[Block], budget: float) -> list[list[Block]]:
    """Blocks packed in order onto pages of at most ``budget`` inches (a block taller than that: a page of its
    own, squeezed by the layout to the page)."""
    pages: list[list[Block]] = [[]]
    for b in blocks:
        if pages[-1] and sum(x.height for x in pages[-1]) + b.height > budget:
            pages.append([])
        pages[-1].append(b)
    return pages


def _text_height(text: str, width: float, fontsize: float) -> float:
    """Inches ``text`` takes when wrapped to ``width`` inches at ``fontsize`` (measured on a scratch figure)."""
    if not text:
        return 0.0
    # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn (missing, it is reported)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as Fig

    fig = Fig(figsize=(width, 2), dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    t = fig.text(0, 0, text, fontsize=fontsize)
    renderer = canvas.get_renderer()
    fit_text(t, (width - 2 * MARGIN_IN) * DPI, renderer)
    return float(t.get_window_extent(renderer).height) / DPI + 0.08


def _key(content: FigureContent) -> str:
    panels = content.panels
    key = f"Dashed line: chance ({content.chance:.0%})"
    if any(b.dots for p in panels for r in p.rows for b in r.bars):
        flagged = any(d.flagged for p in panels for r in p.rows for b in r.bars for d in b.dots)
        key += "; dots: participants" + (" (open: flagged)" if flagged else "")
    return key + "."


def _fit(fig: Figure, titles: list[Text], texts: list[Text]) -> None:
    """Wrap the panel titles to their axes' drawn width and the page texts to the page; twice, as the layout moves
    the axes once the titles take their height."""
    for _ in range(2):
        renderer = renderer_of(fig)
        for t in titles:
            if t.axes is not None:
                fit_text(t, t.axes.get_window_extent(renderer).width, renderer)
        for t in texts:
            fit_text(t, fig.bbox.width - 2 * MARGIN_IN * fig.dpi, renderer)


def comparison_figures(comp: Comparison, width: PlotWidth = "page", *, include_pilots: bool = False,
                       content: FigureContent | None = None, rt_panels: bool = True,
                       model_items: ModelItems = "same") -> list[Figure]:
    """The figure of ``comp`` at ``width`` as pages of at most :data:`MAX_HEIGHT` inches (see the module docstring);
    every condition, in panels; the RT panels when ``rt_panels``; the notes under the last page."""
    plt = _pyplot()
    style = STYLES[width]
    content = content or figure_content(comp, max_rows=max_rows(comp, width), include_pilots=include_pilots,
                                        model_items=model_items)
    foot = [n for n in content.notes if n.startswith("Left out") or n.startswith("No 95% CI")]
    key = _key(content)
    title_h = _text_height(content.title + " (page 9 of 9)", style.width, style.font + 0.5)
    foot_h = _text_height("\n".join([key, *foot]), style.width, style.small)
    budget = MAX_HEIGHT - title_h - foot_h - 0.15
    pages = _pages(_blocks(content, style, rt_panels), budget)
    figures = []
    for number, page in enumerate(pages, start=1):
        height = min(MAX_HEIGHT, sum(b.height for b in page) + title_h + foot_h + 0.15)
        with plt.rc_context({"font.size": style.font, "hatch.linewidth": 0.6, **SAVE_RC}):
            fig = plt.figure(figsize=(style.width, height), layout="constrained", dpi=DPI)
            fig.get_layout_engine().set(w_pad=MARGIN_IN, h_pad=0.03)
            grid = fig.add_gridspec(len(page), 1, height_ratios=[b.height for b in page])
            titles = []
            for r, block in enumerate(page):
                if block.rt_groups:
                    titles += _draw_rt(fig, grid[r], content, block.rt_groups, style)
                    continue
                cells = grid[r].subgridspec(1, style.panel_cols if len(block.panels) > 1 else 1)
                for k, panel in enumerate(block.panels):
                    ax = fig.add_subplot(cells[0, k])
                    if panel.rows:
                        title = _draw_panel(ax, content, panel, style)
                        titles += [title] if title is not None else []
                    else:
                        ax.text(0.5, 0.5, panel.title, ha="center", va="center", transform=ax.transAxes)
                        ax.set_axis_off()
            suffix = f" (page {number} of {len(pages)})" if len(pages) > 1 else ""
            texts = [fig.suptitle(content.title + suffix, fontsize=style.font + 0.5)]
            notes = [key, *foot] if number == len(pages) else [key]
            texts.append(fig.supxlabel("\n".join(notes), fontsize=style.small, x=MARGIN_IN / style.width, ha="left",
                                       color="#333333", linespacing=1.3))
            _fit(fig, titles, texts)
        figures.append(fig)
    return figures


def comparison_figure(comp: Comparison, width: PlotWidth = "page", *, include_pilots: bool = False,
                      content: FigureContent | None = None, rt_panels: bool = True) -> Figure:
    """The first page of :func:`comparison_figures` (all of it when it fits one page)."""
    figures = comparison_figures(comp, width, include_pilots=include_pilots, content=content, rt_panels=rt_panels)
    plt = _pyplot()
    for extra in figures[1:]:
        plt.close(extra)
    return figures[0]


def max_rows(comp: Comparison, width: PlotWidth) -> int:
    """Conditions per panel: the width's cap, fewer when many series would make a panel taller than a page."""
    models = len(comp.models)
    units = 1.15 + 0.25 + 1.55 + 1.0 * models  # a condition's heading, gap, humans' bar and the models' bars
    fits = int((PANEL_MAX_IN - 0.75) / (STYLES[width].row_in * units))
    return max(1, min(MAX_ROWS[width], fits))


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


def page_paths(path: Path, pages: int) -> list[Path]:
    """``path`` for the first page, ``<stem>-p2<suffix>`` ... for the next (a figure taller than a page)."""
    return [path] + [path.with_name(f"{path.stem}-p{k}{path.suffix}") for k in range(2, pages + 1)]


def write_figure(comp: Comparison, path: str | Path, *, width: PlotWidth = "page", formats: Sequence[str] = (),
                 include_pilots: bool = False, rt_panels: bool = True,
                 model_items: ModelItems = "same") -> tuple[list[Path], list[str]]:
    """Write the figure (atomically) in each format, one file per page: the files written and the figure's notes
    (what was left out, where no interval exists), which the caller prints so nothing is dropped silently.
    A text that overlaps another or leaves the page is a bug: it is named in the notes, never silently printed."""
    check_plot_path(path, formats)
    plt = _pyplot()
    content = figure_content(comp, max_rows=max_rows(comp, width), include_pilots=include_pilots,
                             model_items=model_items)
    figures = comparison_figures(comp, width, content=content, rt_panels=rt_panels)
    written = []
    notes = list(content.notes)
    try:
        for fig in figures:
            notes += [f"layout problem (please report): {p}" for p in text_problems(fig)]
        for p, fmt in plot_paths(path, formats):
            for target, fig in zip(page_paths(p, len(figures)), figures, strict=True):
                buf = io.BytesIO()
                with plt.rc_context(SAVE_RC):
                    fig.savefig(buf, format=fmt, dpi=DPI, metadata={"Software": "benchlab"} if fmt == "png" else None)
                atomic_write_bytes(target, buf.getvalue())
                written.append(target)
    finally:
        for fig in figures:
            plt.close(fig)
    return written, notes


def save_comparison_plot(comp: Comparison, path: str | Path, width: PlotWidth = "page") -> Path:
    """Write the figure; the format follows the suffix (.png, .svg, .pdf). Written atomically."""
    return write_figure(comp, path, width=width)[0][0]
