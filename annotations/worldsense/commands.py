"""WorldSense's commands, declared once: ``score``, ``compare``, ``fetch`` and ``bench worldsense``, ``bench compare``.

Each is an options model plus a function (:class:`~benchlab.annotations.task.Command`); ``benchlab.tui`` turns
them into command-line commands. The functions return the text to print, or print progress themselves (long
benchmarks and downloads) through :mod:`benchlab.annotations.command_output`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_options import BootOptions, ComparisonOptions, FormatOptions, SameItemsOptions
from benchlab.annotations.command_output import err, say, warn
from benchlab.annotations.command_status import count_files, files, working
from benchlab.annotations.options import Options, field_validator, option
from benchlab.annotations.task import Command
from benchlab.annotations.worldsense.cards import CARDS
from benchlab.data.atomic import atomic_write_text
from benchlab.data.collector import collector_paused
from benchlab.data.errors import BenchlabError
from benchlab.data.output_paths import check_output_path
from benchlab.data.samples import sample_path
from benchlab.data.tables import counted, render
from benchlab.data.worldsense.loader import find_trials_file

#: The results files the WorldSense readers take from a folder (searched recursively).
RESULTS_GLOB = "*___results.jsonl*"

FetchPart = Literal["test_set", "other_tests", "training_set"]


def _must_exist(path: Path | None) -> Path | None:
    if path is not None and not path.exists():
        raise ValueError(f"'{path}' does not exist")
    return path


def score_sample_demo() -> str:
    """The bundled sample's tables as text (what ``benchlab demo`` printed before the app existed)."""
    # deferred: numpy loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.worldsense.scoring import score_testset_dir

    folder = sample_path("worldsense")
    tables = score_testset_dir(folder)
    head = (f"WorldSense sample ({folder}): {tables.tuples['tuple_ID'].nunique()} tuples, "
            f"{counted(tables.tuples['modelname'].nunique(), 'model')}, scored like analyse_results.py\n\n")
    return head + render(tables.tables(), "table")


def sessions_results_folder(testset: Path) -> Path:
    """Where ``benchlab run worldsense`` writes results for ``testset`` by default:
    ``./benchlab-results/worldsense/<test set folder name>/results`` (``sample`` for the bundled sample)."""
    try:
        folder = find_trials_file(testset).parent
    except BenchlabError:
        folder = Path(testset)
    name = "sample" if folder.resolve() == sample_path("worldsense").resolve() else (folder.name or "worldsense")
    return Path.cwd() / "benchlab-results" / "worldsense" / name / "results"


# -- score worldsense ----------------------------------------------------------------------------------------------
class _ScoreInputs(Options):
    testset: Path | None = option(None, label="Test set", short="-t", widget="folder",
                                  help="Test-set folder holding trials.jsonl.bz2 and results/ (e.g. "
                                  ".../worldsense/test_set).")
    sample: bool = option(False, label="Bundled sample",
                          help="Score the bundled sample instead of a test-set folder.")
    results_dirs: tuple[Path, ...] = option((), label="Results folders", flag="--results",
                                            help="Results folder(s) to search recursively instead of "
                                            "<testset>/results (repeatable).")


class ScoreOptions(SameItemsOptions, FormatOptions, _ScoreInputs):
    """``benchlab score worldsense``: inputs, ``--format``, ``--all-items``, then the per-tuple file and the cache
    switch."""

    tuples_out: Path | None = option(None, label="Per-tuple scores file", widget="path",
                                     help="Also write the per-tuple scores (acc, bias) to this CSV file.")
    no_cache: bool = option(False, label="Bypass the cache",
                            help="Decode the files even if cached copies exist (cache: by content).")


