"""Files written by benchlab 0.1.0 (before the refactor) are read exactly, tabled the same and resumed in place.

The fixtures in ``tests/data/written_by_v0_1`` were written by the old version itself (its README names the
commands); a user's results, plans, event logs, locks, change logs and curated files from before an upgrade must
keep working. Every test copies them to ``tmp_path`` first. Records are compared field by field (and re-written
with the current writers, byte for byte), so a reader or writer that changes a format fails here, not in a lab.
"""

from __future__ import annotations

import csv
import fcntl
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchlab.annotations.fastbook.change_log import ChangeLog, ChangeRecord, log_path_for
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.edit_replay import edit_from_change
from benchlab.annotations.response_log import ResponseLog
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.sort.human_record import PREVIOUS_HUMAN_COLUMNS as HUMAN_COLUMNS_V0_1
from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.annotations.worldsense.human_record import HumanResponse
from benchlab.data.fastbook.benchmark import load_benchmark
from benchlab.data.fastbook.runs import read_run
from benchlab.data.sort.results import read_results as read_sort_results
from benchlab.data.worldsense.results import read_results as read_worldsense_results
from benchlab.tui.cli import main

OLD = Path(__file__).parent / "data" / "written_by_v0_1"
MANIFEST = json.loads((OLD / "expected" / "commands.json").read_text(encoding="utf-8"))
COMMANDS = MANIFEST["commands"]

WS_DONE = "worldsense/completed"
WS_KILLED = "worldsense/interrupted"
SORT_DONE = "sort/completed"
SORT_KILLED = "sort/interrupted"
WS_RESULTS = "results/basic___human-{p}___results.jsonl"
WS_PRACTICE = "practice/basic___human-{p}___practice.jsonl"
WS_PLAN = "sessions/human-{p}_session-1.plan.json"
WS_EVENTS = "sessions/human-{p}_session-1.events.jsonl"
SORT_RESULTS = "results/250-s20-human_{p}_results.csv"
SORT_PRACTICE = "practice/250-s20-human_{p}_practice.csv"
SORT_PLAN = "sessions/human_{p}_e250_s20_stm_session-1.plan.json"
SORT_EVENTS = "sessions/human_{p}_e250_s20_stm_session-1.events.jsonl"
FASTBOOK = "fastbook/fastbook-benchmark.json"


@pytest.fixture
def old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the old files; the working directory is its root (the commands use relative paths)."""
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    monkeypatch.chdir(root)
    return root


@dataclass(frozen=True)
class Ran:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def benchlab(capsys: pytest.CaptureFixture[str]) -> Callable[..., Ran]:
    """Run the ``benchlab`` command's entry point in this process (user errors: one line, exit 2)."""

    def run(*args: str) -> Ran:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def csv_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def plan_items(path: Path) -> list[str]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [item for block in raw["blocks"] for item in block]


# -- score and compare: the same tables as the old version printed ---------------------------------------------

