"""Issue 24 item 3: ``compare --only`` computes only the tables asked for, and the printed numbers do not change."""

from __future__ import annotations

from pathlib import Path

from benchlab.data.analysis.compare import Comparison
from benchlab.data.worldsense.compare import compare_worldsense
from tests.compare_fixtures import make_testset, write_results, write_two_people, wrong


def _lab(tmp_path: Path) -> tuple[Path, Path]:
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and s == 4) else g)
    return ts, write_two_people(tmp_path / "lab")


def _text(comp: Comparison, sections: tuple[str, ...]) -> list[str]:
    return [t.frame.to_string() for t in comp.tables(sections=sections)]


def test_only_accuracy_skips_tests_bias_agreement_and_prints_the_same(tmp_path: Path) -> None:
    ts, out = _lab(tmp_path)
    full = compare_worldsense(ts, [out], n_boot=200)
    only = compare_worldsense(ts, [out], n_boot=200, tables=("accuracy",))
    assert full.tests and full.agreement and "bias" in full.extra_tables  # the full run has them all
    assert not only.tests and not only.agreement and not only.extra_tables and not only.rt  # the work not done
    assert _text(only, ("accuracy",)) == _text(full, ("accuracy",))
    assert only.cells == full.cells  # every interval, pooled humans (crossed) and participants (Wilson-Kish)


def test_only_bias_or_methods_computes_what_they_print(tmp_path: Path) -> None:
    ts, out = _lab(tmp_path)
    full = compare_worldsense(ts, [out], n_boot=200)
    bias = compare_worldsense(ts, [out], n_boot=200, tables=("bias",))
    methods = compare_worldsense(ts, [out], n_boot=200, tables=("methods",))
    assert _text(bias, ("bias",)) == _text(full, ("bias",))
    assert methods.tests == full.tests  # the methods table states the size of the test family
    assert _text(methods, ("methods",)) == _text(full, ("methods",))
