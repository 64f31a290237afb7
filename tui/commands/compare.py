"""``benchlab compare ...``: humans next to models (WorldSense, SORT) and curator agreement (fastbook).

The statistics live in ``benchlab.data``; this module only parses options, renders tables in the chosen format
and, with ``--plot``, writes a publication figure (matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab.data.analysis.defaults import DEFAULT_BOOT, DEFAULT_SEED
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import render
from benchlab.tui.commands.groups import FORMAT_OPTION, bench, cli

if TYPE_CHECKING:  # scipy/statsmodels load only when a comparison runs, so `benchlab --help` stays quick
    from benchlab.data.analysis.stats import AttentionCriterion

PLOT_OPTION = click.option(
    "--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Also write a figure (accuracy per problem/condition, 95% CIs, humans next to models): .png, .svg, .pdf.",
)
BOOT_OPTION = click.option("--boot", "n_boot", type=click.IntRange(200, 200_000), default=DEFAULT_BOOT,
                           show_default=True, help="Bootstrap resamples for CIs (and random sign flips of the "
                                                   "paired test when it cannot be exact).")
SEED_OPTION = click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True,
                           help="Seed of the bootstrap (tables are reproducible).")


def attention_options(func):  # type: ignore[no-untyped-def]
    """The experimenter's attention criterion, shared by the benchmark comparisons."""
    func = click.option("--include-simulated", is_flag=True,
                        help="Pool simulated participants (--simulate pilots) with people; by default they keep "
                             "their own labelled row only.")(func)
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
    from benchlab.data.analysis.stats import AttentionCriterion

    return AttentionCriterion(min_control_accuracy=min_control_acc, fast_ms=fast_ms, max_fast_share=max_fast_share)


@cli.group()
def compare() -> None:
    """Compare humans with models (tables with CIs and tests) and curators with each other."""


@compare.command("fastbook")
@click.argument("file_a", type=click.Path(path_type=Path))
@click.argument("file_b", type=click.Path(path_type=Path))
@click.option("--chapters", "chapters_dir", type=click.Path(path_type=Path), default=None,
              help="Folder with chapter_N.txt or the notebooks (default: beside FILE_A if they are there), "
                   "for the character span overlap.")
@FORMAT_OPTION
def compare_fastbook(file_a: Path, file_b: Path, chapters_dir: Path | None, fmt: str) -> None:
    """Agreement between two curators' edited copies of fastbook-benchmark.json.

    Which components' contexts differ, how much their passages overlap (word F1, and character span F1 in the
    chapter text), and agreement on the explicit/extraneous flags (percent and Cohen's kappa).
    """
    from benchlab.data.fastbook.agreement import compare_files

    for path in (file_a, file_b):
        if not path.exists():
            raise BenchlabError("no such file", path)
    click.echo(render(compare_files(file_a, file_b, chapters_dir).tables(), fmt), nl=False)


def _check_plot(plot_path: Path | None) -> None:
    """Fail on a bad figure path or a missing matplotlib before minutes of bootstrapping, not after."""
    if plot_path is not None:
        from benchlab.data.analysis.plots import check_plot_path

        check_plot_path(plot_path)


def _emit(comp, fmt: str, plot_path: Path | None, sections: tuple[str, ...] | None) -> None:  # type: ignore[no-untyped-def]
    numeric = fmt in ("csv", "json")
    click.echo(render(comp.tables(numeric=numeric, sections=sections), fmt), nl=False)
    if plot_path is not None:
        from benchlab.data.analysis.plots import save_comparison_plot

        save_comparison_plot(comp, plot_path)
        click.echo(f"figure written to {plot_path}", err=True)


SECTIONS_OPTION = click.option(
    "--only", "sections", multiple=True,
    type=click.Choice(["accuracy", "bias", "counts", "tests", "spread", "flags", "rt", "rt-quantiles", "agreement",
                       "methods"]),
    help="Print only these tables (repeatable; bias is WorldSense only); default: all.",
)


@compare.command("worldsense")
@click.option("-t", "--testset", type=click.Path(path_type=Path), default=None,
              help="Test-set folder (holds trials.jsonl.bz2; its results/ folder holds the published models). "
                   "Default: the bundled sample.")
@click.option("--results", "results", type=click.Path(path_type=Path), multiple=True,
              help="Results folder(s) with human (basic___human-<id>___results.jsonl) or more model files.")
@click.option("--no-published", is_flag=True, help="Do not read <testset>/results (the published models).")
@click.option("--participant-tests", is_flag=True, help="Also test each participant against each model.")
@click.option("--ci", type=click.Choice(["bootstrap", "benchmark"]), default="bootstrap", show_default=True,
              help="CI method: stratified bootstrap over tuples, or the benchmark's own 1.96*sem (as in the paper).")
