"""One colour per series, never two alike: for the paper figure and the Results screen's chart.

Pooled humans are always blue; models and pilots take the Okabe & Ito (2008) colours in order (distinguishable with
the common colour-vision deficiencies and in grey scale), then Paul Tol's muted scheme, then evenly spaced hues, so
any number of series gets as many different colours (the old code cycled 7 colours: model 8 looked like model 1,
and the terminal chart let plotext pick, which drew two models alike).
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence

HUMAN_COLOUR = "#0072B2"
#: Okabe-Ito without the humans' blue, in the order series take them
OKABE_ITO = ["#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
#: Paul Tol's muted scheme: after the Okabe-Ito colours run out
TOL_MUTED = ["#332288", "#117733", "#44AA99", "#999933", "#882255", "#AA4499", "#DDCC77", "#CC6677"]
PALETTE = OKABE_ITO + TOL_MUTED


def _hue(k: int) -> str:
    """The ``k``-th extra colour: golden-ratio hue steps, alternating lightness (never equal to an earlier one)."""
    h = (0.13 + 0.618033988749895 * k) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.38 if k % 2 else 0.55, 0.75)
    return f"#{round(255 * r):02X}{round(255 * g):02X}{round(255 * b):02X}"


def other_colours(n: int) -> list[str]:
    """``n`` different colours for the series that are not the pooled humans, in order."""
    out = list(PALETTE[:n])
    k = 0
    while len(out) < n:
        c = _hue(k)
        k += 1
        if c not in out and c != HUMAN_COLOUR:
            out.append(c)
    return out


def series_colours(series: Sequence[str], humans: Sequence[str] = ()) -> dict[str, str]:
    """A hex colour per series name: the pooled humans' series blue, every other a colour of its own."""
    others = [s for s in dict.fromkeys(series) if s not in humans]
    colours = dict(zip(others, other_colours(len(others)), strict=True))
    return {**{h: HUMAN_COLOUR for h in humans}, **colours}


def rgb(colour: str) -> tuple[int, int, int]:
    """``#RRGGBB`` as a 0-255 triple (the terminal chart's colour form)."""
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
