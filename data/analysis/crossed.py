"""Pooled-human intervals and human-vs-model tests that count both sources of chance: people and items.

With a handful of participants, most of the uncertainty of a pooled human score is *who* was tested: a bootstrap
over items alone treats the people as fixed and prints intervals that cover the population value far less often
than 95% (``benchlab bench coverage`` measures it). Here every answer is modelled as

    y_pj = mu + a_p + b_j + e_pj      (a: person, b: item, e: the rest; crossed random effects)

which holds for any scores with independent people and items (it is the ANOVA / Hoeffding decomposition, so no
distribution is assumed). The pooled score is a linear estimator ``sum_j v_j X_j`` of per-item means ``X_j`` (the
benchmark's own stratified weights ``v_j``), so its variance is

    Var = sigma_a^2 * sum_p (share of the estimate from person p)^2  +  Var(sum_j v_j X_j | people)

The person term uses the method-of-moments (U-statistic) variance components of Gao & Owen (2017, "Efficient
moment calculations for variance components in large unbalanced crossed random effects models"), which work for
any pattern of who answered what; the item term is the item-clustered (sandwich) variance of the weighted item
means within strata, so items answered by different numbers of people are handled without a model. The interval is
t-based with Satterthwaite degrees of freedom, built like the quasi-F of a balanced two-way design (person mean
square with P-1 df, item mean square with I-1 df, residual with (P-1)(I-1) df): with 3 people it has about 2-3 df
and is as wide as the data say. A human-vs-model test applies the same formula to the per-item difference
``X_j - model_j`` (paired on items). Numpy only, so the coverage harness can run thousands of studies in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.data.analysis.stats import TestResult, paired_permutation_test, sign_flip_interval, tango_test
from benchlab.data.analysis.stats.distributions import t_ppf, t_sf

METHOD = ("crossed people x items (moment variance components, variance x (1 + 1/people), t with "
          "df = min(Satterthwaite, people - 1))")


@dataclass(frozen=True)
class CrossedEstimate:
    """A pooled score (or a human-model difference) with its crossed-random-effects interval and test."""

    value: float
    se: float
    df: float
    ci_low: float
    ci_high: float
    p_value: float  # two-sided, against ``null`` (NaN when no interval can be computed)
    n_people: int
    n_items: int
    note: str = ""  # why the interval is n/a, when it is
    person_var: float = math.nan  # sigma_a^2 (clipped at 0)
    residual_var: float = math.nan  # sigma_e^2 (clipped at 0)
    method: str = METHOD

    @property
    def available(self) -> bool:
        return self.ci_low == self.ci_low


def _codes(labels: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, int]:
    """Codes of the labels in sorted order (as ``np.unique(..., return_inverse=True)``) and how many there are.

    Labels that are objects are compared as text. They are hashed (``pandas.factorize``), not sorted as a
    fixed-width unicode array: the same codes, without sorting thousands of long tuple ids per test."""
    arr = np.asarray(labels)
    if arr.dtype == object:
        codes, names = _text_codes(arr)
        return codes, len(names)
    uniq, inv = np.unique(arr, return_inverse=True)
    return inv.ravel(), int(uniq.size)


#: Codes of read-only label arrays, by identity (each kept with its array, so that an id is never taken for a later
#: array's): a comparison passes the same condition's people and units to the pooled cell, the test against every
#: model and a crossed extra table (:meth:`benchlab.data.analysis.design.Design.labels`), and sorting ~4k unit ids
#: again for each was ~30 ms of a lab's comparison. A writable array is coded every time (it may change).
_CODED: dict[int, tuple[np.ndarray, tuple[np.ndarray, list[str]]]] = {}
_CODED_MAX = 32


def _text_codes(arr: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Object labels compared as text: their codes in sorted order and the distinct texts in that order."""
    if arr.flags.writeable:
        return _text_codes_of(arr)
    hit = _CODED.get(id(arr))
    if hit is not None and hit[0] is arr:
        return hit[1]
    codes, texts = _text_codes_of(arr)
    codes.flags.writeable = False  # shared by every caller of this array
    if len(_CODED) >= _CODED_MAX:
        _CODED.clear()
    _CODED[id(arr)] = (arr, (codes, texts))
    return codes, texts


