"""The session engine without the app: recording, resume without duplicates, the lock, consent, simulation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.runner import EndReason, ResponseTiming, SessionRunner, SessionText, Stage
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.annotations.worldsense.plan import WorldSensePlanOptions
from benchlab.annotations.worldsense.session import prepare_worldsense_session, worldsense_files
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.loader import load_trials
from benchlab.data.worldsense.records import Trial
from benchlab.data.worldsense.scoring import score_worldsense


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=6)


@pytest.fixture(scope="module")
def trials(testset: Path) -> list[Trial]:
    return load_trials(testset)


def _open(trials: list[Trial], out: Path, **kw: object) -> SessionRunner:
    opts = WorldSensePlanOptions(tuples_per_cell=2, practice=int(kw.pop("practice", 2)),  # type: ignore[call-overload]
                                 block_size=int(kw.pop("block_size", 30)))  # type: ignore[call-overload]
    args: dict[str, object] = {"dataset": "ds", "participant": "P01", "out": out, "seed": 3, "options": opts}
    args.update(kw)
    return prepare_worldsense_session(trials, **args)  # type: ignore[arg-type]


def _t(rt: float = 1.5) -> ResponseTiming:
    return ResponseTiming(onset_mono=100.0, response_mono=100.0 + rt)


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_response_is_on_disk_in_the_worldsense_format_before_the_next_trial(trials: list[Trial],
                                                                                 tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=0)
    assert runner.stage is Stage.TRIAL
    first = runner.current
    answer = runner.options()[1]
    runner.respond(answer, _t(2.25))
    lines = _lines(runner.files.results)
    assert runner.files.results.name == "basic___human-P01___results.jsonl"
    assert len(lines) == 1 and lines[0]["Key"] == int(first.item_id) and lines[0]["resp"] == answer
    assert isinstance(lines[0]["Key"], int) and str(lines[0]["Key"]) == first.item_id  # exact 64-bit integer
    assert lines[0]["rt_ms"] == 2250.0 and lines[0]["onset_mono"] == 100.0 and lines[0]["response_mono"] == 102.25
    for field in ("timestamp", "participant", "session", "trial_index", "block", "practice", "plan_seed",
                  "benchlab_version"):
        assert field in lines[0]
    assert lines[0]["practice"] is False and lines[0]["plan_seed"] == 3
    # a trial field name would make the original's join create _x/_y columns
    assert not set(lines[0]) & {"problemname", "text", "skin", "tuple_ID", "goldresp", "expectedresp"}
    runner.close()


def test_only_a_listed_option_is_accepted(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=0)
    with pytest.raises(ValueError, match="not an option"):
        runner.respond("true", _t())
    assert not runner.files.results.exists()
    runner.close()


def test_practice_goes_to_its_own_file_never_the_scored_one(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=2)
    fb = runner.respond(runner.options()[0], _t())
    assert fb is not None
    runner.respond(runner.options()[0], _t())
    assert runner.stage is Stage.BREAK
    assert len(_lines(runner.files.practice)) == 2 and all(r["practice"] for r in _lines(runner.files.practice))
    assert not runner.files.results.exists()
    runner.close()


def test_resume_continues_at_the_next_unanswered_trial_without_duplicates(trials: list[Trial],
                                                                          tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=0)
    order = runner.plan.main_items
    for _ in range(5):
        runner.respond(runner.options()[0], _t())
    runner.close()
    # the library names the fields (the CLI says --resume / --session, test_session_cli)
    with pytest.raises(OptionError, match="already started; add resume to continue it") as started:
        _open(trials, tmp_path, practice=0)
    assert started.value.field == "session"
    # a killed writer leaves a torn line: it is cut, and that trial is asked again
    with runner.files.results.open("a") as fh:
        fh.write('{"Key": 12, "resp": "TR')
    again = _open(trials, tmp_path, practice=0, resume=True, seed=999)
    assert again.plan.main_items == order  # the saved plan, not a new one from the new seed
    assert again.current.item_id == order[5]
    while again.stage is not Stage.END:
        if again.stage is Stage.BREAK:
            again.continue_after_break()
        else:
            again.respond(again.options()[0], _t())
    keys = [str(r["Key"]) for r in _lines(again.files.results)]
    assert keys == order and len(set(keys)) == len(keys)
    assert again.end_reason is EndReason.COMPLETED


def test_a_second_writer_is_refused_with_the_holders_pid(trials: list[Trial], tmp_path: Path) -> None:
    import os

    runner = _open(trials, tmp_path)
    with pytest.raises(BenchlabError, match=f"in use by process {os.getpid()}"):
        _open(trials, tmp_path, resume=True)
    runner.close()
    _open(trials, tmp_path, resume=True).close()  # free again once released


def test_declining_consent_records_nothing(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, text=SessionText(consent="Do you agree?", instructions=["Hello"]))
    assert runner.stage is Stage.CONSENT
    runner.decline_consent()
    assert runner.end_reason is EndReason.DECLINED
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert "nothing was recorded" in runner.summary()


def test_plan_is_saved_when_the_session_starts(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, text=SessionText(consent="Agree?", instructions=["Hi"]))
    assert not runner.files.plan.exists()
    runner.accept_consent()
    assert runner.files.plan.exists() and runner.stage is Stage.INSTRUCTIONS
    runner.close()


def test_a_duplicate_in_the_log_is_reported_with_its_line(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=0)
    runner.respond(runner.options()[0], _t())
    runner.close()
    line = runner.files.results.read_text()
    runner.files.results.write_text(line + line)
    with pytest.raises(BenchlabError, match=r"results.jsonl:2: item .* recorded twice"):
        _open(trials, tmp_path, practice=0, resume=True)


def test_bad_participant_ids_are_refused(trials: list[Trial], tmp_path: Path) -> None:
    with pytest.raises(BenchlabError, match="participant id"):
        _open(trials, tmp_path, participant="P___1")
    with pytest.raises(BenchlabError, match="participant id"):
        _open(trials, tmp_path, participant="../x")


def _simulate(trials: list[Trial], testset: Path, out: Path, policy: str, participant: str = "P01") -> dict[str, float]:
    runner = _open(trials, out, participant=participant, simulated=policy)
    simulate_session(runner, SimulatedParticipant(policy, seed=1))
    assert runner.end_reason is EndReason.COMPLETED
    assert all(r["simulated"] == policy for r in _lines(runner.files.results))
    tables = score_worldsense(testset, out / "results")
    acc = tables.accuracy["mean"].droplevel(["prompting", "modelname"]).to_dict()
    bias = tables.bias["mean"].droplevel(["prompting", "modelname"]).to_dict()
    assert tables.overall is not None
    return {"overall": float(tables.overall["mean"].iloc[0]), **{f"acc:{k}": v for k, v in acc.items()},
            **{f"bias:{k}": v for k, v in bias.items()}}


def test_simulated_oracle_scores_100_percent(trials: list[Trial], testset: Path, tmp_path: Path) -> None:
    scores = _simulate(trials, testset, tmp_path, "oracle")
    assert scores["overall"] == 1.0
    assert all(v == 0.0 for k, v in scores.items() if k.startswith("bias:"))


def test_simulated_biased_participant_scores_50_percent_with_full_positive_bias(
        trials: list[Trial], testset: Path, tmp_path: Path) -> None:
    scores = _simulate(trials, testset, tmp_path, "biased")
    assert scores["overall"] == 0.5
    assert all(v == 1.0 for k, v in scores.items() if k.startswith("bias:"))


def test_simulated_random_participant_scores_about_50_percent(trials: list[Trial], testset: Path,
                                                               tmp_path: Path) -> None:
    # 3 participants x 36 tuples; a random tuple score has sd <= 0.36, so the mean is within 4 sd of 0.5
    for p in ("R1", "R2", "R3"):
        _simulate(trials, testset, tmp_path, "random", participant=p)
    tables = score_worldsense(testset, tmp_path / "results")
    means = tables.tuples["acc"]
    assert len(means) == 108 and abs(means.mean() - 0.5) < 4 * 0.36 / len(means) ** 0.5


def test_files_layout(tmp_path: Path) -> None:
    files = worldsense_files(tmp_path, "P7", "2")
    assert files.results == tmp_path / "results" / "basic___human-P7___results.jsonl"
    assert files.practice.parent.name == "practice" and "results" not in files.practice.name
    assert files.plan.name == "human-P7_session-2.plan.json"


def test_the_event_log_records_start_breaks_skips_and_end(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=1, block_size=40, text=SessionText(consent="ok?", instructions=["Hi"]))
    runner.accept_consent()
    runner.finish_instructions()
    runner.respond(runner.options()[0], _t())  # practice
    runner.continue_after_break()
    runner.skip(_t())
    while runner.stage is not Stage.END:
        if runner.stage is Stage.BREAK:
            runner.continue_after_break()
        else:
            runner.respond(runner.options()[0], _t())
    events = _lines(runner.files.events)
    names = [e["event"] for e in events]
    assert names == ["started", "instructions_read", "practice_answered", "break_start", "break_end", "trial_skipped",
                     "break_start", "break_end", "break_start", "break_end", "completed"]
    assert events[2]["correct"] in (True, False)  # practice correctness, for the Sessions screen
    assert events[3]["kind"] == "practice_done" and events[6]["kind"] == "block" and events[6]["after_block"] == 1
    monos = [float(e["mono"]) for e in events]  # type: ignore[arg-type]
    assert monos == sorted(monos) and events[-1]["recorded"] == 84
    assert runner.files.events.name == "human-P01_session-1.events.jsonl"


def test_resume_during_practice_continues_the_practice(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=3)
    runner.respond(runner.options()[0], _t())
    runner.close()
    again = _open(trials, tmp_path, practice=3, resume=True)
    assert again.current.practice and again.current.index == 1
    again.close()


def test_the_experimenter_status_names_the_end_of_practice_not_a_block_break(trials: list[Trial],
                                                                            tmp_path: Path) -> None:
    """The menu said "now at: break" on the practice-finished screen; the experimenter needs to know which."""
    runner = _open(trials, tmp_path, practice=2, block_size=4)
    assert runner.position() == "practice trial 1 of 2"
    for _ in range(2):
        runner.respond(runner.options()[0], _t())
    assert runner.stage is Stage.BREAK and runner.position().startswith("end of practice")
    runner.continue_after_break()
    assert runner.position() == f"question 1 of {runner.n_main} (block 1 of {runner.n_blocks})"
    for _ in range(4):
        runner.respond(runner.options()[0], _t())
    assert runner.position() == f"break after block 1 of {runner.n_blocks}"


def test_the_summary_of_an_unfinished_session_says_how_to_resume(trials: list[Trial], tmp_path: Path) -> None:
    runner = _open(trials, tmp_path, practice=0)
    runner.respond(runner.options()[0], _t())
    runner.abort()
    assert "same command plus --resume" in runner.summary()
    assert runner.summary("Resume it from the launcher.").endswith("Resume it from the launcher.")
