"""``benchlab compare ...``: humans next to models (WorldSense, SORT) and curator agreement (fastbook).

The statistics live in ``benchlab.data``; this module only parses options, renders tables in the chosen format
and, with ``--plot``, writes a publication figure (matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

from pathlib import Path

import click

from benchlab.data.errors import BenchlabError
from benchlab.data.stats import AttentionCriterion
from benchlab.data.tables import render
from benchlab.tui.commands.groups import FORMAT_OPTION, cli

PLOT_OPTION = click.option(
    "--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Also write a figure (accuracy per problem/condition, 95% CIs, humans next to models): .png, .svg, .pdf.",
)
BOOT_OPTION = click.option("--boot", "n_boot", type=click.IntRange(200, 200_000), default=5000, show_default=True,
                           help="Bootstrap resamples for CIs and paired tests.")
SEED_OPTION = click.option("--seed", type=int, default=20240601, show_default=True,
                           help="Seed of the bootstrap (tables are reproducible).")


def attention_options(func):  # type: ignore[no-untyped-def]
    """The experimenter's attention criterion, shared by the benchmark comparisons."""
    func = click.option("--exclude-flagged", is_flag=True,
                        help="Leave flagged participants out of the pooled humans (they keep their own row).")(func)
    func = click.option("--max-fast-share", type=click.FloatRange(0, 1), default=0.1, show_default=True,
                        help="Share of too-fast responses a participant may have before being flagged.")(func)
    func = click.option("--fast-ms", type=click.FloatRange(min=0), default=None,
                        help="Responses faster than this (ms) count as too fast.")(func)
    func = click.option("--min-control-acc", type=click.FloatRange(0, 1), default=None,
                        help="Flag participants below this accuracy on control items "
                             "(WorldSense: the trivial problems; SORT: all trials).")(func)
    return func


def make_criterion(min_control_acc: float | None, fast_ms: float | None, max_fast_share: float) -> AttentionCriterion:
    return AttentionCriterion(min_control_accuracy=min_control_acc, fast_ms=fast_ms, max_fast_share=max_fast_share)


def write_plot(plot_path: Path | None, draw) -> None:  # type: ignore[no-untyped-def]
    if plot_path is None:
        return
    from benchlab.data.plots import save_figure

    save_figure(draw, plot_path)
    click.echo(f"figure written to {plot_path}", err=True)


@cli.group()
def compare() -> None:
    """Compare humans with models (tables with CIs and tests) and curators with each other."""


@compare.command("fastbook")
@click.argument("file_a", type=click.Path(path_type=Path))
@click.argument("file_b", type=click.Path(path_type=Path))
@FORMAT_OPTION
def compare_fastbook(file_a: Path, file_b: Path, fmt: str) -> None:
    """Agreement between two curators' edited copies of fastbook-benchmark.json.

    Which components' contexts differ, how much their passages overlap (word F1), and agreement on the
    explicit/extraneous flags (percent and Cohen's kappa).
    """
    from benchlab.data.fastbook_agreement import compare_files

    for path in (file_a, file_b):
        if not path.exists():
            raise BenchlabError("no such file", path)
    click.echo(render(compare_files(file_a, file_b).tables(), fmt), nl=False)
