"""SORT on the Results screen: every participant, the pooled humans and the models of a results folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.annotations.task import ComparisonSource
from benchlab.data.analysis.defaults import DEFAULT_BOOT

if TYPE_CHECKING:  # the analysis stack (pandas, scipy) loads only when a comparison is built, not with the CLI
    from benchlab.data.analysis.compare import Comparison
    from benchlab.data.analysis.stats import AttentionCriterion


def build(testset: Path | None, results: Path, criterion: AttentionCriterion) -> Comparison:
    # deferred: pandas and scipy load only when `build` runs (this module loads with the CLI)
    from benchlab.annotations.exclusions.applied import exclusion_notes, exclusions_for
    from benchlab.data.sort.compare import compare_sort

    log = exclusions_for([results])  # the study's declared exclusions, as compare and the report apply them
    comp = compare_sort([results], criterion=criterion, n_boot=DEFAULT_BOOT, excluded=log.excluded if log else None)
    comp.notes.extend(exclusion_notes(log))
    return comp


def watched(testset: Path | None, results: Path) -> list[Path]:
    # deferred: pandas and scipy load only when `watched` runs (this module loads with the CLI)
    from benchlab.data.sort.compare import watched_files

    return watched_files([results])


COMPARISON = ComparisonSource(testset_label=None, build=build, watched=watched)
