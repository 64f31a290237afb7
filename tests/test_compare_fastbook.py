"""Curator agreement on fastbook contexts: which components differ, word overlap, flag kappa; and the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from benchlab.data.fastbook.agreement import curator_agreement
from benchlab.data.fastbook.benchmark import loads_benchmark
from benchlab.tui.cli import main


def run_cli(args: list[str]) -> int:
    """Run ``benchlab`` in-process; the exit code (0 when it returns normally)."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def _question(chapter: int, number: int, components: list[dict[str, object]]) -> dict[str, object]:
    return {"chapter": chapter, "question_number": number, "question_text": f'"Q{number}?"',
            "gold_standard_answer": '"A."', "answer_context": components, "question_context": []}


def _component(context: list[str], explicit: str = "true", extraneous: str = "false") -> dict[str, object]:
    return {"answer_component": '"part"', "scoring_type": "simple", "context": context,
            "explicit_context": explicit, "extraneous_answer": extraneous}


BASE = {"questions": [
    _question(1, 1, [_component(["one two three four five six seven eight nine ten"])]),
    _question(1, 2, [_component(["alpha beta gamma delta"]), _component(["x y"], explicit="false")]),
    _question(1, 3, [_component(["p q r s"])]),
    _question(2, 1, [_component(["same text here"])]),
]}


def _edited() -> dict[str, object]:
    data = copy.deepcopy(BASE)
    qs = data["questions"]
    assert isinstance(qs, list)
    # curator B trims the first passage to its first half, flips a flag, drops a component and a question
    qs[0]["answer_context"][0]["context"] = ["one two three four five"]
    qs[1]["answer_context"][1]["explicit_context"] = "true"
    qs[2]["answer_context"] = []
    qs.append(_question(2, 2, [_component([])]))
    return data


def test_agreement_hand_computed() -> None:
    a = loads_benchmark(json.dumps(BASE, indent=4))
    b = loads_benchmark(json.dumps(_edited(), indent=4))
    res = curator_agreement(a, b)
    assert len(res.components) == 4  # (1,1,0) (1,2,0) (1,2,1) (2,1,0); (1,3,0) exists only in A
    assert res.only_in_a == ["chapter 1 question 3 component 0"]
    assert res.only_in_b == ["chapter 2 question 2"]
    diff = {(c.qid.chapter, c.qid.question_number, c.index): c for c in res.differing}
    assert set(diff) == {(1, 1, 0), (1, 2, 1)}
    trimmed = diff[(1, 1, 0)]
    # 5 of A's 10 words kept: precision 1, recall .5, F1 = 2*5/15
    assert (trimmed.precision, trimmed.recall) == (1.0, 0.5)
    assert trimmed.f1 == pytest.approx(10 / 15)
    assert diff[(1, 2, 1)].what_differs == "explicit"
    pa, kappa = res.flag_agreement("explicit")
    assert pa == pytest.approx(3 / 4)
    # A: t,t,f,t  B: t,t,t,t -> p_o = .75, p_e = .75 -> kappa 0 (B never says "false")
    assert kappa == pytest.approx(0.0)


def test_reordered_passages_are_recognised() -> None:
    base = {"questions": [_question(1, 1, [_component(["a b", "c d"])])]}
    other = {"questions": [_question(1, 1, [_component(["c d", "a b"])])]}
    res = curator_agreement(loads_benchmark(json.dumps(base)), loads_benchmark(json.dumps(other)))
    (c,) = res.differing
    assert c.same_set and c.what_differs == "order"


def test_cli_markdown_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fa, fb = tmp_path / "alice.json", tmp_path / "bob.json"
    fa.write_text(json.dumps(BASE, indent=4))
    fb.write_text(json.dumps(_edited(), indent=4))
    assert run_cli(["compare", "fastbook", str(fa), str(fb), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| contexts differ | 1 (25.0%) |" in out
    assert "| 1 / 1 / 0 | contexts |" in out
    assert run_cli(["compare", "fastbook", str(fa), str(fb), "--format", "csv"]) == 0
    csv_out = capsys.readouterr().out
    assert "explicit_context: agreement / Cohen's kappa,0.750 / 0.000" in csv_out


def test_cli_bad_file_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE, indent=4))
    bad = tmp_path / "bad.json"
    bad.write_text('{"questions": [\n  {"chapter": 1,\n')
    assert run_cli(["compare", "fastbook", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchlab: error: ") and "bad.json" in err


def test_span_overlap_in_the_chapter_text() -> None:
    chapters = {1: "Intro. alpha beta gamma delta. x   y. one two three four five six seven eight nine ten. p q r s.",
                2: "same text here"}
    a = loads_benchmark(json.dumps(BASE, indent=4))
    b = loads_benchmark(json.dumps(_edited(), indent=4))
    res = curator_agreement(a, b, chapters=chapters)
    trimmed = next(c for c in res.components if (c.qid.chapter, c.qid.question_number) == (1, 1))
    full, part = "one two three four five six seven eight nine ten", "one two three four five"
    assert (trimmed.chars_a, trimmed.chars_b, trimmed.chars_shared) == (len(full), len(part), len(part))
    assert trimmed.span_f1 == pytest.approx(2 * len(part) / (len(full) + len(part)))
    # "x y" is found although the chapter has three spaces between the words
    xy = next(c for c in res.components if (c.qid.question_number, c.index) == (2, 1))
    assert xy.unlocated == 0 and xy.chars_a == len("x   y")
    summary = dict(zip(res.summary_table().frame.index, res.summary_table().frame["value"], strict=True))
    assert summary["passages not found in their chapter"] == "0"
    assert "span F1" in res.differences_table().frame.columns


def test_real_benchmark_with_chapters(tmp_path: Path) -> None:
    from tests.conftest import full_data

    src = full_data("fastbook-benchmark", "fastbook-benchmark.json")
    chapters = full_data("fastbook-benchmark", "chapters")
    data = json.loads(src.read_text())
    comp = data["questions"][0]["answer_context"][0]
    text = comp["context"][0]
    comp["context"] = [text[: len(text) // 2]]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data, indent=4))
    assert run_cli(["compare", "fastbook", str(src), str(edited), "--chapters", str(chapters), "--format", "csv"]) == 0
    from benchlab.data.fastbook.agreement import compare_files

    res = compare_files(src, edited, chapters)
    (changed,) = res.differing
    assert (changed.qid.chapter, changed.qid.question_number) == (1, 1)
    assert changed.chars_shared == changed.chars_b and 0 < changed.span_f1 < 1
    assert len(res.components) == 357
