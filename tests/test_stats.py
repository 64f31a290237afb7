"""Statistics against hand-computed cases and against statsmodels/scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen
from statsmodels.stats.proportion import proportion_confint

from benchlab.data.analysis import stats


def test_wilson_hand_and_statsmodels() -> None:
    # 8 of 10: textbook Wilson interval 0.4902..0.9433
    lo, hi = stats.wilson_ci(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)
    for k, n in [(0, 5), (5, 5), (37, 80), (1, 1000)]:
        ref = proportion_confint(k, n, method="wilson")
        assert stats.wilson_ci(k, n) == pytest.approx(ref, abs=1e-12)
    assert all(math.isnan(v) for v in stats.wilson_ci(0, 0))


def test_two_proportion_interval_is_agresti_caffo_and_inverts_its_test() -> None:
    """Issue 22 item 7: the interval printed beside the unpaired test inverts that test (one method)."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    res = stats.two_proportion_test(45, 60, 30, 60)
    ref = confint_proportions_2indep(45, 60, 30, 60, method="agresti-caffo")
    assert (res.ci_low, res.ci_high) == pytest.approx(ref)
    assert res.estimate == pytest.approx(0.25)
    # hand: adjusted 46/62 - 31/62 = 0.24194, se = sqrt(2 * ...) -> z = 2.867
    assert res.statistic == pytest.approx(2.8671, abs=1e-4)
    assert res.significant
    for counts in [(5, 10, 4, 10), (8, 8, 8, 8), (0, 12, 3, 12), (7, 9, 2, 11)]:
        r = stats.two_proportion_test(*counts)
        assert (r.p_value < 0.05) == (not r.ci_low <= 0 <= r.ci_high)
        assert r.ci_high - r.ci_low > 0.1  # never zero width


def test_mcnemar_exact_hand_and_statsmodels() -> None:
    # 10 items only the first got right, 2 only the second, 30 both, 8 neither
    a = [True] * 10 + [False] * 2 + [True] * 30 + [False] * 8
    b = [False] * 10 + [True] * 2 + [True] * 30 + [False] * 8
    res = stats.mcnemar_test(a, b)
    assert res.method == "McNemar exact"
    # hand: 2 * P(X <= 2 | n=12, p=.5) = 2 * (1 + 12 + 66) / 4096
    assert res.p_value == pytest.approx(2 * 79 / 4096)
    assert res.estimate == pytest.approx(8 / 50)
    assert res.p_value == pytest.approx(sm_mcnemar([[30, 10], [2, 8]], exact=True).pvalue)


def test_mcnemar_chi2_for_many_discordant() -> None:
    rng = np.random.default_rng(1)
    a = rng.random(400) < 0.7
    b = rng.random(400) < 0.5
    res = stats.mcnemar_test(a, b)
    assert res.method == "McNemar chi2 (cc)"
    n10, n01 = int(np.sum(a & ~b)), int(np.sum(~a & b))
    assert res.statistic == pytest.approx((abs(n10 - n01) - 1) ** 2 / (n10 + n01))
    assert res.p_value < 0.001


def test_mcnemar_no_discordant_pairs_is_not_significant() -> None:
    res = stats.mcnemar_test([True, False, True], [True, False, True])
    assert res.p_value == 1.0 and res.estimate == 0


def test_fleiss_kappa_wikipedia_example() -> None:
    # The classic 10 items x 14 raters x 5 categories example: kappa = 0.210, P-bar = 0.378
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    ratings = [[c for c, count in enumerate(row) for _ in range(count)] for row in table]
    assert stats.fleiss_kappa(ratings) == pytest.approx(0.2099, abs=1e-4)
    assert stats.percent_agreement(ratings) == pytest.approx(0.378, abs=1e-3)
    agr = stats.agreement(ratings)
    assert agr.raters == 14 and agr.items == 10 and agr.unanimous == pytest.approx(0.1)


def test_fleiss_kappa_variable_raters_hand_computed() -> None:
    # item 1: a,a,a (P=1); item 2: a,b (P=0); item 3: b,b (P=1) -> P-bar = 2/3
    # category shares: a 4/7, b 3/7 -> P_e = 25/49; kappa = (2/3 - 25/49) / (1 - 25/49)
    ratings = [["a", "a", "a"], ["a", "b"], ["b", "b"]]
    expected = (2 / 3 - 25 / 49) / (1 - 25 / 49)
    assert stats.fleiss_kappa(ratings) == pytest.approx(expected)
    agr = stats.agreement([*ratings, ["c"]])  # an item with a single rating is left out
    assert (agr.items, agr.raters) == (3, 3)
    assert agr.percent == pytest.approx(2 / 3)


