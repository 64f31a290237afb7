"""``benchlab bench faults``: kill -9 real ``benchlab run ... --simulate`` sessions at random moments, resume each,
and count what was lost, duplicated and resumed.

This is the campaign behind the session engine's promise (every response fsynced before the next trial, a torn
last record cut on resume, no item written twice), kept as a script the project owns. Each kill is one fresh
participant in its own folder:

1. ``benchlab run <task> --simulate random --sim-delay S`` is started as a real process and killed with SIGKILL at
   a random moment: one kill in five uniform over the start-up (interpreter, data, plan; a session killed there
   has saved nothing), the others uniform over the trials once the plan is saved, both spans measured first on an
   uninterrupted run; so kills land during start-up, mid-trial, at breaks and (rarely) after the end;
2. what is on disk right then is read (complete records only; a torn last record is counted);
3. the session is resumed with ``--resume`` (a session killed before its plan was saved is started again without
   it, as the error says) and must run to its end;
4. the records are compared: every answer on disk before the kill must be exactly what the simulated participant
   (same policy, the plan's seed) answered for that trial, in plan order with no gap, and still be there,
   unchanged, after the resume (else it is *lost*); no trial may be in a file twice (*duplicated*); the session
   must end with every planned trial recorded (*resumed*).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_output import err
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.options import Options, option
from benchlab.annotations.plugins import reports
from benchlab.annotations.registry import ENTRY_POINT_GROUP, registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.simulate import SimulatedParticipant
from benchlab.annotations.task import Command, ReadsAnswers
from benchlab.data.errors import BenchlabError

#: The simulated participant every killed session runs (a task offering it can be in the campaign).
POLICY = "random"


class FaultsOptions(Options):
    """``benchlab bench faults``."""

    kills: int = option(50, label="Kills", ge=1, help="How many sessions to kill (-9) at a random moment and resume "
                        "(split over the tasks, in turn).")
    seed: int = option(0, label="Seed", help="Seed of the kill moments and the sessions' plans.")
    sim_delay: float = option(0.01, label="Simulated seconds per trial", gt=0, le=1,
                              help="Seconds the simulated participant waits per trial.")
    keep: Path | None = option(None, label="Keep the sessions in", widget="folder",
                               help="Folder to keep every killed session's files in (default: a temporary folder, "
                               "removed at the end).")
    case_rounds: int = option(1, label="Rounds of file cases", flag="--case-rounds", ge=0,
                              help="Rounds of the file-level cases the installed benchmarks declare (study "
                              "files, exports, review, serve: torn, cut and hostile inputs; each round draws new "
                              "ones); 0 for kills only.")
    tasks: tuple[str, ...] = option((), label="Tasks", flag="--task",
                                    help="A task to kill sessions of (repeatable; it must offer --simulate random). "
                                    "Default: every built-in task that runs sessions with simulated participants.")


@dataclass
class Tally:
    """What the kills of one task did."""

    kills: int = 0
    before_plan: int = 0
    mid_session: int = 0
    after_end: int = 0
    on_disk: int = 0
    as_simulated: int = 0
    torn: int = 0
    lost: int = 0
    duplicated: int = 0
    resumed: int = 0
    problems: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("kills", "before_plan", "mid_session", "after_end", "on_disk", "as_simulated", "torn", "lost",
                     "duplicated", "resumed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems


def _cli(task: str, participant: str, out: Path, seed: int, delay: float, *extra: str) -> list[str]:
    return [sys.executable, "-m", "benchlab.tui.cli", "run", task, "--participant", participant, "--out", str(out),
            "--simulate", POLICY, "--seed", str(seed), "--sim-delay", str(delay), *extra]


def _rows(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Complete records of a results file in file order, and whether a torn last record was there."""
    if not path.exists():
        return [], False
    raw = path.read_bytes()
    torn = bool(raw) and not raw.endswith(b"\n")
    complete = raw[: raw.rfind(b"\n") + 1].decode("utf-8", errors="replace")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in complete.splitlines() if line.strip()], torn
    return list(csv.DictReader(io.StringIO(complete))), torn


