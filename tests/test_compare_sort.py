"""SORT comparison: hand-computed pooled humans, McNemar vs statsmodels, human CSVs from the session writer, CLI."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.samples import sample_path
from benchlab.data.sort.compare import compare_sort
from benchlab.data.sort.loaders import load_records
from benchlab.tui.cli import main

COLS = ["", "book_idx", "excerpt_idx", "segment_idx", "distance_bin", "present_seg1_first", "excerpt_length",
        "segment_length", "model_name", "A_is_first", "answer", "ground_truth", "correct", "participant", "practice",
        "rt_ms"]
BINS = [62, 83, 125, 200]


def write_csv(path: Path, model: str, correct: list[bool], participant: str = "", rts: list[float] | None = None,
              first_item: int = 0, practice: int = 0, excerpt_length: int = 250, simulated: str | None = None) -> Path:
    """One row per item i (excerpt i // 4, bin i % 4); truth alternates A/B; ``practice`` leading rows flagged."""
    rows = []
    for n, ok in enumerate(correct):
        i = first_item + n
        truth = "A" if i % 2 == 0 else "B"
        answer = truth if ok else ("B" if truth == "A" else "A")
        rows.append([n, 69087, i // 4, 0, BINS[i % 4], int(truth == "A"), excerpt_length, 20, model, int(truth == "A"),
                     answer,
                     truth, ok, participant, n < practice, "" if rts is None else rts[n]]
                    + ([simulated] if simulated is not None else []))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLS + (["simulated"] if simulated is not None else []))
        writer.writerows(rows)
    return path


@pytest.fixture
def sort_lab(tmp_path: Path) -> Path:
    res = tmp_path / "results"
    # model: right on even items, wrong on odd (20 items)
    write_csv(res / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(20)])
    # p1 right on items 0-15, wrong on 16-19; RT 1000 + 100 i
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [i < 16 for i in range(20)], "p1",
              [1000.0 + 100 * i for i in range(20)])
    # p2 answers items 10-19 only, all right, very fast
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [True] * 10, "p2", [120.0] * 10, first_item=10)
    return res


def test_participant_and_pooled_hand_computed(sort_lab: Path) -> None:
    comp = compare_sort([sort_lab], n_boot=1000)
    p1 = comp.cell("p1", "e250-s20")
    assert p1 is not None and p1.value == pytest.approx(16 / 20) and p1.n_units == 20
    # pooled: items 0-9 only p1 (right), 10-15 both right, 16-19 p1 wrong + p2 right = 0.5 -> (16 + 2) / 20
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None
    assert pooled.value == pytest.approx(18 / 20)
    assert pooled.n_units == 20 and pooled.n_participants == 2
    # distance bin 62 = items 0, 4, 8, 12, 16 -> p1: 1,1,1,1,0 ; p2 answered 12, 16 -> 1, 1 -> (1+1+1+1+0.5)/5
    d62 = comp.cell(POOLED, "e250-s20 d62")
    assert d62 is not None and d62.value == pytest.approx(4.5 / 5)


def test_mcnemar_matches_statsmodels_on_shared_items(sort_lab: Path) -> None:
    comp = compare_sort([sort_lab], n_boot=500)
    row = next(t for t in comp.tests if t.who == "p1" and t.condition == "e250-s20")
    # p1 right & model right: even < 16 (8); p1 only: odd < 16 (8); model only: even >= 16 (2); neither: 2
    # issue 22: the paired score test (McNemar's statistic, no continuity correction) with Tango's interval,
    # which inverts it: one method for the p and the interval
    ref = sm_mcnemar([[8, 8], [2, 2]], exact=False, correction=False)
    assert row.result.method.startswith("paired score test (Tango)")
    assert row.result.p_value == pytest.approx(ref.pvalue)
    assert (row.result.p_value < 0.05) == (not row.result.ci_low <= 0 <= row.result.ci_high)
    assert row.result.estimate == pytest.approx((8 - 2) / 20)
    assert (row.humans, row.model_same_units) == (pytest.approx(0.8), pytest.approx(0.5))
    pooled = next(t for t in comp.tests if t.who == POOLED and t.condition == "e250-s20")
    # issue 11: the pooled test counts people and items (it was an item-only sign-flip test)
    assert "crossed people x items" in pooled.result.method
    assert " over shared items" in pooled.result.method
    assert pooled.result.estimate == pytest.approx(0.9 - 0.5)


def test_unshared_items_use_two_proportion_test(tmp_path: Path) -> None:
    res = tmp_path / "r"
    write_csv(res / "250-s20-hf_M_results.csv", "M", [True, False] * 10)
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 18 + [False] * 2, "p1", first_item=40)
    comp = compare_sort([res], n_boot=300)
    row = next(t for t in comp.tests if t.who == "p1" and t.condition == "e250-s20")
    assert row.result.method.startswith("two-proportion test (Agresti-Caffo")
    pooled = next(t for t in comp.tests if t.who == POOLED and t.condition == "e250-s20")
    assert pooled.result.method.startswith("unpaired bootstrap")


def test_flags_rt_and_practice_rows(sort_lab: Path, tmp_path: Path) -> None:
    crit = AttentionCriterion(fast_ms=200, max_fast_share=0.2)
    comp = compare_sort([sort_lab], criterion=crit, exclude_flagged=True, n_boot=300)
    assert [e.name for e in comp.flagged] == ["p2"]
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None and pooled.value == pytest.approx(0.8) and pooled.n_participants == 1
    rt = {(p, c): s for p, c, s in comp.rt}
    assert rt[("p1", "e250-s20")].median == pytest.approx(np.median([1000 + 100 * i for i in range(20)]))
    bins = comp.rt_quantiles["p1"]
    assert [b.accuracy for b in bins] == [1.0, 1.0, 1.0, 0.2]  # the slowest five hold the 4 errors
    # practice rows are not scored
    res = tmp_path / "prac"
    write_csv(res / "250-s20-human-p3_results.csv", "human-p3", [False, False] + [True] * 8, "p3", practice=2)
    comp3 = compare_sort([res], n_boot=200)
    cell = comp3.cell("p3", "e250-s20")
    assert cell is not None and cell.value == 1.0 and cell.n_units == 8


