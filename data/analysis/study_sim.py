"""One simulated study of the design a session engine runs, for the coverage bench and the power planner alike.

A design (:class:`SimDesign`) is what the engine gives people: ``cells`` strata (WorldSense's problem x size
cells, SORT's distance bins), each with a pool of ``pool_per_cell`` units of which every person answers
``per_person_per_cell`` (``run sort`` draws a different balanced subset per person; ``run worldsense`` gives
every person of a seed the same tuples: the pool is then exactly what each person answers). A unit is scored as
the mean of ``answers_per_unit`` right/wrong answers (a WorldSense tuple of two items, a SORT trial). People and
items differ: ``P(correct) = expit(a_person + b_item)``; the model answers every unit of the pool once. The study
is returned as the answers the comparison reads (person, unit, stratum, score) and the model's score per unit, so
it goes through the same estimator (:func:`benchlab.data.analysis.crossed.crossed_estimate`) and the same test
(:func:`benchlab.data.analysis.crossed.human_model_test`) as ``compare``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit


@dataclass(frozen=True)
class SimDesign:
    """What each simulated person answers (see the module docstring)."""

    name: str
    cells: int
    pool_per_cell: int
    per_person_per_cell: int
    answers_per_unit: int = 1
    stratified: bool = True  # the score is the equal-weight mean over cells (False: one plain mean)

    @property
    def pool(self) -> int:
        return self.cells * self.pool_per_cell

    @property
    def per_person(self) -> int:
        return self.cells * self.per_person_per_cell

    @property
    def subsets(self) -> bool:
        """Whether people answer different subsets of the pool (else every person answers all of it)."""
        return self.per_person_per_cell < self.pool_per_cell


@dataclass(frozen=True)
class Study:
    who: np.ndarray
    unit: np.ndarray
    strata: np.ndarray | None
    score: np.ndarray
    model: dict[Hashable, float]


def draw_study(design: SimDesign, people: int, person_mean: float, person_logit_sd: float, item_logit_sd: float,
               model_offset: float, rng: np.random.Generator) -> Study:
    """People, a pool of units, each person's balanced subset, the answers and the model's answers."""
    k = design.answers_per_unit
    a = rng.normal(person_mean, person_logit_sd, size=people)
    b = rng.normal(0.0, item_logit_sd, size=(design.pool, k))
    cell_of = np.repeat(np.arange(design.cells), design.pool_per_cell)
    if design.subsets:
        # per person and cell, a different random subset of the cell's pool (the engine's balanced draw)
        keys = rng.random((people, design.cells, design.pool_per_cell))
        pick = np.argsort(keys, axis=2)[:, :, :design.per_person_per_cell]
        units = (pick + (np.arange(design.cells) * design.pool_per_cell)[None, :, None]).reshape(people, -1)
    else:
        units = np.broadcast_to(np.arange(design.pool), (people, design.pool))
    p = expit(a[:, None, None] + b[units])  # people x units x answers
    y = (rng.random(p.shape) < p).mean(axis=2)
    z = (rng.random((design.pool, k)) < expit(model_offset + b)).mean(axis=1)
    who = np.repeat(np.arange(people), units.shape[1])
    unit = units.ravel()
    strata = cell_of[unit] if design.stratified and design.cells > 1 else None
    model: dict[Hashable, float] = dict(enumerate(z.tolist()))
    return Study(who, unit, strata, y.ravel(), model)
