"""Issue 23 item 13, "some errors lack a line number": every error about a file's content names the file and the
line a person edits (for TOML and JSON, the line of the key or value the schema refused, found after parsing). Each
case below printed the file without a line (or the wrong line: a question's first line for a field further down)
before; the command a user types, or the reader it calls, must now say ``FILE:LINE:``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchlab.annotations.exclusions.dataset import load_data
from benchlab.annotations.fastbook.assignment import read_plan
from benchlab.annotations.fastbook.progress import CuratorQueue
from benchlab.annotations.fastbook.review import Review
from benchlab.annotations.registry import registry
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.study import load_study
from benchlab.annotations.trial_export import ExportTrialsOptions, export_trials
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook import locate
from benchlab.data.fastbook.benchmark import load_benchmark, loads_benchmark
from benchlab.data.fastbook.imports import read_positional_json
from benchlab.data.key_lines import json_line, toml_line
from benchlab.data.models.inspect_logs import read_inspect_log
from benchlab.data.models.provenance import read_runs
from benchlab.data.sort import loaders
from benchlab.data.sort import results as sort_results
from benchlab.tui.cli import main
from tests.test_study import STUDY as TWO_ARMS

STUDY = TWO_ARMS.replace("{rule}", "balanced")
ONLINE = """
[online]
platform = "prolific"

