"""Block-stratified SORT plans: every block holds every bin and both A/B orders as evenly as its size allows."""

from __future__ import annotations

from collections import Counter

import pytest

from benchlab.annotations.sort.session import SortPlanOptions, build_sort_plan
from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord


def _data(design: str) -> tuple[list[BookSortRecord], list[BookSortRecord]]:
    if design == "excerpt":
        folder, sel = sample_path("booksort"), {"excerpt_length": 250, "segment_length": 20}
    else:
        folder, sel = sample_path("booksort-whole-book"), {"design": "whole-book"}
    return (load_records(folder, Selection(**sel, split="test")),  # type: ignore[arg-type]
            load_records(folder, Selection(**sel, split="validation")))  # type: ignore[arg-type]


DATA = {design: _data(design) for design in ("excerpt", "whole-book")}


def _blocks(design: str, seed: int, trials: int, block_size: int) -> list[list[BookSortRecord]]:
    test, validation = DATA[design]
    condition = "stm" if design == "excerpt" else "ltm"
    options = SortPlanOptions(trials=trials, block_size=block_size, practice=0, condition=condition, design=design)
    plan = build_sort_plan(test, validation, dataset="sample", participant="P01", session="1", seed=seed,
                           options=options)
    by_id = {r.trial_id: r for r in test}
    return [[by_id[t] for t in block] for block in plan.blocks]


@pytest.mark.parametrize("design", ["excerpt", "whole-book"])
@pytest.mark.parametrize(("trials", "block_size"), [(20, 10), (25, 10), (40, 10), (37, 8), (16, 5), (30, 12)])
def test_every_block_holds_every_bin_and_both_orders_as_evenly_as_possible(design: str, trials: int,
                                                                           block_size: int) -> None:
    for seed in range(150):
        blocks = _blocks(design, seed, trials, block_size)
        main = [r for block in blocks for r in block]
        assert len(main) == trials and [len(b) for b in blocks[:-1]] == [block_size] * (len(blocks) - 1)
        per_bin = Counter(r.distance_bin for r in main)
        a_first = sum(r.present_seg1_first for r in main)
        # The session as a whole: bins within one trial of each other, A/B within one trial.
        assert max(per_bin.values()) - min(per_bin.values()) <= 1
        assert abs(2 * a_first - trials) <= 1 + trials % 2
        for block in blocks:
            share = len(block) / trials
            counts = Counter(r.distance_bin for r in block)
            for b, n in per_bin.items():
                # each bin's count is its share of the block, rounded up or down (never 2 off)
                assert abs(counts[b] - n * share) < 1, (seed, [Counter(r.distance_bin for r in x) for x in blocks])
            assert abs(sum(r.present_seg1_first for r in block) - a_first * share) < 1, seed
            if len(block) >= len(per_bin):
                assert set(counts) == set(per_bin)  # every bin in every block that can hold them all


def test_seed_7_first_block_is_no_longer_two_bins() -> None:
    """QA: with seed 7 (P01, 12 trials in blocks of 6) block 1 held only the d62/d125 bins (3 each)."""
    for block in _blocks("excerpt", 7, 12, 6):
        counts = Counter(r.distance_bin for r in block)
        assert set(counts) == {62, 83, 125, 200} and sorted(counts.values()) == [1, 1, 2, 2]
        assert sum(r.present_seg1_first for r in block) == 3


def test_blocks_are_seeded_and_shuffled_inside() -> None:
    assert _blocks("excerpt", 3, 40, 10) == _blocks("excerpt", 3, 40, 10)
    assert _blocks("excerpt", 3, 40, 10) != _blocks("excerpt", 4, 40, 10)
    orders = {tuple(r.distance_bin for r in _blocks("whole-book", s, 16, 8)[0]) for s in range(20)}
    assert len(orders) > 10  # not one fixed pattern of bins inside a block