def test_cohen_kappa_hand_and_statsmodels() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = .7, p_e = .5, kappa = .4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert stats.cohen_kappa(a, b) == pytest.approx(0.4)
    assert stats.cohen_kappa(a, b) == pytest.approx(sm_cohen([[20, 5], [10, 15]]).kappa)
    # two raters: Fleiss and Cohen differ only in the chance term; perfect agreement is 1 for both
    assert stats.cohen_kappa(a, a) == 1.0
    assert stats.fleiss_kappa([[x, x] for x in a]) == pytest.approx(1.0)


def test_rt_summary_and_quantile_bins() -> None:
    s = stats.rt_summary([100, 200, 300, 400, float("nan")])
    assert (s.n, s.median, s.q1, s.q3, s.iqr) == (4, 250, 175, 325, 150)
    rts = [100, 200, 300, 400, 500, 600, 700, 800]
    correct = [False, False, True, False, True, True, True, True]
    bins = stats.accuracy_by_rt_quantile(rts, correct, quantiles=4)
    assert [b.n for b in bins] == [2, 2, 2, 2]
    assert [b.accuracy for b in bins] == [0.0, 0.5, 1.0, 1.0]
    assert sum(b.n for b in bins) == len(rts)
    assert [(b.lo_ms, b.hi_ms) for b in bins] == [(100, 200), (300, 400), (500, 600), (700, 800)]
    # ties: 8 equal RTs still fill 4 bins of 2
    tied = stats.accuracy_by_rt_quantile([500] * 8, correct, quantiles=4)
    assert [b.n for b in tied] == [2, 2, 2, 2]


def test_spread_and_attention() -> None:
    sp = stats.spread([0.5, 0.9, 0.7, float("nan")])
    assert (sp.n, sp.min, sp.median, sp.max) == (3, 0.5, 0.7, 0.9)
    crit = stats.AttentionCriterion(min_control_accuracy=0.8, fast_ms=300, max_fast_share=0.2)
    assert crit.reasons(0.9, [1000, 2000, 250, 3000, 4000]) == []  # 20% fast is allowed
    reasons = crit.reasons(0.6, [100, 200, 250, 3000])
    assert len(reasons) == 2 and "60%" in reasons[0] and "75%" in reasons[1]


def test_stratified_mean_weights_strata_equally() -> None:
    # stratum a: mean 1.0 over 1 unit, stratum b: mean 0.0 over 3 units -> 0.5, not 0.25
    assert stats.stratified_mean([1, 0, 0, 0], ["a", "b", "b", "b"]) == pytest.approx(0.5)
    assert stats.stratified_mean([1, 0, 0, 0]) == pytest.approx(0.25)


def test_bootstrap_ci_agrees_with_scipy() -> None:
    rng = np.random.default_rng(3)
    x = (rng.random(300) < 0.62).astype(float)
    lo, hi = stats.bootstrap_ci(x, seed=5, n_boot=4000)
    ref = sps.bootstrap((x,), np.mean, method="percentile", n_resamples=4000, random_state=7).confidence_interval
    assert lo == pytest.approx(ref.low, abs=0.01)
    assert hi == pytest.approx(ref.high, abs=0.01)
    assert stats.bootstrap_ci(x, seed=5, n_boot=4000) == (lo, hi)  # seeded: reproducible


def test_paired_bootstrap_detects_difference_and_matches_scipy_ci() -> None:
    rng = np.random.default_rng(11)
    item_difficulty = rng.random(200)
    human = (rng.random(200) < 0.3 + 0.6 * item_difficulty).astype(float)
    model = (rng.random(200) < 0.1 + 0.6 * item_difficulty).astype(float)
    res = stats.paired_bootstrap(human, model, seed=1)
    assert res.estimate == pytest.approx(human.mean() - model.mean())
    assert res.ci_low < res.estimate < res.ci_high
    assert res.p_value < 0.01 and res.significant
    ref = sps.bootstrap((human, model), lambda a, b: np.mean(a - b), paired=True, method="percentile",
                        n_resamples=5000, random_state=2, vectorized=False).confidence_interval
    assert res.ci_low == pytest.approx(ref.low, abs=0.015)
    assert res.ci_high == pytest.approx(ref.high, abs=0.015)
    # balanced disagreements (each wins as often): estimate 0, p = 1
    balanced = stats.paired_bootstrap([1.0, 0.0] * 50, [0.0, 1.0] * 50, seed=1)
    assert balanced.estimate == 0 and balanced.p_value == pytest.approx(1.0)
    assert stats.paired_bootstrap(human, human).p_value == 1.0


