"""The comparison figure as text, for the terminal (the Results screen): the same panels, rows, bars, counts,
intervals and notes as the paper figure, because both read one :class:`FigureContent`.

Each bar is a line: the series, a bar of block characters (one per 2.5 points, ``░`` where no interval could be
computed, as the paper figure hatches it), the value with its 95% CI (or "no CI") and n.
"""

from __future__ import annotations

from benchlab.data.analysis.figure_content import Bar, FigureContent
from benchlab.data.analysis.figure_labels import condition_label

BAR_CELLS = 40  # characters for 100%


def _bar_cells(bar: Bar) -> str:
    full = round(bar.value * BAR_CELLS)
    return ("█" if bar.interval is not None else "░") * full + " " * (BAR_CELLS - full)


def _value_text(bar: Bar) -> str:
    v = f"{100 * bar.value:5.1f}"
    if bar.interval is None:
        return f"{v} (no CI)"
    lo, hi = bar.interval
    return f"{v} [{100 * lo:.1f}, {100 * hi:.1f}]"


def figure_lines(content: FigureContent) -> list[str]:
    """Title, then per panel its rows and bars, then the notes."""
    width = max((len(b.series) for p in content.panels for r in p.rows for b in r.bars), default=8)
    lines = [content.title, f"{content.score_name} %, 95% CI; chance = {100 * content.chance:.0f}%"]
    for panel in content.panels:
        lines.append("")
        if panel.title:
            lines.append(f"== {panel.title} ==")
        for row in panel.rows:
            lines.append(f"  {row.label}")
            for bar in row.bars:
                lines.append(f"    {bar.series:<{width}} |{_bar_cells(bar)}| {_value_text(bar)}  {bar.n_text}")
    if content.rts:
        lines += ["", "Response times (per participant and condition): median s [IQR], n"]
        for c in content.rts:
            s = c.seconds
            q = [s[min(len(s) - 1, int(f * (len(s) - 1) + 0.5))] for f in (0.25, 0.5, 0.75)]
            where = condition_label(c.group).full if c.group else "all trials"
            lines.append(f"  {c.who}  {where}: {q[1]:.2f} [{q[0]:.2f}, {q[2]:.2f}], n={len(s)}")
    if content.notes:
        lines += ["", "Notes:"] + [f"  - {n}" for n in content.notes]
    return lines


def figure_text(content: FigureContent) -> str:
    return "\n".join(figure_lines(content))
