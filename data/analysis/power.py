"""Study planning (``benchlab power NAME``): expected interval width and power before anyone is tested.

A planned study is simulated many times with what the planner assumes (people's mean accuracy and their spread,
item difficulty spread, the design's cells and items per cell) and analysed with the same functions ``compare``
uses (:func:`benchlab.data.analysis.crossed.crossed_estimate` for the pooled interval,
:func:`benchlab.data.analysis.crossed.human_model_test` for pooled humans against a model), with the model's
published score as its accuracy on every simulated item set. Power is the share of simulated studies where that
test gives p < .05; the CI width is the mean width of the pooled 95% interval. The design is plain numbers, named
by no benchmark: a unit (what a person answers and is scored on) holds ``answers_per_unit`` items and is scored as
the mean of their answers (a tuple of two items, or one trial); cells are the strata, equally weighted, as the
benchmarks rebalance. Each task's declaration provides its design (see ``PlansPower`` in
``benchlab.annotations.task``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchlab.data.analysis.coverage import Population, _person_accuracy, population
from benchlab.data.analysis.crossed import crossed_estimate, human_model_test
from benchlab.data.analysis.power_cost import check_power_cost, estimate_cost
from benchlab.data.analysis.study_sim import SimDesign, draw_study

PARTICIPANT_GRID = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200)


@dataclass(frozen=True)
class Design:
    """What a planned study gives each person: ``cells`` strata of ``items_per_cell`` units, each unit scored as
    the mean of ``answers_per_unit`` answers; ``unit`` names a unit in tables ("tuples", "trials", "items").
    ``pool_per_cell``: the units per cell the engine draws each person's own subset from (``run sort``), while the
    model answers them all; 0: every person answers the same units (``run worldsense`` with one seed)."""

    unit: str
    answers_per_unit: int
    cells: int
    items_per_cell: int
    pool_per_cell: int = 0
    stratified: bool = True  # the compared score is the equal-weight mean over cells (False: the plain mean)

    @property
    def units(self) -> int:
        return self.cells * self.items_per_cell

    def simulated(self) -> SimDesign:
        """The engine's design in the simulator's terms (the same one ``bench coverage`` runs)."""
        pool = max(self.pool_per_cell, self.items_per_cell)
        return SimDesign(self.unit, self.cells, pool, self.items_per_cell, self.answers_per_unit, self.stratified)


@dataclass(frozen=True)
class PowerRow:
    participants: int
    units: int
    simulations: int
    ci_width: float  # mean width of the pooled 95% interval (proportion)
    power: float  # share of simulated studies with p < .05 against the model


def _model_offset(pop: Population, score: float) -> float:
    """The model's logit offset giving ``score`` over the item population."""
    from scipy import optimize  # deferred: scipy.optimize loads only when a plan is simulated

    return float(optimize.brentq(lambda m: float(_person_accuracy(np.array(m), pop.item_logit_sd)) - score,
                                 -12, 12))


def simulate(design: Design, pop: Population, model_score: float, participants: int, simulations: int,
             rng: np.random.Generator, n_perm: int = 500) -> PowerRow:
    """``simulations`` studies of ``participants`` people on the engine's ``design`` (each person's own subset
    where the engine draws one, the model on the whole pool); the pooled CI width and the power of the test
    ``compare`` prints."""
    offset = _model_offset(pop, model_score)
    sim = design.simulated()
    widths: list[float] = []
    hits = 0
    for _ in range(simulations):
        s = draw_study(sim, participants, pop.person_mean, pop.person_logit_sd, pop.item_logit_sd, offset, rng)
        est = crossed_estimate(s.who, s.unit, s.score, strata=s.strata)
        if est.available:
            widths.append(est.ci_high - est.ci_low)
        test, _ = human_model_test(s.who, s.unit, s.score, s.model, strata=s.strata, n_perm=n_perm,
                                   seed=int(rng.integers(2**31)))
        hits += bool(test.p_value == test.p_value and test.p_value < 0.05)
    return PowerRow(participants, design.units, simulations, float(np.mean(widths)) if widths else math.nan,
                    hits / simulations)


@dataclass(frozen=True)
class PowerReport:
    design: Design
    population: Population
    model_score: float
    rows: list[PowerRow]
    smallest: PowerRow | None  # fewest participants reaching the target power (None: not within the grid)
    target: float
    seconds: float
    plateau: bool = False  # power stopped growing with more people: the items (and the model's own noise) limit it


def plan(design: Design, accuracy: float, person_sd: float, item_sd: float, model_score: float,
         participants: int, simulations: int = 400, seed: int = 1, target: float = 0.8,
         max_participants: int = 200) -> PowerReport:
    """Power at ``participants``, and the smallest number of participants reaching ``target`` power.

    The search walks a grid of participant numbers, bisects once the target is reached, and stops early when
    power has stopped growing (more people cannot make up for too few items).
    """
    check_power_cost(estimate_cost(design.units, design.answers_per_unit, participants, max_participants, simulations,
                                   PARTICIPANT_GRID))  # refused before it runs for hours or takes gigabytes
    started = time.perf_counter()
    plateau = False
    pop = population(accuracy, person_sd, item_sd)
    rng = np.random.default_rng(seed)
    rows = [simulate(design, pop, model_score, participants, simulations, rng)]
    smallest: PowerRow | None = rows[0] if rows[0].power >= target else None
    if smallest is None or participants > 2:
        tried: dict[int, PowerRow] = {participants: rows[0]}
        below = 1
        seen: list[PowerRow] = []
        for n in [n for n in PARTICIPANT_GRID if n <= max_participants]:
            row = tried.get(n) or simulate(design, pop, model_score, n, simulations, rng)
            tried[n] = row
            seen.append(row)
            if n >= 10 and len(seen) >= 4 and row.power < target and row.power - seen[-4].power < 0.05:
                plateau = True  # three more steps of people bought < 5 points of power
                break
            if row.power >= target:
                lo, hi = below, n  # bisect between the last n below target and this one
                best = row
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    r = tried.get(mid) or simulate(design, pop, model_score, mid, simulations, rng)
                    tried[mid] = r
                    if r.power >= target:
                        hi, best = mid, r
                    else:
                        lo = mid
                smallest = best
                break
            below = n
        rows = [tried[n] for n in sorted(tried)]
    return PowerReport(design, pop, model_score, rows, smallest, target, time.perf_counter() - started, plateau)


def pilot_moments(who: np.ndarray, item: np.ndarray, correct: np.ndarray) -> tuple[float, float, int]:
    """Mean accuracy and between-person SD of the people tested so far (crossed moments), and how many they are:
    what ``--pilot`` puts in place of the assumed accuracy and spread (clipped to what the planner accepts)."""
    est = crossed_estimate(who, item, correct)
    sd = math.sqrt(max(0.0, est.person_var)) if est.person_var == est.person_var else 0.08
    return float(np.clip(est.value, 0.06, 0.98)), float(min(sd, 0.3)), est.n_people


def power_table(report: PowerReport) -> pd.DataFrame:
    rows = [{"participants": r.participants, f"{report.design.unit} per person": r.units, "simulations": r.simulations,
             "expected CI width (points)": "n/a" if r.ci_width != r.ci_width else f"{100 * r.ci_width:.1f}",
             "power": f"{100 * r.power:.0f}%",
             "reaches target": "yes" if r.power >= report.target else "no"} for r in report.rows]
    return pd.DataFrame(rows).set_index("participants")
