"""The file-level cases of ``benchlab bench faults``: study files, exports, fastbook review and serve, each fed a
damaged or hostile input and checked for what the issue-23 campaign found (data lost or duplicated, exit 70).

Every case runs the command a user types, in this process (``benchlab.tui.cli.main``; a serve that should refuse
runs as a subprocess with a time limit, since one that wrongly starts would serve forever), then checks:

- *internal error*: an exit status other than 0 or 2, a traceback, or a hang;
- *lost*: a record that should be on disk is not (an assignment after a torn line, a participant's results file
  or a curator's copy overwritten, a decided component missing from a merged file);
- *duplicated*: a record or component there twice.

``python -m benchlab.tui.harness.fault_cases --root DIR --seed N --rounds R`` prints the tally as JSON (the
session-kill harness in ``benchlab.annotations.harness.faults`` runs it so the layers stay one way).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchlab.annotations.fastbook.review import Review
from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook import locate
from benchlab.tui.cli import main

GROUPS = ("study files", "exports", "review", "serve")


@dataclass
class CaseTally:
    """What the cases of one group did."""

    cases: int = 0
    lost: int = 0
    duplicated: int = 0
    internal: int = 0
    problems: list[str] = field(default_factory=list)


def cli(*args: str) -> tuple[int, str]:
    """``benchlab ARGS`` in this process: the exit status and everything printed (70 for an escaped exception)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:
            code = 70
            out.write(f"Traceback: {exc!r}")
    return code, out.getvalue()


def _check_exit(tally: CaseTally, name: str, code: int, text: str, want: tuple[int, ...] = (0, 2)) -> None:
    tally.cases += 1
    if code not in want or "Traceback" in text:
        tally.internal += 1 if code not in (0, 2) or "Traceback" in text else 0
        tally.problems.append(f"{name}: exit {code}: {text.strip().splitlines()[-1] if text.strip() else ''}")


# -- study files -------------------------------------------------------------------------------------------------

STUDY = """title = "faults"
benchmark = "sort"

[options]
trials = 4
practice = 0

[[arms]]
name = "stm"
options = { condition = "stm" }

[[arms]]
name = "ltm"
options = { condition = "ltm" }

[assignment]
rule = "RULE"
"""


