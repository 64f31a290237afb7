"""WorldSense scoring on the bundled sample and hand-made edge cases: identical to the original, and every trap
of spec section 10 either scored correctly or reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.worldsense.bench import ours_as_rows, parse_original_tables
from benchlab.data.worldsense.loader import load_trials, tuples_of
from benchlab.data.worldsense.records import ResultLine, Trial
from benchlab.data.worldsense.score_tables import format_cell
from benchlab.data.worldsense.scoring import WorldSenseTables, score_testset_dir, score_worldsense

FIXTURES = Path(__file__).parent / "data" / "worldsense"
SAMPLE = sample_path("worldsense")


def _cells(tables: WorldSenseTables) -> list[list[list[str]]]:
    return ours_as_rows(tables.tables())


def _model_rows(tables: WorldSenseTables, model: str = "GPT4") -> list[list[str]]:
    rows = [row for table in _cells(tables) for row in table[1:] if row[0] == model]
    assert len(rows) == 3, rows  # overall, accuracy and bias rows
    return rows


def _answers(name: str = "basic___GPT4___results.jsonl") -> list[dict[str, object]]:
    return [json.loads(line) for line in (SAMPLE / "results" / name).read_text().splitlines()]


def _testset(tmp_path: Path, files: dict[str, list[dict[str, object]] | str]) -> Path:
    """A test-set folder with the sample's trials and the given results files (relative paths allowed)."""
    folder = tmp_path / "ts"
    (folder / "results").mkdir(parents=True)
    shutil.copy(SAMPLE / "trials.jsonl.bz2", folder / "trials.jsonl.bz2")
    for name, content in files.items():
        path = folder / "results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text("".join(json.dumps(obj, separators=(",", ":")) + "\n" for obj in content))
    return folder


def test_sample_tables_are_identical_to_the_original_script() -> None:
    expected = parse_original_tables((FIXTURES / "sample_original_output.txt").read_text())
    assert len(expected) == 3 and len(expected[1]) == 5  # header + 4 models
    tables = score_testset_dir(SAMPLE)
    assert _cells(tables) == expected
    assert tables.warnings == []


def test_edge_cases_are_identical_to_the_original_script(tmp_path: Path) -> None:
    """Partial files, "" and invalid answers, 1-tuple cells (nan CIs), shuffled json.dump-style lines."""
    folder = tmp_path / "edge"
    shutil.copytree(FIXTURES / "edge" / "results", folder / "results")
    shutil.copy(SAMPLE / "trials.jsonl.bz2", folder / "trials.jsonl.bz2")
    expected = parse_original_tables((FIXTURES / "edge" / "original_output.txt").read_text())
    tables = score_testset_dir(folder)
    assert _cells(tables) == expected
    assert "47.2 (nan)" in tables.overall_table().to_string()  # type: ignore[union-attr]
    text = "\n".join(tables.warnings)
    assert "basic___partial___results.jsonl: 5 tuple(s) incomplete (6 answers), not scored" in text
    assert "basic___noisy___results.jsonl: 15 answer(s) are not one of the trial's options" in text
    assert "hold a single tuple" in text
    assert "basic/partial Infer.normal: no complete tuple of size 4" in text


def test_numeric_looking_answers_score_correctly(tmp_path: Path) -> None:
    """Trap 1: a file of only Compl answers "1"/"2"/"3" scored 0% in the original (pandas made them ints)."""
    trials = [t for t in load_trials(SAMPLE) if t.problemname.startswith("Compl")]
    folder = _testset(tmp_path, {"basic___perfect___results.jsonl": [{"Key": t.Key, "resp": t.goldresp}
                                                                       for t in trials]})
    tables = score_testset_dir(folder)
    assert set(tables.accuracy_table().iloc[0]) == {"100.0 (0.0)"}
    assert tables.warnings == []


def test_answers_written_as_numbers_are_refused_with_file_and_line(tmp_path: Path) -> None:
    answers = _answers()
    answers[3] = {"Key": answers[3]["Key"], "resp": 2}
    folder = _testset(tmp_path, {"basic___m___results.jsonl": answers})
    with pytest.raises(BenchlabError) as info:
        score_testset_dir(folder)
    message = str(info.value)
    assert "basic___m___results.jsonl:4:" in message and "resp" in message and 'e.g. "2"' in message


def test_completeness_options_1_and_2_are_both_correct(tmp_path: Path) -> None:
    """Trap 4: "1" and "2" are the same class (decidable); answering 2 for gold 1 is correct."""
    trials = [t for t in load_trials(SAMPLE) if t.problemname.startswith("Compl")]
    swapped = {"1": "2", "2": "1", "3": "3"}
    folder = _testset(tmp_path, {"basic___m___results.jsonl": [{"Key": t.Key, "resp": swapped[t.goldresp]}
                                                                 for t in trials]})
    assert set(score_testset_dir(folder).accuracy_table().iloc[0]) == {"100.0 (0.0)"}


def test_same_model_under_two_promptings_is_scored_per_prompting(tmp_path: Path) -> None:
    """Trap 2: the original keyed tuples by (model, tuple) and dropped everything; we score each prompting."""
    answers = _answers()
    folder = _testset(tmp_path, {"basic___human___results.jsonl": answers, "cot___human___results.jsonl": answers})
    tables = score_testset_dir(folder)
    reference = score_testset_dir(SAMPLE).accuracy_table().loc[("basic", "GPT4")].tolist()
    acc = tables.accuracy_table()
    assert acc.loc[("basic", "human")].tolist() == reference
    assert acc.loc[("cot", "human")].tolist() == reference
    assert any("'human' appears under 2 promptings (basic, cot)" in w for w in tables.warnings)


