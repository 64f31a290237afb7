"""``benchlab models``: the benchmarks' own prompts and parsers, the cached run through inspect_ai (its ``mockllm``
provider with fixed answers stands in for a model here; tests/test_models_smollm2.py runs a real one), imports of
inspect and lm-eval logs, people exported as inspect logs, and bad input as one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from benchlab.annotations.choice.model_prompts import parse_choice, render
from benchlab.annotations.models.importing import import_log
from benchlab.annotations.models.items import select_items
from benchlab.annotations.models.run import ModelRunRequest, RunSummary, run_model
from benchlab.annotations.registry import registry
from benchlab.annotations.sort.model_prompts import parse_sort, sort_messages
from benchlab.annotations.worldsense.model_prompts import parse_worldsense
from benchlab.data.choice.items import ChoiceItem
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256
from benchlab.data.models.provenance import RunProvenance
from benchlab.data.sort.records import BookSortRecord
from benchlab.tui.cli import main


def cli(*args: str) -> tuple[int, str]:
    """Run ``benchlab ARGS`` as the entry point does (exit 2 and one line for bad input)."""
    runner = CliRunner()
    result = runner.invoke(click.Command("benchlab", callback=lambda: main(list(args))), [])
    return result.exit_code, result.output


def simulate(task: str, out: Path, participant: str = "P01") -> Path:
    code, output = cli("run", task, "--participant", participant, "--simulate", "random", "--out", str(out))
    assert code == 0, output
    return out


def mock(answers: list[str]) -> Model:
    """inspect's mockllm answering ``answers`` in order (usage given, so it counts no tokens)."""
    outputs = []
    for text in answers:
        output = ModelOutput.from_content("mockllm/model", text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(output)
    return get_model("mockllm/model", custom_outputs=outputs)


def run(task: str, plans: Path, answers: list[str], limit: int, template: str) -> RunSummary:
    chosen = registry().get(task)
    selection = select_items(chosen, template=template, plans=plans, limit=limit)
    return run_model(ModelRunRequest(task=chosen, model="mockllm/model", selection=selection, template=template,
                                     inspect_model=mock(answers), max_connections=1))


# -- the benchmarks' own prompts and parsers --------------------------------------------------------------------

def test_worldsense_parser_takes_only_an_unambiguous_option() -> None:
    tf, pi, num = ("TRUE", "FALSE"), ("POSSIBLE", "IMPOSSIBLE"), ("1", "2", "3")
    assert parse_worldsense(tf, " true.") == "TRUE"
    assert parse_worldsense(num, "(2)") == "2"
    assert parse_worldsense(pi, "It is IMPOSSIBLE.") == "IMPOSSIBLE"  # not read as POSSIBLE
    assert parse_worldsense(tf, "TRUE or FALSE") == ""
    assert parse_worldsense(tf, "") == ""


def test_sort_prompt_is_the_papers_concatenation_and_order() -> None:
    record = BookSortRecord(book_idx=1, book_title="A Book", num_words=100, excerpt_idx=0, excerpt_pos=0.0,
                            excerpt_text="one two way", segment_1="early", segment_2="late", seg1_pos=0, seg2_pos=5,
                            distance_bin=10, present_seg1_first=0, excerpt_length=50, segment_length=1)
    (role_s, system), (role_u, user) = sort_messages(record, "prompt_2", "stm")
    assert (role_s, role_u) == ("system", "user") and system == "You are a helpful, respectful and honest assistant."
    assert "The passage is as follows: one two wayYour task is to recall" in user  # no separator, as the code does
    assert "Segment A: late Segment B: early\n Which of these, A or B, was first in the book A Book?" in user
    ltm = sort_messages(record, "prompt_2", "ltm")[1][1]
    assert ltm.startswith("Your task is to recall") and "one two way" not in ltm
    assert parse_sort("B", None) == "B" and parse_sort("a", None) == "A" and parse_sort("A or B", None) == "X"
    assert parse_sort("whatever", {" A": -0.1, "B": -2.0}) == "A"  # first-token log-probabilities win


def test_choice_template_fields_and_parser() -> None:
    item = ChoiceItem(id="n1", text="Which is larger?", options=("17", "71"), gold="71")
    assert "1. 17\n2. 71" in render("{text}\n{numbered_options}", item)
    with pytest.raises(BenchlabError, match=r"uses the field \{colour\}"):
        render("{text} {colour}", item)
    assert parse_choice(("17", "71"), "71.") == "71" and parse_choice(("17", "71"), "2") == "71"
    assert parse_choice(("17", "71"), "17 or 71") == ""


# -- a run: cached, resumable, provenance, the benchmark's own files ----------------------------------------------

def test_worldsense_run_writes_results_provenance_and_resumes_from_the_cache(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    first = run("worldsense", plans, ["TRUE", "FALSE", "POSSIBLE", "1"], limit=4, template="basic")
    assert first.cached == 0 and 2 <= first.asked <= 4  # whole tuples only: 4 items or fewer
    # a rerun of more items asks only the new ones (the mock has an answer for each of the 9, so the count of
    # requests below is what shows that the cached ones were not asked again)
    second = run("worldsense", plans, ["IMPOSSIBLE", "2", "TRUE", "FALSE", "1", "3", "TRUE", "2", "FALSE"], limit=9,
                 template="basic")
    assert second.cached == first.asked and second.asked == second.total - first.asked > 0
    # nothing new: nothing asked, inspect not even started (no model answers at all)
    third = run("worldsense", plans, [], limit=9, template="basic")
    assert (third.asked, third.cached) == (0, second.total)
    results = tmp_path / "ws" / "results" / "basic___model___results.jsonl"
    assert second.results == [results]
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == second.total and len({line["Key"] for line in lines}) == second.total
    assert all(set(line) == {"Key", "resp"} for line in lines)
    prov = RunProvenance.model_validate_json(second.provenance.read_text())
    assert prov.model == "mockllm/model" and prov.versions["inspect_ai"] and prov.generation["temperature"] == 0.0
    # the prompt hashes are those the people's records carry for the same items
    human = {str(r["Key"]): r["prompt_sha256"] for r in map(json.loads, next(
        (tmp_path / "ws" / "results").glob("*human-P01*")).read_text().splitlines())}
    assert all(human[i.id] == i.prompt_sha256 for i in prov.items)
    log = read_eval_log(str(first.logs[0]))
    assert log.eval.model == "mockllm/model" and len(log.samples or []) == first.asked


def test_sort_run_writes_the_columns_sorts_code_writes_and_score_reads_it(tmp_path: Path) -> None:
    plans = simulate("sort", tmp_path / "sort")
    summary = run("sort", plans, ["A", "B", "Segment B", "nonsense"], limit=4, template="prompt_2")
    (path,) = summary.results
    header = path.read_text().splitlines()[0].split(",")
    assert header == ["", "index", "book_idx", "excerpt_idx", "segment_idx", "seg1_pos", "seg2_pos", "distance_bin",
                      "present_seg1_first", "excerpt_pos", "excerpt_text", "book_title", "num_words",
                      "segment_length", "excerpt_length", "data", "prob_A", "prob_B", "raw_answer", "model_name",
                      "A_is_first", "answer", "prompt_logprob_jsons", "parsed_raw_answer", "ground_truth", "correct"]
    code, output = cli("score", "sort", str(tmp_path / "sort" / "results"))
    assert code == 0, output
    assert "model" in output and "human-P01" in output


# -- import --------------------------------------------------------------------------------------------------------

def test_inspect_log_and_lm_eval_samples_import_as_results(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    summary = run("worldsense", plans, ["TRUE", "FALSE", "1"], limit=3, template="basic")
    task = registry().get("worldsense")
    selection = select_items(task, template="basic", plans=plans, out=tmp_path / "imported" / "results")
    done = import_log(task, summary.logs[0], selection, template="basic", model_name="again")
    assert done.answers == summary.total and done.prompt_differs == 0
    again = (tmp_path / "imported" / "results" / "basic___again___results.jsonl").read_text()
    assert again == summary.results[0].read_text()
    # lm-eval: doc ids are the items' Keys in doc["Key"]; two repeats of one document are epochs
    ids = [i.id for i in selection.items[:2]]
    samples = tmp_path / "samples_ws.jsonl"
    samples.write_text("".join(json.dumps({"doc_id": n, "doc": {"Key": int(i)}, "filter": "none",
                                           "resps": [["TRUE", "FALSE"]], "filtered_resps": ["TRUE", "FALSE"]}) + "\n"
                               for n, i in enumerate(ids)))
    per_epoch = import_log(task, samples, selection, template="basic", model_name="lm", epochs="per-epoch")
    assert sorted(p.name for p in per_epoch.results) == ["basic___lm@e1___results.jsonl",
                                                         "basic___lm@e2___results.jsonl"]
    # a document twice under one filter, and a log of other items, are refused naming the file
    samples.write_text(samples.read_text().splitlines()[0] + "\n" + samples.read_text().splitlines()[0] + "\n")
    with pytest.raises(BenchlabError, match=r"samples_ws.jsonl:2: document .* appears twice"):
        import_log(task, samples, selection, template="basic")
    samples.write_text(json.dumps({"doc_id": 0, "doc": {"id": "nope"}, "filtered_resps": ["TRUE"]}) + "\n")
    with pytest.raises(BenchlabError, match=r"samples_ws.jsonl: none of the log's 1 sample ids"):
        import_log(task, samples, selection, template="basic")


def test_import_reads_only_the_selected_items_and_counts_the_others(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    summary = run("worldsense", plans, ["TRUE", "FALSE", "1", "2", "3", "TRUE"], limit=6, template="basic")
    task = registry().get("worldsense")
    fewer = select_items(task, template="basic", plans=plans, limit=1, out=tmp_path / "few" / "results")
    assert 0 < len(fewer.items) < summary.total
    part = import_log(task, summary.logs[0], fewer, template="basic", model_name="few")
    assert part.answers == len(fewer.items) and part.left_out == summary.total - len(fewer.items)
    written = (tmp_path / "few" / "results" / "basic___few___results.jsonl").read_text().splitlines()
    assert sorted(str(json.loads(x)["Key"]) for x in written) == sorted(i.id for i in fewer.items)
    # --all builds only the log's items (not the whole data set) and imports every answer
    code, output = cli("models", "import", "worldsense", str(summary.logs[0]), "--out", str(tmp_path / "all"))
    assert code == 0 and f"imported {summary.total} answers" in output and "left out" not in output


def test_log_of_another_task_is_refused(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    summary = run("worldsense", plans, ["TRUE"] * 3, limit=1, template="basic")  # one whole tuple
    code, output = cli("models", "import", "sort", str(summary.logs[0]))
    assert code == 2 and "is a run of the task 'worldsense', not 'sort'" in output and "Traceback" not in output


# -- export of people ------------------------------------------------------------------------------------------------

def test_people_exported_as_inspect_logs_read_back(tmp_path: Path) -> None:
    simulate("sort", tmp_path / "sort")
    code, output = cli("models", "export", "sort", str(tmp_path / "sort" / "results"), "--out", str(tmp_path / "x"))
    assert code == 0, output
    log = read_eval_log(str(tmp_path / "x" / "P01.eval"))
    assert log.eval.model == "human/P01" and log.eval.task == "benchlab_sort"
    samples = log.samples or []
    assert samples and all(s.scores and s.scores["benchlab"].value in ("C", "I") for s in samples)
    first = samples[0]
    assert first.metadata["prompt_sha256"] == prompt_sha256([(m.role, m.text) for m in first.input])  # type: ignore[union-attr]
    assert first.metadata["rt_ms"] is not None


# -- bad input ---------------------------------------------------------------------------------------------------------

def test_unreachable_endpoint_and_unknown_template_are_one_line(tmp_path: Path) -> None:
    plans = simulate("worldsense", tmp_path / "ws")
    code, output = cli("models", "run", "worldsense", "--model", "openai-api/local/x", "--model-base-url",
                       "http://127.0.0.1:9/v1", "--plans", str(plans), "--limit", "2")
    assert code == 2 and "cannot reach http://127.0.0.1:9/v1" in output and "Traceback" not in output
    code, output = cli("models", "run", "worldsense", "--model", "mockllm/model", "--plans", str(plans),
                       "--template", "fancy")
    assert code == 2 and "unknown prompt template 'fancy'" in output
    code, output = cli("models", "run", "worldsense", "--model", "mockllm/model")
    assert code == 2 and "--study DIR, --plans DIR or --all" in output
