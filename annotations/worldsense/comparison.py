"""WorldSense on the Results screen: the comparison of a results folder against the published models."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.task import ComparisonSource

if TYPE_CHECKING:  # the analysis stack (pandas, scipy) loads only when a comparison is built, not with the CLI
    from benchlab.data.analysis.compare import Comparison
    from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.analysis.defaults import DEFAULT_BOOT
from benchlab.data.errors import BenchlabError


def build(testset: Path | None, results: Path, criterion: AttentionCriterion) -> Comparison:
    # deferred: pandas and scipy load only when `build` runs (this module loads with the CLI)
    from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
    from benchlab.data.worldsense.compare import compare_worldsense

    if testset is None:
        raise BenchlabError("WorldSense needs the test-set folder (the one holding trials.jsonl.bz2)")
    log = exclusions_for([results])  # the study's declared exclusions, as compare and the report apply them
    comp = compare_worldsense(testset, results, criterion=criterion, n_boot=DEFAULT_BOOT,
                              excluded=log.excluded if log else None)
    comp.notes.extend(exclusion_notes(log))
    return comp


def watched(testset: Path | None, results: Path) -> list[Path]:
    # deferred: pandas and scipy load only when `watched` runs (this module loads with the CLI)
    from benchlab.data.worldsense.compare import watched_files

    return watched_files(results)


COMPARISON = ComparisonSource(testset_label="Test set", build=build, watched=watched)
