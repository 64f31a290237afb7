"""The published BookSORT draws, in compiled code, draw for draw the same as numpy's legacy ``RandomState``.

The published generator picks positions with ``rs.permutation(n)[0]``: a full shuffle of ``n`` items for one
number, where ``n`` is a whole book (about 150,000 words) for every excerpt, and a few hundred candidates, up to
10,001 times, for every segment pair. Reproducing its trials exactly means spending the same random numbers, so
the draws cannot be skipped, but the shuffles can: numpy's shuffle takes its swap partners from masked rejection
sampling on the Mersenne Twister's 32-bit outputs, and the item that ends up first can be traced back from the
partners alone. That loop, the Twister and the pair sampler's search are a page of C that runs about five times
faster than numpy's shuffle (which calls through a function pointer per draw and swaps items at random places).

The C is compiled once per machine into the cache folder with the system's C compiler, loaded with ctypes, and
used only after it reproduced numpy on a few streams here. Without a compiler (or when building or that check
fails) :class:`LegacyStream` says so (``native`` is False) and the generator uses numpy itself: results never
depend on it, only the speed does. ``benchlab bench booksort`` prints which path ran.

The same library holds the one loop of the trials' checks that needs compiled speed: the exact two-sample
Kolmogorov-Smirnov count (:mod:`benchlab.data.sort.kolmogorov`; without the library scipy computes it).
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.data.native_build import compile_library, library_path, open_library

# numpy's legacy stream: MT19937 (624 words of state), 32-bit outputs, interval draws by masked rejection.
# Written from the published algorithm (Matsumoto & Nishimura 1998) and numpy's documented legacy behaviour;
# the load check and the tests compare results and the state left behind with numpy's own calls.
_SOURCE = r"""
#include <math.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(BENCHLAB_PLAIN)
#define WIDE __attribute__((target_clones("avx2", "default")))  /* AVX2 where the CPU has it, chosen at load */
#else
#define WIDE
#endif

#define MT_N 624
#define MT_M 397

typedef struct { uint32_t key[MT_N]; int pos; } mt_state;  /* numpy's mt19937_state layout (checked at load) */

