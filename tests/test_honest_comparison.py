"""Issue 11: conditions kept apart, honest intervals with few people, partial data said, bad input handled.

Each test reproduces one defect of the issue's "Why" (it fails on the code before the fix) through the public
entry points: ``compare_sort`` / ``compare_worldsense`` (what ``benchlab compare`` and the Results screen print)
and ``score_paths`` (``benchlab score sort``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.coverage import population, run_coverage
from benchlab.data.analysis.crossed import crossed_estimate, human_model_test, variance_components
from benchlab.data.samples import sample_path
from benchlab.data.sort.compare import compare_sort
from benchlab.data.sort.loaders import load_records
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.scoring import score_paths
from benchlab.data.worldsense.compare import compare_worldsense
from tests.compare_fixtures import make_testset, write_results
from tests.test_compare_sort import write_csv


def _records(n: int = 20) -> list[BookSortRecord]:
    return list(load_records(sample_path("booksort", "test_e250_s20.parquet")))[:n]


def _session(folder: Path, pid: str, condition: str, right: list[bool], *, simulated: str | None = None,
             delay_ms: float | None = None, rt_ms: float | None = 1500.0) -> Path:
    """A participant's SORT session written by the session's own log (so the columns are the real ones)."""
    path = folder / f"250-s20-human-{pid}_results.csv"
    log = SortResultsLog(path)
    for i, (rec, ok) in enumerate(zip(_records(len(right)), right, strict=True)):
        answer = rec.ground_truth if ok else ("B" if rec.ground_truth == "A" else "A")
        log.append(HumanSortRow.from_trial(
            rec, answer, model_name=f"human-{pid}", participant=pid, session="1", condition=condition,  # type: ignore[arg-type]
            trial_index=i, block=0, practice=False, seed=1, rt_ms=rt_ms, delay_ms=delay_ms, simulated=simulated))
    return path


def _model(folder: Path, name: str, right: list[bool]) -> Path:
    """A model results file on the same items as :func:`_session` (the published layout, no condition column)."""
    import pandas as pd

    rows = []
    for rec, ok in zip(_records(len(right)), right, strict=True):
        answer = rec.ground_truth if ok else ("B" if rec.ground_truth == "A" else "A")
        rows.append({"book_idx": rec.book_idx, "excerpt_idx": rec.excerpt_idx, "segment_idx": 0,
                     "distance_bin": rec.distance_bin, "present_seg1_first": rec.present_seg1_first,
                     "excerpt_length": 250, "segment_length": 20, "model_name": name,
                     "A_is_first": rec.present_seg1_first, "answer": answer, "ground_truth": rec.ground_truth,
                     "correct": ok})
    path = folder / f"250-s20-hf_{name}_results.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path)
    return path


# -- 1. conditions and sessions apart ----------------------------------------------------------------------------


def test_compare_sort_never_pools_stm_with_ltm(tmp_path: Path) -> None:
    """Why: P01 STM + P02 LTM on e250-s20 gave one pooled 70.0 from both tasks."""
    _session(tmp_path / "stm", "P01", "stm", [True] * 20)
    _session(tmp_path / "ltm", "P02", "ltm", [i % 5 < 2 for i in range(20)])
    _model(tmp_path / "models", "M", [i % 2 == 0 for i in range(20)])
    comp = compare_sort([tmp_path], n_boot=200)
    assert "e250-s20" not in comp.conditions
    assert {"STM e250-s20", "LTM e250-s20"} <= set(comp.conditions)
    stm, ltm = comp.cell(POOLED, "STM e250-s20"), comp.cell(POOLED, "LTM e250-s20")
    assert stm is not None and stm.value == 1.0 and stm.n_participants == 1
    assert ltm is not None and ltm.value == pytest.approx(8 / 20) and ltm.n_participants == 1
    # no figure anywhere mixes the two: every pooled cell has one person, and "overall" is per condition
    assert all(c.n_participants <= 1 for (who, _c), c in comp.cells.items() if who == POOLED)
    assert OVERALL_NAME not in comp.conditions
    # the model (no condition column: the original's in-context run) is compared with STM people only
    conditions_tested = {t.condition for t in comp.tests if t.model == "M"}
    assert conditions_tested and all(c.startswith("STM") for c in conditions_tested)
    assert any("LTM" in n and "never pooled" in n for n in comp.notes)


OVERALL_NAME = "overall"


def test_score_sort_keeps_delays_apart(tmp_path: Path) -> None:
    """A delay is part of the design: sessions at 0 s and 30 s are separate rows, never one pooled row."""
    _session(tmp_path / "a", "P01", "ltm", [True] * 12, delay_ms=30_012.0)
    _session(tmp_path / "b", "P02", "ltm", [False] * 12, delay_ms=15.0)
    overall = score_paths([tmp_path])[0].frame
    assert "human-P01 ltm delay 30 s" in overall.index and "human-P02 ltm" in overall.index
    assert "humans ltm delay 30 s (pooled)" in overall.index and "humans ltm (pooled)" in overall.index
    assert overall.loc["humans ltm (pooled)", "people"] == 1


def test_pilot_kinds_of_one_participant_are_separate_rows(tmp_path: Path) -> None:
    """Why: an oracle pilot in session 1 and a random pilot in session 2 were one row "simulated oracle"."""
    _session(tmp_path / "s1", "P01", "stm", [True] * 8, simulated="oracle")
    _session(tmp_path / "s2", "P01", "stm", [i % 2 == 0 for i in range(8)], simulated="random")
    _session(tmp_path / "s3", "P01", "stm", [i % 4 != 0 for i in range(8)])  # and the real person
    comp = compare_sort([tmp_path], n_boot=200)
    labels = [e.label for e in comp.participants]
    assert "P01 (simulated oracle) [partial]" not in labels  # one config only: not partial here
    assert {"P01 (simulated oracle)", "P01 (simulated random)", "P01"} == set(labels)
    assert comp.cell("P01 (simulated oracle)", "e250-s20").value == 1.0  # type: ignore[union-attr]
    assert comp.cell("P01 (simulated random)", "e250-s20").value == 0.5  # type: ignore[union-attr]
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None and pooled.n_participants == 1 and pooled.value == 0.75  # the person only


# -- 2. honest uncertainty ---------------------------------------------------------------------------------------


def test_all_correct_participant_is_not_certain(tmp_path: Path) -> None:
    """Why: 8 of 8 correct showed 100.0 [100.0, 100.0] (Wilson: [67.6, 100])."""
    write_csv(tmp_path / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1")
    write_csv(tmp_path / "1000-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1", excerpt_length=1000)
    comp = compare_sort([tmp_path], n_boot=200)
    overall = comp.cell("p1", "overall")
    assert overall is not None and overall.ci_low == pytest.approx(stats.wilson_ci(16, 16)[0])  # not [100, 100]
    single = compare_sort([tmp_path / "250-s20-human-p1_results.csv"], n_boot=200).cell("p1", "e250-s20")
    assert single is not None and (round(100 * single.ci_low, 1), single.ci_high) == (67.6, 1.0)
    table = score_paths([tmp_path])[0].frame
    assert table.loc["human-p1", "ci_low"] < 0.9  # score sort's macro row as well


def test_pooled_cells_never_show_zero_width(tmp_path: Path) -> None:
    """Why: pooled cells showed 100 [100, 100] and 0 [0, 0]."""
    write_csv(tmp_path / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1")
    write_csv(tmp_path / "250-s20-human-p2_results.csv", "human-p2", [True] * 8, "p2")
    write_csv(tmp_path / "250-s20-hf_M_results.csv", "M", [False] * 8)
    comp = compare_sort([tmp_path], n_boot=200)
    for (who, cond), cell in comp.cells.items():
        assert cell.ci_low != cell.ci_high, (who, cond, cell)
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None and pooled.text().endswith("[CI n/a]") and "no variation" in pooled.extra["ci_note"]
    assert any(n.startswith("CI n/a (no variation") for n in comp.notes)
    for t in comp.tests:  # McNemar's interval for one person is never [+100, +100]
        assert np.isnan(t.result.ci_low) or t.result.ci_low < t.result.ci_high


def test_pooled_interval_counts_people_and_is_wider_than_items_alone(tmp_path: Path) -> None:
    """Why: pooled CIs resampled items only, ignoring the spread between 3-5 people."""
    rng = np.random.default_rng(3)
    for pid, acc in (("a", 0.95), ("b", 0.6), ("c", 0.8)):
        write_csv(tmp_path / f"250-s20-human-{pid}_results.csv", f"human-{pid}",
                  list(rng.random(40) < acc), pid)
    comp = compare_sort([tmp_path], n_boot=500, by_bin=False)
    pooled = comp.cell(POOLED, "e250-s20")
    assert pooled is not None and pooled.method.startswith("crossed people x items")
    assert pooled.n_participants == 3 and pooled.n_units == 40
    lo, hi = stats.bootstrap_ci(_item_means(tmp_path), n_boot=2000)  # the old interval: over item means only
    assert pooled.ci_high - pooled.ci_low > 1.5 * (hi - lo)
    assert "n people" in comp.tests_table().frame.columns or comp.tests == []


def _item_means(folder: Path) -> np.ndarray:
    import pandas as pd

    frames = [pd.read_csv(f) for f in sorted(folder.glob("*human*_results.csv"))]
    return np.mean([f["correct"].astype(float).to_numpy() for f in frames], axis=0)


# -- 3. partial data said, not hidden ----------------------------------------------------------------------------


def test_worldsense_one_tuple_participant_gets_no_overall_beside_models(tmp_path: Path) -> None:
    """Why: a participant who answered one tuple (Infer.trivial) got "overall 50.0" beside the models' overall.
    By default (issue 20) the model is scored on that one tuple too, so the rows sit side by side on the same
    tuple; with ``same_items=False`` (``--all-items``) the model keeps all its cells and the person's row is partial."""
    ts = make_testset(tmp_path / "ts")
    write_results(ts / "results" / "basic___GPT4___results.jsonl", lambda p, z, t, i, g: g)
    out = tmp_path / "out"
    write_results(out / "basic___human-one___results.jsonl",
                  lambda p, z, t, i, g: (g if i == 0 else ("FALSE" if g == "TRUE" else "TRUE"))
                  if (p, z, t) == ("Infer.trivial", 3, 0) else None)
    same = compare_worldsense(ts, [out], n_boot=200)
    assert same.cell("GPT4", "overall").n_units == 1
    assert any(n.startswith("scoring warning: GPT4: restricted to the 1 tuples both answered") for n in same.notes)
    assert not any(n.startswith("Partial:") for n in same.notes)
    comp = compare_worldsense(ts, [out], n_boot=200, same_items=False)
    table = comp.accuracy_table().frame
    assert "one [partial]" in table.index
    assert table.loc["one [partial]", "overall"] == "partial (1 of 6 cells)"  # not "50.0"
    note = next(n for n in comp.notes if n.startswith("Partial: one / overall"))
    assert "50.0 on those cells only" in note and "GPT4 100.0" in note


