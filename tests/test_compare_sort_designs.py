"""Issue 22 items 1-2: every SORT design compares, each session's delay is the one its plan declares.

Each test reproduces an audit case through ``compare_sort`` (what ``benchlab compare sort`` and the Results screen
print), with files written by the session's own results log and plans saved as a session saves them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.data.analysis.compare import POOLED
from benchlab.data.samples import sample_path
from benchlab.data.sort.compare import compare_sort
from benchlab.data.sort.loaders import load_records
from benchlab.data.sort.records import BookSortRecord


def records(excerpt_length: int = 250, n: int = 16, start: int = 0) -> list[BookSortRecord]:
    data = load_records(sample_path("booksort", f"test_e{excerpt_length}_s20.parquet"))
    return list(data)[start:start + n]


def session(out: Path, pid: str, condition: str, right: list[bool], *, session_id: str = "1",
            excerpt_length: int = 250, delay_ms: list[float] | float | None = None, plan_delay: float | None = None,
            start: int = 0) -> Path:
    """One session appended to the participant's results file under ``out/results`` (its plan under
    ``out/sessions`` when ``plan_delay`` is given), as ``benchlab run sort`` writes them."""
    recs = records(excerpt_length, len(right), start)
    path = out / "results" / f"{excerpt_length}-s20-human_{pid}_results.csv"
    log = SortResultsLog(path)
    delays = delay_ms if isinstance(delay_ms, list) else [delay_ms] * len(right)
    for i, (rec, ok) in enumerate(zip(recs, right, strict=True)):
        answer = rec.ground_truth if ok else ("B" if rec.ground_truth == "A" else "A")
        log.append(HumanSortRow.from_trial(
            rec, answer, model_name=f"human-{pid}", participant=pid, session=session_id,
            condition=condition, trial_index=i, block=0, practice=False, seed=1,  # type: ignore[arg-type]
            rt_ms=1500.0, delay_ms=delays[i]))
    if plan_delay is not None:
        plan = SessionPlan(task="sort", dataset="sample", participant=pid, session=session_id, seed=1,
                           config={"excerpt_length": excerpt_length, "segment_length": 20, "condition": condition,
                                   "delay_s": plan_delay},
                           blocks=[[r.trial_id for r in recs]])
        plan.save(out / "sessions" / f"human_{pid}_e{excerpt_length}_s20_{condition}_session-{session_id}.plan.json")
    return path


def model(out: Path, name: str, right: list[bool], excerpt_length: int = 250) -> Path:
    rows = []
    for rec, ok in zip(records(excerpt_length, len(right)), right, strict=True):
        answer = rec.ground_truth if ok else ("B" if rec.ground_truth == "A" else "A")
        rows.append({"book_idx": rec.book_idx, "excerpt_idx": rec.excerpt_idx, "segment_idx": 0,
                     "distance_bin": rec.distance_bin, "present_seg1_first": rec.present_seg1_first,
                     "excerpt_length": excerpt_length, "segment_length": 20, "model_name": name,
                     "A_is_first": rec.present_seg1_first, "answer": answer, "ground_truth": rec.ground_truth,
                     "correct": ok})
    path = out / "models" / f"{excerpt_length}-s20-hf_{name}_results.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path)
    return path


def test_stm_at_two_excerpt_lengths_plus_ltm_compares(tmp_path: Path) -> None:
    """Why: STM e250 + STM e1000 + LTM made `compare sort` exit 70 (KeyError 'memory'), humans alone too."""
    for pid, shift in (("P01", 0), ("P02", 1)):
        session(tmp_path, pid, "stm", [(i + shift) % 3 != 0 for i in range(16)])
        session(tmp_path, pid, "stm", [(i + shift) % 2 == 0 for i in range(16)], excerpt_length=1000)
        session(tmp_path, pid, "ltm", [(i + shift) % 4 == 0 for i in range(16)], session_id="2", start=20)
    humans_only = compare_sort([tmp_path], n_boot=200)
    assert {"STM overall", "LTM e250-s20", "STM e250-s20", "STM e1000-s20"} <= set(humans_only.conditions)
    model(tmp_path, "M", [i % 2 == 0 for i in range(16)])
    model(tmp_path, "M", [i % 2 == 1 for i in range(16)], excerpt_length=1000)
    comp = compare_sort([tmp_path], n_boot=200)
    stm = comp.cell(POOLED, "STM overall")
    assert stm is not None and stm.n_participants == 2
    # the STM overall holds both excerpt lengths and nothing of LTM; the pooled test exists there
    assert any(t.condition == "STM overall" and t.who == POOLED for t in comp.tests)
    assert not any(t.condition.startswith("LTM") for t in comp.tests if t.model == "M")


def test_delay_is_per_session_from_the_plan_not_a_median_per_file(tmp_path: Path) -> None:
    """Why: session 1 (no delay) and session 2 (--delay 3) of one person became 'STM delay 2 s' for all rows,
    pooled with another person's real 2 s session; the LTM session inherited the delay."""
    session(tmp_path, "P01", "stm", [True] * 8, delay_ms=20.0, plan_delay=0.0)
    session(tmp_path, "P01", "stm", [False] * 8, session_id="2", delay_ms=3020.0, plan_delay=3.0, start=8)
    session(tmp_path, "P01", "ltm", [True] * 8, session_id="3", delay_ms=3010.0, plan_delay=0.0, start=16)
    session(tmp_path, "P02", "stm", [True] * 8, delay_ms=2020.0, plan_delay=2.0)
    comp = compare_sort([tmp_path], n_boot=200)
    assert {"STM e250-s20", "STM delay 3 s e250-s20", "STM delay 2 s e250-s20", "LTM e250-s20"} <= set(
        comp.conditions)
    p1_3s = comp.cell("P01", "STM delay 3 s e250-s20")
    assert p1_3s is not None and p1_3s.n_units == 8 and p1_3s.value == 0.0
    two = comp.cell(POOLED, "STM delay 2 s e250-s20")
    assert two is not None and two.n_participants == 1 and two.value == 1.0  # P02 alone
    ltm = comp.cell("P01", "LTM e250-s20")
    assert ltm is not None and ltm.n_units == 8


