"""Same items on both sides, in ``score`` as in ``compare`` (issue 20): a model beside people is scored on the items
(WorldSense: tuples) people answered, with what was left out on each side said; a model run sent another prompt
than the people's items map to is flagged from the SHA-256 hashes both sides record; ``--all-items`` turns it off.
Models are inspect's ``mockllm`` with fixed answers (tests/test_models_smollm2.py runs a real one)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from benchlab.annotations.choice.task import ChoiceTask
from benchlab.annotations.models.items import select_items
from benchlab.annotations.models.run import ModelRunRequest, run_model
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.models.provenance import RunProvenance
from benchlab.data.samples import sample_path
from tests.test_choice_task import run_simulated, task  # noqa: F401  (task: the example plug-in's, a fixture)
from tests.test_models_unit import cli, mock, run, simulate


def _spoil_first_prompt_hash(models: Path) -> str:
    """Make the run's recorded prompt of its first item another one (as a run with another template would)."""
    (path,) = models.glob("*.run.json")
    prov = RunProvenance.model_validate_json(path.read_text())
    prov.items[0].prompt_sha256 = "0" * 64
    path.write_text(prov.model_dump_json(indent=2))
    return prov.items[0].id


def test_score_worldsense_scores_models_on_the_peoples_tuples(tmp_path: Path) -> None:
    sample = sample_path("worldsense")
    plans = simulate("worldsense", tmp_path / "ws")
    people = {json.loads(x)["Key"] for x in next((plans / "results").glob("*human-P01*")).read_text().splitlines()}
    summary = run("worldsense", plans, ["TRUE", "FALSE", "POSSIBLE", "1", "2", "3"] * 2, limit=6, template="basic")
    asked = summary.total
    code, output = cli("score", "worldsense", "-t", str(sample), "--results", str(sample / "results"), "--results",
                       str(plans / "results"))
    assert code == 0, output
    # the published models answered every tuple of the sample; scored here on the people's tuples only
    match = re.search(r"GPT4: restricted to the (\d+) tuples both answered \(left out: (\d+) the model answered and "
                      r"no person did, 0 people answered and the model did not\)", output)
    assert match and int(match[2]) > 0 and int(match[1]) < 3 * len(people)
    # the model run asked a few of the people's tuples: the people's other tuples are said to be left out
    assert re.search(r"model: restricted to the \d+ tuples both answered \(left out: 0 the model answered and no "
                     r"person did, [1-9]\d* people answered and the model did not\)", output)
    assert f"model: same prompts as the people's items on all {asked} shared items (SHA-256)" in output
    every = cli("score", "worldsense", "-t", str(sample), "--results", str(sample / "results"), "--results",
                str(plans / "results"), "--all-items")[1]
    assert "restricted to" not in every and "same prompts" not in every
    assert _table_row(every, "GPT4") != _table_row(output, "GPT4")  # all 54 tuples vs the people's
    # a run whose recorded prompt differs from the people's item's is flagged, naming the item
    item = _spoil_first_prompt_hash(plans / "models")
    flagged = cli("score", "worldsense", "-t", str(sample), "--results", str(plans / "results"))[1]
    assert (f"model: the prompt sent differs from the people's items' prompt on 1 of {asked} shared items "
            f"(e.g. {item}; template 'basic'): not the same prompt") in flagged