def score(opts: ScoreOptions) -> None:
    # deferred: hashlib and the cache folder's settings load only when the command runs (`--help` stays quick)
    from benchlab.data.worldsense.score_cache import scored_output

    testset = opts.testset
    if opts.sample:
        testset = sample_path("worldsense")
    if testset is None:
        raise BenchlabError("give a test-set folder with -t/--testset (or --sample for the bundled sample)")
    tuples_out = opts.tuples_out
    if tuples_out is not None and not tuples_out.parent.is_dir():  # say so before scoring, not after the tables
        raise BenchlabError("the folder for --tuples-out does not exist (or is a file)", tuples_out.parent)
    if tuples_out is not None and tuples_out.is_dir():
        raise BenchlabError("--tuples-out is a folder; give a file name", tuples_out)
    dirs = list(opts.results_dirs) or [testset / "results"]
    if tuples_out is not None:
        check_output_path(tuples_out, dirs, what="the per-tuple scores")
    if tuples_out is None:  # the printed tables alone: from the output cache when no input changed (no pandas)
        with working(f"reading the test set and {files(count_files(dirs, RESULTS_GLOB))} of results, scoring..."):
            output = scored_output(testset, dirs, opts.fmt, cache=not opts.no_cache, on_warning=warn,
                                   same_items=not opts.all_items)
        say(output.text.removesuffix("\n"))
        notes = _prompt_notes(opts, dirs)
        for note in notes:
            warn(note)
        if not opts.no_cache:  # the console script prints this again without building the CLI while no input changed
            _remember_scoring(testset, dirs, output.text, (*output.warnings, *notes))
        return
    # deferred: numpy and pandas load only when the per-tuple scores are asked for
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.scoring import load_results_dirs, score_worldsense

    with working(f"reading the test set and {files(count_files(dirs, RESULTS_GLOB))} of results, scoring..."):
        tables = score_worldsense(read_trial_columns(testset, cache=not opts.no_cache),
                                  load_results_dirs(dirs, cache=not opts.no_cache), on_warning=warn,
                                  same_items=not opts.all_items)
    say(render(tables.tables(), opts.fmt).removesuffix("\n"))
    for note in _prompt_notes(opts, dirs):
        warn(note)
    if tuples_out is not None:
        atomic_write_text(tuples_out, tables.tuples.to_csv(index=False))
        err(f"benchlab: wrote {len(tables.tuples)} tuple scores to {tuples_out}")


def _remember_scoring(testset: Path, dirs: list[Path], text: str, warnings: tuple[str, ...]) -> None:
    """Offer the printed scoring to :mod:`benchlab.data.command_replay`: valid while the trials file and every
    results file keep their bytes and the folders their file names (what ``score_cache`` keys on too)."""
    # deferred: the replay store loads only when a scoring was printed
    from benchlab.data.command_replay import remember
    from benchlab.data.worldsense.results import find_results

    try:
        trials = find_trials_file(testset)
        results = [f.path for folder in dirs for f in find_results(folder)]
    except BenchlabError:
        return
    folders = [trials.parent, *dirs]
    remember([trials, *results], folders, text.removesuffix("\n") + "\n",
             "".join(f"benchlab: warning: {w}\n" for w in warnings))


def _prompt_notes(opts: ScoreOptions, dirs: list[Path]) -> list[str]:
    """Whether each model run beside the results was sent the people's items' prompts (SHA-256): warnings to print."""
    if opts.all_items:
        return []
    # deferred: the provenance reader (pydantic models) loads only for scoring
    from benchlab.data.models.same_items import prompt_hash_notes

    return list(prompt_hash_notes(dirs))


# -- fetch worldsense ----------------------------------------------------------------------------------------------
class FetchOptions(Options):
    dest: Path | None = option(None, label="Download folder", widget="folder",
                               help="Download folder (default: the user data folder); files land in "
                               "<dest>/worldsense/.")
    base_url: str | None = option(None, label="Repository root",
                                  help="Repository root to download from (default: the benchmark's public "
                                  "repository at the pinned commit, or $BENCHLAB_WORLDSENSE_BASE_URL).")
    only: tuple[FetchPart, ...] = option((), label="Parts",
                                         help="Download only these parts (repeatable; default: everything, 26 MB).")