def test_unpaired_model_figure_is_the_accuracy_tables(tmp_path: Path) -> None:
    """Why: the tests table listed the models' overall "(same units)" as the plain tuple mean (54.0/73.1/70.1
    on the real data) while the accuracy table printed the rebalanced 55.6/75.6/77.4."""
    ts = make_testset(tmp_path / "ts")
    # GPT4: size 3 only; all 3 Infer.trivial tuples right, one tuple each of the others wrong -> plain mean 3/5,
    # the benchmark's rebalanced mean (1 + 0 + 0) / 3
    write_results(ts / "results" / "basic___GPT4___results.jsonl",
                  lambda p, z, t, i, g: None if z != 3 or (p != "Infer.trivial" and t > 0) else
                  (g if p == "Infer.trivial" else {"TRUE": "FALSE", "FALSE": "TRUE", "1": "3", "2": "3",
                                                   "3": "1"}[g]))
    out = tmp_path / "out"
    for pid in ("a", "b"):  # the people answered size 4 only: no tuple in common with GPT4
        write_results(out / f"basic___human-{pid}___results.jsonl", lambda p, z, t, i, g: g if z == 4 else None)
    comp = compare_worldsense(ts, [out], n_boot=200)
    model_overall = comp.cell("GPT4", "overall")
    assert model_overall is not None and model_overall.value == pytest.approx(1 / 3)
    row = next(t for t in comp.tests if t.condition == "overall" and t.model == "GPT4")
    assert row.result.method.startswith("unpaired")
    assert row.model_same_units == pytest.approx(model_overall.value)  # was 0.6, the plain mean