def test_one_designed_delay_is_one_label_however_the_frames_fell(tmp_path: Path) -> None:
    """Why: 2490/2500/2510 ms of one 2.5 s design were rounded into '2 s' and '3 s' columns."""
    session(tmp_path, "P01", "stm", [True] * 12, delay_ms=[2490.0, 2500.0, 2510.0] * 4, plan_delay=2.5)
    session(tmp_path, "P02", "stm", [False] * 12, delay_ms=[2510.0, 2530.0, 2490.0] * 4, plan_delay=2.5)
    comp = compare_sort([tmp_path], n_boot=200)
    assert not any("delay 2 s" in c or "delay 3 s" in c for c in comp.conditions)
    assert any("STM delay 2.5 s for every row" in n for n in comp.notes)
    cell = comp.cell(POOLED, "e250-s20")
    assert cell is not None and cell.n_participants == 2


def test_without_a_plan_the_session_median_is_used_and_said(tmp_path: Path) -> None:
    session(tmp_path, "P01", "stm", [True] * 8, delay_ms=15.0)
    session(tmp_path, "P01", "stm", [False] * 8, session_id="2", delay_ms=[2490.0, 2510.0] * 4, start=8)
    comp = compare_sort([tmp_path], n_boot=200)
    assert "STM delay 2.5 s e250-s20" in comp.conditions and "STM e250-s20" in comp.conditions
    assert any("measured" in n and "P01 session 2" in n for n in comp.notes)


def test_no_tests_reason_names_missing_model_data_not_unshared_items(tmp_path: Path) -> None:
    """Why: a delay condition the models never ran printed '(no tests: humans and models share no items)'."""
    session(tmp_path, "P01", "stm", [True] * 8, delay_ms=3000.0, plan_delay=3.0)
    model(tmp_path, "M", [True] * 8)
    comp = compare_sort([tmp_path], n_boot=200)
    assert not comp.tests
    assert "share no items" not in comp.no_tests_reason()
    assert "no model data" in comp.no_tests_reason()
