"""The one comparison pipeline: a declared toy benchmark gets every row, pooled humans, tests, flags, RTs and
agreement; WorldSense and SORT print the tables they printed before the pipeline (golden files); SORT scoring
does not depend on the comparison.

The golden files in ``tests/data/compare_golden`` were written by the per-benchmark comparison code that the
pipeline replaced. Regenerate them only on purpose: ``BENCHLAB_UPDATE_GOLDEN=1 pytest tests/test_compare_pipeline.py``,
then review the diff.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchlab.data.analysis.compare import POOLED, Comparison
from benchlab.data.analysis.pipeline import (
    OVERALL,
    Design,
    Options,
    Participant,
    Readings,
    RowKind,
    Strata,
    bootstrap_cell,
    run_comparison,
)
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.sort.compare import compare_sort
from benchlab.data.tables import render
from benchlab.data.worldsense.compare import compare_worldsense
from tests.compare_fixtures import OPTIONS, make_testset, write_results, wrong
from tests.test_compare_sort import write_csv

GOLDEN = Path(__file__).parent / "data" / "compare_golden"


# -- a toy benchmark declared in a few lines ------------------------------------------------------------------

class ToyDesign(Design):
    """Units are items "g1-i" / "g2-i" in two groups; no strata inside a group, groups as strata overall."""

    benchmark = "Toy"
    unit = "items"
    unit_word = "items"
    unpaired_label = "unpaired (no shared items)"
    pool_first = ("group",)

    def __init__(self, options: Options) -> None:
        self.options = options

    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        return frame if condition == OVERALL else frame[frame["group"] == condition]

    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        return (frame["group"].tolist() if condition == OVERALL else None), None

    def strata_note(self, condition: str) -> str:
        return " (by group)" if condition == OVERALL else ""

    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        sub = self.subset(frame, condition)
        if sub.empty:
            return None
        return bootstrap_cell(sub["score"].to_numpy(dtype=float), self.strata(sub, condition), n_people,
                              "toy bootstrap", self.options)

    def notes(self, simulated_line: str) -> list[str]:
        return ["Toy scores.", simulated_line]


def _units(who: str, right: dict[str, bool]) -> pd.DataFrame:
    return pd.DataFrame({"who": who, "unit": list(right), "group": [u.split("-")[0] for u in right],
                         "score": [float(v) for v in right.values()]})


def _person(name: str, right: dict[str, bool], rt: float, simulated: str = "") -> Participant:
    answers = pd.DataFrame({"rt_ms": [rt + 100 * i for i in range(len(right))], "correct": list(right.values()),
                            "group": [u.split("-")[0] for u in right], "item": list(right),
                            "answer": ["A" if v else "B" for v in right.values()]})
    return Participant(name, answers, simulated, float(np.mean(list(right.values()))),
                       answers["rt_ms"].to_numpy(dtype=float))


def _toy(**options: object) -> Comparison:
    a = {"g1-1": True, "g1-2": True, "g2-1": False, "g2-2": True}
    b = {"g1-1": False, "g1-2": True, "g2-1": False}
    sim = {"g1-1": True, "g1-2": True, "g2-1": True, "g2-2": True}
    model = {"g1-1": True, "g1-2": False, "g2-1": True, "g2-2": True}
    people = [_person("a", a, 1000.0), _person("b", b, 50.0), _person("s", sim, 500.0, simulated="oracle")]
    readings = Readings(
        humans=pd.concat([_units("a", a), _units("b", b), _units("s", sim)], ignore_index=True),
        models=_units("M", model), participants=people, models_order=["M"],
        conditions=[OVERALL, "g1", "g2"], groups=["g1", "g2"])
    opts = Options(AttentionCriterion(fast_ms=300), n_boot=200, **options)  # type: ignore[arg-type]
    return run_comparison(ToyDesign(opts), readings, opts)


def test_a_declared_benchmark_gets_rows_pooled_humans_and_counts() -> None:
    comp = _toy()
    assert [e.label for e in comp.entries] == ["a", "b [flagged]", "s (simulated oracle)", POOLED, "M"]
    # pooled: each item once, the mean over the real people who answered it; s (simulated) is left out
    g1 = comp.cell(POOLED, "g1")
    assert g1 is not None and g1.value == pytest.approx((0.5 + 1.0) / 2) and g1.n_units == 2
    assert g1.n_participants == 2
    g2 = comp.cell(POOLED, "g2")
    assert g2 is not None and g2.value == pytest.approx((0.0 + 1.0) / 2) and g2.n_participants == 2
    overall = comp.cell(POOLED, OVERALL)
    assert overall is not None and overall.value == pytest.approx(0.5 * 0.75 + 0.5 * 0.5)
    assert comp.cell("s", OVERALL).value == 1.0  # type: ignore[union-attr]
    assert comp.cell("M", "g1").n_participants == 0  # type: ignore[union-attr]
    assert comp.counts_table().frame.loc["b [flagged]", "g2"] == "1 / 1"
    assert comp.spread[OVERALL].n == 2  # the simulated participant is not among the people
    assert comp.flagged[0].flags == ("100% of responses < 300 ms",)
    assert comp.notes[1].startswith("Simulated participants: s (oracle); shown on their own rows")


def test_a_declared_benchmark_gets_tests_rts_and_agreement() -> None:
    comp = _toy(participant_tests=True)
    tests = {(t.condition, t.who): t for t in comp.tests}
    assert tests[(OVERALL, POOLED)].result.method.endswith("over shared items (by group)")
    assert tests[("g1", POOLED)].humans == pytest.approx(0.75)
    assert tests[("g1", POOLED)].model_same_units == pytest.approx(0.5)
    assert ("g1", "a") in tests and tests[("g1", "a")].result.n == 2  # each participant on their shared items
    assert [t.who for t in comp.tests if t.condition == "g1"] == [POOLED, "a", "b", "s"]
    medians = {(p, c): s.median for p, c, s in comp.rt}
    assert medians[("a", OVERALL)] == pytest.approx(1150.0) and medians[("a", "g2")] == pytest.approx(1250.0)
    assert set(comp.rts_ms) == {"a", "b", "s"}
    # agreement between the two people only: g1-1 (A vs B) and g1-2 (A, A); g2-1 (B, B)
    assert comp.agreement["g1"].items == 2 and comp.agreement["g1"].percent == pytest.approx(0.5)
    assert comp.agreement["g2"].items == 1 and comp.agreement[OVERALL].items == 3


def test_include_simulated_and_exclude_flagged_change_who_is_pooled() -> None:
    pooled_in = _toy(include_simulated=True)
    cell = pooled_in.cell(POOLED, "g1")
    assert cell is not None and cell.n_participants == 3
    assert pooled_in.agreement["g1"].raters == 3
    no_flagged = _toy(exclude_flagged=True)
    g1 = no_flagged.cell(POOLED, "g1")
    assert g1 is not None and g1.value == 1.0 and g1.n_participants == 1  # only a is left
    assert no_flagged.spread["g1"].n == 2  # flagged people keep their own row and their place in the spread


# -- WorldSense and SORT print what they printed before --------------------------------------------------------

def _worldsense_lab(root: Path) -> tuple[Path, Path]:
    ts = make_testset(root / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (p == "Infer.normal" and s == 4) else g)
    write_results(ts / "results" / "basic___Llama___results.jsonl",
                  lambda p, s, t, i, g: wrong(g) if (s + t + i) % 3 == 0 else g)
    out = root / "lab" / "results"
    write_results(out / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g,
                  rt=lambda p, s, t, i: 2000.0 + 100 * t)
    write_results(out / "basic___human-p2___results.jsonl",
                  lambda p, s, t, i, g: None if (p == "Infer.normal" and s == 3 and t == 1 and i == 1)
                  else (g if t < 2 else wrong(g)), rt=lambda p, s, t, i: 3000.0 + 10 * i)
    write_results(out / "basic___human-p3___results.jsonl", lambda p, s, t, i, g: wrong(g) if p == "Infer.trivial"
                  else g, rt=lambda p, s, t, i: 150.0, sizes=(3,))
    write_results(out / "basic___human-PILOT___results.jsonl", lambda p, s, t, i, g: g,
                  rt=lambda p, s, t, i: 900.0, extra={"simulated": "oracle"})
    write_results(out / "basic___human-SIM___results.jsonl", lambda p, s, t, i, g: OPTIONS[p][0],
                  rt=lambda p, s, t, i: 1200.0 + 7 * t, extra={"simulated": "biased"}, tuples_per_cell=2)
    return ts, out


def _sort_lab(root: Path) -> Path:
    res = root / "results"
    write_csv(res / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)])
    write_csv(res / "250-s20-hf_Mistral_results.csv", "Mistral", [i % 3 != 0 for i in range(20)])
    write_csv(res / "1000-s20-hf_Mistral_results.csv", "Mistral", [i % 4 != 1 for i in range(12)],
              excerpt_length=1000)
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [i < 16 for i in range(20)], "p1",
              [1000.0 + 100 * i for i in range(20)])
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [True] * 10, "p2", [120.0] * 10, first_item=10)
    write_csv(res / "1000-s20-human-p3_results.csv", "human-p3", [i % 5 != 0 for i in range(12)], "p3",
              [1500.0 + 50 * i for i in range(12)], excerpt_length=1000, practice=2)
    write_csv(res / "250-s20-human-PILOT_results.csv", "human-PILOT", [True] * 8, "PILOT", [800.0] * 8,
              simulated="oracle")
    return res


def _render(comp: Comparison, root: Path) -> str:
    text = render(comp.tables(), "markdown") + render(comp.tables(numeric=True), "csv")
    return text.replace(str(root), "<tmp>")  # scoring warnings name the file


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BENCHLAB_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name}: the printed tables changed (see the module docstring)"


@pytest.mark.parametrize("variant", ["default", "pooled-simulated"])
def test_worldsense_tables_are_the_golden_ones(tmp_path: Path, variant: str) -> None:
    ts, out = _worldsense_lab(tmp_path)
    crit = AttentionCriterion(min_control_accuracy=0.6, fast_ms=300)
    if variant == "default":
        comp = compare_worldsense(ts, [out], criterion=crit, n_boot=200, participant_tests=True)
    else:
        comp = compare_worldsense(ts, [out], criterion=crit, n_boot=200, include_simulated=True,
                                  exclude_flagged=True, ci="benchmark")
    _check_golden(f"worldsense-{variant}.txt", _render(comp, tmp_path))


@pytest.mark.parametrize("variant", ["default", "pooled-simulated", "no-bins"])
def test_sort_tables_are_the_golden_ones(tmp_path: Path, variant: str) -> None:
    res = _sort_lab(tmp_path)
    crit = AttentionCriterion(fast_ms=300)
    if variant == "default":
        comp = compare_sort([res], criterion=crit, n_boot=200)
    elif variant == "pooled-simulated":
        comp = compare_sort([res], criterion=crit, n_boot=200, include_simulated=True, exclude_flagged=True)
    else:
        comp = compare_sort([res], n_boot=200, by_bin=False, participant_tests=False)
    _check_golden(f"sort-{variant}.txt", _render(comp, tmp_path))


def test_sort_scoring_does_not_import_the_comparison(tmp_path: Path) -> None:
    """Scoring is below the comparison: ``score sort`` with pooled humans must not load the comparison module."""
    res = _sort_lab(tmp_path)
    code = ("import sys; from benchlab.data.sort.scoring import score_paths; "
            f"tables = score_paths([{str(res)!r}]); assert any('pooled' in t.title for t in tables); "
            "print('benchlab.data.sort.compare' in sys.modules, 'benchlab.data.analysis.compare' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
