"""SORT's groups of ``benchlab bench faults`` file cases (declared in the ``benchlab.fault_cases`` entry-point
group): study files of a two-arm STM/LTM study, exports of a simulated SORT session's files, and ``serve`` fed
hostile participants files. Each case runs the command a user types (:func:`~benchlab.tui.harness.fault_kit.cli`;
a serve that should refuse runs as a subprocess with a time limit, since one that wrongly starts would serve
forever) and counts lost, duplicated and internal errors (see :mod:`benchlab.tui.harness.fault_cases`)."""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
from pathlib import Path

from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.data.errors import BenchlabError
from benchlab.tui.harness.fault_kit import CaseTally, check_exit, cli

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
        check_exit(tally, f"torn assignments {n}: study show", code, text, (0,))
    # hostile participants files: one line each, exit 2
    bodies = ["P01,stm,x" + "y" * (130 * 1024) + "\n", "P01,st\x00m,\n", "P 1,stm,\n", "P01\n,stm,\n",
              "P01,stm,\nP01,ltm,2\n", "P01,xyz,\n", "\ufeffP01,stm,\n", ",stm,\n", 'P01,"stm,\n', "P01,stm,1,extra\n"]
    for n, body in enumerate(bodies):
        folder = _study(root / f"people-{n}", "participants-file", 'participants_file = "people.csv"\n')
        (folder / "people.csv").write_text("participant,arm,session\n" + body, encoding="utf-8")
        code, text = cli("study", "show", str(folder))
        check_exit(tally, f"participants file {n}", code, text)
    # an arm removed after assignment, then --resume
    folder = _study(root / "removed")
    with contextlib.redirect_stderr(io.StringIO()):
        _start(folder, "P01")
    (folder / "study.toml").write_text(STUDY.replace("RULE", "balanced").replace('name = "stm"', 'name = "s2"'),
                                       encoding="utf-8")
    code, text = cli("run", "--study", str(folder), "--participant", "P01", "--resume")
    check_exit(tally, "arm removed, resume", code, text, (2,))
    # ids that are not whole ids: refused, and no file name made of them
    for n, bad in enumerate(["P01\n", "1\n", " P01", "P01 ", "P/01", "P01\r", "..", "-P", "P" * 65, "Pé"]):
        out = root / f"ids-{n}"
        option = "--session" if n % 2 else "--participant"
        args = ["run", "sort", "--participant", "P01", "--simulate", "random", "--trials", "4", "--practice", "0",
                "--out", str(out), option, bad]
        code, text = cli(*args)
        check_exit(tally, f"id {bad!r}", code, text, (2,))
        if any(("\n" in p.name or "\r" in p.name) for p in out.rglob("*")):
            tally.problems.append(f"id {bad!r}: a file name with a line break")
            tally.internal += 1





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
            check_exit(tally, f"export {benchmark} onto {target.name}", code, text, (2,))
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
        check_exit(tally, f"export of a damaged file {n}", code, text)
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
            check_exit(tally, f"{' '.join(command)} on a {kind}", code, text, (2,))





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
    check_exit(tally, name, done.returncode, done.stderr, (2,))