def test_paired_bootstrap_p_value_close_to_paired_t_for_large_n() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(0.1, 1, 400)
    b = rng.normal(0.0, 1, 400)
    res = stats.paired_bootstrap(a, b, seed=9, n_boot=8000)
    t_p = sps.ttest_rel(a, b).pvalue
    assert res.p_value == pytest.approx(t_p, abs=0.03)


def test_unpaired_bootstrap_close_to_welch() -> None:
    rng = np.random.default_rng(8)
    a = rng.normal(0.3, 1, 300)
    b = rng.normal(0.0, 1, 250)
    res = stats.unpaired_bootstrap(a, b, seed=2, n_boot=8000)
    assert res.p_value == pytest.approx(sps.ttest_ind(a, b, equal_var=False).pvalue, abs=0.02)
    assert res.estimate == pytest.approx(a.mean() - b.mean())


def test_format_p_and_stars() -> None:
    assert stats.format_p(0.0004) == "p<.001"
    assert stats.format_p(0.0321) == "p=.032"
    assert stats.format_p(float("nan")) == "n/a"
    assert stats.stars(0.004) == "**"
    assert stats.binomial_vs_chance(9, 10) == pytest.approx(sps.binomtest(9, 10).pvalue)


def test_sign_flip_test_is_valid_for_a_handful_of_tuples() -> None:
    """The QA case: per-tuple differences 0, 0, +.5, +.5, 0, 0 in size strata of 2 tuples.

    The re-centred bootstrap printed [+16.7, +16.7] p<.001; only 4 sign patterns exist, 2 as extreme -> p = .5.
    """
    human = np.array([1, 1, 0.5, 1, 1, 1])
    model = np.array([1, 1, 0.0, 0.5, 1, 1])
    strata = [1, 1, 2, 2, 3, 3]
    res = stats.paired_permutation_test(human, model, strata)
    assert res.estimate == pytest.approx(1 / 6)
    assert res.p_value == pytest.approx(0.5) and not res.significant
    assert "exact" in res.method and "4 sign patterns" in res.note

    def strat_mean(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        d = x - y
        return np.mean([d[..., i:i + 2].mean(axis=-1) for i in (0, 2, 4)], axis=0)

    ref = sps.permutation_test((human, model), strat_mean, permutation_type="samples", n_resamples=np.inf,
                               vectorized=True)
    assert res.p_value == pytest.approx(ref.pvalue)
    # strata without 2 differing tuples: no zero-width CI, the note says why
    assert math.isnan(res.ci_low) and math.isnan(res.ci_high) and "CI not available" in res.note
    # one perfect oracle against a model wrong on one of 6 tuples: the smallest exact p is 1
    one = stats.paired_permutation_test([1.0] * 6, [1, 1, 1, 0, 1, 1.0], [1, 1, 2, 2, 3, 3])
    assert one.p_value == 1.0 and math.isnan(one.ci_low)


def test_sign_flip_matches_scipy_exact_and_sign_test_and_large_n_t() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.3, 1, 12), rng.normal(0, 1, 12)
    ref = sps.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
                               n_resamples=np.inf)
    res = stats.paired_permutation_test(a, b)
    assert res.p_value == pytest.approx(ref.pvalue) and res.ci_low < res.estimate < res.ci_high
    # right/wrong items, equal-size differences: the sign-flip test is the exact sign test (binomial, ties dropped)
    h = np.array([1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1], dtype=float)
    m = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1], dtype=float)
    assert stats.paired_permutation_test(h, m).p_value == pytest.approx(sps.binomtest(6, 7, 0.5).pvalue)
    big_a, big_b = rng.normal(0.2, 1, 300), rng.normal(0, 1, 300)
    mc = stats.paired_permutation_test(big_a, big_b, seed=3, n_boot=8000)
    assert "Monte Carlo" in mc.method
    assert mc.p_value == pytest.approx(sps.ttest_rel(big_a, big_b).pvalue, abs=0.03)
    assert stats.paired_permutation_test(h, h).p_value == 1.0