def _files(out: Path, kind: str) -> Iterator[Path]:
    folder = out / kind
    if folder.is_dir():
        yield from sorted(p for p in folder.iterdir() if p.suffix in (".jsonl", ".csv"))


def _snapshot(out: Path) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Per kind (results / practice): the complete records on disk now; and how many files had a torn tail."""
    found: dict[str, list[dict[str, Any]]] = {"results": [], "practice": []}
    torn = 0
    for kind in found:
        for path in _files(out, kind):
            rows, cut = _rows(path)
            found[kind] += rows
            torn += cut
    return found, torn


def _expected(task: str, out: Path, participant: str) -> tuple[dict[str, tuple[str, float]], ReadsAnswers | None]:
    """Per item, the answer and RT the simulated participant gives in an uninterrupted run of the saved plan; and
    the session's own reader of its records (``None`` when the task's session offers none)."""

    runner = prepare_session(registry().get(task), participant=participant, out=str(out), resume=True)
    try:
        plan = runner.plan
        sim = SimulatedParticipant(POLICY, seed=plan.seed)
        expected: dict[str, tuple[str, float]] = {}
        for step in plan.steps():
            answer = sim.choose(runner.task.options(step.item_id), runner.task.gold(step.item_id))
            expected[("p:" if step.practice else "m:") + step.item_id] = (answer, sim.rt_s() * 1000.0)
        return expected, runner.task if isinstance(runner.task, ReadsAnswers) else None
    finally:
        runner.close()


@dataclass(frozen=True)
class Span:
    """How long a simulated run of a task takes: start-up (until its plan is saved), then its trials; and the
    task's reader of its records, from that run (for a kill whose session cannot be reopened)."""

    startup_s: float
    session_s: float
    reader: ReadsAnswers | None = None


#: The share of kills drawn during start-up (interpreter, data, plan), the rest during the trials.
STARTUP_SHARE = 0.2


