"""A study run by simulated answerers through the real engine and recording path, recorded as people (not pilots),
so reports, exclusions, withdrawals and releases are tested on the files real sessions write."""

from __future__ import annotations

import contextlib
import zlib
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
    answerer = SimulatedParticipant(policy, seed=zlib.crc32(participant.encode()), median_rt_s=median_rt_s)
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


def add_model(folder: Path, name: str, source: str = "P01", wrong_every: int = 3) -> None:
    """A model's SORT results on the items ``source`` answered (every ``wrong_every``-th answer flipped), in the
    results layout model runs write (``<L_E>-s<L_S>-hf_<model>_results.csv``)."""
    import pandas as pd  # deferred: only the tests with models need it

    results = folder / "results"
    for path in results.glob(f"*-human_{source}_results.csv"):
        frame = pd.read_csv(path)
        frame = frame[frame["practice"].astype(str) != "True"]
        flip = {"A": "B", "B": "A"}
        frame["answer"] = [flip.get(a, a) if i % wrong_every == 0 else a for i, a in enumerate(frame["answer"])]
        frame["correct"] = frame["answer"] == frame["ground_truth"]
        frame["model_name"] = name
        keep = [c for c in frame.columns if c not in ("participant", "session", "simulated", "rt_ms", "practice")]
        config = path.name.split("-human_")[0]
        frame[keep].to_csv(results / f"{config}-hf_{name}_results.csv", index=False)


def add_reading(folder: Path) -> None:
    """Reading times, seen shares and delays in every person's results, as the terminal and web sessions record them
    for STM trials (the simulated answerer skips the reading phase and leaves them empty)."""
    import pandas as pd  # deferred: only the tests of the reading tables need it

    for n, path in enumerate(sorted((folder / "results").glob("*-human_*_results.csv"))):
        frame = pd.read_csv(path, index_col=0)
        rows = range(len(frame))
        frame["reading_ms"] = [8000.0 + 500 * n + 100 * i for i in rows]
        frame["seen_share"] = [1.0 if i % 4 else 0.75 for i in rows]
        frame["delay_ms"] = [2500.0 + 10 * (i % 3) for i in rows]
        frame.to_csv(path)
