"""Issue 22 item 8 on WorldSense: pooled bias crossed like accuracy, per-person intervals by one method (a
one-tuple person gets Wilson, not n/a), one shared tuple is not "no shared tuples", no zero-width interval."""

from __future__ import annotations

import math
from pathlib import Path

from benchlab.data.analysis.compare import POOLED
from benchlab.data.worldsense.compare import compare_worldsense
from tests.compare_fixtures import make_testset, write_results, wrong


def test_pooled_bias_counts_the_spread_between_people(tmp_path: Path) -> None:
    """Why: people with opposite biases were one fixed answerer (0.11 [-0.06, 0.33] from -0.67 and +0.89)."""
    ts = make_testset(tmp_path / "ts", problems=("Infer.trivial", "Infer.normal"))
    write_results(ts / "results" / "basic___M___results.jsonl", lambda p, s, t, i, g: g,
                  problems=("Infer.trivial", "Infer.normal"))
    out = tmp_path / "lab"
    for name, always in (("A", "TRUE"), ("B", None), ("C", "FALSE")):
        write_results(out / f"basic___human-{name}___results.jsonl",
                      lambda p, s, t, i, g, a=always: a if a is not None else g,
                      problems=("Infer.trivial", "Infer.normal"))
    comp = compare_worldsense(ts, [out], n_boot=200, include_published=True)
    _formatted, numeric = comp.extra_tables["bias"]
    row = numeric.frame.loc[(POOLED, "Infer.normal")]
    assert abs(row["bias"]) < 1e-9
    assert row["ci_low"] < -0.9 and row["ci_high"] > 0.9  # three people, biases +1, 0, -1: nothing is known


def test_one_tuple_person_gets_wilson_and_every_person_one_method(tmp_path: Path) -> None:
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___M___results.jsonl", lambda p, s, t, i, g: g)
    out = tmp_path / "lab"
    write_results(out / "basic___human-one___results.jsonl", lambda p, s, t, i, g: g, tuples_per_cell=1,
                  sizes=(3,), problems=("Infer.normal",))
    write_results(out / "basic___human-full___results.jsonl",
                  lambda p, s, t, i, g: g if (t + i) % 3 else wrong(g))
    comp = compare_worldsense(ts, [out], n_boot=200)
    one = comp.cell("one", "Infer.normal")
    assert one is not None and not math.isnan(one.ci_low) and one.ci_high - one.ci_low > 0.3
    methods = {c.method for (who, _c), c in comp.cells.items() if who in ("one", "full")}
    assert methods == {"Wilson, Kish effective n over the strata"}  # chosen from the design, not the data


def test_one_shared_tuple_is_not_called_no_shared_tuples(tmp_path: Path) -> None:
    """Why: '(no shared tuples)' was printed when one tuple was shared."""
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___M___results.jsonl", lambda p, s, t, i, g: g)
    out = tmp_path / "lab"
    # the person answers tuple 0 of each cell (shared with M) ... and M answers everything
    write_results(out / "basic___human-P___results.jsonl", lambda p, s, t, i, g: g if t == 0 else None)
    other = tmp_path / "other"
    write_results(other / "basic___N___results.jsonl", lambda p, s, t, i, g: g if (t == 0 and s == 3) else None,
                  problems=("Infer.normal",))
    comp = compare_worldsense(ts, [out, other], n_boot=200, participant_tests=True)
    labels = [t.result.method for t in comp.tests if t.model == "N" and t.condition == "Infer.normal"]
    assert labels and not any("no shared tuples" in m for m in labels)
