"""Issue 22 item 4: the power planner simulates the design ``run sort`` runs (each person's own balanced subset,
the model on every trial) through the estimator ``compare`` uses, so its power is what files analysed by
``compare sort`` realise (within Monte Carlo error). The audit's planner gave everyone the same trials and printed
a plateau near 11% where the realised power grew with people (17% -> 33% -> 52%)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.coverage import population
from benchlab.data.analysis.crossed import human_model_test
from benchlab.data.analysis.power import Design, _model_offset, simulate
from benchlab.data.analysis.study_sim import draw_study
from benchlab.data.samples import sample_path
from benchlab.data.sort.compare import compare_sort

RECORDS = pd.read_parquet(sample_path("booksort", "test_e250_s20.parquet")).sort_values(
    ["distance_bin", "excerpt_idx"]).reset_index(drop=True)  # 4 bins x 100 trials: the pool of each bin
COLS = ["book_idx", "excerpt_idx", "segment_idx", "distance_bin", "present_seg1_first", "excerpt_length",
        "segment_length", "model_name", "A_is_first", "answer", "ground_truth", "correct", "participant"]


def _write(path: Path, name: str, participant: str, units: np.ndarray, right: np.ndarray) -> None:
    rows = RECORDS.iloc[units]
    truth = np.where(rows["present_seg1_first"].to_numpy() == 1, "A", "B")
    answer = np.where(right, truth, np.where(truth == "A", "B", "A"))
    frame = pd.DataFrame({
        "book_idx": rows["book_idx"].to_numpy(), "excerpt_idx": rows["excerpt_idx"].to_numpy(), "segment_idx": 0,
        "distance_bin": rows["distance_bin"].to_numpy(), "present_seg1_first": rows["present_seg1_first"].to_numpy(),
        "excerpt_length": 250, "segment_length": 20, "model_name": name,
        "A_is_first": rows["present_seg1_first"].to_numpy(), "answer": answer, "ground_truth": truth,
        "correct": right, "participant": participant})
    path.parent.mkdir(parents=True, exist_ok=True)
    frame[COLS].to_csv(path)


def test_planner_power_matches_compare_on_files_of_the_engines_design(tmp_path: Path) -> None:
    design = Design("trials", 1, cells=4, items_per_cell=5, pool_per_cell=100, stratified=False)
    pop = population(0.80, 0.08, 1.0)
    people, studies, model_score = 6, 24, 0.60
    planned = simulate(design, pop, model_score, people, 300, np.random.default_rng(3)).power
    offset = _model_offset(pop, model_score)
    rng = np.random.default_rng(11)
    hits = 0
    for s in range(studies):
        study = draw_study(design.simulated(), people, pop.person_mean, pop.person_logit_sd, pop.item_logit_sd,
                           offset, rng)
        folder = tmp_path / f"s{s}"
        for p in range(people):
            mine = study.who == p
            _write(folder / f"250-s20-human-P{p}_results.csv", f"human-P{p}", f"P{p}", study.unit[mine],
                   study.score[mine] == 1)
        units = np.arange(len(RECORDS))
        _write(folder / "250-s20-hf_M_results.csv", "M", "", units,
               np.array([study.model[int(u)] for u in units]) == 1)
        comp = compare_sort([folder], n_boot=200, by_bin=False, participant_tests=False)
        test = next(t for t in comp.tests if t.who == POOLED and t.family == "primary")
        assert test.people == people and test.result.n == len(set(study.unit.tolist()))
        direct, _ = human_model_test(study.who, study.unit, study.score, study.model, strata=study.strata)
        assert test.result.p_value == pytest.approx(direct.p_value, rel=1e-9)  # the planner's test, on the files
        hits += test.result.p_value < 0.05
    realised = hits / studies
    se = math.sqrt(planned * (1 - planned) / studies + planned * (1 - planned) / 300)
    assert 0.25 < planned < 0.95  # a grid point where the check can fail either way
    print(f"planned {planned:.3f}, realised {realised:.3f} ({studies} studies)")
    assert abs(realised - planned) <= 3 * se, (realised, planned)


def test_worldsense_planner_matches_compare_on_files(tmp_path: Path) -> None:
    """WorldSense: everyone of a seed answers the same tuples; compare's pooled test on the files is the
    planner's test on the same simulated answers (same p), and the rejection rate matches the planner."""
    from benchlab.data.worldsense.compare import compare_worldsense
    from tests.compare_fixtures import GOLDS, make_testset, write_results, wrong

    problems, sizes, per_cell = ("Infer.trivial", "Infer.normal"), (3, 4), 5
    design = Design("tuples", 2, cells=len(problems) * len(sizes), items_per_cell=per_cell)
    pop = population(0.80, 0.08, 1.0)
    people, studies, model_score = 5, 16, 0.50
    planned = simulate(design, pop, model_score, people, 300, np.random.default_rng(5)).power
    offset = _model_offset(pop, model_score)
    rng = np.random.default_rng(13)
    ts = make_testset(tmp_path / "ts", tuples_per_cell=per_cell, sizes=sizes, problems=problems)
    cell_of = {(p, z): n for n, (p, z) in enumerate((p, z) for p in problems for z in sizes)}

    def answers(score: dict[int, float]) -> object:
        def answer(problem: str, size: int, t: int, i: int, gold: str) -> str:
            s = score[cell_of[(problem, size)] * per_cell + t]
            right = s == 1 or (s == 0.5 and i == 0)
            return gold if right else wrong(gold)
        return answer

    hits = 0
    for s in range(studies):
        study = draw_study(design.simulated(), people, pop.person_mean, pop.person_logit_sd, pop.item_logit_sd,
                           offset, rng)
        (ts / "results" / "basic___M___results.jsonl").unlink(missing_ok=True)
        write_results(ts / "results" / "basic___M___results.jsonl",
                      answers({int(k): v for k, v in study.model.items()}),  # type: ignore[arg-type]
                      tuples_per_cell=per_cell, sizes=sizes, problems=problems)
        out = tmp_path / f"s{s}"
        for p in range(people):
            mine = study.who == p
            write_results(out / f"basic___human-P{p}___results.jsonl",
                          answers(dict(zip(study.unit[mine].tolist(), study.score[mine].tolist(), strict=True))),  # type: ignore[arg-type]
                          tuples_per_cell=per_cell, sizes=sizes, problems=problems)
        comp = compare_worldsense(ts, [out], n_boot=200, participant_tests=False)
        test = next(t for t in comp.tests if t.who == POOLED and t.family == "primary")
        direct, _ = human_model_test(study.who, study.unit, study.score, study.model, strata=study.strata)
        assert test.result.p_value == pytest.approx(direct.p_value, rel=1e-9)  # the same estimator and test
        hits += test.result.p_value < 0.05
    assert len(GOLDS["Infer.trivial"]) == 2  # two answers per tuple, as the design says
    realised = hits / studies
    se = math.sqrt(planned * (1 - planned) / studies + planned * (1 - planned) / 300)
    print(f"WorldSense planned {planned:.3f}, realised {realised:.3f} ({studies} studies)")
    assert 0.25 < planned < 0.95
    assert abs(realised - planned) <= 3 * se, (realised, planned)
