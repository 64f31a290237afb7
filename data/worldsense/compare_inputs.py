"""What a WorldSense comparison reads before any table: the test set's trials, every results file and the tuple
scores of all of them, with numpy alone, so that a helper process can read them while the command loads pandas.

Why: after one more person joined a lab, reading the test set's index and the model files' cached columns, parsing
the new person's file and reducing every answer to tuple scores were ~0.1 s of a comparison, all of it waiting on
nothing pandas does, while the command spent ~0.25 s loading pandas on one core and the other core had only the
models' draws to come. :func:`read_ahead` hands :func:`scored_inputs` to the helper of
:mod:`benchlab.data.analysis.stats.intervals_ahead` when the command starts; :func:`inputs_read` takes its result
(the same function's, on the same arguments) or, when there is no helper or it failed, reads in place, where any
error is raised as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchlab.data.analysis.stats.intervals_ahead import call_ahead, called
from benchlab.data.errors import BenchlabError
from benchlab.data.file_cache import read_once
from benchlab.data.worldsense.columns import ResultColumns, TrialColumns, read_trial_columns
from benchlab.data.worldsense.result_columns import RESULTS_CACHE_MIN_BYTES, read_result_columns
from benchlab.data.worldsense.results import ResultsFile, find_results
from benchlab.data.worldsense.scoring import reduced_tuples
from benchlab.data.worldsense.tuple_scores import TupleScores

Results = Sequence[str | Path] | str | Path | None


@dataclass(frozen=True)
class ScoredInputs:
    """The test set, every results file found, the benchmark's tuple scores of all of them and the warnings."""

    trials: TrialColumns
    files: list[ResultsFile]
    scored: TupleScores
    warnings: list[str]


def results_dirs_for(testset: str | Path, results: Sequence[str | Path] | None, include_published: bool) -> list[Path]:
    """``<testset>/results`` (the published models) unless excluded, then each extra folder, each once."""
    dirs: list[Path] = []
    published = Path(testset) / "results"
    if include_published and Path(testset).is_dir() and published.is_dir():
        dirs.append(published)
    for d in results or []:
        p = Path(d)
        if not any(p.resolve() == q.resolve() for q in dirs):
            dirs.append(p)
    if not dirs:
        raise BenchlabError("no results folder: pass --results DIR (the test set has no results/ folder)", testset)
    return dirs


def _arguments(testset: str | Path, results: Results, include_published: bool) -> tuple[str, tuple[str, ...], bool]:
    """The arguments as the helper receives them (and as :func:`inputs_read` asks for its result)."""
    extra = [results] if isinstance(results, str | Path) else list(results or [])
    return str(testset), tuple(str(r) for r in extra), bool(include_published)


def scored_inputs(testset: str, results: tuple[str, ...], include_published: bool) -> ScoredInputs:
    """Read and score everything (see :class:`ScoredInputs`); numpy only."""
    trials = read_trial_columns(testset)
    files: list[ResultsFile] = []
    for d in results_dirs_for(testset, results, include_published):
        found = find_results(d)
        if not found:
            raise BenchlabError("no results files here (expected <prompting>___<modelname>___results.jsonl)", d)
        files.extend(found)
    scored, warnings = reduced_tuples(trials, [_result_columns(f) for f in files])
    return ScoredInputs(trials, files, scored, warnings)


def _result_columns(file: ResultsFile) -> ResultColumns:
    """A results file's columns; a participant's (small) file read once per content through
    :mod:`benchlab.data.file_cache`, since a lab's comparison parses every person's file again on each run (~3 ms
    each; the big model files have their own cache by content in :func:`read_result_columns`)."""
    try:
        small = file.path.stat().st_size < RESULTS_CACHE_MIN_BYTES
    except OSError:  # the reader gives its own clear error
        small = False
    if not small:
        return read_result_columns(file.path, file.prompting, file.modelname)
    return read_once("worldsense-result-columns", file.path,  # the path names the prompting and the model
                     lambda path, _warn: read_result_columns(path, file.prompting, file.modelname))


def read_ahead(testset: str | Path, results: Results, include_published: bool) -> None:
    """Have the helper (if one is open) read and score these inputs now."""
    call_ahead(__name__, scored_inputs.__name__, *_arguments(testset, results, include_published))


def inputs_read(testset: str | Path, results: Results, include_published: bool) -> ScoredInputs:
    """:func:`scored_inputs` of these inputs: the helper's, when it read them ahead, else read here."""
    arguments = _arguments(testset, results, include_published)
    done, value = called(__name__, scored_inputs.__name__, *arguments)
    return value if done and isinstance(value, ScoredInputs) else scored_inputs(*arguments)