[online.completion.completed]
code = "DONE1"
"""


def _study(tmp: Path, text: str) -> Path:
    (tmp / "st").mkdir()
    (tmp / "st" / "study.toml").write_text(text)
    return tmp / "st"


def study_unknown_outcome(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY + ONLINE + '\n[online.completion.finished]\ncode = "X"\n')
    return lambda: load_study(folder, registry()), folder / "study.toml", 25  # its table header


def study_online_rule(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY + ONLINE.replace('code = "DONE1"', ""))
    return lambda: load_study(folder, registry()), folder / "study.toml", 19  # [online]: completed needs a code


def study_unknown_table(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY.replace("[[arms]]", "[[arm]]"))
    return lambda: load_study(folder, registry()), folder / "study.toml", 8


def participants_bad_bytes(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY.replace('"balanced"', '"participants-file"') + 'participants_file = "people.csv"\n')
    (folder / "people.csv").write_bytes(b"participant,arm\nP01,stm\nP\xff2,stm\n")
    return lambda: load_study(folder, registry()).participants_list(), folder / "people.csv", 3


def assignments_bad_bytes(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY)
    (folder / "assignments.jsonl").write_bytes(b'{"participant": "P01", "session": "1", "arm": "stm"}\n{"p\xff"}\n')
    return lambda: load_study(folder, registry()).assignments(), folder / "assignments.jsonl", 2


def plan_bad_field(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    plan = {"task": "t", "participant": "P01", "session": "1", "seed": "x", "dataset": "d", "practice": [],
            "blocks": []}
    path = tmp / "p.plan.json"
    path.write_text(json.dumps(plan, indent=2))
    return lambda: SessionPlan.load(path), path, 5


def fastbook_bad_field(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    lines = locate.sample_benchmark_path().read_text().splitlines()
    assert '"explicit_context": "true"' in lines[15 - 1]  # of the first component, 12 lines below its question
    lines[15 - 1] = lines[15 - 1].replace('"true"', '"perhaps"')
    path = tmp / "bench.json"
    path.write_text("\n".join(lines))
    return lambda: load_benchmark(path), path, 15


def fastbook_results_item(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    bench = loads_benchmark(locate.sample_benchmark_path().read_text())
    items: list[object] = [["a passage"] for _ in range(len(bench))]
    items[2] = {"not": "a list"}
    path = tmp / "run.json"
    path.write_text(json.dumps(items, indent=1))
    return lambda: read_positional_json(path, bench), path, json.dumps(items, indent=1).splitlines().index(" {") + 1


def fastbook_progress(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    bench_path = tmp / "bench.json"
    bench_path.write_text(locate.sample_benchmark_path().read_text())
    plan = tmp / "plan.csv"
    plan.write_text("curator,chapter,question_number\nada,1,1\n")
    progress = tmp / "bench.json.progress.json"
    progress.write_text('{\n "version": 1,\n "curators": {\n  "ada": {\n   "done": [[1, 1]],\n   "touched": "all"\n'
                        '  }\n }\n}\n')
    bench = load_benchmark(bench_path)
    return lambda: CuratorQueue.open(plan, bench_path, bench, "ada"), progress, 6


def fastbook_plan_bytes(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    plan = tmp / "plan.csv"
    plan.write_bytes(b"curator,chapter,question_number\nada,1,1\nb\xe9a,1,2\n")
    return lambda: read_plan(plan), plan, 3


def review_other_question(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    text = locate.sample_benchmark_path().read_text()
    data = json.loads(text)
    a, b = tmp / "a.json", tmp / "b.json"
    a.write_text(text)
    data["questions"][1]["question_text"] = "Another question?"
    b.write_text(json.dumps(data, indent=4))
    return lambda: Review.open(a, b, "me"), b, json_line(b.read_text(), ("questions", 1)) or 0


def booksort_csv_row(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    path = tmp / "books_x.csv"
    path.write_text("book_idx,title\n1,a\n2,b,extra\n")
    return lambda: loaders._read_csv(path, ["book_idx"]), path, 3


def sort_results_no_truth(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    path = tmp / "250-s20-human_P01_results.csv"
    path.write_text("trial_id,answer,distance_bin,book_idx,excerpt_idx\n1,A,0,3,4\n")
    return lambda: sort_results.read_results(path), path, 1  # its header lacks every ground-truth column


def damaged_plan_in_a_study(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    folder = _study(tmp, STUDY)
    plan = folder / "sessions" / "human_P01_session-1.plan.json"
    plan.parent.mkdir()
    plan.write_text('{\n  "task": "sort",\n  "seed": 1,,\n}\n')
    return lambda: load_data([folder]), plan, 3


def export_with_a_damaged_plan(tmp: Path) -> tuple[Callable[[], object], Path, int]:
    results, sessions = tmp / "lab" / "results", tmp / "lab" / "sessions"
    results.mkdir(parents=True)
    sessions.mkdir()
    (results / "basic___human-P01___results.jsonl").write_text("")
    plan = sessions / "human-P01_session-1.plan.json"
    plan.write_text('{\n  "task": "worldsense",\n  "seed": "x"\n}\n')  # cut: no participant (its object's line)

    return lambda: export_trials(ExportTrialsOptions(benchmark="worldsense", paths=(results,))), plan, 1


CASES = [study_unknown_outcome, study_online_rule, study_unknown_table, participants_bad_bytes, assignments_bad_bytes,
         plan_bad_field, fastbook_bad_field, fastbook_results_item, fastbook_progress, fastbook_plan_bytes,
         review_other_question, booksort_csv_row, sort_results_no_truth, damaged_plan_in_a_study,
         export_with_a_damaged_plan]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_the_error_names_the_file_and_the_line(tmp_path: Path,
                                               case: Callable[[Path], tuple[Callable[[], object], Path, int]]) -> None:
    act, path, line = case(tmp_path)
    with pytest.raises(BenchlabError) as caught:
        act()
    assert (caught.value.path, caught.value.line) == (path, line), str(caught.value)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_the_study_command_prints_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same error as the user sees it: one line, ``FILE:LINE: message``, exit 2, no traceback."""
    folder = _study(tmp_path, STUDY + ONLINE + '\n[online.completion.finished]\ncode = "X"\n')
    with pytest.raises(SystemExit) as exited:
        main(["study", "show", str(folder)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and f"{folder / 'study.toml'}:25: online.completion" in err
    assert "Traceback" not in err and "'finished'" in err


def test_the_locators_fall_back_to_the_enclosing_table_or_value() -> None:
    text = '[a]\nx = 1\n\n[[b]]\nname = "one"\n[[b]]\nname = "two"\nopts = { k = 1 }\n'
    assert toml_line(text, ("b", 1, "name")) == 7 and toml_line(text, ("b", 1, "opts", "k")) == 8
    assert toml_line(text, ("a", "missing")) == 1 and toml_line(text, ("zzz",)) is None
    doc = '{\n "q": [\n  {"k": 1},\n  {\n   "k": "x\\"y"\n  }\n ]\n}'
    assert json_line(doc, ("q", 1, "k")) == 5 and json_line(doc, ("q", 1, "absent")) == 4
    assert json_line('{"q": [1,', ("q",)) is None  # cut JSON: no line rather than a wrong one


def test_model_run_and_inspect_log_errors_name_the_line(tmp_path: Path) -> None:
    """A model run file with a field of the wrong type, and an inspect ``.json`` log with a sample without an id:
    both used to name the file only."""
    runs = tmp_path / "models"
    runs.mkdir()
    (runs / "m.run.json").write_text('{\n "task": "t",\n "model": "p/m",\n "model_name": "m",\n'
                                     ' "requests": "many"\n}\n', encoding="utf-8")
    with pytest.raises(BenchlabError) as caught:
        read_runs(runs)
    assert caught.value.line == 5 and "requests" in str(caught.value)

    log = tmp_path / "log.json"
    log.write_text('{\n "eval": {"task": "t", "model": "p/m"},\n "samples": [\n  {"id": "a", "output": {}},\n'
                   '  {"output": {}}\n ]\n}\n', encoding="utf-8")
    with pytest.raises(BenchlabError) as caught:
        read_inspect_log(log)
    assert caught.value.line == 5 and "without an id" in str(caught.value)
