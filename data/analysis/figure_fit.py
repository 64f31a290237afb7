"""Text that fits a printed figure: wrapping measured with the renderer, and the check that no text overlaps another
or runs off the page.

Wrapping by a character count guesses a font's width and got it wrong both ways (panel titles ran into the next
panel and off the page, the footnote was clipped); here a line is broken where the *drawn* width would pass the
room it has (matplotlib's renderer measures each candidate line in the artist's own font). :func:`text_problems`
reads the drawn text boxes (``get_window_extent`` with the renderer) and names every pair that overlaps and every
text that leaves the figure: the figure code runs it after drawing, and the tests assert it finds nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.text import Text

#: Two boxes touching by less than this many pixels (at the renderer's dpi) do not count as overlapping: rounding.
TOLERANCE_PX = 0.5


def renderer_of(fig: Figure) -> Any:
    """The figure's renderer (Agg), drawing the figure first so that layout and text positions are final."""
    fig.canvas.draw()
    return fig.canvas.get_renderer()  # type: ignore[attr-defined]


def text_width_px(text: str, artist: Text, renderer: Any) -> float:
    """The drawn width of ``text`` in ``artist``'s font (pixels at the renderer's dpi)."""
    width, _height, _descent = renderer.get_text_width_height_descent(text, artist.get_fontproperties(),
                                                                      ismath=False)
    return float(width)


def wrap_to_width(text: str, artist: Text, width_px: float, renderer: Any) -> str:
    """``text`` broken into lines at spaces so that each drawn line is at most ``width_px`` wide (a single word
    longer than that keeps its own line: it is never cut); existing line breaks are kept."""
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and text_width_px(candidate, artist, renderer) > width_px:
                out.append(line)
                line = word
            else:
                line = candidate
        out.append(line)
    return "\n".join(out)


def fit_text(artist: Text, width_px: float, renderer: Any) -> None:
    """Re-wrap ``artist``'s text (from its unwrapped form) to ``width_px``."""
    raw = getattr(artist, "_benchlab_raw", None)
    if raw is None:
        raw = artist.get_text().replace("\n", " ")
        artist._benchlab_raw = raw  # type: ignore[attr-defined]
    artist.set_text(wrap_to_width(raw, artist, max(width_px, 1.0), renderer))


def _drawn_tick_labels(fig: Figure) -> tuple[list[Text], set[int]]:
    """The tick labels each axis draws (ticks inside the view limits), and the ids of all tick labels: matplotlib
    keeps labels of ticks outside the limits as visible artists it does not draw."""
    drawn: list[Text] = []
    every: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                every.update({id(tick.label1), id(tick.label2)})
            if not ax.get_visible() or not axis.get_visible():
                continue
            for tick in axis._update_ticks():  # type: ignore[union-attr]  # the ticks drawn (private, stable since 3.1)
                drawn += [lab for lab in (tick.label1, tick.label2) if lab.get_visible()]
    return drawn, every


def visible_texts(fig: Figure) -> list[Text]:
    """Every drawn, non-empty text of the figure (titles, labels, drawn tick labels, legends, notes)."""
    # deferred: matplotlib is the optional [plot] extra, loaded only when a figure is drawn
    from matplotlib.text import Text

    ticks, tick_ids = _drawn_tick_labels(fig)
    out = [t for t in ticks if t.get_text().strip()]
    for t in fig.findobj(Text):
        if id(t) in tick_ids or not t.get_visible() or not t.get_text().strip():
            continue
        axes = t.axes
        if axes is not None and not axes.get_visible():
            continue
        out.append(t)
    return out


def text_problems(fig: Figure) -> list[str]:
    """Every pair of texts whose drawn boxes overlap and every text that is not wholly inside the figure, in words
    (empty when the figure is clean)."""
    renderer = renderer_of(fig)
    page = fig.bbox
    boxes = [(t, t.get_window_extent(renderer)) for t in visible_texts(fig)]
    problems = []
    for t, box in boxes:
        if (box.x0 < page.x0 - TOLERANCE_PX or box.y0 < page.y0 - TOLERANCE_PX or box.x1 > page.x1 + TOLERANCE_PX
                or box.y1 > page.y1 + TOLERANCE_PX):
            problems.append(f"outside the figure: {t.get_text()!r}")
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            dx = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            dy = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if dx > TOLERANCE_PX and dy > TOLERANCE_PX:
                problems.append(f"overlap: {a.get_text()!r} and {b.get_text()!r}")
    return problems