static inline uint32_t mix(uint32_t upper, uint32_t lower, uint32_t far) {
    uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
    return far ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

WIDE static void twist(uint32_t *mt) {
    int k = 0;
    for (; k < MT_N - MT_M; k++) mt[k] = mix(mt[k], mt[k + 1], mt[k + MT_M]);
    for (; k < MT_N - 1; k++) mt[k] = mix(mt[k], mt[k + 1], mt[k + MT_M - MT_N]);
    mt[MT_N - 1] = mix(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
}

static inline uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static inline uint32_t next32(mt_state *s) {
    if (s->pos >= MT_N) { twist(s->key); s->pos = 0; }
    return temper(s->key[s->pos++]);
}

/* numpy's legacy interval draw (shuffle's partners, randint(0, max + 1)): the first output whose low bits,
   masked to max's bit length, are <= max; no draw at all for max 0. */
static inline uint32_t interval(mt_state *s, uint32_t max) {
    if (max == 0) return 0;
    uint32_t mask = 0xffffffffu >> __builtin_clz(max), v;
    while ((v = next32(s) & mask) > max) {}
    return v;
}

/* Which item a shuffle with these partners puts first: the last swap that touched position 0 brought the item
   then at its partner's place, and so on back. */
static int64_t first_item(const int32_t *partner, int64_t n) {
    int64_t at = 0, i = 1;
    while (i < n) {
        if (i + 32 <= n) {  /* a block of 32 without the partner sought is skipped at once (vectorised) */
            int32_t want = (int32_t)at;
            int any = 0;
            for (int k = 0; k < 32; k++) any |= partner[i + k] == want;
            if (!any) { i += 32; continue; }
        }
        if (partner[i] == at) at = i;
        i++;
    }
    return at;
}

/* rs.permutation(n)[0] for 1 <= n < 2**31, `partner` (n ints) as scratch; a whole block of outputs is
   tempered at once and the rejection is branch-free (a refused draw's slot is overwritten by the next). */
WIDE int64_t permutation_head(mt_state *s, int64_t n, int32_t *partner) {
    uint32_t out[MT_N];
    uint32_t *mt = s->key;
    int pos = s->pos;
    for (int k = pos; k < MT_N; k++) out[k] = temper(mt[k]);
    int64_t i = n - 1;
    while (i >= 1) {
        if (pos >= MT_N) {
            twist(mt);
            for (int k = 0; k < MT_N; k++) out[k] = temper(mt[k]);
            pos = 0;
        }
        uint32_t mask = 0xffffffffu >> __builtin_clz((uint32_t)i);
        int64_t lowest = (int64_t)(mask >> 1) + 1;  /* the smallest i with this mask */
        /* each output lowers i by at most one: this many need no check that i is still in the mask's range */
        int64_t room = i - lowest + 1, left = MT_N - pos;
        int count = (int)(room < left ? room : left);
        uint32_t at = (uint32_t)i;
        const uint32_t *o = out + pos;
        for (int k = 0; k < count; k++) {
            uint32_t v = o[k] & mask;
            partner[at] = (int32_t)v;
            at -= (v <= at);
        }
        pos += count;
        i = at;
    }
    s->pos = pos;
    return first_item(partner, n);
}

/* The published segment-pair sampler on sorted candidate starts `cand` (n of them): up to `tries` times, a first
   start k = rs.permutation(n)[0]; if some other start lies at an offset in (lower, upper] either side, one of them
   by rs.randint(0, count), earlier candidates first. Returns 1 with out = {k, partner index}, else 0 (no pair;
   every try's draws spent, as published). `work` holds 4n int64 and n int32. */
int pair_draw(mt_state *s, const int64_t *cand, int64_t n, int64_t lower, int64_t upper, int64_t tries,
              int64_t *work, int64_t *out) {
    int64_t *before_lo = work, *n_before = work + n, *after_lo = work + 2 * n, *count = work + 3 * n;
    int32_t *partner = (int32_t *)(work + 4 * n);
    int64_t bl = 0, bh = 0, al = 0, ah = 0;
    for (int64_t k = 0; k < n; k++) {  /* four pointers that only move forward, as the candidates ascend */
        while (bl < n && cand[bl] < cand[k] - upper) bl++;
        while (bh < n && cand[bh] < cand[k] - lower) bh++;
        while (al < n && cand[al] <= cand[k] + lower) al++;
        while (ah < n && cand[ah] <= cand[k] + upper) ah++;
        before_lo[k] = bl;
        n_before[k] = bh - bl;
        after_lo[k] = al;
        count[k] = (bh - bl) + (ah - al);
    }
    for (int64_t t = 0; t < tries; t++) {
        int64_t k;
        if (n == 1) k = 0;
        else {
            for (int64_t i = n - 1; i >= 1; i--) partner[i] = (int32_t)interval(s, (uint32_t)i);
            k = first_item(partner, n);
        }
        if (count[k] > 0) {
            int64_t r = (int64_t)interval(s, (uint32_t)(count[k] - 1));
            out[0] = k;
            out[1] = r < n_before[k] ? before_lo[k] + r : after_lo[k] + (r - n_before[k]);
            return 1;
        }
    }
    return 0;
}

/* pair_draw for several excerpts in a row, in one call: excerpt e's sorted candidates are cand[off[e] .. off[e+1]);
   an excerpt without candidates draws nothing. found[e] says whether it got a pair (out[2e], out[2e+1]). `work`
   holds pair_draw's scratch for the largest excerpt. */
int64_t pairs_draw(mt_state *s, const int64_t *cand, const int64_t *off, int64_t n_excerpts, int64_t lower,
                   int64_t upper, int64_t tries, int64_t *work, int64_t *out, int8_t *found) {
    int64_t pairs = 0;
    for (int64_t e = 0; e < n_excerpts; e++) {
        int64_t n = off[e + 1] - off[e];
        found[e] = n > 0 && pair_draw(s, cand + off[e], n, lower, upper, tries, work, out + 2 * e);
        pairs += found[e];
    }
    return pairs;
}

/* The exact two-sample Kolmogorov-Smirnov p-value of scipy's ks_2samp (two-sided, m != n): the share of lattice
   paths from (0,0) to (m,n) that do not stay strictly inside |x/m - y/n| < h/lcm(m,n), by Hodges' inside method
   with Viehmann's recursion for 1 - p, one column at a time in a sliding window. Every operation is scipy's, in
   its order and in doubles, so the result is the same bits (checked against scipy in the tests). `a` holds
   min(m, n) + 1 doubles. */
double ks_outside_share(int64_t m, int64_t n, int64_t g, int64_t h, double *a) {
    if (m < n) { int64_t t = m; m = n; n = t; }
    int64_t mg = m / g, ng = n / g;
    int64_t minj = 0, maxj = (int64_t)ceil((double)h / (double)mg);
    if (maxj > n + 1) maxj = n + 1;
    int64_t curlen = maxj - minj;
    int64_t len = 2 * maxj + 2 < n + 1 ? 2 * maxj + 2 : n + 1;
    for (int64_t k = 0; k < len; k++) a[k] = k >= minj && k < maxj ? 0.0 : 1.0;
    for (int64_t i = 1; i <= m; i++) {
        int64_t lastminj = minj, lastlen = curlen;
        minj = (int64_t)floor((double)(ng * i - h) / (double)mg) + 1;
        if (minj < 0) minj = 0;
        if (minj > n) minj = n;
        maxj = (int64_t)ceil((double)(ng * i + h) / (double)mg);
        if (maxj > n + 1) maxj = n + 1;
        if (maxj <= minj) return 1.0;
        double val = minj == 0 ? 0.0 : 1.0;
        for (int64_t jj = 0; jj < maxj - minj; jj++) {
            int64_t j = jj + minj;
            val = (a[jj + minj - lastminj] * (double)i + val * (double)j) / (double)(i + j);
            a[jj] = val;
        }
        curlen = maxj - minj;
        for (int64_t k = curlen; k < curlen + (lastlen - curlen) && k < len; k++) a[k] = 1.0;
    }
    return a[maxj - minj - 1];
}
"""

_lib: ctypes.CDLL | None = None
_tried = False
_loading = threading.RLock()  # _agrees builds streams, which ask for the library again
_LIMIT = 2**31 - 1
_NATIVE_FROM = 4096  # below this numpy's own shuffle is as quick as a call into the library


def _library_path() -> Path:
    return library_path("booksort-draws", _SOURCE)


def _build(target: Path) -> bool:
    """Compile the C into ``target`` atomically; False when there is no compiler or it fails."""
    # no fused multiply-add: the KS loop must round as scipy's does
    return compile_library(_SOURCE, target, ["-O3", "-ffp-contract=off"], ["-lm"])


def _agrees(lib: ctypes.CDLL) -> bool:
    """The library is used only if it reproduces numpy here: results, and the stream left behind."""
    for seed, n in ((0, 4097), (1, 70_001), (2, 2**17 + 3)):
        ours, theirs = LegacyStream(seed, lib), np.random.RandomState(seed)
        theirs.random_sample(seed * 313)
        ours.random_state.random_sample(seed * 313)
        if ours.permutation_head(n) != int(theirs.permutation(n)[0]):
            return False
        cand = [0, 3, 9, 40, 41, 90, 200]
        k = int(theirs.permutation(len(cand))[0])
        partners = [j for j, c in enumerate(cand) if 5 < abs(c - cand[k]) <= 60]
        expected = (k, partners[theirs.randint(0, len(partners))]) if partners else None
        if ours.pair(np.array(cand, dtype=np.int64), 5, 60, 1) != expected:
            return False
        if ours.random_state.randint(2**31) != theirs.randint(2**31):
            return False
    return True


def _load() -> ctypes.CDLL | None:
    """The compiled helper, built on first use; None when it cannot be built, loaded or trusted."""
    with _loading:
        return _load_once()


def _load_once() -> ctypes.CDLL | None:
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    if os.environ.get("BENCHLAB_NO_NATIVE"):
        return None
    lib = open_library(_library_path(), _build)
    if lib is None:
        return None
    lib.permutation_head.restype = ctypes.c_int64
    lib.permutation_head.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
    lib.pair_draw.restype = ctypes.c_int
    lib.pair_draw.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                              ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    lib.pairs_draw.restype = ctypes.c_int64
    lib.pairs_draw.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                               ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.ks_outside_share.restype = ctypes.c_double
    lib.ks_outside_share.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                     ctypes.c_void_p]
    _lib = lib if _agrees(lib) else None
    return _lib


def ks_outside_share(n1: int, n2: int, g: int, h: int) -> float | None:
    """scipy's exact two-sample KS p-value for samples of ``n1`` != ``n2`` values (``g`` their gcd, ``h`` the
    statistic times their lcm), computed in the compiled helper; None when it is not available here."""
    lib = _load()
    if lib is None:
        return None
    scratch = np.empty(min(n1, n2) + 2, dtype=np.float64)
    return float(lib.ks_outside_share(n1, n2, g, h, scratch.ctypes.data))


def native_available() -> bool:
    """Whether the compiled draws run here (else numpy's own calls do, with the same results)."""
    return _load() is not None


class LegacyStream:
    """``np.random.RandomState(seed)`` (``random_state``), with the published sampler's draws done quickly.

    The RandomState is built on a bit generator this object holds, so the compiled loops advance the very state
    numpy draws from next (numpy's RandomState does not expose its own).
    """

    def __init__(self, seed: int, lib: ctypes.CDLL | None = None) -> None:
        self.bit_generator = np.random.MT19937()
        legacy_state: Any = np.random.RandomState(seed).get_state(legacy=False)  # numpy's legacy seeding
        self.bit_generator.state = legacy_state
        self.random_state = np.random.RandomState(self.bit_generator)
        self._lib = lib or _load()

    @property
    def native(self) -> bool:
        """Whether this stream's draws run in the compiled library."""
        return self._lib is not None

    def permutation_head(self, n: int) -> int:
        """``int(self.random_state.permutation(n)[0])``, leaving the stream where that call would."""
        if self._lib is None or not _NATIVE_FROM <= n <= _LIMIT:
            return int(self.random_state.permutation(n)[0])
        partner = np.empty(n, dtype=np.int32)  # per call: generators may run in several threads
        with self.bit_generator.lock:
            return int(self._lib.permutation_head(self.bit_generator.ctypes.state_address, n, partner.ctypes.data))

    def pair(self, cand: np.ndarray, lower: int, upper: int, tries: int) -> tuple[int, int] | None:
        """(first, partner) candidate indices as the published pair sampler draws them, or None; native only."""
        if self._lib is None:
            raise RuntimeError("the compiled draws are not available here")
        cand = np.ascontiguousarray(cand, dtype=np.int64)
        n = len(cand)
        work = np.empty(4 * n + (n + 1) // 2, dtype=np.int64)
        out = np.zeros(2, dtype=np.int64)
        with self.bit_generator.lock:
            found = self._lib.pair_draw(self.bit_generator.ctypes.state_address, cand.ctypes.data, n, lower, upper,
                                        tries, work.ctypes.data, out.ctypes.data)
        return (int(out[0]), int(out[1])) if found else None

    def pairs(self, candidates: list[np.ndarray], lower: int, upper: int,
              tries: int) -> list[tuple[int, int] | None]:
        """:meth:`pair` for each excerpt's candidates in turn (none drawn for an excerpt without any), in one call
        into the library; native only."""
        if self._lib is None:
            raise RuntimeError("the compiled draws are not available here")
        sizes = np.fromiter(map(len, candidates), dtype=np.int64, count=len(candidates))
        offsets = np.zeros(len(candidates) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        cand = np.ascontiguousarray(np.concatenate(candidates) if candidates else np.zeros(0), dtype=np.int64)
        n = int(sizes.max(initial=0))
        work = np.empty(4 * n + (n + 1) // 2, dtype=np.int64)
        out = np.zeros(2 * len(candidates), dtype=np.int64)
        found = np.zeros(len(candidates), dtype=np.int8)
        with self.bit_generator.lock:
            self._lib.pairs_draw(self.bit_generator.ctypes.state_address, cand.ctypes.data, offsets.ctypes.data,
                                 len(candidates), lower, upper, tries, work.ctypes.data, out.ctypes.data,
                                 found.ctypes.data)
        picks = out.tolist()
        return [(picks[2 * e], picks[2 * e + 1]) if hit else None for e, hit in enumerate(found.tolist())]