def _text_codes_of(arr: np.ndarray) -> tuple[np.ndarray, list[str]]:
    # deferred: pandas loads only when object labels are coded (this module loads without it)
    import pandas as pd

    # every label a string already (units, people): no Python loop to convert them (``str(x)`` is ``x``)
    text = arr if pd.api.types.infer_dtype(arr, skipna=False) == "string" else np.asarray(
        [str(x) for x in arr], dtype=object)
    codes, uniq = pd.factorize(text, sort=True)
    return codes.astype(np.intp), list(uniq.tolist())


def variance_components(person: np.ndarray, item: np.ndarray, z: np.ndarray, n_person: int,
                        n_item: int) -> tuple[float, float, float]:
    """Unbiased moment estimates (sigma_a^2, sigma_b^2, sigma_e^2) from pairs of answers (Gao & Owen 2017).

    Pairs of answers by the same person on different items differ by 2(sigma_b^2 + sigma_e^2) on average, pairs on
    the same item by different people by 2(sigma_a^2 + sigma_e^2), all other pairs by 2(sigma_a^2 + sigma_b^2 +
    sigma_e^2); each (person, item) must occur once. Returned unclipped (NaN where no pair of a kind exists).
    """
    n = z.size
    z2 = z * z

    def within(codes: np.ndarray, k: int) -> tuple[float, float]:
        cnt = np.bincount(codes, minlength=k).astype(float)
        s = np.bincount(codes, weights=z, minlength=k)
        q = np.bincount(codes, weights=z2, minlength=k)
        return float(np.sum(cnt * q - s * s)), float(np.sum(cnt * (cnt - 1) / 2))

    sum_p, pairs_p = within(person, n_person)  # same person, different items
    sum_i, pairs_i = within(item, n_item)  # same item, different people
    total = float(n * z2.sum() - z.sum() ** 2)
    pairs_all = n * (n - 1) / 2
    sum_c, pairs_c = total - sum_p - sum_i, pairs_all - pairs_p - pairs_i
    a = sum_p / pairs_p / 2 if pairs_p > 0 else math.nan  # sigma_b + sigma_e
    b = sum_i / pairs_i / 2 if pairs_i > 0 else math.nan  # sigma_a + sigma_e
    c = sum_c / pairs_c / 2 if pairs_c > 0 else math.nan  # sigma_a + sigma_b + sigma_e
    return c - a, c - b, a + b - c


def _item_weights(item: np.ndarray, n_item: int, stratum_of_item: np.ndarray,
                  weights: Mapping[Hashable, float] | None, strata_names: np.ndarray) -> np.ndarray:
    """v_j: the stratum's weight shared equally by its items (the benchmark's rebalanced mean)."""
    k = strata_names.size
    items_per = np.bincount(stratum_of_item, minlength=k).astype(float)
    if weights is None:
        w = np.where(items_per > 0, 1.0, 0.0)
    else:
        w = np.array([float(weights.get(s, 0.0)) for s in strata_names.tolist()])
    w = w / w.sum()
    return w[stratum_of_item] / items_per[stratum_of_item]