@attention_options
@BOOT_OPTION
@SEED_OPTION
@SECTIONS_OPTION
@FORMAT_OPTION
@PLOT_OPTION
def compare_worldsense_cmd(testset: Path | None, results: tuple[Path, ...], no_published: bool, participant_tests: bool,
                           ci: str,
                           min_control_acc: float | None, fast_ms: float | None, max_fast_share: float,
                           exclude_flagged: bool, include_simulated: bool, n_boot: int, seed: int,
                           sections: tuple[str, ...], fmt: str, plot_path: Path | None) -> None:
    """WorldSense: each participant, the pooled humans and each model per problem, with 95% CIs and tests.

    Files whose model name starts with "human" are participants. Without --results, the sessions' default output
    folder (./benchlab-results/worldsense/<test set>/results) is read when it exists. Example:

        benchlab compare worldsense -t data/worldsense/test_set --results lab/out/results --plot fig.png
    """
    from benchlab.data.samples import sample_path
    from benchlab.data.worldsense.compare import compare_worldsense

    _check_plot(plot_path)
    testset = testset or sample_path("worldsense")
    if not results:
        from benchlab.annotations.registry import registry

        default = registry().get("worldsense").default_out(str(testset)) / "results"
        if default.is_dir():
            click.echo(f"human results: {default} (the sessions' default output folder)", err=True)
            results = (default,)
    comp = compare_worldsense(testset, list(results), include_published=not no_published,
                              criterion=make_criterion(min_control_acc, fast_ms, max_fast_share),
                              exclude_flagged=exclude_flagged, n_boot=n_boot, seed=seed, ci=ci,
                              participant_tests=participant_tests, include_simulated=include_simulated)
    _emit(comp, fmt, plot_path, sections or None)


@compare.command("sort")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--no-bins", is_flag=True, help="Only per configuration, not per distance bin.")
@click.option("--no-participant-tests", is_flag=True, help="Only test the pooled humans against each model.")
@attention_options
@BOOT_OPTION
@SEED_OPTION
@SECTIONS_OPTION
@FORMAT_OPTION
@PLOT_OPTION
def compare_sort_cmd(paths: tuple[Path, ...], no_bins: bool, no_participant_tests: bool,
                     min_control_acc: float | None, fast_ms: float | None, max_fast_share: float,
                     exclude_flagged: bool, include_simulated: bool, n_boot: int, seed: int,
                     sections: tuple[str, ...], fmt: str, plot_path: Path | None) -> None:
    """SORT: each participant, the pooled humans and each model per configuration and distance bin.

    PATHS are results CSVs ({L_E}-s{L_S}-{model}_results.csv) or folders holding them; model names starting with
    "human-" are participants. Example:

        benchlab compare sort lab/out/results models/results --format markdown --plot sort.pdf
    """
    from benchlab.data.sort.compare import compare_sort

    _check_plot(plot_path)
    comp = compare_sort(list(paths), criterion=make_criterion(min_control_acc, fast_ms, max_fast_share),
                        exclude_flagged=exclude_flagged, n_boot=n_boot, seed=seed, by_bin=not no_bins,
                        participant_tests=not no_participant_tests, include_simulated=include_simulated)
    _emit(comp, fmt, plot_path, sections or None)


@bench.command("compare")
@click.option("-t", "--testset", type=click.Path(path_type=Path), default=None,
              help="WorldSense test set (default: the bundled sample).")
@click.option("--participants", type=click.IntRange(1, 500), default=20, show_default=True)
@click.option("--tuples-per-participant", type=click.IntRange(2, 100_000), default=200, show_default=True)
@click.option("--boot", "n_boot", type=click.IntRange(200, 200_000), default=DEFAULT_BOOT, show_default=True)
def bench_compare(testset: Path | None, participants: int, tuples_per_participant: int, n_boot: int) -> None:
    """Time `compare worldsense` on synthetic participants next to the published models; print figures."""
    import random
    import resource
    import tempfile
    import time

    from benchlab.data.samples import sample_path
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.compare import compare_worldsense
    from benchlab.data.worldsense.results import write_results
    from benchlab.data.worldsense.scoring import score_testset_dir

    ts = testset or sample_path("worldsense")
    trials = read_trial_columns(ts).frame
    by_tuple = trials.groupby("tuple_ID", sort=False)
    tuple_ids = list(by_tuple.groups)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results"
        out.mkdir()
        lines_total = 0
        for p in range(participants):
            chosen = rng.sample(tuple_ids, min(tuples_per_participant, len(tuple_ids)))
            skill = 0.55 + 0.4 * rng.random()
            lines = []
            for tid in chosen:
                group = by_tuple.get_group(tid)
                for key, options, gold in zip(group["Key"].tolist(), group["expectedresp"].tolist(),
                                              group["goldresp"].tolist(), strict=True):
                    resp = gold if rng.random() < skill else rng.choice(str(options).split("|"))
                    lines.append({"Key": int(key), "resp": str(resp), "rt_ms": rng.lognormvariate(8.5, 0.5)})
            lines_total += write_results(out / f"basic___human-s{p:03d}___results.jsonl", lines)
        t0 = time.perf_counter()
        score_testset_dir(ts, [ts / "results", out] if (Path(ts) / "results").is_dir() else [out])
        t_score = time.perf_counter() - t0
        t0 = time.perf_counter()
        comp = compare_worldsense(ts, [out], n_boot=n_boot)
        t_compare = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    click.echo(f"test set: {ts} ({len(trials)} trials, {len(tuple_ids)} tuples)")
    click.echo(f"synthetic participants: {participants} x {tuples_per_participant} tuples ({lines_total} answers), "
               f"models: {len(comp.models)}, bootstrap resamples: {n_boot}")
    click.echo(f"benchmark scoring alone (score worldsense): {t_score:.2f} s")
    click.echo(f"full comparison (scoring + CIs + tests + RT + agreement): {t_compare:.2f} s "
               f"(x{t_compare / t_score:.1f} the scoring)")
    click.echo(f"cells: {len(comp.cells)}, tests: {len(comp.tests)}; peak RSS {rss_mb:.0f} MB")