def _wait_for_plan(proc: subprocess.Popen[bytes], out: Path, limit_s: float) -> bool:
    """Wait until the session has saved its plan (True), or ended, or ``limit_s`` passed (False)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        if any((out / "sessions").glob("*.plan.json")):
            return True
        time.sleep(0.005)
    return False


def _one_kill(task: str, index: int, root: Path, rng: random.Random, span: Span, delay: float) -> Tally:
    tally = Tally(kills=1)
    participant, out, seed = f"F{index:03d}", root / f"{task}-{index:03d}", rng.randrange(2**31)
    in_startup = rng.random() < STARTUP_SHARE
    moment = rng.uniform(0.0, span.startup_s if in_startup else span.session_s)
    proc = subprocess.Popen(_cli(task, participant, out, seed, delay), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    if not in_startup:
        _wait_for_plan(proc, out, 120.0)
    try:
        proc.wait(moment)  # the kill moment (or the session's own end, if that comes first)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    if proc.stderr is not None:
        proc.stderr.close()
    before, torn = _snapshot(out)
    tally.torn += torn
    resume = subprocess.run(_cli(task, participant, out, seed, 0.0, "--resume"), capture_output=True, text=True,
                            timeout=600)
    if "nothing was recorded yet" in resume.stderr:  # killed before the plan was saved: --resume starts it
        tally.before_plan += 1
    elif ended:
        tally.after_end += 1
    else:
        tally.mid_session += 1
    if resume.returncode != 0:
        tally.problems.append(f"{task} kill {index}: resume failed: {resume.stderr.strip()}")
        return tally
    plans = sorted((out / "sessions").glob("*.plan.json"))
    if len(plans) != 1:
        tally.problems.append(f"{task} kill {index}: {len(plans)} saved plans after the resume")
        return tally
    plan = SessionPlan.load(plans[0])
    reader = span.reader
    try:
        expected, reader = _expected(task, out, participant)
    except BenchlabError as exc:  # the engine refuses its own files (e.g. an item twice): counted below
        expected = {}
        tally.problems.append(f"{task} kill {index}: the session cannot be reopened: {exc}")
    if reader is None:
        tally.problems.append(f"{task} kill {index}: the task's session cannot read its records back (no answer_of)")
        return tally
    after, _ = _snapshot(out)
    item_of, answer_of = reader.item_id_of, reader.answer_of
    for kind, prefix, order in (("results", "m:", plan.main_items), ("practice", "p:", plan.practice)):
        items = [item_of(r) for r in before[kind]]
        tally.on_disk += len(items)
        if items != order[: len(items)]:
            tally.lost += 1
            tally.problems.append(f"{task} kill {index}: {kind} on disk at the kill are not the plan's first "
                                  f"{len(items)} trials")
        for record in before[kind]:
            want_answer, want_rt = expected.get(prefix + item_of(record), ("", -1.0))
            if answer_of(record) == want_answer and abs(float(record["rt_ms"]) - want_rt) < 0.01:
                tally.as_simulated += 1
        final = [item_of(r) for r in after[kind]]
        tally.duplicated += len(final) - len(set(final))
        kept = {item_of(r): answer_of(r) for r in after[kind]}
        for record in before[kind]:
            if kept.get(item_of(record)) != answer_of(record):
                tally.lost += 1
                tally.problems.append(f"{task} kill {index}: {kind} trial {item_of(record)} lost or changed")
    final_main = {item_of(r) for r in after["results"]}
    if final_main == set(plan.main_items):
        tally.resumed += 1
    else:
        tally.problems.append(f"{task} kill {index}: {len(final_main)} of {len(plan.main_items)} trials after resume")
    return tally


def _calibrate(task: str, root: Path, delay: float) -> Span:
    """How long an uninterrupted simulated run of ``task`` takes here: the spans kill moments are drawn in."""
    out = root / f"{task}-calibration"
    start = time.monotonic()
    proc = subprocess.Popen(_cli(task, "CAL", out, 1, delay), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _wait_for_plan(proc, out, 600.0)
    planned = time.monotonic()
    _, stderr = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise BenchlabError(f"a simulated {task} session does not run here: {stderr.decode(errors='replace')}")
    span = Span(planned - start, time.monotonic() - planned)
    _, reader = _expected(task, out, "CAL")
    if reader is None:
        raise BenchlabError(f"bench faults cannot check task {task!r}: its session does not say which item and "
                            "answer a record holds (item_id_of, answer_of)")
    return Span(span.startup_s, span.session_s, reader)


def default_tasks() -> list[str]:
    """Every built-in task that runs sessions with the campaign's simulated participant, in launcher order (a
    plug-in's tasks are killed only when named with ``--task``)."""
    tasks = registry()
    builtin = {obj.name for report in reports() if report.group == ENTRY_POINT_GROUP
               for entry, obj in report.loaded if entry.builtin}
    return [task.name for task in tasks if task.name in builtin and POLICY in task.simulated_policies]


