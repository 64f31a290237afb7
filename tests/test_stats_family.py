"""Issue 22 items 6-9: a declared primary contrast corrected as a family (Holm by default, switchable), everything
else exploratory; each printed interval inverts the printed test; no zero-width interval where uncertainty exists."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.crossed import human_model_test
from benchlab.data.analysis.family import adjust
from benchlab.data.sort.compare import compare_sort
from benchlab.tui.cli import main
from tests.test_compare_sort import write_csv


def test_holm_and_bonferroni_by_hand() -> None:
    p = [0.01, 0.04, 0.03, math.nan]
    assert adjust(p, "holm")[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(adjust(p, "holm")[3])
    assert adjust(p, "bonferroni")[:3] == pytest.approx([0.03, 0.12, 0.09])
    assert adjust(p, "none")[:3] == pytest.approx(p[:3])


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    res = tmp_path / "r"
    for m, shift in (("M1", 0), ("M2", 1), ("M3", 2)):
        write_csv(res / f"250-s20-hf_{m}_results.csv", m, [(i + shift) % 3 != 0 for i in range(40)])
    for n, pid in enumerate(("p1", "p2", "p3")):
        write_csv(res / f"250-s20-human-{pid}_results.csv", f"human-{pid}", [(i + n) % 5 != 0 for i in range(40)],
                  pid)
    return res


def test_primary_family_is_pooled_vs_each_model_overall_and_holm_corrected(lab: Path) -> None:
    """Why: every test of every bin and person was starred, with no correction and no primary contrast."""
    comp = compare_sort([lab], n_boot=200)
    primary = [t for t in comp.tests if t.family == "primary"]
    assert {t.model for t in primary} == {"M1", "M2", "M3"}
    assert all(t.who == POOLED and t.condition == "e250-s20" for t in primary)
    assert comp.primary == ["e250-s20"] and comp.correction == "holm"
    assert [t.p_adjusted for t in primary] == pytest.approx(adjust([t.result.p_value for t in primary], "holm"))
    others = [t for t in comp.tests if t.family != "primary"]
    assert others and all(t.family == "exploratory" for t in others)  # per bin and per person
    table = comp.tests_table().frame
    assert (table["p (holm)"] == "exploratory").sum() == len(others)
    assert not any("*" in x for x in table.loc[table["p (holm)"] == "exploratory", "p"])
    numeric = comp.tests_table(numeric=True).frame
    assert set(numeric["family"]) == {"primary", "exploratory"} and "p_adjusted" in numeric.columns
    assert any("Holm" in n for n in comp.methods_table().frame["note"])


def test_correction_is_switchable_on_the_command_line(lab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("none", "bonferroni"):
        try:
            main(["compare", "sort", str(lab), "--only", "tests", "--format", "json", "--correction", name,
                  "--boot", "200"])
        except SystemExit as exc:
            assert not exc.code
        text = json.dumps(json.loads(capsys.readouterr().out))
        assert f'"correction": "{name}"' in text and '"family": "primary"' in text


def test_person_and_model_always_answering_a_get_no_zero_width_interval() -> None:
    """Why: McNemar/Newcombe printed [+0.0, +0.0] on 40 trials (the LTM position-bias case)."""
    truth_a = np.array([i % 2 == 0 for i in range(40)])
    res = stats.tango_test(truth_a, truth_a)
    assert res.p_value == 1.0 and res.ci_low < -0.05 and res.ci_high > 0.05


@pytest.mark.parametrize("seed", range(6))
def test_every_printed_interval_inverts_its_test(seed: int) -> None:
    """Why: +27.8 [+0.9, +54.6] printed beside p = .070 (the crossed CI beside the larger of two p values)."""
    rng = np.random.default_rng(seed)
    people, items = 3 + seed % 3, 12
    y = (rng.random((people, items)) < 0.7).astype(float)
    model = {j: float(rng.random() < 0.5) for j in range(items)}
    who, item = np.repeat(np.arange(people), items), np.tile(np.arange(items), people)
    res, _ = human_model_test(who, item, y.ravel(), model, n_perm=500)
    assert (res.p_value < 0.05) == (not res.ci_low <= 0 <= res.ci_high)
    one, _ = human_model_test(np.zeros(items), np.arange(items), y[0], model, n_perm=500)
    assert one.ci_low < one.ci_high and (one.p_value < 0.05) == (not one.ci_low <= 0 <= one.ci_high)
    a, b = y[0].astype(bool), np.array([model[j] for j in range(items)], dtype=bool)
    paired = stats.tango_test(a, b)
    assert (paired.p_value < 0.05) == (not paired.ci_low <= 0 <= paired.ci_high)


def test_unpaired_test_without_variation_prints_no_zero_width_interval(tmp_path: Path) -> None:
    """Humans right on every trial, the model right on every (other) trial: no spread is no certainty."""
    res = tmp_path / "u"
    write_csv(res / "250-s20-hf_M_results.csv", "M", [True] * 8)
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1", first_item=40)
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [True] * 8, "p2", first_item=40)
    comp = compare_sort([res], n_boot=200)
    for t in comp.tests:
        r = t.result
        assert math.isnan(r.ci_low) or r.ci_high - r.ci_low > 1e-9, t
