"""Online studies without a browser: platform ids checked, one session per person (resume, already taken part),
quotas, arms balanced under a lock by fifty simultaneous joins in several processes, declined consent and
abandoned sessions taking no place, terminal seats balanced too, completion codes only after the end record,
time limits, and no raw platform id outside the key file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from online_helpers import answer, finish, joins, online_study, open_runner, prolific, study_of

from benchlab.annotations.online import places
from benchlab.annotations.online.completion import complete, redirect_for
from benchlab.annotations.online.joins import join
from benchlab.annotations.online.platform_ids import PlatformIdError, platform_id
from benchlab.annotations.online.private import KEY_FILE, PRIVATE_DIR, pseudonym
from benchlab.annotations.registry import registry
from benchlab.annotations.study import load_study
from benchlab.tui.web.online.routes import SessionHooks, end_code, gate_refusal, watch_time_limits

TESTS = Path(__file__).parent


def test_platform_ids_come_from_each_platforms_parameters_and_are_checked() -> None:
    who = platform_id("prolific", {"PROLIFIC_PID": "5f1a2b", "STUDY_ID": "s9", "SESSION_ID": "x1"})
    assert who.person == "5f1a2b" and who.extra == {"STUDY_ID": "s9", "SESSION_ID": "x1"}
    assert platform_id("sona", {"id": "12345"}).person == "12345"
    assert platform_id("mturk", {"workerId": "A1B2", "assignmentId": "3X", "hitId": "H"}).extra["hitId"] == "H"
    assert platform_id("generic", {"participant": "p-7"}).person == "p-7"
    for params, words in (({}, "needs your Prolific id"), ({"PROLIFIC_PID": "x" * 129}, "too long"),
                          ({"PROLIFIC_PID": "<b>x</b>"}, "only letters"), ({"PROLIFIC_PID": "a b"}, "only letters")):
        with pytest.raises(PlatformIdError, match=words):
            platform_id("prolific", params)
    with pytest.raises(PlatformIdError, match="preview"):
        platform_id("mturk", {"workerId": "A1", "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"})


def test_one_session_per_person_resumes_then_says_already_taken_part(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    first = joins(folder, "PERSON1")
    assert first.kind == "start" and first.participant.startswith("o-") and first.arm == "stm"
    again = joins(folder, "PERSON1")
    assert (again.kind, again.token, again.participant) == ("resume", first.token, first.participant)
    assert joins(folder, "PERSON2").arm == "ltm"  # balanced
    finish(folder, first.participant)
    assert joins(folder, "PERSON1").kind == "already"
    assert len(study_of(folder).assignments()) == 2  # never a second session for one id


def test_the_pseudonym_is_a_keyed_hash_and_the_secret_is_made_once(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    code = ("import sys; from pathlib import Path; from benchlab.annotations.online.private import pseudonym;"
            "from benchlab.annotations.online.platform_ids import PlatformId;"
            "print(pseudonym(Path(sys.argv[1]), PlatformId('prolific', 'SAME', {})))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True)
             for _ in range(4)]
    ids = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert len(ids) == 1 and ids == {pseudonym(folder, prolific("SAME"))}
    other = online_study(tmp_path / "other")
    assert pseudonym(other, prolific("SAME")) not in ids  # another study's secret: unlinkable


def test_a_full_quota_shows_full_before_anything_starts(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "quota = 2")
    assert joins(folder, "A1").kind == "start" and joins(folder, "A2").kind == "start"
    before = (folder / "assignments.jsonl").read_bytes()
    full = joins(folder, "A3")
    assert full.kind == "full" and "2 places" in full.reason
    assert (folder / "assignments.jsonl").read_bytes() == before  # nothing written for a refused join
    assert joins(folder, "A1").kind == "resume"  # people already in go on


def test_arm_quotas_send_joiners_to_arms_with_places(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "arm_quotas = { stm = 1, ltm = 2 }")
    arms = [joins(folder, f"Q{i}").arm for i in range(3)]
    assert Counter(arms) == {"stm": 1, "ltm": 2}
    assert joins(folder, "Q9").kind == "full"


def test_fifty_simultaneous_joins_keep_the_arms_within_one(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[3]);"
            "from online_helpers import joins\n"
            "for i in range(10): joins(Path(sys.argv[1]), f'W{sys.argv[2]}x{i}')")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder), str(n), str(TESTS)]) for n in range(5)]
    assert [p.wait(timeout=180) for p in procs] == [0] * 5
    records = study_of(folder).assignments()
    counts = Counter(r["arm"] for r in records)
    assert len(records) == 50 and len({r["participant"] for r in records}) == 50
    assert abs(counts["stm"] - counts["ltm"]) <= 1, counts


def test_declined_consent_takes_no_place_in_the_browser_or_at_a_terminal(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", consent=True)
    web = joins(folder, "DECLINER")
    runner = open_runner(folder, web.participant)
    runner.log_event("declined", task="sort")  # what the web session logs (tui/session_flow.py)
    runner.decline_consent()
    assert web.participant not in places.counted(study_of(folder))
    assert joins(folder, "NEXT").arm == "stm"  # the declined person's arm is free again
    gave = complete(study_of(folder), web.participant)
    assert gave is not None and (gave.outcome, gave.code) == ("declined", "NOCONSENT")
    # a terminal seat (benchlab run --study): the assignment is recorded once the session is open
    study = study_of(folder)
    seat = study.assign("P01", "1")
    runner = open_runner(folder, "P01")
    study.record(seat, runner.files.plan)
    assert "P01" in places.counted(study_of(folder))  # at consent now: holds its place
    runner.decline_consent()
    assert "P01" not in places.counted(study_of(folder))


def test_terminal_seats_starting_together_get_different_arms(tmp_path: Path) -> None:
    """Issue 23 item 4: two `run --study` sessions started in the same second both got arm stm."""
    folder = online_study(tmp_path / "st")
    first = study_of(folder).assign("P01", "1")  # chosen, not yet recorded (its session is opening)
    second = study_of(folder).assign("P02", "1")
    assert {first.arm, second.arm} == {"stm", "ltm"}


def test_an_abandoned_session_frees_its_place_and_resumes_flagged(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", 'quota = 1\nabandon_after = 1')
    gone = joins(folder, "GONE")
    runner = open_runner(folder, gone.participant)
    answer(runner, trials=1)
    runner.close()  # the tab closed mid-session
    assert joins(folder, "WAITING").kind == "full"
    time.sleep(1.5)
    rows = {p.participant: p for p in places.places(study_of(folder))}
    assert rows[gone.participant].abandoned and not rows[gone.participant].counts
    back = joins(folder, "GONE")
    assert back.kind == "resume" and back.flagged  # data kept, marked; the person resumes while a place is free
    # (a freed place taken by someone else meanwhile: tests/test_online_outcomes_logged.py)
    assert any(p.name.endswith("_results.csv") for p in (folder / "results").iterdir())


def test_the_code_comes_only_after_the_end_record_and_is_stored_in_it(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    who = joins(folder, "FINISHER")
    runner = open_runner(folder, who.participant)
    answer(runner, trials=3)
    assert complete(study_of(folder), who.participant) is None  # running: no code
    answer(runner)
    runner.close()
    gave = complete(study_of(folder), who.participant)
    assert gave is not None and gave.code == "DONE1234" and gave.redirect is not None
    assert gave.redirect.endswith("cc=DONE1234")
    events_file = next((folder / "sessions").glob("*.events.jsonl"))
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    names = [e["event"] for e in events]
    assert names.index("completed") < names.index("completion")
    assert events[names.index("completion")]["code"] == "DONE1234"
    assert complete(study_of(folder), who.participant) == gave  # a reload: the same code, stored once
    assert sum(1 for n in names if n == "completion") == 1


def test_past_the_time_limit_the_session_times_out_with_its_code(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "time_limit = 1")
    who = joins(folder, "SLOW")
    runner = open_runner(folder, who.participant)
    answer(runner, trials=1)
    time.sleep(1.3)
    gave = complete(study_of(folder), who.participant)
    runner.close()
    assert gave is not None and (gave.outcome, gave.code) == ("timed_out", "TIMEOUT9")
    events = next((folder / "sessions").glob("*.events.jsonl")).read_text()
    assert '"timed_out"' in events and '"TIMEOUT9"' in events


def test_attention_checks_are_scored_and_decide_the_outcome_by_the_declared_rule(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    who = joins(folder, "CARELESS")
    runner = open_runner(folder, who.participant)
    items = list(runner.plan.main_items)
    runner.close()
    checks = ", ".join(f'{{ item = "{item}", answer = "Z" }}' for item in items[:2])
    text = (folder / "study.toml").read_text() + f"\n[online.attention]\nfail_at = 2\nitems = [ {checks} ]\n"
    text += '\n[online.completion.failed_attention]\ncode = "ATTFAIL1"\n'
    (folder / "study.toml").write_text(text)
    finish(folder, who.participant, resume=True)  # answers the first option, never the instructed "Z"
    gave = complete(study_of(folder), who.participant)
    assert gave is not None and (gave.outcome, gave.code, gave.attention) == ("failed_attention", "ATTFAIL1",
                                                                              "2/2 failed (rule met)")
    assert any((folder / "results").iterdir())  # reported, never deleted


def test_no_raw_platform_id_outside_the_key_file(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    for person in ("RAWID0001", "RAWID0002"):
        finish(folder, joins(folder, person).participant)
        complete(study_of(folder), joins(folder, person).participant)
    exported = tmp_path / "trials.csv"
    done = subprocess.run([sys.executable, "-m", "benchlab.tui", "export", "trials", "sort",
                           str(folder / "results"), "--out", str(exported)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    files = [p for p in [*folder.rglob("*"), exported] if p.is_file() and PRIVATE_DIR not in p.parts]
    assert len(files) >= 6
    for path in files:
        assert b"RAWID000" not in path.read_bytes(), path
    key = (folder / PRIVATE_DIR / KEY_FILE).read_text()
    assert "RAWID0001" in key and "RAWID0002" in key


def test_the_online_section_is_checked_with_file_and_line(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", 'time_limit = "soon"')
    with pytest.raises(Exception, match=r"study.toml:\d+: online.time_limit"):
        load_study(folder, registry())


def test_the_gate_and_end_callbacks_for_the_native_page(tmp_path: Path) -> None:
    """What the native page's pre-consent gate and end-of-session callback get from the online study."""
    folder = online_study(tmp_path / "st")
    who = joins(folder, "NATIVE01")
    study = study_of(folder)
    assert asyncio.run(gate_refusal(study, who.participant)) is None  # joined, not ended: may open
    assert asyncio.run(gate_refusal(study, "P01")) is None  # a private link of the same server: not ours
    assert asyncio.run(end_code(study, who.participant)) is None  # not ended: no code
    finish(folder, who.participant)
    message, code, redirect = asyncio.run(end_code(study, who.participant)) or ("", None, None)
    assert code == "DONE1234" and redirect and "cc=DONE1234" in redirect and "finished" in message
    refusal = asyncio.run(gate_refusal(study, who.participant))
    assert refusal is not None and refusal[0] == "You have already taken part" and "DONE1234" in refusal[1]