def _study(folder: Path, rule: str = "balanced", extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(STUDY.replace("RULE", rule) + extra, encoding="utf-8")
    return folder


def _start(folder: Path, participant: str) -> None:
    study = load_study(folder, registry())
    study.record(study.assign(participant, "1"))


def study_cases(root: Path, rng: random.Random, tally: CaseTally) -> None:
    # a torn last assignment line (cut by 1..60 bytes): every later participant is recorded, once, and shown
    for n in range(12):
        folder = _study(root / f"torn-{n}")
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                _start(folder, "P01")
                path = folder / "assignments.jsonl"
                os.truncate(path, max(0, path.stat().st_size - rng.randint(1, 60)))
                for who in ("P02", "P03"):
                    _start(folder, who)
            records = [r["participant"] for r in load_study(folder, registry()).assignments()]
        except BenchlabError as exc:  # the study no longer reads: both later participants are lost to it
            tally.cases += 1
            tally.lost += 2
            tally.problems.append(f"torn assignments {n}: {exc}")
            continue
        tally.lost += sum(who not in records for who in ("P02", "P03"))
        tally.duplicated += len(records) - len(set(records))
        code, text = cli("study", "show", str(folder))
        _check_exit(tally, f"torn assignments {n}: study show", code, text, (0,))
    # hostile participants files: one line each, exit 2
    bodies = ["P01,stm,x" + "y" * (130 * 1024) + "\n", "P01,st\x00m,\n", "P 1,stm,\n", "P01\n,stm,\n",
              "P01,stm,\nP01,ltm,2\n", "P01,xyz,\n", "\ufeffP01,stm,\n", ",stm,\n", 'P01,"stm,\n', "P01,stm,1,extra\n"]
    for n, body in enumerate(bodies):
        folder = _study(root / f"people-{n}", "participants-file", 'participants_file = "people.csv"\n')
        (folder / "people.csv").write_text("participant,arm,session\n" + body, encoding="utf-8")
        code, text = cli("study", "show", str(folder))
        _check_exit(tally, f"participants file {n}", code, text)
    # an arm removed after assignment, then --resume
    folder = _study(root / "removed")
    with contextlib.redirect_stderr(io.StringIO()):
        _start(folder, "P01")
    (folder / "study.toml").write_text(STUDY.replace("RULE", "balanced").replace('name = "stm"', 'name = "s2"'),
                                       encoding="utf-8")
    code, text = cli("run", "--study", str(folder), "--participant", "P01", "--resume")
    _check_exit(tally, "arm removed, resume", code, text, (2,))
    # ids that are not whole ids: refused, and no file name made of them
    for n, bad in enumerate(["P01\n", "1\n", " P01", "P01 ", "P/01", "P01\r", "..", "-P", "P" * 65, "Pé"]):
        out = root / f"ids-{n}"
        option = "--session" if n % 2 else "--participant"
        args = ["run", "sort", "--participant", "P01", "--simulate", "random", "--trials", "4", "--practice", "0",
                "--out", str(out), option, bad]
        code, text = cli(*args)
        _check_exit(tally, f"id {bad!r}", code, text, (2,))
        if any(("\n" in p.name or "\r" in p.name) for p in out.rglob("*")):
            tally.problems.append(f"id {bad!r}: a file name with a line break")
            tally.internal += 1


# -- exports -----------------------------------------------------------------------------------------------------


def export_cases(root: Path, rng: random.Random, tally: CaseTally) -> None:
    out = root / "lab"
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        main_code, _ = cli("run", "sort", "--participant", "P01", "--simulate", "random", "--trials", "4",
                           "--practice", "2", "--seed", "5", "--out", str(out))
    if main_code != 0:
        tally.problems.append("exports: the simulated session did not run")
        return
    inputs = sorted(p for p in out.rglob("*") if p.is_file())
    before = {p: p.read_bytes() for p in inputs}
    targets = [*[p for p in inputs if p.suffix in (".csv", ".jsonl", ".json")],
               out / "results" / "x.csv", out / "sessions" / "x.csv", out / "practice" / "x.parquet"]
    for target in targets:
        for benchmark in ("sort", "worldsense"):
            code, text = cli("export", "trials", benchmark, str(out / "results"), "--out", str(target))
            _check_exit(tally, f"export {benchmark} onto {target.name}", code, text, (2,))
    tally.lost += sum(p.read_bytes() != data for p, data in before.items())
    tally.lost += sum(1 for t in targets[-3:] if t.exists())
    # cut and damaged results files: exported or refused, never an internal error
    [results] = list((out / "results").glob("*_results.csv"))
    data = results.read_bytes()
    for n in range(20):
        damaged = root / f"cut-{n}" / "results"
        damaged.mkdir(parents=True)
        cut = bytearray(data[: rng.randint(0, len(data))])
        if n % 4 == 3 and cut:
            cut[rng.randrange(len(cut))] = rng.choice(b'\x00\xff",\n')
        (damaged / results.name).write_bytes(bytes(cut))
        code, text = cli("export", "trials", "sort", str(damaged))
        _check_exit(tally, f"export of a damaged file {n}", code, text)
    for n, kind in enumerate(("fifo", "folder", "loop")):
        odd = root / f"odd-{n}" / "results"
        odd.mkdir(parents=True)
        name = odd / "250-s20-human_P09_results.csv"
        if kind == "fifo":
            os.mkfifo(name)
        elif kind == "folder":
            name.mkdir()
        else:
            name.symlink_to(name)
        for command in (("export", "trials", "sort"), ("score", "sort")):
            code, text = cli(*command, str(odd))
            _check_exit(tally, f"{' '.join(command)} on a {kind}", code, text, (2,))


# -- fastbook review ---------------------------------------------------------------------------------------------


def review_cases(root: Path, rng: random.Random, tally: CaseTally) -> None:
    source = json.loads(locate.sample_benchmark_path().read_text(encoding="utf-8"))
    for n in range(25):
        a_data, b_data = copy.deepcopy(source), copy.deepcopy(source)
        added = 0
        for question in b_data["questions"]:
            if rng.random() < 0.5:
                at = rng.randint(0, len(question["answer_context"]))
                question["answer_context"].insert(at, {"answer_component": f"new point {n}.{added}",
                                                       "scoring_type": "simple", "context": [],
                                                       "explicit_context": "false", "extraneous_answer": "false"})
                added += 1
            elif question["answer_context"] and rng.random() < 0.3:
                question["answer_context"][rng.randrange(len(question["answer_context"]))]["explicit_context"] = \
                    "true"
        folder = root / f"review-{n}"
        folder.mkdir()
        a, b = folder / "a.json", folder / "b.json"
        a.write_text(json.dumps(a_data, indent=4), encoding="utf-8")
        b.write_text(json.dumps(b_data, indent=4), encoding="utf-8")
        review = Review.open(a, b, "faults")
        order = list(range(len(review.items)))
        rng.shuffle(order)  # decisions in any order, A or B each: the merge must not depend on either
        chosen: dict[str, str] = {}
        for number in order:
            item = review.items[number]
            choice = rng.choice(("A", "B"))
            review.decide(number, "A" if choice == "A" else "B")
            for component in (item.a, item.b):
                if component is not None:
                    chosen.setdefault(component.answer_text, choice)
        merged = json.loads(review.save(folder / "m.json").read_text(encoding="utf-8"))
        tally.cases += 1
        originals = {(q["chapter"], q["question_number"]): {c["answer_component"] if isinstance(
            c["answer_component"], str) else "\n".join(c["answer_component"]): c for c in q["answer_context"]}
            for q in a_data["questions"]}
        for question, in_b in zip(merged["questions"], b_data["questions"], strict=True):
            qid = (question["chapter"], question["question_number"])
            expected = []
            for component in in_b["answer_context"]:  # what the decisions mean, worked out here independently
                text = component["answer_component"] if isinstance(component["answer_component"], str) \
                    else "\n".join(component["answer_component"])
                if text not in originals[qid]:  # inserted in B: there iff B was taken
                    if chosen.get(text) == "B":
                        expected.append(component)
                else:
                    expected.append(component if chosen.get(text) == "B" else originals[qid][text])
            got = question["answer_context"]
            tally.lost += sum(1 for c in expected if c not in got)
            tally.duplicated += max(0, len(got) - len(expected)) if all(c in got for c in expected) else \
                sum(max(0, got.count(c) - expected.count(c)) for c in got)
        before = a.read_bytes()
        code, text = cli("curate", "fastbook", "--review", str(a), str(b), "--out", str(a if n % 2 else b))
        _check_exit(tally, f"review --out onto a curator's copy {n}", code, text, (2,))
        tally.lost += a.read_bytes() != before


# -- serve -------------------------------------------------------------------------------------------------------


def serve_cases(root: Path, rng: random.Random, tally: CaseTally) -> None:
    files = ["id,condition\nP01,xyz\n", "id,trials\nP01,-3\n", "id,condition\n", "id\nP 1\n", "id\nP01\nP01\n",
             "id,colour\nP01,red\n", "id\nP01\x00\n", "", "id,trials\nP01,many\n", "id,condition\nP01,stm\nP02,LTM2\n"]
    cases: list[tuple[str, list[str]]] = [(text, []) for text in files]
    cases += [("id\nP01\n", ["--add", "P09\n"]), ("id\nP01\n", ["--add", "P 9"]), ("id,condition\nP01,xyz\n",
                                                                                     ["--add", "P09"])]
    for n, (text, extra) in enumerate(cases):
        folder = root / f"serve-{n}"
        folder.mkdir()
        people = folder / "people.csv"
        people.write_text(text, encoding="utf-8")
        out = folder / "out"
        if n == len(cases) - 1:
            out.write_text("a file, not a folder", encoding="utf-8")
        _serve_case(tally, f"serve case {n}", people, out, extra)
        tally.lost += people.read_text(encoding="utf-8") != text  # refused: the participants file is unchanged
    # --out naming an existing file
    folder = root / "serve-file"
    folder.mkdir()
    (folder / "people.csv").write_text("id\nP01\n", encoding="utf-8")
    (folder / "out").write_text("x", encoding="utf-8")
    _serve_case(tally, "serve --out FILE", folder / "people.csv", folder / "out", [])


def _serve_case(tally: CaseTally, name: str, people: Path, out: Path, extra: list[str]) -> None:
    args = [sys.executable, "-m", "benchlab.tui.cli", "serve", "sort", "--participants", str(people), "--out",
            str(out), "--port", "0", *extra]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        tally.cases += 1
        tally.internal += 1
        tally.problems.append(f"{name}: served instead of refusing")
        return
    _check_exit(tally, name, done.returncode, done.stderr, (2,))


CASES: dict[str, Callable[[Path, random.Random, CaseTally], None]] = {
    "study files": study_cases, "exports": export_cases, "review": review_cases, "serve": serve_cases}


def run_cases(root: Path, seed: int = 0, rounds: int = 1) -> dict[str, CaseTally]:
    """Every group's cases ``rounds`` times (each round draws new cuts and decisions), tallied per group."""
    rng = random.Random(f"benchlab/fault-cases/{seed}")
    tallies = {group: CaseTally() for group in CASES}
    for round_ in range(rounds):
        for group, run in CASES.items():
            folder = root / f"round-{round_}" / group.replace(" ", "-")
            folder.mkdir(parents=True, exist_ok=True)
            try:
                run(folder, rng, tallies[group])
            except Exception as exc:
                tallies[group].internal += 1
                tallies[group].problems.append(f"{group}: the cases stopped: {exc!r}")
    return tallies


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    tallies = run_cases(args.root, args.seed, args.rounds)
    sys.stdout.write(json.dumps({g: asdict(t) for g, t in tallies.items()}) + "\n")


if __name__ == "__main__":
    _main()