def crossed_estimate(who: Sequence[Hashable] | np.ndarray, item: Sequence[Hashable] | np.ndarray,
                     score: Sequence[float] | np.ndarray, model: Mapping[Hashable, float] | None = None,
                     strata: Sequence[Hashable] | np.ndarray | None = None,
                     weights: Mapping[Hashable, float] | None = None, level: float = 0.95,
                     null: float = 0.0) -> CrossedEstimate:
    """The pooled human score (``model`` None) or pooled humans minus a model on the same items, with a t interval.

    ``who``/``item``/``score``: one answer each (first answers only: a (person, item) pair must occur once).
    ``strata``: one label per answer (constant within an item), with ``weights`` per stratum (default equal): the
    score is the weighted mean over strata of the mean over items of the mean over the people who answered it,
    exactly as the pipeline pools. ``model``: the model's score per item; answers on items it lacks are dropped.
    """
    y = np.asarray(score, dtype=float)
    it_labels = np.asarray(item, dtype=object) if not isinstance(item, np.ndarray) else item
    who_arr = np.asarray(who, dtype=object) if not isinstance(who, np.ndarray) else who
    st = None if strata is None else (np.asarray(strata, dtype=object) if not isinstance(strata, np.ndarray)
                                      else strata)
    if model is not None:
        keep = np.fromiter(map(model.__contains__, it_labels.tolist()), dtype=bool, count=it_labels.size)
        if not keep.all():  # (else the same arrays: their codes may be known already)
            y, it_labels, who_arr = y[keep], it_labels[keep], who_arr[keep]
            st = None if st is None else st[keep]
    p_code, n_p = _codes(who_arr)
    i_code, n_i = _codes(it_labels)
    empty = CrossedEstimate(math.nan, math.nan, math.nan, math.nan, math.nan, math.nan, n_p, n_i)
    if y.size == 0:
        return _with_note(empty, "no answers")
    # stratum of each item (first answer's label), strata names in sorted order
    if st is None:
        s_code_obs = np.zeros(y.size, dtype=int)
        names = np.array(["all"], dtype=object)
    else:
        if st.dtype == object:  # the sorted distinct texts come with the codes (no str() per answer again)
            s_code_obs, texts = _text_codes(st)
            names = np.asarray(texts)
        else:
            s_code_obs, _k = _codes(st)
            names = np.unique(np.asarray([str(x) for x in st]))
        if weights is not None:
            weights = {str(k): v for k, v in weights.items()}
    stratum_of_item = np.zeros(n_i, dtype=int)
    stratum_of_item[i_code[::-1]] = s_code_obs[::-1]  # first answer wins
    people_on_item = np.bincount(i_code, minlength=n_i).astype(float)
    item_mean = np.bincount(i_code, weights=y, minlength=n_i) / people_on_item
    v = _item_weights(i_code, n_i, stratum_of_item, weights, names)
    x = item_mean
    if model is not None:
        first = np.full(n_i, -1)
        first[i_code[::-1]] = np.arange(y.size)[::-1]
        m = np.array([model[k] for k in it_labels[first].tolist()], dtype=float)  # one lookup per item
        x = item_mean - m
    value = float(np.sum(v * x))
    est = CrossedEstimate(value, math.nan, math.nan, math.nan, math.nan, math.nan, n_p, n_i)
    if n_p < 2:
        return _with_note(est, "one participant: the spread between people cannot be estimated")
    if n_i < 2:
        return _with_note(est, "one item: the spread between items cannot be estimated")
    # variance components from answers centred on their stratum means (strata are fixed effects)
    s_sum = np.bincount(s_code_obs, weights=y, minlength=names.size)
    s_cnt = np.bincount(s_code_obs, minlength=names.size).astype(float)
    z = y - (s_sum / np.maximum(s_cnt, 1))[s_code_obs]
    var_a, _var_b, var_e = variance_components(p_code, i_code, z, n_p, n_i)
    var_a = var_a if var_a == var_a else 0.0
    var_e = max(0.0, var_e) if var_e == var_e else 0.0
    w_obs = v[i_code] / people_on_item[i_code]  # each answer's weight in the estimate
    k_a = float(np.sum(np.bincount(p_code, weights=w_obs, minlength=n_p) ** 2))
    k_e = float(np.sum(w_obs**2))
    # item term: item-clustered variance of sum_j v_j x_j within strata (small-sample factor I_k / (I_k - 1))
    t_item = 0.0
    for k in range(names.size):
        sel = stratum_of_item == k
        n_k = int(sel.sum())
        if n_k < 2:
            continue
        xk = x[sel]
        vk = v[sel]
        centre = float(np.sum(vk * xk) / np.sum(vk))
        t_item += n_k / (n_k - 1) * float(np.sum((vk * (xk - centre)) ** 2))
    # the person mean square (sigma_a^2 K_a + sigma_e^2 K_e, as MS_P / (P I) in a balanced design) is never
    # negative even when the sigma_a^2 estimate is; clipping sigma_a^2 first would make it too wide
    t_person = max(0.0, var_a * k_a + var_e * k_e)
    t_resid = var_e * k_e
    var = t_person + t_item - t_resid
    if var <= 1e-15 < max(t_person, t_item):
        # both the person and the item mean squares below the residual (rare with few people): the quasi-F
        # combination is negative; fall back to the larger mean square alone (conservative)
        var = max(t_person, t_item)
        t_resid = 0.0
        t_person, t_item = (t_person, 0.0) if t_person >= t_item else (0.0, t_item)
    if not var > 1e-15:
        if model is not None and abs(value - null) < 1e-12:
            return _with_note(CrossedEstimate(value, 0.0, math.nan, math.nan, math.nan, 1.0, n_p, n_i, "",
                                              var_a, var_e),
                              "no variation: every difference is the same, so there is no interval")
        return _with_note(est, "no variation in the answers (every score the same): no interval can be computed")
    df_p, df_i = n_p - 1, max(1, n_i - names.size)
    denom = t_person**2 / df_p + t_item**2 / df_i + t_resid**2 / (df_p * df_i)
    satterthwaite = var * var / denom if denom > 0 else float(df_p)
    # small-sample df: never more than people - 1. With a handful of people the person mean square is so noisy
    # that Satterthwaite's df (estimated from it) runs high exactly when it is small, and the t reference is too
    # light (the audit: 87% coverage, 13% FPR at 3 people); the containment df holds (`bench coverage`)
    df = float(min(max(satterthwaite, 1.0), n_p * n_i, df_p))
    # small-sample inflation (1 + 1/people): the t reference is still too light where person scores are skewed
    # (5 people at person SD 0.25: FPR 6.5% without it); wider, never narrower (`bench coverage` prints the table)
    se = math.sqrt(var * (1 + 1 / n_p))
    q = float(t_ppf(0.5 + level / 2, df))
    if model is None and 0.0 < value < 1.0:
        # accuracy: the same t on the logit scale (delta method), back-transformed; person accuracies are skewed
        # near the ceiling and a symmetric interval undercovers there (92% at person SD 0.25 with 5 people)
        centre, spread = math.log(value / (1 - value)), se / (value * (1 - value))
        lo, hi = _expit(centre - q * spread), _expit(centre + q * spread)
    else:
        lo, hi = value - q * se, value + q * se
    if model is None:
        lo, hi = max(0.0, lo), min(1.0, hi)
    else:
        lo, hi = max(-1.0, lo), min(1.0, hi)
    p = float(2 * t_sf(abs(value - null) / se, df))
    return CrossedEstimate(value, se, df, lo, hi, min(1.0, p), n_p, n_i, "", var_a, var_e)


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _with_note(est: CrossedEstimate, note: str) -> CrossedEstimate:
    return CrossedEstimate(est.value, est.se, est.df, est.ci_low, est.ci_high, est.p_value, est.n_people,
                           est.n_items, note, est.person_var, est.residual_var)


