"""SORT session plans: balance over distance bins and A/B, practice from validation, excerpts read once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.sort.session import SortPlanOptions, build_sort_plan
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord


def _split(split: str) -> list[BookSortRecord]:
    return load_records(sample_path("booksort"), Selection(excerpt_length=250, segment_length=20, split=split))


TEST, VALIDATION = _split("test"), _split("validation")
BY_ID = {r.trial_id: r for r in [*TEST, *VALIDATION]}


def _plan(seed: int = 1, **kw: Any) -> SessionPlan:
    options = SortPlanOptions(**kw)
    return build_sort_plan(TEST, VALIDATION, dataset="sample", participant="P1", session="1", seed=seed,
                           options=options)


def test_balanced_over_bins_and_answers_with_validation_practice() -> None:
    plan = _plan(trials=40, practice=4, block_size=10)
    main = [BY_ID[t] for t in plan.main_items]
    assert Counter(r.distance_bin for r in main) == {62: 10, 83: 10, 125: 10, 200: 10}
    for b in (62, 83, 125, 200):
        assert sum(r.present_seg1_first for r in main if r.distance_bin == b) == 5
    assert [len(b) for b in plan.blocks] == [10, 10, 10, 10]
    practice = [BY_ID[t] for t in plan.practice]
    assert len(practice) == 4 and all(r.split == "validation" for r in practice)
    assert all(r.split == "test" for r in main)
    # STM: each excerpt read once; the order is shuffled, not grouped by bin.
    assert len({(r.book_idx, r.excerpt_idx) for r in main}) == 40
    assert [r.distance_bin for r in main] != sorted(r.distance_bin for r in main)
    assert plan.config["excerpt_length"] == 250 and plan.config["condition"] == "stm"


def test_same_seed_same_plan_and_earlier_excerpts_excluded() -> None:
    assert _plan(seed=3, trials=12).blocks == _plan(seed=3, trials=12).blocks
    assert _plan(seed=3, trials=12).blocks != _plan(seed=4, trials=12).blocks
    first = _plan(seed=3, trials=40)
    seen = {(BY_ID[t].book_idx, BY_ID[t].excerpt_idx) for t in first.main_items}
    second = build_sort_plan(TEST, VALIDATION, dataset="sample", participant="P1", session="2", seed=3,
                             options=SortPlanOptions(trials=40), exclude_excerpts=seen)
    assert not seen & {(BY_ID[t].book_idx, BY_ID[t].excerpt_idx) for t in second.main_items}


def test_ltm_may_reuse_excerpts_stm_may_not() -> None:
    ltm = _plan(trials=200, condition="ltm", practice=0)
    assert len(ltm.main_items) == 200 and len(set(ltm.main_items)) == 200
    with pytest.raises(BenchlabError, match="each excerpt is read once per participant in STM"):
        _plan(trials=200, condition="stm")


def test_bad_options_are_refused() -> None:
    # the library names the field; only the command line speaks in flags (see test_declared_sessions.py)
    with pytest.raises(OptionError, match="must be longer than the minimum reading time") as longer:
        _plan(min_reading_s=30, max_reading_s=10)
    assert longer.value.field == "max_reading_s"
    with pytest.raises(OptionError, match="must be at least 1") as fewer:
        _plan(trials=0)
    assert fewer.value.field == "trials"
    mixed = [*TEST, *load_records(sample_path("booksort"), Selection(excerpt_length=1000, split="test"))]
    with pytest.raises(BenchlabError, match="one configuration; the selection has e250/s20, e1000/s20"):
        build_sort_plan(mixed, VALIDATION, dataset="x", participant="P1", session="1", seed=1)