@pytest.mark.parametrize("command", COMMANDS, ids=[c["name"] for c in COMMANDS])
def test_score_and_compare_print_exactly_what_the_old_version_printed(old: Path, benchlab: Callable[..., Ran],
                                                                      command: dict[str, Any],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(old / command.get("cwd", "."))
    result = benchlab(*command["args"])
    # absolute paths in the old output named the folder the fixtures were written in; here it is the copy
    expected_out, expected_err = (
        (OLD / "expected" / f"{command['name']}.{stream}").read_text(encoding="utf-8")
        .replace(MANIFEST["written_in"], str(old)) for stream in ("stdout", "stderr"))
    assert len(expected_out.splitlines()) >= 3  # real tables, not empty output compared with empty output
    assert result.exit_code == command["exit_code"], result.output
    if "csv" in command["args"] and expected_out.count("\n# ") >= 1:
        # Several tables as CSV: since issue 17 one tidy CSV that pandas reads (a ``table`` column, the union of
        # the columns) instead of "# title" sections; every table must still hold exactly the old cells.
        new, old_tables = tidy_csv_cells(result.stdout), sectioned_csv_cells(expected_out)
        assert list(new) == list(old_tables)
        for title, rows in new.items():  # the old sections start with one to three header lines, then the rows
            header_lines = len(old_tables[title]) - len(rows)
            assert old_tables[title][-len(rows):] == rows, title
            assert header_lines in (1, 2, 3) or rows == [[]], title  # a table without rows: its title line alone
    else:
        assert result.stdout == expected_out
    assert result.stderr == expected_err


def sectioned_csv_cells(text: str) -> dict[str, list[list[str]]]:
    """The old form of several tables: ``# title`` lines, each followed by its header lines and rows."""
    tables: dict[str, list[list[str]]] = {}
    for section in text.split("# ")[1:]:
        title, _, body = section.partition("\n")
        rows = list(csv.reader(body.strip("\n").splitlines()))
        tables[title] = [sorted(cell for cell in row if cell) for row in rows]
    return tables


def tidy_csv_cells(text: str) -> dict[str, list[list[str]]]:
    """The tidy form: a ``table`` column, then the union of the tables' columns (empty where a table has none)."""
    tables: dict[str, list[list[str]]] = {}
    for row in list(csv.reader(text.splitlines()))[1:]:
        tables.setdefault(row[0], []).append(sorted(cell for cell in row[1:] if cell))
    return tables


# -- WorldSense: results, practice, plan, events read field by field -----------------------------------------

@pytest.mark.parametrize(("folder", "participant", "n_main"), [(WS_DONE, "OLD1", 84), (WS_KILLED, "OLD2", 17)])
def test_worldsense_results_and_practice_read_field_by_field(old: Path, tmp_path: Path, folder: str, participant: str,
                                                             n_main: int) -> None:
    for pattern, n in ((WS_RESULTS, n_main), (WS_PRACTICE, 4)):
        path = old / folder / pattern.format(p=participant)
        raw = json_lines(path)
        assert len(raw) == n
        # the scorer's reader: Key and resp exact, every other field kept in file order
        lines = read_worldsense_results(path)
        assert [(line.Key, line.resp) for line in lines] == [(r["Key"], r["resp"]) for r in raw]
        assert [list(line.extras.items()) for line in lines] == [list(r.items())[2:] for r in raw]
        # the session's reader (what --resume sees) and the session's record model (what it writes)
        assert ResponseLog(path).peek() == raw
        for record in raw:
            dumped = HumanResponse.model_validate(record).model_dump(mode="python")
            assert list(dumped.items()) == list(record.items())
        # the session's writer writes the old records back byte for byte
        again = ResponseLog(tmp_path / folder / path.name)
        for record in raw:
            again.append(HumanResponse.model_validate(record))
        assert again.path.read_bytes() == path.read_bytes()
        assert ResponseLog(path).answered() == {str(r["Key"]) for r in raw}


@pytest.mark.parametrize(("folder", "plan_name"), [(WS_DONE, WS_PLAN.format(p="OLD1")),
                                                   (WS_KILLED, WS_PLAN.format(p="OLD2")),
                                                   (SORT_DONE, SORT_PLAN.format(p="OLD3")),
                                                   (SORT_KILLED, SORT_PLAN.format(p="OLD4"))])
def test_session_plans_load_field_by_field_and_save_byte_identically(old: Path, tmp_path: Path, folder: str,
                                                                     plan_name: str) -> None:
    path = old / folder / plan_name
    raw = json.loads(path.read_text(encoding="utf-8"))
    plan = SessionPlan.load(path)
    assert plan.model_dump(mode="json") == raw
    assert plan.main_items == plan_items(path)
    assert plan.practice == raw["practice"]
    assert plan.seed == raw["seed"]
    plan.save(tmp_path / "again.plan.json")
    assert (tmp_path / "again.plan.json").read_bytes() == path.read_bytes()


def test_a_new_run_refuses_to_overwrite_an_old_session(old: Path, benchlab: Callable[..., Ran]) -> None:
    """The current code sees the old records as answered: without --resume nothing is written twice."""
    before = (old / WS_KILLED / WS_RESULTS.format(p="OLD2")).read_bytes()
    result = benchlab("run", "worldsense", "--participant", "OLD2", "--simulate", "random", "--seed", "6",
                      "--out", WS_KILLED)
    assert result.exit_code == 2
    assert result.stderr.startswith("benchlab: error: ") and "add --resume" in result.stderr
    assert (old / WS_KILLED / WS_RESULTS.format(p="OLD2")).read_bytes() == before


def test_an_old_lock_held_by_a_live_session_is_respected_and_its_holder_named(old: Path,
                                                                             benchlab: Callable[..., Ran]) -> None:
    """The old lock file (the holder's pid) still keeps a second session out while its holder runs."""
    lock = old / WS_KILLED / "sessions" / ".human-OLD2.lock"
    results = old / WS_KILLED / WS_RESULTS.format(p="OLD2")
    before = results.read_bytes()
    pid = int(lock.read_text().strip())
    with open(lock, "rb+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the old holder, alive
        result = benchlab("run", "worldsense", "--participant", "OLD2", "--simulate", "random", "--seed", "6",
                          "--out", WS_KILLED, "--resume")
    assert result.exit_code == 2
    assert result.stderr.startswith("benchlab: error: ") and f"process {pid}" in result.stderr
    assert results.read_bytes() == before


def test_resuming_an_old_completed_session_records_nothing_more(old: Path, benchlab: Callable[..., Ran]) -> None:
    results = old / WS_DONE / WS_RESULTS.format(p="OLD1")
    before = results.read_bytes()
    result = benchlab("run", "worldsense", "--participant", "OLD1", "--simulate", "random", "--seed", "5",
                      "--out", WS_DONE, "--resume")
    assert result.exit_code == 0, result.output
    assert "84 of 84 scored trials recorded (0 in this run)" in result.output
    assert results.read_bytes() == before


@pytest.mark.parametrize(("task", "participant", "results", "done"), [
    ("worldsense", "DEF1", "benchlab-results/worldsense/sample/results/basic___human-DEF1___results.jsonl", 5),
    ("sort", "DEF2", "benchlab-results/sort/booksort/results/250-s20-human_DEF2_results.csv", 3),
])
def test_old_sessions_in_the_default_folder_resume_without_naming_it(old: Path, benchlab: Callable[..., Ran],
                                                                      monkeypatch: pytest.MonkeyPatch, task: str,
                                                                      participant: str, results: str,
                                                                      done: int) -> None:
    """An upgraded user types the same command plus --resume; the old default --out must still be found."""
    monkeypatch.chdir(old / "default_out")
    path = old / "default_out" / results
    before = path.read_bytes()
    result = benchlab("run", task, "--participant", participant, "--simulate", "random", "--seed", "7", "--resume")
    assert result.exit_code == 0, result.output
    planned = 84 if task == "worldsense" else 20
    assert f"{planned} of {planned} scored trials recorded ({planned - done} in this run)" in result.output
    assert path.read_bytes().startswith(before)
    assert sorted(p.relative_to(old / "default_out").as_posix() for p in (old / "default_out").rglob("*")
                  if p.is_file() and p.suffix != ".lock") == sorted(
        p.relative_to(OLD / "default_out").as_posix() for p in (OLD / "default_out").rglob("*")
        if p.is_file() and p.suffix != ".lock")  # no new files elsewhere: the same session was continued


def _event_shapes(path: Path) -> dict[str, list[str]]:
    return {e["event"]: list(e) for e in json_lines(path)}


def tear_last_line(path: Path) -> bytes:
    """Cut the file inside its last line (a kill during the write); returns the complete lines kept."""
    data = path.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: start + 40])
    return data[:start]