def test_score_sort_scores_models_on_the_peoples_items(tmp_path: Path) -> None:
    plans = simulate("sort", tmp_path / "sort")
    run("sort", plans, ["A", "B", "A", "B"], limit=4, template="prompt_2")
    code, output = cli("score", "sort", str(plans / "results"), "--format", "csv")
    assert code == 0, output
    people = _rows_of(output, "human-P01")
    assert re.search(r"model: restricted to the 4 items both answered \(left out: 0 the model answered and no "
                     rf"person did, {people - 4} people answered and the model did not\)", output)
    assert "model: same prompts as the people's items on all 4 shared items (SHA-256)" in output
    # a second, "published" model that answered more items than the people: cut to theirs by default
    bigger = tmp_path / "more" / "250-s20-big_results.csv"
    bigger.parent.mkdir()
    rows = (plans / "results").glob("*-model_results.csv")
    text = next(rows).read_text().replace(",model,", ",big,")
    bigger.write_text(text + _other_items(text))
    both = cli("score", "sort", str(plans / "results"), str(bigger), "--format", "csv")[1]
    assert "big: restricted to the 4 items both answered (left out: 2 the model answered and no person did" in both
    assert _rows_of(both, "big") == 4
    assert _rows_of(cli("score", "sort", str(plans / "results"), str(bigger), "--all-items", "--format", "csv")[1],
                    "big") == 6
    item = _spoil_first_prompt_hash(plans / "models")
    flagged = cli("score", "sort", str(plans / "results"))[1]
    assert f"model: the prompt sent differs from the people's items' prompt on 1 of 4 shared items (e.g. {item};" \
        in flagged


def _table_row(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if re.search(rf"\b{re.escape(name)}\s", line))


def _rows_of(output: str, name: str) -> int:
    """The n of ``name``'s overall row in ``score sort --format csv``'s first table (warnings are other lines)."""
    rows = list(csv.reader(line for line in output.splitlines() if not line.startswith("benchlab:")))
    header = rows[0]
    row = next(r for r in rows[1:] if r[1].split()[0] == name and r[0].startswith("SORT accuracy (macro"))
    return int(row[header.index("n")])


def _other_items(csv_text: str) -> str:
    """Two more rows on items no person answered (another excerpt index)."""
    lines = csv_text.splitlines()
    header = lines[0].split(",")
    out = []
    for n, line in enumerate(lines[1:3]):
        cells = line.split(",")
        cells[header.index("excerpt_idx")] = str(9000 + n)
        cells[0] = str(100 + n)
        out.append(",".join(cells))
    return "".join(x + "\n" for x in out)


def test_choice_records_carry_hashes_and_compare_uses_the_same_items(task: ChoiceTask,  # noqa: F811
                                                                      tmp_path: Path) -> None:
    results = run_simulated(task, tmp_path, "P01")
    records = [json.loads(x) for x in results.read_text().splitlines()]
    selection = select_items(task, template="default", plans=tmp_path, limit=3)
    items = {i.id: i for i in select_items(task, template="default", plans=tmp_path).items}
    # each record carries the hash of what the person saw and of the item's model prompt, as the model run sends it
    assert len(records) == len(items) > 3
    for record in records:
        assert record["prompt_sha256"] == prompt_sha256(items[record["item"]].messages)
        assert record["stimulus_sha256"] == text_sha256(items[record["item"]].stimulus)
    run_model(ModelRunRequest(task=task, model="mockllm/model", selection=selection, template="default",
                              inspect_model=mock(["71", "2", "nonsense"]), max_connections=1))
    _score, compare = task.commands
    out = compare.run(compare.options(results=(tmp_path / "results",), n_boot=200))
    assert out is not None
    assert ("model: restricted to the 3 items both answered (left out: 0 the model answered and no person did, "
            f"{len(items) - 3} people answered and the model did not)") in out
    # the bundled models answered every item of the file: cut to the person's
    assert (f"more-digits: restricted to the {len(items)} items both answered (left out: "
            f"{24 - len(items)} the model answered and no person did, 0 people answered") in out
    assert "model: same prompts as the people's items on all 3 shared items (SHA-256)" in out
    item = _spoil_first_prompt_hash(tmp_path / "models")
    flagged = compare.run(compare.options(results=(tmp_path / "results",), n_boot=200))
    assert flagged is not None and f"differs from the people's items' prompt on 1 of 3 shared items (e.g. {item};" \
        in flagged
    every = compare.run(compare.options(results=(tmp_path / "results",), n_boot=200, all_items=True))
    assert every is not None and "restricted to" not in every and "prompt sent differs" not in every
