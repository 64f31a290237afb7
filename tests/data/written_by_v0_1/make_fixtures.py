"""Write this folder's fixtures with benchlab 0.1.0 as it was before the "one shape for every benchmark" refactor.

Run it with the OLD version's interpreter (commit 65c3109, its own venv), from anywhere:

    /work/wt-base/.venv/bin/python tests/data/written_by_v0_1/make_fixtures.py

It is kept so that anyone can see exactly which commands made the files; running it again gives files of the
same shape but other timestamps and response times (the expected outputs are then rewritten from the new files).
Nothing in the test suite runs it: the point of the fixtures is that they were written by the old code.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OLD_BIN = Path(sys.executable).parent
BENCHLAB = str(OLD_BIN / "benchlab")


def old_sample(*parts: str) -> Path:
    """A bundled sample of the OLD checkout (the interpreter's package)."""
    import benchlab.data.samples as samples  # the old package, imported from the old venv

    return Path(samples.__file__).resolve().parent.joinpath(*parts)


def env() -> dict[str, str]:
    e = dict(os.environ)
    cache = Path(tempfile.mkdtemp(prefix="benchlab-old-cache-"))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        e[var] = str(cache / var.lower())
    e.pop("COLUMNS", None)
    e.pop("LINES", None)
    return e


def run_session(args: list[str]) -> None:
    subprocess.run([BENCHLAB, *args], cwd=HERE, env=env(), check=True, stdin=subprocess.DEVNULL)


def kill_session_after(args: list[str], results: Path, lines: int, cwd: Path = HERE) -> None:
    """Start a simulated session and SIGKILL it once ``results`` has ``lines`` lines (a crash mid-session)."""
    proc = subprocess.Popen([BENCHLAB, *args], cwd=cwd, env=env(), stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= lines:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def sessions() -> None:
    for sub in ("worldsense", "sort"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    run_session(["run", "worldsense", "--participant", "OLD1", "--simulate", "random", "--seed", "5",
                 "--out", "worldsense/completed"])
    kill_session_after(["run", "worldsense", "--participant", "OLD2", "--simulate", "random", "--seed", "6",
                        "--sim-delay", "0.05", "--out", "worldsense/interrupted"],
                       HERE / "worldsense/interrupted/results/basic___human-OLD2___results.jsonl", 17)
    run_session(["run", "sort", "--participant", "OLD3", "--simulate", "random", "--seed", "5",
                 "--out", "sort/completed"])
    kill_session_after(["run", "sort", "--participant", "OLD4", "--simulate", "random", "--seed", "6",
                        "--sim-delay", "0.1", "--out", "sort/interrupted"],
                       HERE / "sort/interrupted/results/250-s20-human_OLD4_results.csv", 1 + 7)


def default_out() -> None:
    """Killed sessions in the default output folders (no --out), run from ``default_out/``: an upgraded user
    resumes them, and compares them, without naming the folder."""
    cwd = HERE / "default_out"
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    kill_session_after(["run", "worldsense", "--participant", "DEF1", "--simulate", "random", "--seed", "7",
                        "--sim-delay", "0.05"],
                       cwd / "benchlab-results/worldsense/sample/results/basic___human-DEF1___results.jsonl", 5, cwd)
    kill_session_after(["run", "sort", "--participant", "DEF2", "--simulate", "random", "--seed", "7",
                        "--sim-delay", "0.1"],
                       cwd / "benchlab-results/sort/booksort/results/250-s20-human_DEF2_results.csv", 1 + 3, cwd)


def curation() -> None:
    """Two editor sessions on a copy of the bundled fastbook sample, through the old editor's library.

    ada edits, undoes, redoes and saves (file, ``.bak`` and change log); bob then edits the saved file and
    "crashes" before saving, so the log ends with unsaved edits that the next editor start offers to re-apply.
    What bob's session held in memory is written to ``after_unsaved_edits.json`` (the expected recovery).
    """
    from benchlab.annotations.context_edits import (
        AddContext,
        AddQuestionContext,
        DeleteContext,
        ReplaceContext,
        SetFlag,
        SetQuestionComponent,
        Slot,
    )
    from benchlab.annotations.fastbook_curation import CurationSession
    from benchlab.data.fastbook.benchmark import save_benchmark

    folder = HERE / "fastbook"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    path = folder / "fastbook-benchmark.json"
    shutil.copyfile(old_sample("fastbook", "fastbook-benchmark.json"), path)
    ticks = iter(f"2026-11-24T10:{minute:02d}:00.000Z" for minute in range(60))

    ada = CurationSession.open(path, curator="ada", chapters_dir=old_sample("fastbook", "chapters"))
    ada._clock = lambda: next(ticks)  # fixed times: the log's "when" is part of what is compared
    ada.session_id = "a0a0a0a0"
    q11 = ada.benchmark.question((1, 1))
    ada.apply(AddContext((1, 1), Slot("answer", 0), 1,
                         "we cut it into *passages* and pick the few that are most likely to hold the answer"))
    ada.apply(ReplaceContext((1, 1), Slot("answer", 1), 0, q11.answer_context[1].context[0],
                             "no amount of clever prompting will recover it \u2014 said the curator"))
    ada.apply(SetFlag((1, 5), 2, "explicit_context", "false", "true"))
    ada.apply(AddQuestionContext((2, 1), 0, "What does curating mean?", ("Curating it means deciding",)))
    q22 = ada.benchmark.question((2, 2))
    ada.apply(DeleteContext((2, 2), Slot("answer", 1), 1, q22.answer_context[1].context[1]))
    ada.undo()
    ada.redo()
    ada.apply(SetFlag((2, 4), 1, "extraneous_answer", "false", "true"))
    ada.undo()
    ada.save()

    bob = CurationSession.open(path, curator="bob", chapters_dir=old_sample("fastbook", "chapters"))
    bob._clock = lambda: next(ticks)
    bob.session_id = "b0b0b0b0"
    bob.apply(SetQuestionComponent((2, 1), 0, "What does curating mean?", "What is curating?"))
    bob.apply(AddContext((1, 3), Slot("answer", 0), 0, "There are many ways to cut a book into passages."))
    save_benchmark(bob.benchmark, folder / "after_unsaved_edits.json", backup=False)
    # no bob.save(): the editor died here


def commands() -> list[dict[str, object]]:
    """The score/compare command lines whose old output is kept (run from this folder, or from ``cwd`` in it)."""
    ws = ["--results", "worldsense/completed/results"]
    ws_both = [*ws, "--results", "worldsense/interrupted/results"]
    sort_both = ["sort/completed/results", "sort/interrupted/results"]
    fb = ["--benchmark", "fastbook/fastbook-benchmark.json"]
    runs = ["fastbook/fts.jsonl", "fastbook/fts_question.jsonl"]
    return [
        {"name": "score_worldsense", "args": ["score", "worldsense", "--sample", *ws]},
        {"name": "score_worldsense_both", "args": ["score", "worldsense", "--sample", *ws_both]},
        {"name": "score_worldsense_both_csv", "args": ["score", "worldsense", "--sample", *ws_both, "--format", "csv"]},
        {"name": "compare_worldsense", "args": ["compare", "worldsense", *ws_both]},
        {"name": "compare_worldsense_pooled", "args": ["compare", "worldsense", *ws_both, "--include-simulated",
                                                       "--participant-tests", "--boot", "500"]},
        {"name": "compare_worldsense_pooled_csv", "args": ["compare", "worldsense", *ws_both, "--include-simulated",
                                                           "--boot", "500", "--format", "csv"]},
        {"name": "score_sort", "args": ["score", "sort", *sort_both]},
        {"name": "score_sort_practice_csv", "args": ["score", "sort", *sort_both, "--include-practice",
                                                     "--format", "csv"]},
        {"name": "compare_sort", "args": ["compare", "sort", *sort_both]},
        {"name": "compare_sort_pooled", "args": ["compare", "sort", *sort_both, "--include-simulated",
                                                 "--boot", "500"]},
        {"name": "compare_sort_pooled_csv", "args": ["compare", "sort", *sort_both, "--include-simulated",
                                                     "--boot", "500", "--format", "csv"]},
        {"name": "score_fastbook", "args": ["score", "fastbook", *runs, *fb]},
        {"name": "score_fastbook_ci", "args": ["score", "fastbook", *runs, *fb, "--ci", "--per-question"]},
        {"name": "score_fastbook_original", "args": ["score", "fastbook", *runs, "--benchmark",
                                                     "fastbook/fastbook-benchmark.json.bak", "--format", "csv"]},
        {"name": "compare_worldsense_default_folder", "cwd": "default_out",
         "args": ["compare", "worldsense", "--include-simulated", "--boot", "500"]},
        {"name": "compare_fastbook", "args": ["compare", "fastbook", "fastbook/fastbook-benchmark.json.bak",
                                              "fastbook/fastbook-benchmark.json"]},
        {"name": "compare_fastbook_recovered", "args": ["compare", "fastbook", "fastbook/fastbook-benchmark.json",
                                                        "fastbook/after_unsaved_edits.json"]},
    ]


def runs() -> None:
    """Run files of the old no-model baseline on the curated file (keyword query and question query)."""
    chapters = str(old_sample("fastbook", "chapters"))
    keywords = str(old_sample("fastbook", "fts_keywords.csv"))
    for out, extra in (("fastbook/fts.jsonl", []), ("fastbook/fts_question.jsonl", ["--query", "question"])):
        run_session(["fastbook", "baseline", "--benchmark", "fastbook/fastbook-benchmark.json",
                     "--chapters", chapters, "--keywords", keywords, "--out", out, *extra])


def expected() -> None:
    folder = HERE / "expected"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    manifest = []
    for command in commands():
        args = [str(a) for a in command["args"]]  # type: ignore[attr-defined]
        cwd = HERE / str(command.get("cwd", "."))
        done = subprocess.run([BENCHLAB, *args], cwd=cwd, env=env(), capture_output=True, stdin=subprocess.DEVNULL)
        (folder / f"{command['name']}.stdout").write_bytes(done.stdout)
        (folder / f"{command['name']}.stderr").write_bytes(done.stderr)
        manifest.append({**command, "exit_code": done.returncode})
    # Output that names files by absolute path (the default results folder) names this folder as it was then.
    written_in = str(HERE)
    (folder / "commands.json").write_text(json.dumps({"written_in": written_in, "commands": manifest}, indent=2)
                                          + "\n")


if __name__ == "__main__":
    # no argument: everything; "expected": only the outputs, from the files already here; "default-out": the
    # sessions in the default output folders, then the outputs
    if not sys.argv[1:]:
        sessions()
        curation()
        runs()
    if sys.argv[1:] in ([], ["default-out"]):
        default_out()
    expected()