# -- bad input ---------------------------------------------------------------------------------------------------


def test_bad_input_gives_notes_and_numbers_never_a_traceback(tmp_path: Path) -> None:
    """One-trial participant, missing RTs, an all-wrong cell, a condition with no model data."""
    _session(tmp_path / "ltm", "P09", "ltm", [False], rt_ms=None)
    _session(tmp_path / "stm", "P10", "stm", [True] * 4, rt_ms=None)
    _model(tmp_path / "m", "M", [True] * 4)
    comp = compare_sort([tmp_path], n_boot=200)
    one = comp.cell("P09", "LTM e250-s20")
    assert one is not None and one.value == 0.0 and 0 < one.ci_high < 1  # Wilson on 1 trial: [0, 79.3]
    assert not comp.rt  # no RTs recorded: no RT rows, no crash
    assert any("no model data" in n and "LTM" in n for n in comp.notes)
    text = "".join(t.frame.to_string() for t in comp.tables())
    assert "nan" not in text.replace("n/a", "")


def test_results_folder_mixing_benchmarks_is_said(tmp_path: Path) -> None:
    write_csv(tmp_path / "250-s20-human-p1_results.csv", "human-p1", [True, False] * 4, "p1")
    (tmp_path / "basic___human-p1___results.jsonl").write_text('{"Key": 1, "resp": "TRUE"}\n')
    comp = compare_sort([tmp_path], n_boot=200)
    assert any("Not SORT results" in n and "___results.jsonl" in n for n in comp.notes)