@pytest.mark.parametrize("torn", [False, True], ids=["killed-between-trials", "killed-while-writing"])
def test_worldsense_resume_continues_the_old_killed_session_at_its_next_trial(old: Path, benchlab: Callable[..., Ran],
                                                                            torn: bool) -> None:
    base = old / WS_KILLED
    results, practice = base / WS_RESULTS.format(p="OLD2"), base / WS_PRACTICE.format(p="OLD2")
    plan, events = base / WS_PLAN.format(p="OLD2"), base / WS_EVENTS.format(p="OLD2")
    lock = base / "sessions" / ".human-OLD2.lock"
    assert lock.exists()  # left by the SIGKILL, as after a real crash
    old_results, old_practice, old_plan, old_events = (p.read_bytes() for p in (results, practice, plan, events))
    if torn:
        old_results = tear_last_line(results)

    result = benchlab("run", "worldsense", "--participant", "OLD2", "--simulate", "random", "--seed", "6",
                      "--out", WS_KILLED, "--resume")

    assert result.exit_code == 0, result.output
    assert f"84 of 84 scored trials recorded ({68 if torn else 67} in this run)" in result.output
    assert "(0 in this run)" in result.output  # practice was complete: not shown again
    # nothing lost: the old bytes are untouched; nothing duplicated: one line per planned trial, in plan order
    assert results.read_bytes().startswith(old_results)
    records = json_lines(results)
    assert [str(r["Key"]) for r in records] == plan_items(plan)
    assert [r["trial_index"] for r in records] == list(range(84))
    # the new lines have the old lines' fields, in the same order (new ones, the item hashes, only at the end)
    old_fields = tuple(json_lines(old / WS_DONE / WS_RESULTS.format(p="OLD1"))[0])
    hashes = ("stimulus_sha256", "prompt_sha256")
    assert {tuple(r) for r in records} <= {old_fields, old_fields + hashes}
    assert practice.read_bytes() == old_practice
    assert plan.read_bytes() == old_plan
    assert events.read_bytes().startswith(old_events)
    new_events = json_lines(events)[len(old_events.splitlines()):]
    assert new_events[0]["event"] == "resumed"
    assert (new_events[0]["recorded"], new_events[0]["planned"]) == (16 if torn else 17, 84)
    assert new_events[-1]["event"] == "completed"
    old_shapes = _event_shapes(old / WS_DONE / WS_EVENTS.format(p="OLD1"))
    for event in new_events:
        name = "started" if event["event"] == "resumed" else event["event"]
        assert list(event) == old_shapes[name], event["event"]
    assert not lock.exists()
    # and it now scores as one complete participant
    scored = benchlab("score", "worldsense", "--sample", "--results", f"{WS_KILLED}/results")
    assert scored.exit_code == 0 and "human-OLD2" in scored.stdout and scored.stderr == ""


