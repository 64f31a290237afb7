"""The whole coverage table of ``benchlab bench coverage``: every design x person SD x number of people.

For each setting, simulated studies of a design the engine runs (:mod:`benchlab.data.analysis.study_sim`; the
benchmarks declare theirs, e.g. WorldSense's crossed tuples, SORT's per-person balanced subsets) go through
the pooled interval and the pooled-humans-vs-model test that ``compare`` prints. Coverage is the share of
intervals holding the population accuracy, FPR the share of tests with p < .05 when people and model are equally
accurate. Target: coverage 93-97% and FPR <= 6%; a setting above 97% is *wider* than nominal (allowed: the
interval never claims more than the data give), one below 93% or an FPR above 6% fails and says so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchlab.data.analysis.coverage import COVERAGE_TARGET, FPR_TARGET, Population, population
from benchlab.data.analysis.crossed import crossed_estimate, human_model_test
from benchlab.data.analysis.study_sim import SimDesign, draw_study

PERSON_SDS = (0.08, 0.17, 0.25)
PEOPLE = (3, 5, 10, 20)


@dataclass(frozen=True)
class GridRow:
    design: str
    person_sd: float
    participants: int
    studies: int
    coverage: float
    fpr: float
    width: float
    na: int  # studies without an interval (no variation)

    @property
    def verdict(self) -> str:
        lo, hi = COVERAGE_TARGET
        if self.coverage < lo or self.fpr > FPR_TARGET:
            return "NO: " + ("undercovers" if self.coverage < lo else "") + (
                " and " if self.coverage < lo and self.fpr > FPR_TARGET else "") + (
                "FPR too high" if self.fpr > FPR_TARGET else "")
        if self.coverage > hi:
            return "yes, wider than nominal"
        return "yes"


def run_setting(design: SimDesign, pop: Population, people: int, studies: int,
                rng: np.random.Generator) -> GridRow:
    cover = fp = na = 0
    widths: list[float] = []
    for _ in range(studies):
        s = draw_study(design, people, pop.person_mean, pop.person_logit_sd, pop.item_logit_sd, pop.model_mean, rng)
        est = crossed_estimate(s.who, s.unit, s.score, strata=s.strata)
        if est.available:
            cover += est.ci_low <= pop.accuracy <= est.ci_high
            widths.append(est.ci_high - est.ci_low)
        else:
            na += 1
        test, _ = human_model_test(s.who, s.unit, s.score, s.model, strata=s.strata, n_perm=200)
        fp += bool(test.p_value == test.p_value and test.p_value < 0.05)
    return GridRow(design.name, pop.person_sd, people, studies, cover / max(1, studies - na), fp / studies,
                   float(np.mean(widths)) if widths else math.nan, na)


def run_grid(designs: Sequence[SimDesign], person_sds: tuple[float, ...] = PERSON_SDS,
             people: tuple[int, ...] = PEOPLE, studies: int = 500, seed: int = 1, accuracy: float = 0.75,
             item_logit_sd: float = 1.0) -> tuple[list[GridRow], float]:
    """Every setting of the grid (the designs as the benchmarks declare them); returns the rows and the seconds it
    took."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    rows = []
    for sd in person_sds:
        pop = population(accuracy, sd, item_logit_sd)
        for design in designs:
            for n in people:
                rows.append(run_setting(design, pop, n, studies, rng))
    return rows, time.perf_counter() - started


def grid_table(rows: list[GridRow]) -> pd.DataFrame:
    out = [{"design": r.design, "person SD": f"{r.person_sd:.2f}", "participants": r.participants,
            "studies": r.studies, "coverage crossed %": f"{100 * r.coverage:.1f}",
            "FPR crossed %": f"{100 * r.fpr:.1f}",
            "mean width crossed": f"{100 * r.width:.1f}", "crossed n/a": r.na, "meets target": r.verdict}
           for r in rows]
    return pd.DataFrame(out).set_index(["design", "person SD", "participants"])