def run_faults(kills: int, seed: int = 0, sim_delay: float = 0.01, keep: Path | None = None,
               progress: Callable[[str], None] | None = None, tasks: Sequence[str] = ()) -> dict[str, Tally]:
    """Kill ``kills`` sessions (of ``tasks`` in turn; default :func:`default_tasks`) and resume each; the tally
    per task."""
    rng = random.Random(f"benchlab/faults/{seed}")
    tasks = _checked(tasks) if tasks else default_tasks()
    if not tasks:
        raise BenchlabError("no task to kill: no built-in task runs sessions with --simulate random")
    root = Path(keep) if keep is not None else Path(tempfile.mkdtemp(prefix="benchlab-faults-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        spans = {task: _calibrate(task, root, sim_delay) for task in tasks}
        tallies = {task: Tally() for task in tasks}
        for index in range(kills):
            task = tasks[index % len(tasks)]
            tallies[task].add(_one_kill(task, index, root, rng, spans[task], sim_delay))
            if progress is not None and (index + 1) % 10 == 0:
                progress(f"bench faults: {index + 1} of {kills} kills done")
        return tallies
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def _checked(names: Sequence[str]) -> list[str]:
    """The named tasks, each one that runs sessions and offers the campaign's simulated participant."""
    for name in names:
        if POLICY not in registry().get(name).simulated_policies:
            raise BenchlabError(f"--task {name}: the task has no simulated participant {POLICY!r}")
    return list(dict.fromkeys(names))


def faults_table(tallies: dict[str, Tally], seed: int) -> str:
    total = Tally()
    for tally in tallies.values():
        total.add(tally)
    head = ("task", "kills", "before plan", "mid-session", "after end", "answers on disk at kill", "as simulated",
            "torn tails cut", "lost", "duplicated", "resumed to the end")
    rows = [(name, t.kills, t.before_plan, t.mid_session, t.after_end, t.on_disk, t.as_simulated, t.torn, t.lost,
             t.duplicated, t.resumed) for name, t in [*tallies.items(), ("all", total)]]
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    lines = [f"benchlab bench faults: {total.kills} sessions killed (-9) at random moments (seed {seed}), each "
             "resumed with --resume",
             "  ".join(str(h).ljust(w) if i == 0 else str(h).rjust(w) for i, (h, w) in enumerate(zip(head, widths,
                                                                                                       strict=True)))]
    lines += ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths,
                                                                                                      strict=True)))
              for r in rows]
    lines.append(f"lost {total.lost}, duplicated {total.duplicated}, resumed {total.resumed} of {total.kills}")
    lines += [f"problem: {p}" for p in total.problems]
    return "\n".join(lines)


def run_file_cases(root: Path, seed: int, rounds: int) -> dict[str, dict[str, Any]]:
    """The file-level cases (:mod:`benchlab.tui.harness.fault_cases`, run as its own process so this layer does not
    import the CLI): per group, its cases, lost, duplicated, internal errors and problems."""
    done = subprocess.run([sys.executable, "-m", "benchlab.tui.harness.fault_cases", "--root", str(root), "--seed",
                           str(seed), "--rounds", str(rounds)], capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise BenchlabError(f"the file cases did not run: {done.stderr.strip().splitlines()[-1:]}")
    tallies: dict[str, dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return tallies


def cases_table(tallies: dict[str, dict[str, Any]], kills: dict[str, Tally] | None = None) -> str:
    """The file cases per group (cases, lost, duplicated, internal errors), beside the kill campaign's totals."""
    head = ("cases of", "cases", "lost", "duplicated", "internal errors")
    rows: list[tuple[str, int, int, int, int]] = [
        (group, int(t["cases"]), int(t["lost"]), int(t["duplicated"]), int(t["internal"]))
        for group, t in tallies.items()]
    rows.append(("all file cases", sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows),
                 sum(r[4] for r in rows)))
    if kills:
        total = Tally()
        for tally in kills.values():
            total.add(tally)
        rows.append(("session kills (-9)", total.kills, total.lost, total.duplicated, len(total.problems)))
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    lines = [f"benchlab bench faults: damaged and hostile inputs ({', '.join(tallies) or 'no group declared'})"]
    lines += ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths,
                                                                                                      strict=True)))
              for r in [head, *rows]]
    lines += [f"problem: {p}" for t in tallies.values() for p in t["problems"]]
    return "\n".join(lines)


def faults(opts: FaultsOptions) -> str:
    tallies = run_faults(opts.kills, opts.seed, opts.sim_delay, opts.keep, progress=err, tasks=opts.tasks)
    text = faults_table(tallies, opts.seed)
    if opts.case_rounds:
        err("bench faults: the file cases the benchmarks declare...")
        with tempfile.TemporaryDirectory(prefix="benchlab-fault-cases-") as tmp:
            root = opts.keep / "file-cases" if opts.keep is not None else Path(tmp)
            text += "\n\n" + cases_table(run_file_cases(root, opts.seed, opts.case_rounds), tallies)
    return text


FAULTS = Command("bench", help_of(CARDS, "bench faults"), FaultsOptions, faults, name="faults")
