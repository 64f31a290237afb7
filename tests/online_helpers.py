"""Helpers of the online-study tests: a small SORT study with an [online] section, and sessions driven through
the engine API (the runner) exactly as a front end would."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.online.joins import Join, join
from benchlab.annotations.online.platform_ids import PlatformId
from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner, Stage
from benchlab.annotations.study import Study, load_study

ONLINE_STUDY = """\
title = "Online order study"
benchmark = "sort"

[options]
trials = 4
practice = 0
{consent}

[[arms]]
name = "stm"
options = {{ condition = "stm" }}

[[arms]]
name = "ltm"
options = {{ condition = "ltm" }}

[assignment]
rule = "balanced"

[online]
platform = "prolific"
{online}

[online.completion.completed]
code = "DONE1234"
redirect = "https://app.prolific.com/submissions/complete?cc={{code}}"

[online.completion.declined]
code = "NOCONSENT"

[online.completion.timed_out]
code = "TIMEOUT9"
"""


def online_study(folder: Path, online: str = "", consent: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if consent:
        (folder / "consent.md").write_text("# Consent\n\nDo you agree to take part?\n")
    (folder / "study.toml").write_text(ONLINE_STUDY.format(
        online=online, consent='consent_file = "consent.md"' if consent else ""))
    return folder


def study_of(folder: Path) -> Study:
    return load_study(folder, registry())


def prolific(pid: str) -> PlatformId:
    return PlatformId("prolific", pid, {"STUDY_ID": "S1", "SESSION_ID": f"X{pid}"})


def joins(folder: Path, pid: str) -> Join:
    return join(study_of(folder), prolific(pid))


def timing() -> ResponseTiming:
    return ResponseTiming(onset_mono=100.0, response_mono=101.0)


def open_runner(folder: Path, participant: str, resume: bool = False) -> SessionRunner:
    study = study_of(folder)
    assignment = study.assign(participant, "1", resume=resume)
    return open_session(study.task, assignment.session_options, assignment.plan_options)


def answer(runner: SessionRunner, trials: int | None = None) -> None:
    """Go through consent and instructions, then answer ``trials`` trials (all when ``None``)."""
    done = 0
    while runner.stage is not Stage.END and (trials is None or done < trials):
        if runner.stage is Stage.CONSENT:
            runner.accept_consent()
        elif runner.stage is Stage.INSTRUCTIONS:
            runner.finish_instructions()
        elif runner.stage is Stage.BREAK:
            runner.continue_after_break()
        else:
            runner.respond(runner.options()[0], timing())
            done += 1


def finish(folder: Path, participant: str, resume: bool = False) -> None:
    runner = open_runner(folder, participant, resume)
    try:
        answer(runner)
    finally:
        runner.close()
