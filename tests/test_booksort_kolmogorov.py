"""booksort make's own Kolmogorov-Smirnov p-values (kept off scipy.stats for speed) are scipy's bits, on the
generator's real calls and on edge cases: ties, tiny samples, the exact and the asymptotic two-sample method,
every branch of the one-sample distribution; where one is not written here, scipy itself answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchlab.data.sort import generator, kolmogorov
from benchlab.data.sort.books import prepare
from benchlab.data.sort.kolmogorov import (
    NeedsScipy,
    kolmogorov_sf,
    two_sample_ks_pvalue,
    uniform_ks_pvalue,
    uniform_spread_passes,
)
from benchlab.data.sort.native_draws import native_available
from tests.conftest import full_data


@pytest.fixture
def scipy_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the calls that fell back to scipy (so a test can tell the own code answered)."""
    calls: list[str] = []
    one, two = kolmogorov._scipy_uniform_p, kolmogorov._scipy_two_sample_p

    def uniform(x: np.ndarray, scale: float) -> float:
        calls.append("one")
        return one(x, scale)

    def pair(a: np.ndarray, b: np.ndarray) -> float:
        calls.append("two")
        return two(a, b)

    monkeypatch.setattr(kolmogorov, "_scipy_uniform_p", uniform)
    monkeypatch.setattr(kolmogorov, "_scipy_two_sample_p", pair)
    return calls


def _uniform_cases() -> list[tuple[np.ndarray, float]]:
    """Samples as the generator draws them (sentence starts over a book length) and edge cases."""
    rng = np.random.default_rng(7)
    cases: list[tuple[np.ndarray, float]] = []
    for _ in range(150):
        n_words = int(rng.integers(9_000, 170_000))
        span = n_words - int(rng.choice([250, 1000, 2500]))
        starts = rng.integers(0, span, 160)
        starts -= rng.integers(0, 12, 160)  # moved back to a sentence start
        cases.append((np.clip(starts, 0, None) / n_words, span / n_words))
    for shift in np.linspace(0.0, 0.5, 40):  # from a good spread to one every test refuses
        x = rng.uniform(0, 1, 160) * (1 - shift) + shift
        cases.append((x, 1.0))
    cases += [(np.full(160, 0.25), 1.0), (np.repeat(np.linspace(0, 0.9, 40), 4), 1.0),  # ties
              (np.linspace(-0.5, 1.5, 160), 1.0),  # values outside the support
              (np.array([0.3]), 1.0), (np.array([0.2, 0.7]), 1.0), (rng.uniform(0, 1, 5), 1.0),
              (rng.uniform(0, 0.5, 20), 0.5), (rng.uniform(0, 1, 140), 1.0), (rng.uniform(0, 1, 141), 1.0),
              ((np.arange(160) + 0.5) / 160, 1.0),  # D = 1/(2n): the edge of the support
              (rng.uniform(0, 1, 2_000), 1.0), (rng.uniform(0, 1, 150_000), 1.0)]
    return cases


def test_one_sample_p_values_are_scipys_bits(scipy_calls: list[str]) -> None:
    cases = _uniform_cases()
    for x, scale in cases:
        expected = float(stats.kstest(x, stats.uniform(loc=0.0, scale=scale).cdf).pvalue)
        assert uniform_ks_pvalue(x, scale) == expected, (len(x), scale)
        for threshold in (0.05, 0.01, 0.2):
            assert uniform_spread_passes(x, scale, threshold) == (expected > threshold), (len(x), threshold)
    assert len(scipy_calls) < len(cases) / 3  # most answered here (scipy only for large D or n <= 140)


def test_the_refusal_needs_no_scipy_where_massarts_bound_decides(scipy_calls: list[str]) -> None:
    x = np.random.default_rng(3).uniform(0, 1, 160) * 0.8 + 0.2  # D near 0.2: n D^2 >= 2.2, Smirnov's branch
    with pytest.raises(NeedsScipy):
        kolmogorov_sf(160, 0.2)
    assert not uniform_spread_passes(x, 1.0, 0.05)
    assert scipy_calls == []
    assert uniform_ks_pvalue(x, 1.0) == float(stats.kstest(x, stats.uniform(0, 1).cdf).pvalue)
    assert scipy_calls == ["one"]


