"""A WorldSense comparison scores tuples without the statistics tables it never prints (``scored_tuples``,
``tuple_cell_counts``): the same tuple rows, the same warnings and the same cell counts as the full scoring."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from benchlab.data.samples import sample_path
from benchlab.data.worldsense.columns import read_trial_columns
from benchlab.data.worldsense.scoring import load_results_dirs, score_worldsense, scored_tuples
from benchlab.data.worldsense.tuple_scores import tuple_cell_counts, tuple_cells, tuple_scores

SAMPLE = sample_path("worldsense")


def test_scored_tuples_are_the_full_scorings_rows_and_warnings() -> None:
    trials = read_trial_columns(SAMPLE)
    files = load_results_dirs([SAMPLE / "results"])
    full = score_worldsense(trials, files)
    tuples, warnings = scored_tuples(trials, files)
    pd.testing.assert_frame_equal(tuples, full.tuples)
    assert warnings == full.warnings


def test_cell_counts_match_the_cell_statistics_even_with_missing_accuracies() -> None:
    scored = tuple_scores(read_trial_columns(SAMPLE), load_results_dirs([SAMPLE / "results"]), lambda m: None)
    for acc in (scored.acc, np.where(np.arange(len(scored.acc)) % 5 == 0, np.nan, scored.acc)):
        case = dataclasses.replace(scored, acc=acc)
        full, counts = tuple_cells(case), tuple_cell_counts(case)
        assert set(counts) == {"prompting", "modelname", "problemname", "problemsize", "count"}
        assert all(counts[k] == full[k] for k in counts)
