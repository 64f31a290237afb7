"""Coverage harness (``benchlab bench coverage``): do the pooled-human intervals and tests keep their promises?

Simulated studies with what real human baselines have: people who differ (accuracy around ``accuracy`` with
between-person SD ``person_sd`` on the probability scale) and items that differ (difficulty SD ``item_logit_sd`` on
the logit scale): ``P(correct) = expit(a_person + b_item)``. Each study draws new people and new items, the model
answers the same items with the same population accuracy (a true human-model difference of 0), and every method
is run through the same functions the comparison uses:

* **crossed**: :func:`benchlab.data.analysis.crossed.crossed_estimate` for the interval and
  :func:`benchlab.data.analysis.crossed.human_model_test` for the test (people x items, what ``compare`` prints);
* **item bootstrap** (the earlier method, for contrast): percentile bootstrap over item means
  (:func:`benchlab.data.analysis.stats.bootstrap_ci`) and the paired sign-flip test over items
  (:func:`benchlab.data.analysis.stats.sign_flip_p`); both treat the people as fixed.

Coverage = share of studies whose 95% interval holds the population accuracy; FPR = share of studies where the
human-vs-model test gives p < .05. The target is coverage 93-97% and FPR <= 6% in every setting.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import expit

from benchlab.data.analysis import stats
from benchlab.data.analysis.crossed import crossed_estimate, human_model_test

COVERAGE_TARGET = (0.93, 0.97)
FPR_TARGET = 0.06
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class Population:
    """Logit-scale parameters giving the requested accuracy, person SD and item spread."""

    person_mean: float  # mu of a_person
    person_logit_sd: float  # sigma of a_person
    item_logit_sd: float
    model_mean: float  # the model's logit offset with the same population accuracy
    accuracy: float
    person_sd: float


def _person_accuracy(a: np.ndarray, item_sd: float) -> np.ndarray:
    """A person's expected accuracy over the item population (Gauss-Hermite over b)."""
    return np.asarray(expit(np.asarray(a)[..., None] + item_sd * _NODES) @ _WEIGHTS)


def population(accuracy: float = 0.75, person_sd: float = 0.08, item_logit_sd: float = 1.0) -> Population:
    """Solve for the logit parameters: population mean accuracy and SD of person accuracies as asked."""

    def moments(mu: float, sd: float) -> tuple[float, float]:
        acc = _person_accuracy(mu + sd * _NODES, item_logit_sd)
        mean = float(acc @ _WEIGHTS)
        return mean, math.sqrt(max(0.0, float(((acc - mean) ** 2) @ _WEIGHTS)))

    def resid(x: np.ndarray) -> list[float]:
        m, s = moments(float(x[0]), abs(float(x[1])))
        return [m - accuracy, s - person_sd]

    sol = optimize.fsolve(resid, [math.log(accuracy / (1 - accuracy)), person_sd / (accuracy * (1 - accuracy))])
    mu, sd = float(sol[0]), abs(float(sol[1]))
    model = optimize.brentq(lambda m: float(_person_accuracy(np.array(m), item_logit_sd)) - accuracy, -10, 10)
    return Population(mu, sd, item_logit_sd, float(model), accuracy, person_sd)


@dataclass(frozen=True)
class SettingResult:
    participants: int
    items: int
    studies: int
    coverage: float
    coverage_items: float
    fpr: float
    fpr_items: float
    width: float
    width_items: float
    na: int  # studies where the crossed interval was n/a (no variation)

    @property
    def meets_target(self) -> bool:
        lo, hi = COVERAGE_TARGET
        return lo <= self.coverage <= hi and self.fpr <= FPR_TARGET


def simulate_setting(pop: Population, participants: int, items: int, studies: int, rng: np.random.Generator,
                     n_boot: int = 1000) -> SettingResult:
    """``studies`` simulated studies of ``participants`` people x ``items`` items, every method on each."""
    a = rng.normal(pop.person_mean, pop.person_logit_sd, size=(studies, participants))
    b = rng.normal(0.0, pop.item_logit_sd, size=(studies, items))
    y = (rng.random((studies, participants, items)) < expit(a[:, :, None] + b[:, None, :])).astype(float)
    z = (rng.random((studies, items)) < expit(pop.model_mean + b)).astype(float)
    who = np.repeat(np.arange(participants), items)
    item = np.tile(np.arange(items), participants)
    cover = cover_items = fp = fp_items = na = 0
    widths: list[float] = []
    widths_items: list[float] = []
    for s in range(studies):
        scores = y[s].ravel()
        est = crossed_estimate(who, item, scores)
        if est.available:
            cover += est.ci_low <= pop.accuracy <= est.ci_high
            widths.append(est.ci_high - est.ci_low)
        else:
            na += 1
        test, _est = human_model_test(who, item, scores, dict(enumerate(z[s].tolist())), n_perm=n_boot,
                                      seed=int(rng.integers(2**31)))
        fp += bool(test.p_value == test.p_value and test.p_value < 0.05)
        item_means = y[s].mean(axis=0)
        lo, hi = stats.bootstrap_ci(item_means, n_boot=n_boot, seed=int(rng.integers(2**31)))
        cover_items += lo <= pop.accuracy <= hi
        widths_items.append(hi - lo)
        p, _exact, _k = stats.sign_flip_p(item_means - z[s], n_perm=n_boot, seed=int(rng.integers(2**31)))
        fp_items += p < 0.05
    return SettingResult(participants, items, studies, cover / max(1, studies - na), cover_items / studies,
                         fp / studies, fp_items / studies, float(np.mean(widths)) if widths else math.nan,
                         float(np.mean(widths_items)), na)


def run_coverage(participants: tuple[int, ...] = (3, 5, 10, 20), items: int = 40, studies: int = 1000,
                 seed: int = 1, accuracy: float = 0.75, person_sd: float = 0.08, item_logit_sd: float = 1.0,
                 n_boot: int = 1000) -> tuple[Population, list[SettingResult], float]:
    """Every setting; returns the population, the results and the seconds it took."""
    started = time.perf_counter()
    pop = population(accuracy, person_sd, item_logit_sd)
    rng = np.random.default_rng(seed)
    results = [simulate_setting(pop, p, items, studies, rng, n_boot) for p in participants]
    return pop, results, time.perf_counter() - started


def coverage_table(results: list[SettingResult]) -> pd.DataFrame:
    """The printed table: one row per setting, the crossed method beside the item-only bootstrap."""
    rows = [{
        "participants": r.participants, "items": r.items, "studies": r.studies,
        "coverage crossed %": f"{100 * r.coverage:.1f}", "coverage item-bootstrap %": f"{100 * r.coverage_items:.1f}",
        "FPR crossed %": f"{100 * r.fpr:.1f}", "FPR item sign-flip %": f"{100 * r.fpr_items:.1f}",
        "mean width crossed": f"{100 * r.width:.1f}", "mean width item-bootstrap": f"{100 * r.width_items:.1f}",
        "crossed n/a": r.na, "meets target": "yes" if r.meets_target else "NO",
    } for r in results]
    return pd.DataFrame(rows).set_index("participants")