def test_the_bound_holds_wherever_it_is_used() -> None:
    """Massart's bound is what :func:`uniform_spread_passes` relies on in Smirnov's branch: check it on a grid."""
    for n in (141, 160, 500, 5_000):
        for d in np.linspace(math.sqrt(2.2 / n), 0.99, 60):
            assert float(stats.kstwo.sf(d, n)) <= 2 * math.exp(-2 * n * d * d) * (1 + 1e-9), (n, d)


def test_kolmogorov_sf_is_scipys_on_every_branch_written_here() -> None:
    answered = 0
    for n in (1, 2, 5, 60, 140, 141, 160, 435, 440, 1_000, 20_000, 100_001, 400_000):
        for d in [0.0, 0.1 / n, 0.5 / n, 0.75 / n, 1.0 / n, 1.5 / n, 0.5, 0.999, 1.0, 1.2,
                  *np.linspace(0.001, 0.4, 120), 1 - 1.0 / n, 1 - 0.5 / n]:
            try:
                mine = kolmogorov_sf(n, float(d))
            except NeedsScipy:
                continue
            answered += 1
            assert mine == float(stats.kstwo.sf(d, n)), (n, d)
    assert answered > 800


def _two_sample_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """Presented-first positions against pooled candidate starts (integers, many ties) and edge cases."""
    rng = np.random.default_rng(11)
    cases = []
    for pooled_size in (300, 2_000, 6_000, 9_000, 9_999, 10_000, 10_001, 12_000, 33_000):
        for _ in range(4):
            length = int(rng.choice([230, 950]))
            pooled = rng.integers(0, length, pooled_size)
            first = rng.choice(pooled, 440)
            cases.append((first, pooled))
    cases.append((rng.integers(0, 200, 440) + 40, rng.integers(0, 200, 8_000)))  # shifted: a tiny p
    cases.append((rng.integers(0, 200, 440) + 40, rng.integers(0, 200, 20_000)))
    cases += [(np.array([3]), np.array([5])), (np.array([1, 2]), np.array([1, 2, 3])),
              (np.array([5, 5, 5]), np.array([5, 5])), (np.arange(10), np.arange(10) + 10),  # identical, disjoint
              (rng.integers(0, 50, 300), rng.integers(0, 50, 300)),  # equal sizes: the square method
              (rng.integers(0, 50, 7), rng.integers(0, 50, 13)), (rng.integers(0, 50, 440), rng.integers(0, 50, 880))]
    return cases


def test_two_sample_p_values_are_scipys_bits(scipy_calls: list[str]) -> None:
    cases = _two_sample_cases()
    for a, b in cases:
        assert two_sample_ks_pvalue(a, b) == float(stats.kstest(a, b).pvalue), (len(a), len(b))
    if native_available():  # the exact count runs in the compiled helper (else scipy answers, same bits)
        assert len(scipy_calls) <= 2  # only the shifted samples' tiny p (Smirnov's branch) may need scipy


def test_without_the_compiled_helper_scipy_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kolmogorov, "ks_outside_share", lambda *args: None)
    a, b = np.arange(0, 400, 3), np.arange(0, 420, 2)
    assert two_sample_ks_pvalue(a, b) == float(stats.kstest(a, b).pvalue)
    x = np.array([0.5, 0.1, 0.2])
    assert two_sample_ks_pvalue(x, x + 0.05) == float(stats.kstest(x, x + 0.05).pvalue)  # floats: scipy's own


@pytest.mark.fulldata
def test_every_call_of_a_real_make_is_scipys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator's own calls on a real book, four configurations: each compared with scipy as it is made."""
    seen = {"one": 0, "two": 0}
    one, two = generator.uniform_spread_passes, generator.two_sample_ks_pvalue

    def checked_one(x: np.ndarray, scale: float, threshold: float) -> bool:
        seen["one"] += 1
        assert one(x, scale, threshold) == (stats.kstest(x, stats.uniform(0, scale).cdf).pvalue > threshold)
        return one(x, scale, threshold)

    def checked_two(a: np.ndarray, b: np.ndarray) -> float:
        seen["two"] += 1
        p = two(a, b)
        assert p == float(stats.kstest(a, b).pvalue)
        return p

    monkeypatch.setattr(generator, "uniform_spread_passes", checked_one)
    monkeypatch.setattr(generator, "two_sample_ks_pvalue", checked_two)
    book = prepare(full_data("booksort", "pg_full_text") / "72958-0.txt")
    generator.generate_many(book, [(250, 20), (250, 50), (1000, 20), (1000, 50)])
    assert seen["two"] == 4 and seen["one"] >= 4
