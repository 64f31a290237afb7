"""How every humans-vs-models comparison command prints: its tables in ``--format`` (numbers unformatted for csv
and json), ``--only`` sections, and with ``--plot`` a figure (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.command_output import err, note, say
from benchlab.data.output_paths import check_output_path
from benchlab.data.tables import render

if TYPE_CHECKING:
    from benchlab.annotations.command_options import ComparisonOptions
    from benchlab.data.analysis.compare import Comparison


def check_plot(plot_path: Path | None, formats: Sequence[str] = ()) -> None:
    """Fail on a bad figure path or a missing matplotlib before minutes of bootstrapping, not after."""
    if plot_path is not None:
        # deferred: the figure code (and the whole analysis under it) loads only when a figure is asked for
        from benchlab.data.analysis.plots import check_plot_path, font_cache_missing

        if font_cache_missing():  # the check imports pyplot, which then builds the cache: say so first
            note("the first figure on this machine may take a while (matplotlib builds its font cache once)")
        check_plot_path(plot_path, formats)
        check_output_path(plot_path, what="the figure")


def emit_comparison(comp: Comparison, opts: ComparisonOptions) -> None:
    """Print the tables, then write the figure (announced on stderr)."""
    numeric = opts.fmt in ("csv", "json")
    comp.with_correction(opts.correction)
    say(render(comp.tables(numeric=numeric, sections=opts.sections or None), opts.fmt).removesuffix("\n"))
    if opts.plot_path is not None:
        # deferred: the figure code loads only when a figure is asked for
        from benchlab.data.analysis.plots import write_figure

        written, notes = write_figure(comp, opts.plot_path, width=opts.plot_width, formats=opts.plot_formats,
                                      include_pilots=opts.plot_pilots, rt_panels=opts.plot_rt,
                                      model_items=opts.plot_model_items)
        for note in notes:
            err(f"figure note: {note}")
        err(f"figure written to {', '.join(str(p) for p in written)}")
