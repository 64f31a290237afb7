"""A study run by simulated answerers through the real engine and recording path, recorded as people (not pilots),
so reports, exclusions, withdrawals and releases are tested on the files real sessions write."""

from __future__ import annotations

import contextlib
from pathlib import Path

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.annotations.study import load_study

STUDY = """\
title = "Memory for order"
benchmark = "sort"

[options]
trials = 8
practice = 2

[[arms]]
name = "stm"
options = {{ condition = "stm" }}

[assignment]
rule = "balanced"
{extra}"""

RT_FLOOR = """
[[exclusions]]
rule = "rt_floor"
ms = {ms}
max_share = 0.2

[[exclusions]]
rule = "incomplete"
"""


def write_study(folder: Path, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(STUDY.format(extra=extra))
    return folder


def run_person(folder: Path, participant: str, policy: str = "random", median_rt_s: float = 4.0,
               stop_after: int | None = None) -> None:
    """One session of ``participant`` answered by ``policy``; ``stop_after`` scored answers leaves it unfinished
    (the app gone: lock released, as after a crash)."""
    study = load_study(folder, registry())
    assignment = study.assign(participant)
    runner = open_session(study.task, assignment.session_options, assignment.plan_options)
    study.record(assignment, runner.files.plan)
    answerer = SimulatedParticipant(policy, seed=hash(participant) % 1000, median_rt_s=median_rt_s)
    if stop_after is None:
        simulate_session(runner, answerer)
    else:
        class Stop(Exception):
            pass

        def maybe_stop(r: object) -> None:
            if runner.recorded_main >= stop_after:
                raise Stop

        with contextlib.suppress(Stop):
            simulate_session(runner, answerer, on_response=maybe_stop)
    runner.close()
