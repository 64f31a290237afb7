"""SORT's distance bins (the published algorithm's edges), apart from the records so that the plan options
(:mod:`benchlab.annotations.sort.plan_options`, read to lay out ``benchlab run sort --help``) need no pydantic."""

from __future__ import annotations


def distance_bin_edges(excerpt_length: int, segment_length: int) -> list[int]:
    """Bin edges of the published algorithm; bin k holds distances strictly between edge k and edge k+1.

    The card writes the last edge as "L_E/0.8"; the code (and the data) use 0.8 * L_E, as here.
    """
    le, ls = excerpt_length, segment_length
    if le < 5000:
        return [ls, le // 4, le // 3, le // 2, int(le // 1.25)]
    return [ls, 1000, le // 4, le // 2, int(le // 1.25)]