# -- the interval functions against known values and the coverage harness ----------------------------------------


def test_wilson_and_clopper_pearson_known_values() -> None:
    assert stats.wilson_ci(8, 8)[0] == pytest.approx(0.6755924, abs=1e-6)
    assert stats.clopper_pearson_ci(8, 8) == pytest.approx((0.6305834, 1.0), abs=1e-6)
    assert stats.clopper_pearson_ci(3, 10) == pytest.approx((0.0667395, 0.6524529), abs=1e-6)
    # Kish: one stratum is plain Wilson; equal weights over strata of 8 and 2 answers give n_eff = 6.4
    assert stats.wilson_kish_ci([1.0] * 8) == pytest.approx(stats.wilson_ci(8, 8))
    assert stats.kish_n([8, 2]) == pytest.approx(6.4)  # 1 / (0.25 / 8 + 0.25 / 2)
    # Newcombe's paired interval: phi = 0 gives the independent square-and-add interval (statsmodels "newcomb")
    from statsmodels.stats.proportion import confint_proportions_2indep

    ref = confint_proportions_2indep(6, 9, 6, 9, method="newcomb", compare="diff")
    assert stats.newcombe_paired_ci(4, 2, 2, 1) == pytest.approx(ref, abs=1e-9)
    lo, hi = stats.newcombe_paired_ci(8, 0, 0, 0)  # both right on all 8: not [0, 0]
    assert (lo, hi) == pytest.approx((-(1 - stats.wilson_ci(8, 8)[0]), 1 - stats.wilson_ci(8, 8)[0]))


def test_crossed_interval_balanced_design_matches_the_anova_formula() -> None:
    """Balanced people x items: Var(mean) = (MS_people + MS_items - MS_residual) / (P I) (the quasi-F)."""
    y = np.array([[1, 1, 0, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 1, 0]], dtype=float)
    p_n, i_n = y.shape
    m = y.mean()
    ms_p = i_n * ((y.mean(axis=1) - m) ** 2).sum() / (p_n - 1)
    ms_i = p_n * ((y.mean(axis=0) - m) ** 2).sum() / (i_n - 1)
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + m
    ms_e = (resid**2).sum() / ((p_n - 1) * (i_n - 1))
    who = np.repeat(np.arange(p_n), i_n)
    item = np.tile(np.arange(i_n), p_n)
    est = crossed_estimate(who, item, y.ravel())
    assert est.value == pytest.approx(m)
    # the ANOVA variance, inflated by (1 + 1/people) for the t reference with few people (issue 22)
    assert est.se**2 == pytest.approx((ms_p + ms_i - ms_e) / (p_n * i_n) * (1 + 1 / p_n))
    var_a, var_b, var_e = variance_components(who, item, y.ravel() - m, p_n, i_n)
    assert var_e == pytest.approx(ms_e) and var_a == pytest.approx((ms_p - ms_e) / i_n)
    assert var_b == pytest.approx((ms_i - ms_e) / p_n)
    one = crossed_estimate(np.zeros(5), np.arange(5), y[0])
    assert not one.available and "one participant" in one.note
    test, _ = human_model_test(who, item, y.ravel(), dict(enumerate([1.0, 1.0, 0.0, 1.0, 0.0])))
    assert test.estimate == pytest.approx(m - 0.6) and test.method.startswith("crossed people x items")
    # issue 22: the interval printed beside the test is the same t (it holds 0 exactly when p >= .05)
    assert (test.p_value < 0.05) == (not test.ci_low <= 0 <= test.ci_high)


