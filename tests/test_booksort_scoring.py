"""SORT results files and scoring: one reader for model and human files, the original's macro accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from benchlab.annotations.sort.human_record import HUMAN_COLUMNS, HumanSortRow, SortResultsLog
from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.results import read_results, results_filename
from benchlab.data.sort.scoring import score_paths
from benchlab.tui.cli import cli

SAMPLE = sample_path("booksort")


def _records(le: int) -> list[BookSortRecord]:
    return load_records(SAMPLE, Selection(excerpt_length=le, segment_length=20, split="test"))


def _model_file(folder: Path, le: int, answers: list[str], with_correct: bool = True) -> Path:
    """A results CSV in the original evaluation's layout (pandas index, ``index``, no segment texts)."""
    recs = _records(le)[: len(answers)]
    frame = pd.DataFrame([r.model_dump() for r in recs]).drop(columns=["segment_1", "segment_2"])
    frame = frame.reset_index()
    frame["data"] = "prompt"
    frame["prob_A"], frame["prob_B"] = -0.1, -2.3
    frame["raw_answer"] = answers
    frame["model_name"] = "llama"
    frame["A_is_first"] = frame["present_seg1_first"]
    frame["answer"] = answers
    frame["prompt_logprob_jsons"] = "[]"
    frame["ground_truth"] = ["A" if a else "B" for a in frame["A_is_first"]]
    if with_correct:
        frame["correct"] = frame["answer"] == frame["ground_truth"]
    path = folder / f"{le}-s20-hf_llama_results.csv"
    frame.to_csv(path)
    return path


def _human_file(folder: Path, participant: str, le: int, answers: list[str], practice: int = 0,
                simulated: str | None = None) -> Path:
    path = folder / results_filename(le, 20, f"human-{participant}")
    log = SortResultsLog(path)
    recs = _records(le)
    for i, answer in enumerate(answers):
        log.append(HumanSortRow.from_trial(
            recs[i], answer, model_name=f"human-{participant}", participant=participant, session="1",
            condition="stm", trial_index=i, block=1, practice=i < practice, seed=5, rt_ms=1500.0,
            simulated=simulated,
        ))
    return path


def _truths(le: int, n: int) -> list[str]:
    return [r.ground_truth for r in _records(le)[:n]]


def test_macro_accuracy_over_configurations_like_the_original(tmp_path: Path) -> None:
    t250, t1000 = _truths(250, 40), _truths(1000, 10)
    # 250: 30 of 40 correct; 1000: 4 of 10 correct -> macro (0.75 + 0.4) / 2 = 0.575 (micro would be 0.68).
    a250 = [t if i < 30 else ("B" if t == "A" else "A") for i, t in enumerate(t250)]
    a1000 = [t if i < 4 else "X" for i, t in enumerate(t1000)]
    _model_file(tmp_path, 250, a250)
    _model_file(tmp_path, 1000, a1000, with_correct=False)  # older files have no `correct` column
    tables = score_paths([tmp_path])
    overall = tables[0].frame
    row = overall.loc["llama"]
    assert row["accuracy"] == pytest.approx(0.575) and row["configs"] == 2 and row["n"] == 50
    assert row["p"] == f"p={stats.binomtest(34, 50, 0.5, alternative='greater').pvalue:.3f}".replace("0.", ".")
    assert row["no_answer"] == pytest.approx(6 / 50)
    answered = [a for a in a250 + a1000 if a != "X"]
    assert row["share_A"] == pytest.approx(round(answered.count("A") / len(answered), 4))
    by_config = tables[1].frame
    assert by_config.loc[("llama", 250, 20), "accuracy"] == 0.75
    assert by_config.loc[("llama", 1000, 20), "accuracy"] == 0.4
    lo, hi = by_config.loc[("llama", 250, 20), ["ci_low", "ci_high"]]
    assert lo < 0.75 < hi


def test_humans_scored_per_participant_and_pooled_without_practice(tmp_path: Path) -> None:
    truths = _truths(250, 20)
    _human_file(tmp_path, "P01", 250, truths)  # all correct
    _human_file(tmp_path, "P02", 250, ["A"] * 20, practice=4)  # always A; first 4 rows are practice
    overall = score_paths([tmp_path])[0].frame
    assert overall.loc["human-P01 stm", "accuracy"] == 1.0
    assert overall.loc["human-P01 stm", "median_rt_s"] == 1.5  # every row was written with rt_ms 1500
    scored = truths[4:]
    assert overall.loc["human-P02 stm", "n"] == 16
    assert overall.loc["human-P02 stm", "accuracy"] == pytest.approx(round(scored.count("A") / 16, 4))
    assert overall.loc["human-P02 stm", "share_A"] == 1.0
    # pooled: each item (book, excerpt, distance bin) once, the mean over the people who answered it
    recs = _records(250)[:20]
    answers: dict[tuple[int, int, int], list[float]] = {}
    for i, rec in enumerate(recs):
        item = (rec.book_idx, rec.excerpt_idx, rec.distance_bin)
        answers.setdefault(item, []).append(1.0)  # P01 always right
        if i >= 4:
            answers[item].append(float(rec.ground_truth == "A"))  # P02 always A, practice rows 0-3 left out
    item_scores = [sum(v) / len(v) for v in answers.values()]
    pooled = overall.loc["humans stm (pooled)"]
    assert pooled["n"] == len(answers)
    assert pooled["accuracy"] == pytest.approx(round(sum(item_scores) / len(item_scores), 4))
    assert pooled["ci_low"] < pooled["accuracy"] < pooled["ci_high"]
    ref = stats.permutation_test((np.array(item_scores) - 0.5,), np.mean, permutation_type="samples",
                                 n_resamples=np.inf, alternative="greater")
    # issue 11: with two people the p also counts the spread between them (the larger of the item sign-flip
    # test, which alone said p<.001, and the people x items t-test)
    assert pooled["people"] == 2 and ref.pvalue < 0.001 and pooled["p"] not in ("p<.001", "n/a")
    with_practice = score_paths([tmp_path], include_practice=True)[0].frame
    assert with_practice.loc["human-P02 stm", "n"] == 20
    # A simulated pilot is listed under its own label and never pooled with people.
    _human_file(tmp_path, "SIM", 250, ["B"] * 8, simulated="random")
    overall = score_paths([tmp_path])[0].frame
    assert overall.loc["human-SIM stm (simulated random)", "n"] == 8
    assert overall.loc["humans stm (pooled)", "n"] == len(answers)
    assert overall.loc["humans stm (pooled)", "accuracy"] == pooled["accuracy"]


