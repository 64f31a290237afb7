"""Publication figures of a comparison (matplotlib, the ``plot`` extra; imported only when a figure is asked for).

One figure: accuracy per condition with 95% CI error bars, pooled humans next to every model, each participant
as a dot over the humans' bar, chance as a dashed line; and, when response times were recorded, a histogram of
response times per participant below it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.analysis.compare import POOLED, Comparison
from benchlab.data.atomic import atomic_write_bytes
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
HUMAN_COLOUR = "#4c72b0"
MODEL_COLOURS = ["#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974"]


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise BenchlabError(
            "figures need matplotlib: install the plot extra (pip install 'benchlab[plot]')"
        ) from exc
    return plt


def comparison_figure(comp: Comparison, max_conditions: int = 12) -> Figure:
    """Grouped bars (humans, then models) per condition with CI whiskers; RT histograms if there are RTs."""
    plt = _pyplot()
    conditions = comp.conditions[:max_conditions]
    series = [e for e in comp.entries if e.kind == "humans"] + comp.models
    has_rt = any(comp.rts_ms.values())
    fig = plt.figure(figsize=(max(6.5, 1.1 * len(conditions) + 2.5), 6.8 if has_rt else 4.2), layout="constrained")
    grid = fig.add_gridspec(2 if has_rt else 1, 1, height_ratios=[2.2, 1] if has_rt else [1])
    ax = fig.add_subplot(grid[0])
    width = 0.8 / max(1, len(series))
    for i, entry in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for j, cond in enumerate(conditions):
            cell = comp.cell(entry.name, cond)
            if cell is None or cell.value != cell.value:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(100 * cell.value)
            low = cell.ci_low if cell.ci_low == cell.ci_low else cell.value
            high = cell.ci_high if cell.ci_high == cell.ci_high else cell.value
            lo.append(max(0.0, 100 * (cell.value - low)))
            hi.append(max(0.0, 100 * (high - cell.value)))
        colour = HUMAN_COLOUR if entry.kind == "humans" else MODEL_COLOURS[(i - 1) % len(MODEL_COLOURS)]
        ax.bar(xs, ys, width=width * 0.95, color=colour, label=entry.name, yerr=[lo, hi], capsize=2.5,
               error_kw={"elinewidth": 1, "ecolor": "#222222"})
    if series and series[0].name == POOLED:
        for j, cond in enumerate(conditions):
            pts = [comp.cell(p.name, cond) for p in comp.pooled_people]  # no simulated pilot among the people
            vals = [100 * c.value for c in pts if c is not None and c.value == c.value]
            if vals:
                x0 = j - 0.4 + width * 0.5
                offsets = [x0 + width * 0.3 * ((k % 5) - 2) / 2 for k in range(len(vals))]
                ax.scatter(offsets, vals, s=10, color="black", zorder=3,
                           label="participants" if j == 0 else None)
    ax.axhline(100 * comp.chance, color="grey", linestyle="--", linewidth=1, label=f"chance ({comp.chance:.0%})")
    ax.set_xticks(range(len(conditions)))
    ax.set_xticklabels(conditions, rotation=30 if len(conditions) > 4 else 0, ha="right" if len(conditions) > 4
                       else "center")
    ax.set_ylabel(f"{comp.score_name} (%)")
    ax.set_ylim(0, 105)
    ax.set_title(f"{comp.benchmark}: humans vs models (95% CI)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    if has_rt:
        import numpy as np

        ax2 = fig.add_subplot(grid[1])
        everything = np.concatenate([np.asarray(r, dtype=float) for r in comp.rts_ms.values() if r]) / 1000
        edges = np.histogram_bin_edges(everything, bins=30)
        labels = {e.name: e.label for e in comp.participants}
        for name, rts in comp.rts_ms.items():
            if rts:
                ax2.hist(np.asarray(rts) / 1000, bins=edges, histtype="step", linewidth=1.4,
                         label=labels.get(name, name))
        ax2.set_xlabel("response time (s)")
        ax2.set_ylabel("trials")
        ax2.set_xlim(left=0)
        ax2.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax2.spines[["top", "right"]].set_visible(False)
    return fig


def check_plot_path(path: str | Path) -> str:
    """The figure format for ``path``, or a clear error (suffix, folder, matplotlib) before any work is done."""
    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise BenchlabError("unsupported figure format (use .png, .svg or .pdf)", p)
    if not p.parent.is_dir():
        raise BenchlabError("the folder for the figure does not exist", p.parent)
    _pyplot()  # the import is the check (a broken or blocked install counts as missing)
    return fmt


def save_comparison_plot(comp: Comparison, path: str | Path) -> Path:
    """Write the figure; the format follows the suffix (.png, .svg, .pdf). Written atomically."""
    p = Path(path)
    fmt = check_plot_path(p)
    plt = _pyplot()
    fig = comparison_figure(comp)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=200, metadata={"Software": "benchlab"} if fmt == "png" else None)
    plt.close(fig)
    atomic_write_bytes(p, buf.getvalue())
    return p
