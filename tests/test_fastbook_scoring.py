"""Modified MRR@k / Recall@k exactly as the benchmark defines them, run files, and the published reference numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId, load_benchmark, loads_benchmark
from benchlab.data.fastbook.chapters import load_chapters
from benchlab.data.fastbook.runs import Run, read_run, write_run
from benchlab.data.fastbook.scoring import Scorer, modified_mrr, modified_recall, score_tables
from benchlab.data.tables import render
from tests.conftest import full_data

REFERENCE = Path(__file__).parent / "data" / "fastbook_reference_runs.json"
# spec §6 (repo-reported): run -> (MRR@10, Recall@10, MRR sum, Recall sum)
PUBLISHED = {
    "bm25_500": (0.50546, 0.85833, 96.54365, 163.94167),
    "single_vector_500": (0.43633, 0.80829, 83.33968, 154.38333),
    "colbertv2_500": (0.56310, 0.87321, 107.55119, 166.78333),
    "answerai_colbert_500": (0.57290, 0.86588, 109.42460, 165.38333),
}


def _component(*contexts: str, extraneous: str = "false") -> dict[str, Any]:
    return {"answer_component": "x", "scoring_type": "simple", "context": list(contexts),
            "explicit_context": "true" if contexts else "false", "extraneous_answer": extraneous}


def _bench(*questions: list[dict[str, Any]]) -> Benchmark:
    qs = [{"chapter": 1, "question_number": i + 1, "question_text": "q", "gold_standard_answer": "a",
           "answer_context": comps, "question_context": []} for i, comps in enumerate(questions)]
    return loads_benchmark(json.dumps({"questions": qs}))


def _score(bench: Benchmark, passages: list[str], k: int = 10) -> tuple[float, float]:
    run = Run("r", {QuestionId(1, 1): passages})
    s = Scorer(bench, k=k).score(run).questions[0]
    return s.mrr, s.recall


def test_mrr_is_the_rank_where_every_component_is_covered() -> None:
    bench = _bench([_component("alpha beta"), _component("gamma", "delta")])
    passages = ["nothing", "x alpha beta y", "zzz", "one delta two"]
    assert _score(bench, passages) == (0.25, 1.0)
    assert _score(bench, passages[:3]) == (0.0, 0.5)  # fewer passages than k: not padded, second never found


def test_only_the_first_k_passages_count() -> None:
    bench = _bench([_component("needle")])
    passages = [f"hay {i}" for i in range(10)] + ["needle"]
    assert _score(bench, passages) == (0.0, 0.0)
    assert _score(bench, passages, k=11) == (pytest.approx(1 / 11), 1.0)


def test_empty_context_forces_mrr_zero_but_counts_in_recall() -> None:
    bench = _bench([_component("found here"), _component()])
    assert _score(bench, ["found here"]) == (0.0, 0.5)


def test_flags_are_ignored_and_matching_is_case_sensitive_after_ftfy() -> None:
    bench = _bench([_component("it’s “quoted”", extraneous="true")])
    assert _score(bench, ["so it's \"quoted\" here"]) == (1.0, 1.0)  # curly quotes uncurled on both sides
    bench = _bench([_component("This means")])
    assert _score(bench, ["this means"]) == (0.0, 0.0)
    assert _score(bench, ["This\nmeans"]) == (0.0, 0.0)  # whitespace-sensitive too


def test_metric_edge_cases() -> None:
    assert modified_mrr([]) == 0.0 and modified_recall([]) == 0.0
    assert modified_mrr([1, 2, 5]) == 0.2
    assert modified_recall([1, None, 3, None]) == 0.5


def test_rescoring_sees_an_edit_of_the_benchmark() -> None:
    bench = _bench([_component("old text")])
    scorer = Scorer(bench)
    run = Run("r", {QuestionId(1, 1): ["some new text"]})
    assert scorer.score(run).mrr == 0.0
    bench.question((1, 1)).answer_context[0].context[0] = "new text"
    assert scorer.score(run).mrr == 1.0


def test_reference_runs_reproduce_every_published_number_and_per_question_score() -> None:
    root = full_data("fastbook-benchmark")
    bench = load_benchmark(root / "fastbook-benchmark.json")
    chapters = load_chapters(root, bench.chapters)
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    scorer = Scorer(bench, chapters)
    scores = []
    for name, rows in reference["runs"].items():
        run = Run(name, {QuestionId(ch, qn): [chapters[ch].chunks[i].text for i in idx] for ch, qn, idx in rows})
        score = scorer.score(run)
        mrr, recall, mrr_sum, recall_sum = PUBLISHED[name]
        assert round(score.mrr, 5) == mrr and round(score.recall, 5) == recall, name
        assert round(score.mrr_sum, 5) == mrr_sum and round(score.recall_sum, 5) == recall_sum, name
        expected = reference["scores"][name]
        assert [(round(q.mrr, 10), round(q.recall, 10)) for q in score.questions] == [tuple(x) for x in expected]
        scores.append(score)
    text = render(score_tables(scores), "csv")
    assert "bm25_500" in text and "answerai_colbert_500" in text and "0.5729" in text


def _tiny(tmp_path: Path) -> Benchmark:
    return _bench([_component("a")], [_component("b")])


def test_run_files_round_trip_and_name_missing_questions(tmp_path: Path) -> None:
    bench = _tiny(tmp_path)
    path = tmp_path / "run.jsonl"
    write_run(path, Run("r", {QuestionId(1, 2): ["b", "ä"]}))
    run = read_run(path, bench)
    assert run.name == "run" and run.passages((1, 2)) == ["b", "ä"]
    assert run.missing(bench) == [QuestionId(1, 1)]
    assert Scorer(bench).score(run).recall == 0.5  # the missing question scores 0


def test_run_naming_an_unknown_question_is_rejected_with_file_line_and_question(tmp_path: Path) -> None:
    bench = _tiny(tmp_path)
    path = tmp_path / "run.jsonl"
    path.write_text('{"chapter": 1, "question_number": 1, "passages": []}\n'
                    '{"chapter": 4, "question_number": 9, "passages": ["x"]}\n', encoding="utf-8")
    with pytest.raises(BenchlabError) as err:
        read_run(path, bench)
    assert err.value.path == path and err.value.line == 2 and "chapter 4 question 9 is not in the benchmark" in str(
        err.value)


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        ('{"chapter": 1, "question_number": 1, "passages": "x"}\n', "field 'passages'", 1),
        ('{"chapter": 1, "question_number": 1}\n', "missing field 'passages'", 1),
        ('{"chapter": 1, "question_number": 1, "passages": []}\n{"chapter": 1,\n', "not valid JSON", 2),
        ('{"chapter": 1, "question_number": 1, "passages": []}\n' * 2, "appears twice (first on line 1)", 2),
        ("", "no results", None),
    ],
)
def test_bad_run_files(tmp_path: Path, content: str, message: str, line: int | None) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BenchlabError) as err:
        read_run(path, _tiny(tmp_path))
    assert message in str(err.value) and err.value.line == line


def test_the_normaliser_fast_path_equals_ftfy_on_every_real_string() -> None:
    import ftfy

    from benchlab.data.fastbook.scoring import Normaliser

    root = full_data("fastbook-benchmark")
    bench = load_benchmark(root / "fastbook-benchmark.json")
    chapters = load_chapters(root, bench.chapters)
    texts = [ch.text for ch in chapters.values()] + [c.text for ch in chapters.values() for c in ch.chunks]
    texts += [x for q in bench for c in q.answer_context for x in c.context]
    texts += ["a &amp; b", "x\r\ny", "tab\there", "caf\u00e9 \u201cq\u201d", "<b>\n&copy; \u00e9\n",
              "&copy; \u00e9\n<b>", "\u00e2\u20ac\u201d mojibake \u00c3\u00a9"]
    fix = Normaliser()
    assert [fix(t) for t in texts] == [ftfy.fix_text(t) for t in texts]


def _reference_scores(question: dict[str, Any], passages: list[str], k: int) -> tuple[float, float]:
    """The definition of spec §5, written the naive way (ftfy on every pair), to check the fast scorer against."""
    import ftfy

    top = passages[:k]
    ranks: list[int | None] = []
    for comp in question["answer_context"]:
        hit = None
        for rank, passage in enumerate(top, start=1):
            if any(ftfy.fix_text(c) in ftfy.fix_text(passage) for c in comp["context"]):
                hit = rank
                break
        ranks.append(hit)
    mrr = 0.0 if not ranks or None in ranks else 1.0 / max(r for r in ranks if r is not None)
    recall = sum(r is not None for r in ranks) / len(ranks)
    return mrr, recall


_words = st.sampled_from(["alpha", "Beta", "“q”", "\"q\"", "gam\u00e9", "&amp;", "x\r\ny", "café", "-", " "])
_texts = st.lists(_words, min_size=1, max_size=4).map("".join)


@settings(max_examples=150, deadline=None)
@given(
    components=st.lists(st.lists(_texts, max_size=3), min_size=1, max_size=4),
    passages=st.lists(st.lists(_words, max_size=8).map("".join), max_size=12),
    k=st.integers(min_value=1, max_value=12),
)
def test_the_fast_scorer_equals_the_definition(components: list[list[str]], passages: list[str], k: int) -> None:
    question = {"chapter": 1, "question_number": 1, "question_text": "q", "gold_standard_answer": "a",
                "answer_context": [_component(*ctx) for ctx in components], "question_context": []}
    bench = loads_benchmark(json.dumps({"questions": [question]}))
    got = Scorer(bench, k=k).score(Run("r", {QuestionId(1, 1): passages})).questions[0]
    mrr, recall = _reference_scores(question, passages, k)
    assert got.mrr == pytest.approx(mrr) and got.recall == pytest.approx(recall)