def test_coverage_harness_runs_and_reports_every_setting() -> None:
    pop = population(0.75, 0.08, 1.0)
    assert pop.accuracy == 0.75 and pop.person_logit_sd > 0
    _pop, results, _seconds = run_coverage((3, 5), items=20, studies=40, seed=2, n_boot=200)
    assert [r.participants for r in results] == [3, 5]
    for r in results:
        assert 0.7 <= r.coverage <= 1.0 and r.coverage >= r.coverage_items - 0.05
        assert 0 <= r.fpr <= 0.3 and r.width > r.width_items


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from benchlab.tui.cli import main

    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_bench_coverage_and_power_commands_print_their_tables(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(["bench", "coverage", "--studies", "20", "--participants", "3", "--items", "12",
                      "--boot", "200", "--person-sd", "0.17", "--design", "sort-bin"], capsys)
    assert code == 0, out
    assert "coverage crossed %" in out and "FPR crossed %" in out and "target: coverage 93-97%" in out
    code, out = _cli(["power", "sort", "--simulations", "50", "--participants", "3", "--max-participants", "4",
                      "--model-score", "0.2", "--human-accuracy", "0.9"], capsys)
    assert code == 0, out
    assert "expected CI width (points)" in out and "power" in out
    assert "Smallest number of participants with power >= 80%" in out or "not reached" in out
    write_csv(tmp_path / "250-s20-human-p1_results.csv", "human-p1", [True] * 6 + [False] * 2, "p1")
    write_csv(tmp_path / "250-s20-human-p2_results.csv", "human-p2", [True] * 4 + [False] * 4, "p2")
    code, out = _cli(["power", "sort", "--pilot", str(tmp_path), "--simulations", "50", "--max-participants", "3"],
                     capsys)
    assert code == 0, out
    assert "from the pilot data" in out and "(2 people)" in out
    code, out = _cli(["bench", "coverage", "--participants", "1"], capsys)
    assert code == 2 and "at least 2" in out


async def test_results_screen_keeps_stm_and_ltm_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Why: the app's Results screen pooled STM and LTM like `compare sort` did."""
    from textual.widgets import DataTable

    from benchlab.tui.screens.results import ResultsScreen
    from tests.test_results_screen import Host, settle, table_text

    monkeypatch.chdir(tmp_path)
    _session(tmp_path / "sort" / "stm", "P01", "stm", [True] * 20)
    _session(tmp_path / "sort" / "ltm", "P02", "ltm", [i % 5 < 2 for i in range(20)])
    screen = ResultsScreen("sort", None, "sort", now=lambda: "12:00:00")
    screen.POLL_SECONDS = 0.1
    async with Host(screen).run_test(size=(160, 45)) as pilot:
        await settle(screen, pilot)
        table = screen.query_one("#accuracy", DataTable)
        headers = [str(c.label) for c in table.columns.values()]
        assert "STM e250-s20" in headers and "LTM e250-s20" in headers and "e250-s20" not in headers
        rows = {r[0]: r for r in table_text(table)}
        pooled = rows[POOLED]
        stm_at, ltm_at = headers.index("STM e250-s20"), headers.index("LTM e250-s20")
        assert pooled[stm_at].startswith("100.0") and pooled[ltm_at].startswith("40.0")  # never one 70.0