def fetch(opts: FetchOptions) -> str:
    # deferred: rich loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.annotations.worldsense.download_progress import fetch_with_progress
    from benchlab.data.worldsense.fetch import default_dest

    summary = fetch_with_progress(opts.dest or default_dest(), opts.base_url, opts.only)
    fetched = [p.parent for p in [*summary.downloaded, *summary.skipped] if p.name == "trials.jsonl.bz2"]
    test_set = fetched[0] if fetched else summary.dest / "worldsense" / "test_set"
    return (f"WorldSense: {len(summary.downloaded)} file(s) downloaded, {len(summary.skipped)} already there, "
            f"all verified, in {summary.dest / 'worldsense'}\n"
            f"Score the published results with:\n  benchlab score worldsense -t {test_set}")


# -- bench worldsense ----------------------------------------------------------------------------------------------
class BenchOptions(Options):
    testsets: tuple[Path, ...] = option((), label="Test sets", short="-t", flag="--testset", widget="folder",
                                        help="Test-set folder(s) to score (repeatable; default: the bundled "
                                        "sample).")
    original: Path | None = option(None, label="Original repository", widget="folder", metavar="DIRECTORY",
                                   help="Checkout of the original repository (with analyse_results.py): run it "
                                   "too and compare.")
    original_python: str | None = option(None, label="Python of the original",
                                         help="Python that runs the original (needs pandas; default: this one).")
    repeat: int = option(3, label="Runs per measurement", ge=1, le=20,
                         help="Alternating rounds per measurement; the minimum wall, CPU time and peak are reported.")

    @field_validator("testsets")
    @classmethod
    def _testsets_exist(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        for path in value:
            _must_exist(path)
        return value

    @field_validator("original")
    @classmethod
    def _original_exists(cls, value: Path | None) -> Path | None:
        if value is not None and value.is_file():
            raise ValueError(f"'{value}' is a file, not the repository folder")
        return _must_exist(value)


def bench(opts: BenchOptions) -> None:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.worldsense.bench import bench_worldsense

    sets = list(opts.testsets) or [sample_path("worldsense")]
    bench_worldsense(sets, say, original=opts.original, original_python=opts.original_python, repeat=opts.repeat)


# -- compare worldsense --------------------------------------------------------------------------------------------
class _CompareInputs(Options):
    testset: Path | None = option(None, label="Test set", short="-t", widget="folder",
                                  help="Test-set folder (holds trials.jsonl.bz2; its results/ folder holds the "
                                  "published models). Default: the bundled sample.")
    results: tuple[Path, ...] = option((), label="Results folders",
                                       help="Results folder(s) with human (basic___human-<id>___results.jsonl) or "
                                       "more model files.")
    no_published: bool = option(False, label="Leave out the published models",
                                help="Do not read <testset>/results (the published models).")
    participant_tests: bool = option(False, label="Test each participant",
                                     help="Also test each participant against each model.")
    ci: Literal["bootstrap", "benchmark"] = option("bootstrap", label="CI method",
                                                   help="CI method: stratified bootstrap over tuples, or the "
                                                   "benchmark's own 1.96*sem (as in the paper).")


class CompareOptions(ComparisonOptions, _CompareInputs):
    """``benchlab compare worldsense``: the inputs, then the options every comparison has."""


def compare(opts: CompareOptions) -> None:
    # deferred: the figure check and the replay store load only when the command runs (`--help` stays quick)
    from benchlab.annotations.comparison_output import check_plot
    from benchlab.annotations.comparison_replay import may_replay, replayable
    from benchlab.data.analysis.stats.intervals_ahead import drawing_ahead

    check_plot(opts.plot_path, opts.plot_formats)
    testset = opts.testset or sample_path("worldsense")
    default = sessions_results_folder(testset)
    paths = [testset, *(opts.results or (default,))]
    # a default folder that does not exist yet could appear, empty, and change the notes: computed every time then
    offer = may_replay(paths, opts.plot_path, opts.exclude) and (bool(opts.results) or default.is_dir())
    # a bounded computation (data/collector.py); the models' intervals drawn by a helper process, started now so that
    # it loads numpy while this process loads pandas and reads the files (data/analysis/stats/intervals_ahead.py)
    with collector_paused(), drawing_ahead(), replayable(paths, offer=offer):
        _compare(opts, testset, default)


def _compare(opts: CompareOptions, testset: Path, default: Path) -> None:
    # deferred: the readers (numpy) load only when the command runs; the helper reads with them meanwhile
    from benchlab.data.worldsense.compare_inputs import read_ahead

    results = opts.results
    if not results and default.is_dir():
        err(f"human results: {default} (the sessions' default output folder)")
        results = (default,)
    read_ahead(testset, list(results), include_published=not opts.no_published)  # by the helper, while pandas loads
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.annotations.comparison_output import emit_comparison
    from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
    from benchlab.data.analysis.stats.interval_memo import remembered_intervals
    from benchlab.data.worldsense.compare import compare_worldsense

    log = exclusions_for(list(results), opts.exclude)
    status = (f"reading {files(count_files(results, RESULTS_GLOB))} of results, bootstrapping ({opts.n_boot} "
              "resamples)...")
    with remembered_intervals(), working(status):
        comp = compare_worldsense(testset, list(results), include_published=not opts.no_published,
                                  criterion=opts.criterion(), exclude_flagged=opts.exclude_flagged,
                                  n_boot=opts.n_boot, seed=opts.seed, ci=opts.ci,
                                  participant_tests=opts.participant_tests, include_simulated=opts.include_simulated,
                                  excluded=log.excluded if log else None, same_items=not opts.all_items,
                                  tables=opts.tables_needed(),
                                  benchmark_ci95=opts.fmt in ("csv", "json"))  # printed by the export only
    comp.notes.extend(exclusion_notes(log))
    emit_comparison(comp, opts)


# -- bench compare -------------------------------------------------------------------------------------------------
class _BenchCompareInputs(Options):
    testset: Path | None = option(None, label="Test set", short="-t", widget="folder",
                                  help="WorldSense test set (default: the bundled sample).")
    participants: int = option(20, label="Synthetic participants", ge=1, le=500, help="")
    tuples_per_participant: int = option(200, label="Tuples per participant", ge=2, le=100_000, help="")


class BenchCompareOptions(BootOptions, _BenchCompareInputs):
    """``benchlab bench compare``: the synthetic lab, then ``--boot``."""


def bench_compare(opts: BenchCompareOptions) -> str:
    # deferred: pandas and scipy load only when the command runs (`benchlab --help` stays quick)
    from benchlab.data.worldsense.compare_bench import bench_compare_worldsense

    return bench_compare_worldsense(opts.testset or sample_path("worldsense"), opts.participants,
                                    opts.tuples_per_participant, opts.n_boot)


SCORE = Command("score", help_of(CARDS, "score worldsense"), ScoreOptions, score, name="worldsense")
FETCH = Command("fetch", help_of(CARDS, "fetch worldsense"), FetchOptions, fetch, name="worldsense")
BENCH = Command("bench", help_of(CARDS, "bench worldsense"), BenchOptions, bench, name="worldsense")
COMPARE = Command("compare", help_of(CARDS, "compare worldsense"), CompareOptions, compare, name="worldsense")
BENCH_COMPARE = Command("bench", help_of(CARDS, "bench compare"), BenchCompareOptions, bench_compare, name="compare")

#: Every WorldSense command (``TASK.commands``).
COMMANDS: tuple[Command, ...] = (SCORE, COMPARE, FETCH, BENCH, BENCH_COMPARE)