# -- SORT ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("folder", "participant", "n_main"), [(SORT_DONE, "OLD3", 20), (SORT_KILLED, "OLD4", 7)])
def test_sort_results_and_practice_read_field_by_field(old: Path, tmp_path: Path, folder: str, participant: str,
                                                       n_main: int) -> None:
    for pattern, n in ((SORT_RESULTS, n_main), (SORT_PRACTICE, 2)):
        path = old / folder / pattern.format(p=participant)
        header, rows = csv_rows(path)
        assert header == HUMAN_COLUMNS_V0_1  # v0.1's columns (design/seen_share were added at the end later)
        assert len(rows) == n
        # the session's reader (what --resume sees)
        assert SortResultsLog(path).peek() == rows
        # the session's writer writes the old rows back byte for byte (same columns, same cell formatting;
        # an empty cell is an absent value, i.e. the field's default) into a file of the old layout
        again = SortResultsLog(tmp_path / folder / path.name)
        again.path.parent.mkdir(parents=True, exist_ok=True)
        again.path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n")
        for row in rows:
            again.append(HumanSortRow.model_validate({k: v for k, v in row.items() if k and v != ""}))
        assert again.path.read_bytes() == path.read_bytes()
        # the scorer's reader
        frame = read_sort_results(path)
        assert len(frame) == n
        assert list(frame["answer"]) == [r["answer"] for r in rows]
        assert list(frame["ground_truth"]) == [r["ground_truth"] for r in rows]
        assert list(frame["correct"]) == [r["correct"] == "True" for r in rows]
        assert list(frame["participant"]) == [r["participant"] for r in rows]
        assert list(frame["practice"]) == [r["practice"] == "True" for r in rows]
        assert list(frame["distance_bin"]) == [int(r["distance_bin"]) for r in rows]
        assert list(frame["rt_ms"]) == pytest.approx([float(r["rt_ms"]) for r in rows])


@pytest.mark.parametrize("torn", [False, True], ids=["killed-between-trials", "killed-while-writing"])
def test_sort_resume_continues_the_old_killed_session_at_its_next_trial(old: Path, benchlab: Callable[..., Ran],
                                                                      torn: bool) -> None:
    base = old / SORT_KILLED
    results, practice = base / SORT_RESULTS.format(p="OLD4"), base / SORT_PRACTICE.format(p="OLD4")
    plan, events = base / SORT_PLAN.format(p="OLD4"), base / SORT_EVENTS.format(p="OLD4")
    lock = base / "sessions" / ".human_OLD4.lock"
    assert lock.exists()
    old_results, old_practice, old_plan, old_events = (p.read_bytes() for p in (results, practice, plan, events))
    if torn:
        old_results = tear_last_line(results)

    result = benchlab("run", "sort", "--participant", "OLD4", "--simulate", "random", "--seed", "6",
                      "--out", SORT_KILLED, "--resume")

    assert result.exit_code == 0, result.output
    assert f"20 of 20 scored trials recorded ({14 if torn else 13} in this run)" in result.output
    assert results.read_bytes().startswith(old_results)
    header, rows = csv_rows(results)
    assert header == HUMAN_COLUMNS_V0_1  # appended to in its own layout
    assert [r["trial_id"] for r in rows] == plan_items(plan)
    assert [r[""] for r in rows] == [str(i) for i in range(20)]
    assert [r["trial_index"] for r in rows] == [str(i) for i in range(20)]
    assert {r["participant"] for r in rows} == {"OLD4"} and {r["seed"] for r in rows} == {"6"}
    assert practice.read_bytes() == old_practice
    assert plan.read_bytes() == old_plan
    assert events.read_bytes().startswith(old_events)
    new_events = json_lines(events)[len(old_events.splitlines()):]
    assert new_events[0]["event"] == "resumed" and new_events[-1]["event"] == "completed"
    old_shapes = _event_shapes(old / SORT_DONE / SORT_EVENTS.format(p="OLD3"))
    for event in new_events:
        name = "started" if event["event"] == "resumed" else event["event"]
        assert list(event) == old_shapes[name], event["event"]
    assert not lock.exists()
    scored = benchlab("score", "sort", f"{SORT_KILLED}/results")
    assert scored.exit_code == 0 and "OLD4" in scored.stdout