def test_human_log_is_the_model_layout_plus_timing_and_resumes(tmp_path: Path) -> None:
    path = _human_file(tmp_path, "P03", 250, ["A", "B", "X"])
    header = path.read_text().splitlines()[0].split(",")
    assert header == HUMAN_COLUMNS
    frame = pd.read_csv(path, index_col=0)
    assert list(frame["answer"]) == ["A", "B", "X"] and frame["correct"].dtype == bool
    assert "segment_1" not in frame.columns and frame["model_name"].iloc[0] == "human-P03"
    # A torn last row (killed mid-write) is cut on reopening; the rest is kept and nothing is duplicated.
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("3,69087,12,0,44")
    log = SortResultsLog(path)
    assert len(log.recover()) == 3
    assert path.read_text().endswith("\n")
    rec = _records(250)[0]
    with pytest.raises(BenchlabError, match="already recorded"):
        log.append(HumanSortRow.from_trial(rec, "A", model_name="human-P03", participant="P03", session="1",
                                           condition="stm", trial_index=0, block=1, practice=False, seed=5))
    assert read_results(path)["correct"].tolist() == frame["correct"].tolist()


def test_bad_results_files_name_file_and_line(tmp_path: Path) -> None:
    path = _model_file(tmp_path, 250, ["A", "B", "maybe"])
    with pytest.raises(BenchlabError, match="'maybe' is not A, B or X") as err:
        read_results(path)
    assert err.value.line == 4
    other = tmp_path / "sub" / "notes_results.csv"
    other.parent.mkdir()
    other.write_text("answer,x\nA,1\n")
    with pytest.raises(BenchlabError, match="missing column 'excerpt_length'"):
        read_results(other)
    (tmp_path / "empty").mkdir()
    with pytest.raises(BenchlabError, match="no \\*_results.csv files"):
        score_paths([tmp_path / "empty"])


def test_score_sort_command_formats(tmp_path: Path) -> None:
    _model_file(tmp_path, 250, _truths(250, 12))
    runner = CliRunner()
    table = runner.invoke(cli, ["score", "sort", str(tmp_path)])
    assert table.exit_code == 0 and "llama" in table.output and "by distance bin" in table.output
    as_json = runner.invoke(cli, ["score", "sort", str(tmp_path), "--format", "json"])
    payload = json.loads(as_json.output)
    assert payload[0]["rows"][0]["cells"]["accuracy"] == 1.0
    md = runner.invoke(cli, ["score", "sort", str(tmp_path), "--format", "markdown"])
    assert md.output.startswith("### SORT accuracy")


def test_peek_reads_complete_rows_and_leaves_a_torn_row_alone(tmp_path: Path) -> None:
    path = _human_file(tmp_path, "P04", 250, ["A", "B"])
    torn = "2,69087,7,0,1,“Half a quo".encode()[:-2]  # ends inside a UTF-8 sequence
    with open(path, "ab") as handle:
        handle.write(torn)
    before = path.read_bytes()
    assert [r["answer"] for r in SortResultsLog(path).peek()] == ["A", "B"]
    assert path.read_bytes() == before  # peeking never changes the participant's file
    assert len(SortResultsLog(path).recover()) == 2 and path.read_bytes().endswith(b"\n")
    bad = tmp_path / "other.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(BenchlabError, match="not a benchlab human SORT results file") as err:
        SortResultsLog(bad).recover()
    assert err.value.line == 1


def test_score_sort_has_a_pooled_row_for_one_person_next_to_a_pilot(tmp_path: Path) -> None:
    """QA: `score sort` printed no pooled-humans row (one real participant plus a simulated pilot)."""
    truths = _truths(250, 12)
    _human_file(tmp_path, "P01", 250, truths)
    _human_file(tmp_path, "PILOT", 250, ["A"] * 12, simulated="oracle")
    runner = CliRunner()
    result = runner.invoke(cli, ["score", "sort", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "humans stm (pooled)" in result.output and "human-PILOT stm (simulated oracle)" in result.output
    overall = score_paths([tmp_path])[0].frame
    assert overall.loc["humans stm (pooled)", "accuracy"] == 1.0  # the pilot's answers are not in it
    by_config = score_paths([tmp_path])[1].frame
    assert by_config.loc[("humans stm (pooled)", 250, 20), "accuracy"] == 1.0