def test_two_files_for_the_same_prompting_and_model_are_refused(tmp_path: Path) -> None:
    answers = _answers()
    folder = _testset(tmp_path, {"a/basic___p1___results.jsonl": answers, "b/basic___p1___results.jsonl": answers})
    with pytest.raises(BenchlabError, match="two results files for prompting 'basic' and model 'p1'"):
        score_testset_dir(folder)


def test_duplicate_keys_keep_the_first_answer(tmp_path: Path) -> None:
    """Trap 3: a resumed session that wrote a Key twice; the original dropped (or corrupted) the tuple."""
    answers = _answers()
    first = answers[0]
    other = "FALSE" if first["resp"] != "FALSE" else "TRUE"
    if str(first["resp"]) in {"1", "2", "3"}:
        other = "3" if first["resp"] != "3" else "1"
    folder = _testset(tmp_path, {"basic___GPT4___results.jsonl": [*answers, {"Key": first["Key"], "resp": other}]})
    tables = score_testset_dir(folder)
    assert _model_rows(tables) == _model_rows(score_testset_dir(SAMPLE))
    assert any("1 repeated answer(s) to the same Key" in w and "first answer" in w for w in tables.warnings)


def test_unknown_keys_are_ignored_and_reported(tmp_path: Path) -> None:
    answers = [*_answers(), {"Key": 12345, "resp": "TRUE"}, {"Key": -(2**63), "resp": "1"}]
    folder = _testset(tmp_path, {"basic___GPT4___results.jsonl": answers})
    tables = score_testset_dir(folder)
    assert _model_rows(tables) == _model_rows(score_testset_dir(SAMPLE))
    assert any("2 answer(s) for Keys not in the test set 'ts' (e.g. Key 12345), ignored" in w
               for w in tables.warnings)


def test_a_results_file_for_another_test_set_is_refused(tmp_path: Path) -> None:
    folder = _testset(tmp_path, {"basic___m___results.jsonl": [{"Key": k, "resp": "TRUE"} for k in (1, 2, 3)]})
    with pytest.raises(BenchlabError) as info:
        score_testset_dir(folder)
    assert "basic___m___results.jsonl" in str(info.value) and "another test set" in str(info.value)


def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """A session killed mid-write leaves half a line; the complete answers before it still count."""
    text = (SAMPLE / "results" / "basic___GPT4___results.jsonl").read_text() + '{"Key":77,"re'
    folder = _testset(tmp_path, {"basic___GPT4___results.jsonl": text})
    tables = score_testset_dir(folder)
    assert _model_rows(tables) == _model_rows(score_testset_dir(SAMPLE))
    assert any("is incomplete" in w for w in tables.warnings)


def test_python_api_accepts_records_and_result_lines() -> None:
    """The app scores a live session without writing files: Trial records + ResultLine mapping."""
    trials = load_trials(SAMPLE)
    lines = [ResultLine.model_validate(obj) for obj in _answers()]
    tables = score_worldsense(trials, {("basic", "GPT4"): lines})
    expected = score_testset_dir(SAMPLE)
    assert tables.accuracy_table().loc[("basic", "GPT4")].tolist() == \
        expected.accuracy_table().loc[("basic", "GPT4")].tolist()
    overall = tables.overall
    assert overall is not None and set(overall.columns) >= {"mean", "sem", "count", "conf95"}
    assert int(overall["count"].iloc[0]) == 6 * 3 * 3  # 6 problems x 3 sizes x 3 tuples (balanced)


def test_incomplete_session_with_no_complete_tuple_is_an_error() -> None:
    trials = load_trials(SAMPLE)
    with pytest.raises(BenchlabError, match="no complete tuple"):
        score_worldsense(trials, {("basic", "p1"): [ResultLine(Key=trials[0].Key, resp="TRUE")]})


def test_cell_formatting_keeps_the_originals_quirks() -> None:
    assert format_cell(-0.0004, 0.003, scale=1.0) == "-0.00 (0.01)"
    assert format_cell(0.451, float("nan")) == "45.1 (nan)"
    assert format_cell(1.0, 0.0) == "100.0 (0.0)"
    with pytest.raises(ValueError):
        format_cell(0.5, 0.1, scale=10.0)


def test_empty_answer_is_wrong_but_neutral_for_bias() -> None:
    """Trap 5: in a TRUE/FALSE tuple answered ("TRUE", ""), acc = 0.5 and bias = +0.5 (the "" weight stays in W)."""
    trials = load_trials(SAMPLE)
    pair = next(ts for ts in _tuples(trials) if ts[0].problemname == "Infer.normal")
    lines = [ResultLine(Key=pair[0].Key, resp="TRUE" if pair[0].goldresp == "TRUE" else "FALSE"),
             ResultLine(Key=pair[1].Key, resp="")]
    tables = score_worldsense(trials, {("basic", "p1"): lines})
    row = tables.tuples.iloc[0]
    expected_bias = 0.5 if pair[0].goldresp == "TRUE" else -0.5
    assert (row["acc"], row["bias"]) == (0.5, expected_bias)
    compl = next(ts for ts in _tuples(trials) if ts[0].problemname == "Compl.normal")
    gold = {t.Key: t.goldresp for t in compl}
    lines = [ResultLine(Key=t.Key, resp="" if gold[t.Key] == "3" else "2") for t in compl]
    row = score_worldsense(trials, {("basic", "p1"): lines}).tuples.iloc[0]
    assert (row["acc"], row["bias"]) == (0.5, 0.5)  # 0.25 + 0.25 correct and signed +1; "" on gold 3 adds nothing


def _tuples(trials: list[Trial]) -> list[list[Trial]]:
    return list(tuples_of(trials).values())