def test_a_sona_redirect_gets_the_survey_code_only_when_the_page_shows(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    text = (folder / "study.toml").read_text().replace('platform = "prolific"', 'platform = "sona"').replace(
        "https://app.prolific.com/submissions/complete?cc={code}",
        "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=7&credit_token=abc&survey_code={id}")
    (folder / "study.toml").write_text(text)
    study = study_of(folder)
    who = join(study, platform_id("sona", {"id": "77123"}))
    finish(folder, who.participant)
    done = complete(study_of(folder), who.participant)
    assert done is not None and done.redirect is not None and "{id}" in done.redirect  # stored without the id
    assert redirect_for(study, done) == done.redirect.replace("{id}", "77123")
    stored = [p for p in folder.rglob("*") if p.is_file() and PRIVATE_DIR not in p.parts]
    assert all(b"77123" not in p.read_bytes() for p in stored)


def test_the_server_stops_a_live_session_past_its_time_limit(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "time_limit = 1")
    who = joins(folder, "LIVE01")
    runner = open_runner(folder, who.participant)
    answer(runner, trials=1)
    stopped: list[str] = []
    hooks = SessionHooks(register=lambda p, t, a: f"/s/{t}", stop=stopped.append, live=lambda: {who.participant})

    async def watch() -> None:
        task = asyncio.get_running_loop().create_task(watch_time_limits(study_of(folder), hooks, every_s=0.2))
        for _ in range(50):
            await asyncio.sleep(0.1)
            if stopped:
                break
        task.cancel()

    asyncio.run(watch())
    runner.close()
    assert stopped == [who.participant]
    done = complete(study_of(folder), who.participant)
    assert done is not None and done.outcome == "timed_out"


def test_joins_racing_for_the_last_places_never_overfill_the_quota(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st", "quota = 10")
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[3]);"
            "from online_helpers import joins\n"
            "print(sum(joins(Path(sys.argv[1]), f'R{sys.argv[2]}x{i}').kind == 'start' for i in range(8)))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder), str(n), str(TESTS)], stdout=subprocess.PIPE,
                              text=True) for n in range(3)]
    started = [int(p.communicate(timeout=180)[0].strip()) for p in procs]
    assert sum(started) == 10 and len(study_of(folder).assignments()) == 10


def test_one_person_joining_from_several_browsers_at_once_gets_one_session(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]);"
            "from online_helpers import joins\nprint(joins(Path(sys.argv[1]), 'SAMEPERSON').token)")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(folder), str(TESTS)], stdout=subprocess.PIPE,
                              text=True) for _ in range(4)]
    tokens = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert len(tokens) == 1 and len(study_of(folder).assignments()) == 1
    key = (folder / PRIVATE_DIR / KEY_FILE).read_text().splitlines()
    assert len(key) == 1
