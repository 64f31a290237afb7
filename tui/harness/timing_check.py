"""``benchlab timing-check``: how accurate are the recorded response times, on this machine, right now?

A real session of a choice task (the first registered one, or the one named) runs in a pseudo-terminal. For each
trial the checker waits until the question's frame arrives at the terminal (``seen``), waits a scripted delay,
writes a key (``sent``), and afterwards compares with what the session recorded:

* key stamp latency  = recorded ``response_mono`` - ``sent``  (pty -> Textual input thread -> Key event time);
* onset stamp offset = recorded ``onset_mono``  - ``seen``   (when the app stamped onset, relative to the frame
  reaching the terminal; negative means stamped before the terminal had read the frame);
* RT error           = recorded ``rt_ms``       - (``sent`` - ``seen``), the number a methods section needs.

Everything is on one CLOCK_MONOTONIC shared by both processes. Keyboard hardware (4-30 ms) and the terminal
emulator's drawing are not included: this is the software floor, as in PsychoPy's and OpenSesame's own checks.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import iter_json_lines
from benchlab.data.version import __version__
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.harness.driven_task import dataset_flag, driven_task, plan_flags
from benchlab.tui.harness.pty_driver import PtyApp

#: The participant id of the checked session (it names the results file).
TIMING_PARTICIPANT = "timing-check"


def _stats(values: list[float]) -> str:
    absolute = sorted(abs(v) for v in values)
    p95 = absolute[min(len(absolute) - 1, round(0.95 * (len(absolute) - 1)))]
    return (f"median {statistics.median(values):+7.2f}   |median| {statistics.median(absolute):6.2f}   "
            f"|p95| {p95:6.2f}   |max| {absolute[-1]:6.2f}  ms")


def run_timing_check(
    *, n_trials: int = 60, min_delay: float = 0.3, max_delay: float = 0.8, seed: int = 1, keep: Path | None = None,
    testset: str | None = None, size: tuple[int, int] = (100, 30), task: str | None = None,
) -> str:
    """Run the check and return the report (figures only; nothing is asserted). ``task``: the choice task whose
    session is driven (default: the first registered one); ``testset``: its data set (default: its bundled one)."""
    if n_trials < 1 or min_delay < 0.2 or max_delay < min_delay:
        raise BenchlabError("need --trials >= 1 and 0.2 <= --min-delay <= --max-delay (the app ignores RTs < 150 ms)")
    driven = driven_task(task, "timing-check")
    dataset = testset or str(driven.default_dataset())
    folder = keep or Path(tempfile.mkdtemp(prefix="benchlab-timing-"))
    out = folder / f"session-{time.strftime('%Y%m%dT%H%M%S')}"
    seen, sent = _drive_session(_session_argv(driven, dataset, seed, out), size, n_trials, min_delay, max_delay,
                                seed)
    records = _read_results(out)
    source = "bundled sample" if testset is None else Path(dataset).name
    return _report(records, seen, sent, f"{driven.title} trial screen, {source}", size,
                   out if keep is not None else None)


def _session_argv(task: Task, dataset: str, seed: int, out: Path) -> list[str]:
    """The ``benchlab run NAME`` command line: no practice, no instructions, one block, results in ``out``."""
    return [sys.executable, "-m", "benchlab.tui.cli", "run", task.name, *dataset_flag(task, dataset),
            "--participant", TIMING_PARTICIPANT, *plan_flags(task, practice=0), "--no-instructions",
            *plan_flags(task, block_size=100000), "--seed", str(seed), "--out", str(out)]


def _drive_session(argv: list[str], size: tuple[int, int], n_trials: int, min_delay: float, max_delay: float,
                   seed: int) -> tuple[list[float], list[float]]:
    """Answer each question after a scripted delay, then end the session; return when each was seen and answered."""
    rng = random.Random(seed)
    # The child opens the menu with the default keys whatever the lab configured (the harness sends those).
    env = {**os.environ, "BENCHLAB_EXPERIMENTER_KEYS": " ".join((DEFAULT_KEYS.lead, DEFAULT_KEYS.word))}
    app = PtyApp(argv, size=size, env=env)
    sent: list[float] = []
    seen: list[float] = []
    try:
        offset = 0
        for k in range(1, n_trials + 1):
            try:
                when_seen, offset = app.wait_for(f"Question {k} of ".encode(), offset, timeout=60)
            except TimeoutError as exc:
                if k == 1:
                    raise BenchlabError(f"the session did not start in the terminal: {exc}") from exc
                break  # the plan has fewer trials than requested
            seen.append(when_seen)
            sent.append(app.send_at(b"1" if k % 2 else b"2", when_seen + rng.uniform(min_delay, max_delay)))
        _end_session(app, offset)
    finally:
        app.close()
    return seen, sent


def _end_session(app: PtyApp, offset: int) -> None:
    """End the session through the experimenter menu, as a person would, so the results file is complete."""
    time.sleep(0.3)
    app.send(DEFAULT_KEYS.terminal_bytes())
    _, offset = app.wait_for(b"Experimenter menu", offset, timeout=10)
    app.send(b"e")
    _, offset = app.wait_for(b"End the session now?", offset, timeout=10)
    app.send(b"y")
    app.wait(30)


def _read_results(out: Path) -> list[dict[str, Any]]:
    """The session's result records in trial order (the one results file naming the participant, whatever the
    task calls it)."""
    found = sorted((out / "results").glob(f"*{TIMING_PARTICIPANT}*.jsonl"))
    if len(found) != 1:
        raise BenchlabError("the session wrote no results" if not found else "the session wrote several results "
                            "files", out / "results")
    results = found[0]
    records = [record for _line, record in iter_json_lines(results)]  # strict UTF-8, errors name file:line
    records.sort(key=lambda r: r["trial_index"])
    return records


def _report(records: list[dict[str, Any]], seen: list[float], sent: list[float], source: str,
            size: tuple[int, int], kept_in: Path | None) -> str:
    """The printed report (``source``: which trial screen and data set); with ``kept_in``, also the per-trial
    figures as ``timing-check.json`` there."""
    n = min(len(records), len(sent))
    key_lat = [(records[i]["response_mono"] - sent[i]) * 1000 for i in range(n)]
    onset_off = [(records[i]["onset_mono"] - seen[i]) * 1000 for i in range(n)]
    rt_err = [records[i]["rt_ms"] - (sent[i] - seen[i]) * 1000 for i in range(n)]
    scripted = [(sent[i] - seen[i]) * 1000 for i in range(n)]
    lines = [
        f"benchlab {__version__} timing check: {n} scripted key presses in a {size[0]}x{size[1]} pseudo-terminal "
        f"({source}), scripted RTs {min(scripted):.0f}-{max(scripted):.0f} ms",
        f"  RT error (recorded - scripted): {_stats(rt_err)}",
        f"  key stamp latency (event.time - write): {_stats(key_lat)}",
        f"  onset stamp - frame seen at terminal:   {_stats(onset_off)}",
        "  Not included: keyboard hardware (typically 4-30 ms) and the terminal emulator's drawing.",
        "  Targets on an idle 2-core machine: |median| RT error <= 2 ms, |p95| <= 5 ms.",
    ]
    if kept_in is not None:
        per_trial = [{"trial_index": records[i]["trial_index"], "scripted_rt_ms": scripted[i], "rt_error_ms": rt_err[i],
                      "key_latency_ms": key_lat[i], "onset_offset_ms": onset_off[i],
                      "onset_source": records[i].get("onset_source", "")} for i in range(n)]
        (kept_in / "timing-check.json").write_text(json.dumps(per_trial, indent=1))
        lines.append(f"  Session files and per-trial figures (timing-check.json) kept in {kept_in}")
    return "\n".join(lines)