# -- fastbook curation: benchmark files, change log, recovery, runs ---------------------------------------------

@pytest.mark.parametrize("name", [FASTBOOK, f"{FASTBOOK}.bak", "fastbook/after_unsaved_edits.json"])
def test_fastbook_benchmark_files_load_field_by_field_and_write_back_byte_identically(old: Path, tmp_path: Path,
                                                                                      name: str) -> None:
    path = old / name
    benchmark = load_benchmark(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert [q.to_json() for q in benchmark.questions] == raw["questions"]
    assert benchmark.dumps().encode("utf-8") == path.read_bytes()


def test_fastbook_change_log_reads_field_by_field_and_rewrites_byte_identically(old: Path, tmp_path: Path) -> None:
    path = log_path_for(old / FASTBOOK)
    raw = json_lines(path)
    records = ChangeLog(path).read()
    assert len(records) == len(raw) == 12
    for record, line in zip(records, raw, strict=True):
        for name in ChangeRecord.model_fields:
            assert getattr(record, name) == line.get(name), (line["action"], name)
    assert [r.action for r in records] == ["add_context", "replace_context", "set_flag", "add_question_context",
                                           "delete_context", "undo", "redo", "set_flag", "undo", "save",
                                           "set_question_component", "add_context"]
    again = ChangeLog(tmp_path / "again.changes.jsonl")
    for record in records:
        again.append(record)
    assert again.path.read_bytes() == path.read_bytes()


def test_replaying_the_old_change_log_on_the_backup_gives_the_old_saved_file(old: Path) -> None:
    """The log's promise: its edit, undo and redo lines, replayed on the file as loaded, give the saved file."""
    benchmark = load_benchmark(old / f"{FASTBOOK}.bak")
    for record in ChangeLog(log_path_for(old / FASTBOOK)).read():
        if record.action == "save":
            break
        assert record.field is not None and record.chapter is not None and record.question_number is not None
        qid = (record.chapter, record.question_number)
        question = benchmark.question(qid)
        edit_from_change(qid, record.field, record.before, record.after, question).apply(question)
    assert benchmark.dumps().encode("utf-8") == (old / FASTBOOK).read_bytes()


def test_the_editor_recovers_the_old_crashed_sessions_unsaved_edits(old: Path) -> None:
    path = old / FASTBOOK
    saved = path.read_bytes()
    session = CurationSession.open(path, curator="carol")
    pending = session.unsaved_in_log()
    assert [(r.curator, r.session, r.action) for r in pending] == [
        ("bob", "b0b0b0b0", "set_question_component"), ("bob", "b0b0b0b0", "add_context")]
    assert session.recover(pending) == 2
    session.save()
    assert path.read_bytes() == (old / "fastbook/after_unsaved_edits.json").read_bytes()
    assert (old / f"{FASTBOOK}.bak").read_bytes() == saved
    log = json_lines(log_path_for(path))
    assert [(e["curator"], e["action"]) for e in log[12:]] == [
        ("carol", "set_question_component"), ("carol", "add_context"), ("carol", "save")]
    assert [list(e) for e in log[12:14]] == [list(e) for e in log[10:12]]  # the same fields as the old lines


@pytest.mark.parametrize("name", ["fastbook/fts.jsonl", "fastbook/fts_question.jsonl"])
def test_fastbook_run_files_read_field_by_field(old: Path, name: str) -> None:
    raw = json_lines(old / name)
    run = read_run(old / name, load_benchmark(old / FASTBOOK))
    assert run.name == Path(name).stem
    assert len(raw) == 9
    assert {tuple(q): passages for q, passages in run.results.items()} == {
        (r["chapter"], r["question_number"]): r["passages"] for r in raw}
    assert all(list(r) == ["chapter", "question_number", "passages"] for r in raw)
