"""The standard normal's distribution function and quantile in plain Python floats, so that the comparisons need
no ``scipy.special`` (importing it costs ~0.25 s CPU, most of it scipy's array-API layer: a quarter of a computed
``benchlab compare``).

Both follow Moshier's Cephes library (``ndtr.c``, ``ndtri.c``), the C code behind scipy's ``ndtr`` and ``ndtri``:
the same rational approximations, coefficients and order of operations, with the C library's ``exp``/``log``/
``sqrt`` (which Python's :mod:`math` calls), so the results are scipy's to the bit on this platform (the tests
compare them over a wide grid, tails included, and at the quantiles the comparisons print).

- :func:`ndtr`: ``0.5 + 0.5 erf(x / sqrt 2)`` near 0, ``0.5 erfc(|x| / sqrt 2)`` elsewhere; ``erf`` for ``|x| <= 1``
  is a rational function in ``x^2``, ``erfc`` for ``|x| >= 1`` is ``exp(-x^2) P(x) / Q(x)`` (two fits, below and
  above 8), flushed to 0 where ``x^2`` exceeds the log of the largest double (as Cephes does).
- :func:`ndtri`: ``w + w^3 R(w^2) / S(w^2)`` (times sqrt(2 pi)) for ``w = q - 0.5`` in the central region
  ``exp(-2) < q < 1 - exp(-2)``; in the tails ``z - log(z) / z - P(1/z) / (z Q(1/z))`` with ``z = sqrt(-2 log q)``
  (two fits, below and above ``z = 8``).
"""

from __future__ import annotations

import math

_SQRT1_2 = 7.071067811865475244008e-1  # 1 / sqrt(2)
_S2PI = 2.50662827463100050242e0  # sqrt(2 pi)
_MAXLOG = 7.09782712893383996843e2  # log of the largest double
_EXP_M2 = 1.3533528323661269189e-1  # exp(-2)

# erfc(x) = exp(-x^2) P(x) / Q(x), 1 <= x < 8 (P degree 8, Q monic degree 8)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2,
           1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q = (1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2, 9.75708501743205489753e2,
           1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2)
# erfc(x), x >= 8 (R degree 5, S monic degree 6)
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
           7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_S = (2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
           9.60896809063285878198e0, 3.36907645100081516050e0)
# erf(x) = x T(x^2) / U(x^2), |x| <= 1 (T degree 4, U monic degree 5)
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
          5.55923013010394962768e4)
_ERF_U = (3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3, 2.26290000613890934246e4,
          4.92673942608635921086e4)
# ndtri, central region: x / sqrt(2 pi) = w + w w^2 P0(w^2) / Q0(w^2) (P0 degree 4, Q0 monic degree 8)
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1, 1.39312609387279679503e1,
       -1.23916583867381258016e0)
_Q0 = (1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1, -2.25462687854119370527e2,
       2.00260212380060660359e2, -8.20372256168333339912e1, 1.59056225126211695515e1, -1.18331621121330003142e0)
# ndtri tails, 2 <= z < 8 (q between exp(-32) and exp(-2)); P1 degree 8, Q1 monic degree 8
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1, 4.40805073893200834700e1,
       1.46849561928858024014e1, 2.18663306850790267539e0, -1.40256079171354495875e-1, -3.50424626827848203418e-2,
       -8.57456785154685413611e-4)
_Q1 = (1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1, 1.50425385692907503408e1,
       2.50464946208309415979e0, -1.42182922854787788574e-1, -3.80806407691578277194e-2, -9.33259480895457427372e-4)
# ndtri far tails, 8 <= z <= 64 (q down to exp(-2048)); P2 degree 8, Q2 monic degree 8
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0, 1.33303460815807542389e0,
       2.01485389549179081538e-1, 1.23716634817820021358e-2, 3.01581553508235416007e-4, 2.65806974686737550832e-6,
       6.23974539184983293730e-9)
_Q2 = (6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0, 2.16236993594496635890e-1,
       1.34204006088543189037e-2, 3.28014464682127739104e-4, 2.89247864745380683936e-6, 6.79019408009981274425e-9)


def _polevl(x: float, coef: tuple[float, ...]) -> float:
    """Horner's rule, highest power first (Cephes' ``polevl``)."""
    ans = coef[0]
    for c in coef[1:]:
        ans = ans * x + c
    return ans


def _p1evl(x: float, coef: tuple[float, ...]) -> float:
    """Horner's rule for a monic polynomial whose leading 1 is left out (Cephes' ``p1evl``)."""
    ans = x + coef[0]
    for c in coef[1:]:
        ans = ans * x + c
    return ans


def erfc(a: float) -> float:
    """Cephes' complementary error function (what scipy's ``ndtr`` calls; not :func:`math.erfc`, whose last
    bits differ)."""
    if a != a:
        return math.nan
    x = -a if a < 0 else a
    if x < 1.0:
        return 1.0 - erf(a)
    z = -a * a
    if z < -_MAXLOG:
        return 2.0 if a < 0 else 0.0
    z = math.exp(z)
    if x < 8.0:
        p, q = _polevl(x, _ERFC_P), _p1evl(x, _ERFC_Q)
    else:
        p, q = _polevl(x, _ERFC_R), _p1evl(x, _ERFC_S)
    y = (z * p) / q
    if a < 0:
        y = 2.0 - y
    if y == 0.0:
        return 2.0 if a < 0 else 0.0
    return y


def erf(x: float) -> float:
    """Cephes' error function."""
    if x != x:
        return math.nan
    if x < 0:
        return -erf(-x)
    if x > 1.0:
        return 1.0 - erfc(x)
    z = x * x
    return x * _polevl(z, _ERF_T) / _p1evl(z, _ERF_U)


def ndtr(a: float) -> float:
    """P(Z <= a) for a standard normal Z (scipy's ``ndtr``)."""
    if a != a:
        return math.nan
    x = a * _SQRT1_2
    z = abs(x)
    if z < _SQRT1_2:
        return 0.5 + 0.5 * erf(x)
    y = 0.5 * erfc(z)
    return 1.0 - y if x > 0 else y


def ndtri(y0: float) -> float:
    """The x with P(Z <= x) = y0 (scipy's ``ndtri``): -inf at 0, inf at 1, nan outside [0, 1]."""
    if y0 == 0.0:
        return -math.inf
    if y0 == 1.0:
        return math.inf
    if not 0.0 < y0 < 1.0:
        return math.nan
    y, negate = y0, True
    if y > 1.0 - _EXP_M2:
        y, negate = 1.0 - y, False
    if y > _EXP_M2:
        y -= 0.5
        y2 = y * y
        x = y + y * (y2 * _polevl(y2, _P0) / _p1evl(y2, _Q0))
        return x * _S2PI
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    if x < 8.0:
        x1 = z * _polevl(z, _P1) / _p1evl(z, _Q1)
    else:
        x1 = z * _polevl(z, _P2) / _p1evl(z, _Q2)
    x = x0 - x1
    return -x if negate else x
