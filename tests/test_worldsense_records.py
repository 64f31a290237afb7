"""The public WorldSense records API: trials, results lines, the results writer/reader and the answer rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense import records, results, rules
from benchlab.data.worldsense.loader import load_testset, load_trials

BIG_KEY = -276741083417243227  # > 2**53 in magnitude: a float would change it

RAW_TRIAL = {
    "Key": BIG_KEY, "problemname": "Compl.trivial", "tuple_ID": "t1", "text": "Alice ... (1), (2), or (3).",
    "expectedresp": ["1", "2", "3"], "span": 2, "descr": "[(1, 2),(0, 1)]", "query": "(1, 0, 2)",
    "objects": ["economics", "history", "computer science"], "problemsize": 3, "skin": "courses",
    "qskin": "directQ2", "complexity": "Complexity_0", "query_len": 3, "goldresp_obfusc": "Mark",
}


def test_trial_deobfuscates_gold_and_keeps_exact_key() -> None:
    trial = records.Trial.model_validate(RAW_TRIAL)
    assert trial.goldresp == "1"
    assert type(trial.Key) is int and trial.Key == BIG_KEY
    assert int(float(BIG_KEY)) != BIG_KEY  # why Keys must never pass through floats
    assert "goldresp" not in repr(trial) and "Mark" not in repr(trial)
    assert trial.to_published()["goldresp_obfusc"] == "Mark"


def test_prompt_hides_the_gold_answer() -> None:
    prompt = records.Trial.model_validate(RAW_TRIAL).prompt()
    dumped = prompt.model_dump()
    assert "goldresp" not in dumped and "goldresp_obfusc" not in dumped
    assert dumped["expectedresp"] == ("1", "2", "3")


@pytest.mark.parametrize("bad_key", [float(BIG_KEY), str(BIG_KEY), True, 2**63])
def test_key_must_be_an_exact_int64(bad_key: object) -> None:
    with pytest.raises(ValueError):
        records.Trial.model_validate({**RAW_TRIAL, "Key": bad_key})


def test_unknown_obfuscated_gold_is_refused() -> None:
    with pytest.raises(ValueError, match="not one of expectedresp"):
        records.Trial.model_validate({**RAW_TRIAL, "goldresp_obfusc": "Nobody"})


def test_resp_is_strictly_a_string_and_extras_are_kept() -> None:
    line = records.ResultLine.model_validate({"Key": BIG_KEY, "resp": "1", "rt_ms": 812.5, "participant": "p01"})
    assert line.extras == {"rt_ms": 812.5, "participant": "p01"}
    with pytest.raises(ValueError):
        records.ResultLine.model_validate({"Key": BIG_KEY, "resp": 1})
    with pytest.raises(ValueError):
        records.ResultLine.model_validate({"Key": BIG_KEY, "resp": None})


def test_compl_options_1_and_2_are_both_correct_for_a_decidable_gold() -> None:
    assert rules.is_correct("2", "1") and rules.is_correct("1", "2")
    assert not rules.is_correct("3", "1")
    assert not rules.is_correct("", "TRUE") and not rules.is_correct("true", "TRUE")
    assert not rules.is_correct("(1)", "1") and not rules.is_correct(" TRUE", "TRUE")


def test_results_file_names_round_trip_and_bad_names_are_refused(tmp_path: Path) -> None:
    name = results.results_filename("basic", "p07")
    assert name == "basic___p07___results.jsonl"
    parsed = results.parse_results_filename(tmp_path / name)
    assert (parsed.prompting, parsed.modelname) == ("basic", "p07")
    with pytest.raises(BenchlabError):
        results.results_filename("basic", "a___b")
    with pytest.raises(BenchlabError, match="no other '___'"):
        results.parse_results_filename(tmp_path / "x___y___z___results.jsonl")


def test_append_then_read_back_exact_keys_and_string_resp(tmp_path: Path) -> None:
    path = tmp_path / "results" / results.results_filename("basic", "human-p01")
    results.append_result(path, BIG_KEY, "1", {"rt_ms": 950.25})
    results.append_result(path, 2747235547611487721, "")
    text = path.read_text()
    assert text.splitlines()[0] == f'{{"Key":{BIG_KEY},"resp":"1","rt_ms":950.25}}'
    lines = results.read_results(path)
    assert [(ln.Key, ln.resp) for ln in lines] == [(BIG_KEY, "1"), (2747235547611487721, "")]
    assert lines[0].extras == {"rt_ms": 950.25}
    assert results.answered_keys(path) == {BIG_KEY, 2747235547611487721}


def test_write_results_is_atomic_and_refuses_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "basic___m___results.jsonl"
    assert results.write_results(path, [{"Key": 1, "resp": "TRUE"}, {"Key": 2, "resp": "FALSE", "x": 1}]) == 2
    before = path.read_text()
    with pytest.raises(BenchlabError, match="duplicate Key 1"):
        results.write_results(path, [{"Key": 1, "resp": "TRUE"}, {"Key": 1, "resp": "FALSE"}])
    assert path.read_text() == before  # the old file is untouched
    assert [json.loads(x) for x in before.splitlines()][1] == {"Key": 2, "resp": "FALSE", "x": 1}


def test_read_results_names_file_and_line_for_a_number_resp(tmp_path: Path) -> None:
    path = tmp_path / "basic___m___results.jsonl"
    path.write_text('{"Key":1,"resp":"1"}\n{"Key":2,"resp":2}\n')
    with pytest.raises(BenchlabError) as info:
        results.read_results(path)
    assert f"{path}:2:" in str(info.value) and "resp" in str(info.value)


def test_find_results_is_recursive(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "basic___m1___results.jsonl").write_text("")
    (tmp_path / "a" / "b" / "cot___m2___results.jsonl").write_text("")
    (tmp_path / "a" / "notes.jsonl").write_text("")
    found = results.find_results(tmp_path)
    assert sorted((f.prompting, f.modelname) for f in found) == [("basic", "m1"), ("cot", "m2")]


def _write_trials(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_load_trials_and_frame_keep_keys_as_int64(tmp_path: Path) -> None:
    rows = [RAW_TRIAL, {**RAW_TRIAL, "Key": 2747235547611487721, "goldresp_obfusc": "Youssef"}]
    _write_trials(tmp_path / "trials.jsonl", rows)
    trials = load_trials(tmp_path)
    assert [t.goldresp for t in trials] == ["1", "2"]
    frame = load_testset(tmp_path)
    assert frame.shape == (2, 17)
    assert str(frame["Key"].dtype) == "int64" and int(frame["Key"].iloc[0]) == BIG_KEY
    assert list(frame["EXP_i"]) == [0, 1] and set(frame["EXPNAME"]) == {tmp_path.name}


def test_load_trials_refuses_duplicate_keys_naming_both_lines(tmp_path: Path) -> None:
    _write_trials(tmp_path / "trials.jsonl", [RAW_TRIAL, RAW_TRIAL])
    with pytest.raises(BenchlabError, match=r"trials.jsonl:2: duplicate Key .* \(first on line 1\)"):
        load_trials(tmp_path)
