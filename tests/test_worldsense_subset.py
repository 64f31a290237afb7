"""``make_subset`` is the documented recipe of the bundled sample (data/samples/worldsense/ATTRIBUTION.md): the
documented call on the published test set gives the bundled sample byte for byte."""

from __future__ import annotations

import bz2
from pathlib import Path

import pytest
from conftest import full_data

from benchlab.data.samples import sample_path
from benchlab.data.worldsense.subset import make_subset


@pytest.mark.fulldata
@pytest.mark.slow
def test_the_documented_call_reproduces_the_bundled_sample(tmp_path: Path) -> None:
    test_set = full_data("worldsense", "test_set")
    summary = make_subset(test_set, tmp_path / "sample", tuples_per_cell=3, seed=20231110)
    assert (summary.tuples, summary.trials) == (54, 126) and set(summary.cells.values()) == {3}
    bundled = sample_path("worldsense")
    made = bz2.decompress((tmp_path / "sample" / "trials.jsonl.bz2").read_bytes())
    assert made == bz2.decompress((bundled / "trials.jsonl.bz2").read_bytes())
    for f in sorted((bundled / "results").glob("*.jsonl")):
        assert (tmp_path / "sample" / "results" / f.name).read_bytes() == f.read_bytes()