def human_model_test(who: Sequence[Hashable] | np.ndarray, item: Sequence[Hashable] | np.ndarray,
                     score: Sequence[float] | np.ndarray, model: Mapping[Hashable, float],
                     strata: Sequence[Hashable] | np.ndarray | None = None,
                     weights: Mapping[Hashable, float] | None = None, n_perm: int = 5000, seed: int = 0,
                     unit_word: str = "items", level: float = 0.95) -> tuple[TestResult, CrossedEstimate]:
    """Pooled humans minus a model on shared items: one test and the interval inverting it.

    Two or more people: the crossed people x items t-test (df = min(Satterthwaite, people - 1)); its interval is
    the same t, so the printed interval holds 0 exactly when p >= .05. One participant (no spread between people
    to estimate; about that person's items only, the note says so): right/wrong answers get the paired score test
    with Tango's interval, other scores the exact sign-flip test over items with the interval inverting it.
    """
    est = crossed_estimate(who, item, score, model=model, strata=strata, weights=weights, level=level)
    shape = f"{est.n_people} people x {est.n_items} {unit_word}"
    if est.n_people >= 2 and est.p_value == est.p_value:
        stat = est.value / est.se if est.se == est.se and est.se > 0 else math.nan
        if est.available:
            return TestResult(f"{METHOD} over shared {unit_word}", est.value, est.ci_low, est.ci_high, est.p_value,
                              stat, est.n_items, f"{shape}; t df {est.df:.1f}"), est
        return TestResult(f"{METHOD} over shared {unit_word}", est.value, math.nan, math.nan, est.p_value, stat,
                          est.n_items, f"{shape}; CI n/a: {est.note}"), est
    h, m, item_strata = _item_differences(item, score, model, strata)
    why = est.note or "no interval"
    about = (f"one participant: about this person's {unit_word}, not people in general; " if est.n_people < 2
             else "")
    binary = bool(np.isin(h, (0.0, 1.0)).all() and np.isin(m, (0.0, 1.0)).all())
    if binary and item_strata is None:
        res = tango_test(h.astype(bool), m.astype(bool), level)
        return TestResult(f"{res.method} over shared {unit_word}", res.estimate, res.ci_low, res.ci_high,
                          res.p_value, res.statistic, res.n, f"{about}{shape}; crossed test n/a: {why}; "
                          f"{res.note}"), est
    flip = paired_permutation_test(h, m, item_strata, weights, n_boot=n_perm, seed=seed, level=level)
    lo, hi = sign_flip_interval(h - m, item_strata, weights, n_perm=n_perm, seed=seed, level=level)
    lo, hi = max(-1.0, lo), min(1.0, hi)
    ci = "interval by inverting the test" if lo == lo else "CI n/a: every difference the same, nothing to invert"
    return TestResult(f"{flip.method} over shared {unit_word}", flip.estimate, lo, hi, flip.p_value, math.nan,
                      est.n_items, f"{about}{shape}; crossed test n/a: {why}; {flip.note.split('; CI')[0]}; "
                      f"{ci}"), est


def _item_differences(item: Sequence[Hashable] | np.ndarray, score: Sequence[float] | np.ndarray,
                      model: Mapping[Hashable, float], strata: Sequence[Hashable] | np.ndarray | None,
                      ) -> tuple[np.ndarray, np.ndarray, list[Hashable] | None]:
    """Per shared item: the human mean, the model's score and the item's stratum."""
    y = np.asarray(score, dtype=float)
    labels = [str(i) for i in (item.tolist() if isinstance(item, np.ndarray) else item)]
    keys = {str(k): k for k in model}
    sums: dict[str, list[float]] = {}
    stratum: dict[str, Hashable] = {}
    st = None if strata is None else list(strata.tolist() if isinstance(strata, np.ndarray) else strata)
    for n, (lab, val) in enumerate(zip(labels, y.tolist(), strict=True)):
        if lab not in keys:
            continue
        sums.setdefault(lab, []).append(val)
        if st is not None:
            stratum.setdefault(lab, st[n])
    order = list(sums)
    h = np.array([np.mean(sums[k]) for k in order])
    m = np.array([float(model[keys[k]]) for k in order])
    return h, m, (None if st is None else [stratum[k] for k in order])