def test_agreement_on_shared_items(sort_lab: Path) -> None:
    comp = compare_sort([sort_lab], n_boot=200)
    agr = comp.agreement["e250-s20"]
    # items 10-19: both participants; agree on 10-15 (both right), disagree on 16-19
    assert agr.items == 10 and agr.raters == 2
    assert agr.percent == pytest.approx(0.6)


def test_two_configurations_macro_overall(tmp_path: Path) -> None:
    res = tmp_path / "two"
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 20, "p1")
    write_csv(res / "1000-s20-human-p1_results.csv", "human-p1", [True] * 5 + [False] * 5, "p1", excerpt_length=1000)
    write_csv(res / "250-s20-hf_M_results.csv", "M", [False] * 20)
    write_csv(res / "1000-s20-hf_M_results.csv", "M", [True] * 10, excerpt_length=1000)
    comp = compare_sort([res], n_boot=500)
    assert comp.conditions[0] == "overall" and comp.conditions.index("e250-s20") < comp.conditions.index("e1000-s20")
    # macro over configurations: (20/20 + 5/10) / 2, not the pooled 25/30
    p1 = comp.cell("p1", "overall")
    assert p1 is not None and p1.value == pytest.approx(0.75) and p1.n_units == 30
    pooled = comp.cell(POOLED, "overall")
    assert pooled is not None and pooled.value == pytest.approx(0.75)
    rows = [(t.condition, t.who) for t in comp.tests]
    assert ("overall", POOLED) in rows and ("overall", "p1") not in rows  # McNemar is per configuration
    overall = next(t for t in comp.tests if t.condition == "overall")
    assert overall.model_same_units == pytest.approx(0.5) and "stratified by configuration" in overall.result.method


def test_reads_files_written_by_the_session_log(tmp_path: Path) -> None:
    records = [r for r in load_records(sample_path("booksort", "test_e250_s20.parquet"))][:12]
    res = tmp_path / "results"
    log = SortResultsLog(res / "250-s20-human-p7_results.csv")
    for i, rec in enumerate(records):
        answer = rec.ground_truth if i % 3 else ("B" if rec.ground_truth == "A" else "A")
        log.append(HumanSortRow.from_trial(
            rec, answer, model_name="human-p7", participant="p7", session="1", condition="stm", trial_index=i,
            block=0, practice=False, seed=1, rt_ms=1500.0 + i))
    comp = compare_sort([res], n_boot=200)
    cell = comp.cell("p7", "e250-s20")
    assert cell is not None and cell.value == pytest.approx(8 / 12) and cell.n_units == 12
    assert comp.rt[0][2].n == 12


def run_cli(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_cli_markdown_json_and_plot(sort_lab: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["compare", "sort", str(sort_lab), "--format", "markdown", "--only", "accuracy", "--boot",
                    "300"]) == 0
    out = capsys.readouterr().out
    assert "| humans (pooled) | 90.0 [" in out
    pdf = tmp_path / "sort.pdf"
    assert run_cli(["compare", "sort", str(sort_lab), "--only", "tests", "--plot", str(pdf), "--boot", "300"]) == 0
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert "paired score test (Tango)" in capsys.readouterr().out
    assert run_cli(["compare", "sort", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_simulated_participant_is_labelled_and_not_pooled(sort_lab: Path) -> None:
    """QA: a `--simulate oracle` pilot was pooled with real people in `compare sort` and the Results screen."""
    write_csv(sort_lab / "250-s20-human-PILOT_results.csv", "human-PILOT", [True] * 20, "PILOT", simulated="oracle")
    comp = compare_sort([sort_lab], n_boot=300)
    assert "PILOT (simulated oracle)" in comp.accuracy_table().frame.index.tolist()
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None and pooled.value == pytest.approx(18 / 20) and pooled.n_participants == 2
    assert comp.spread["e250-s20"].n == 2
    assert any("PILOT (oracle)" in n and "left out" in n for n in comp.notes)
    tests_text = comp.tests_table().frame.index.get_level_values("who").tolist()
    assert "PILOT (simulated oracle)" in tests_text
    both = compare_sort([sort_lab], n_boot=300, include_simulated=True)
    assert both.cell(POOLED, "e250-s20").n_participants == 3  # type: ignore[union-attr]


def test_pooled_test_with_few_items_is_exact_not_p_001(tmp_path: Path) -> None:
    """Pooled humans right on 2 more items than the model out of 6: the re-centred bootstrap said p<.001."""
    res = tmp_path / "r"
    write_csv(res / "250-s20-hf_M_results.csv", "M", [True, True, False, False, True, True])
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 6, "p1")
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [True] * 6, "p2")
    comp = compare_sort([res], n_boot=300)
    pooled = next(t for t in comp.tests if t.who == POOLED and t.condition == "e250-s20")
    # issue 22: one method for p and interval (the crossed t, df <= people - 1): far from p<.001, 0 inside
    assert pooled.result.p_value > 0.2
    assert pooled.result.ci_low < 0 < pooled.result.ci_high
    assert pooled.result.p_value > binomtest(2, 2, 0.5).pvalue / 2
