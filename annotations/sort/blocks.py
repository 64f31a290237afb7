"""Block-stratified order of a SORT session's scored trials: every block holds every distance (or gap) bin and both
A/B orders as evenly as its size allows.

Shuffling the whole session and cutting it into blocks can leave a block with two bins only (seed 7 of the old
plan: block 1 held only the d62/d125 bins), so a participant who stops after a block, or who tires over the
session, confounds bin with time. Here each block, in turn, gets its share of what is left: the bins by largest
remainder of ``block size x remaining in bin / remaining``, then inside each bin the A/B orders the same way, with
the block's total of "A is first" steered to its own share. Ties are broken by the seeded generator, so which bins
get a block's extra trial rotates from block to block; the order inside a block is shuffled.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from benchlab.data.sort.records import BookSortRecord

K = TypeVar("K", bound=Hashable)


def block_sizes(n: int, block_size: int) -> list[int]:
    """Full blocks of ``block_size`` and a shorter last one (the plan's blocks, as before)."""
    return [block_size] * (n // block_size) + ([n % block_size] if n % block_size else [])


def apportion(total: int, weights: Mapping[K, int], rng: random.Random) -> dict[K, int]:
    """``total`` split over the keys in proportion to ``weights`` (largest remainder, seeded ties, capped)."""
    whole = sum(weights.values())
    if whole <= 0 or total <= 0:
        return {k: 0 for k in weights}
    quota = {k: total * w / whole for k, w in weights.items()}
    out = {k: min(weights[k], math.floor(q)) for k, q in quota.items()}
    order = sorted(weights, key=lambda k: (-(quota[k] - math.floor(quota[k])), rng.random()))
    left = total - sum(out.values())
    while left > 0:
        grown = False
        for k in order:
            if left and out[k] < weights[k]:
                out[k] += 1
                left -= 1
                grown = True
        if not grown:
            break
    return out


def stratified_blocks(trials: Sequence[BookSortRecord], block_size: int,
                      rng: random.Random) -> list[list[BookSortRecord]]:
    """``trials`` cut into blocks of ``block_size`` (the last may be shorter), stratified by bin and A/B order."""
    cells: dict[tuple[int, int], list[BookSortRecord]] = {}
    for r in trials:
        cells.setdefault((r.distance_bin, r.present_seg1_first), []).append(r)
    for key in sorted(cells):
        rng.shuffle(cells[key])
    blocks: list[list[BookSortRecord]] = []
    for size in block_sizes(len(trials), block_size):
        per_bin = apportion(size, _by_bin(cells), rng)
        a_first = _sides(per_bin, cells, size, rng)
        block = []
        for b, n in per_bin.items():
            k = a_first[b]
            shown_a, shown_b = cells.get((b, 1), []), cells.get((b, 0), [])
            block.extend(shown_a[:k] + shown_b[:n - k])
            del shown_a[:k], shown_b[:n - k]
        rng.shuffle(block)
        blocks.append(block)
    return blocks


def _by_bin(cells: Mapping[tuple[int, int], Sequence[BookSortRecord]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for (b, _), members in sorted(cells.items()):
        out[b] = out.get(b, 0) + len(members)
    return out


def _sides(per_bin: Mapping[int, int], cells: Mapping[tuple[int, int], Sequence[BookSortRecord]], size: int,
           rng: random.Random) -> dict[int, int]:
    """How many "A is first" trials each bin gives this block: each bin's share, the block total steered to its own."""
    left_a = {b: len(cells.get((b, 1), ())) for b in per_bin}
    left_b = {b: len(cells.get((b, 0), ())) for b in per_bin}
    remaining = sum(left_a.values()) + sum(left_b.values())
    low: dict[int, int] = {}
    high: dict[int, int] = {}
    ideal: dict[int, float] = {}
    for b, n in per_bin.items():
        lo, hi = max(0, n - left_b[b]), min(n, left_a[b])
        ideal[b] = n * left_a[b] / (left_a[b] + left_b[b]) if left_a[b] + left_b[b] else 0.0
        low[b] = min(hi, max(lo, math.floor(ideal[b])))
        high[b] = hi
    target_exact = size * sum(left_a.values()) / remaining if remaining else 0.0
    target = math.floor(target_exact) + (1 if target_exact % 1 > 0.5 or (target_exact % 1 == 0.5
                                                                         and rng.random() < 0.5) else 0)
    out = dict(low)
    extra = target - sum(out.values())
    order = sorted(per_bin, key=lambda b: (-(ideal[b] - math.floor(ideal[b])), rng.random()))
    for b in order:
        if extra <= 0:
            break
        if out[b] < high[b]:
            out[b] += 1
            extra -= 1
    return out
