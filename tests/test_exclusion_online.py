"""The declared exclusions read what an online study writes: a failed attention check (scored by the online
slice, stored in the session's ``completion`` event) and the same person under two participant ids (the person key
an online join writes into the assignments log) both reach the exclusion log, compare and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from online_helpers import finish, online_study, open_runner, prolific, study_of

from benchlab.annotations.exclusions.dataset import load_data
from benchlab.annotations.online.completion import complete
from benchlab.annotations.online.joins import join
from benchlab.annotations.online.platform_ids import PlatformId
from tests.test_report_study import cli

RULES = """
[[exclusions]]
rule = "attention_checks"
max_failed = 0

[[exclusions]]
rule = "duplicate"
"""


def test_failed_attention_and_a_duplicate_person_reach_the_exclusion_log(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = online_study(tmp_path / "st")
    careful = join(study_of(folder), prolific("CAREFUL1"))
    careless = join(study_of(folder), prolific("CARELESS1"))
    # the same person again through a generic link (another platform id form): a new participant id, same person
    again = join(study_of(folder), PlatformId("generic", "CAREFUL1", {}))
    assert len({careful.participant, careless.participant, again.participant}) == 3
    # the check is an item only the careless participant is shown: who answers which item depends on the drawn
    # participant ids, so pick it from the three plans rather than take the careless one's first item
    shown = {}
    for who in (careful, careless, again):
        runner = open_runner(folder, who.participant)
        shown[who.participant] = list(runner.plan.main_items)
        runner.close()
    others = set(shown[careful.participant]) | set(shown[again.participant])
    items = [item for item in shown[careless.participant] if item not in others]
    assert items, shown
    (folder / "study.toml").write_text((folder / "study.toml").read_text().replace("[online]\n", RULES + "\n[online]\n")
                                       + f'\n[online.attention]\nfail_at = 1\nitems = [ {{ item = "{items[0]}", '
                                       'answer = "Z" } ]\n')
    for who in (careful, careless, again):
        finish(folder, who.participant, resume=True)
        done = complete(study_of(folder), who.participant)
        assert done is not None
    assignments = [json.loads(line) for line in (folder / "assignments.jsonl").read_text().splitlines()]
    persons = {a["participant"]: a["person"] for a in assignments}
    assert persons[careful.participant] == persons[again.participant] != persons[careless.participant]
    assert all("CAREFUL1" not in json.dumps(a) for a in assignments)  # a keyed hash, never the raw id

    log = load_data([folder]).exclusions()
    got = {(e.participant, e.rule): e.figure for e in log.entries}
    assert got == {(careless.participant, "attention_checks"): "1 of 1 attention checks failed",
                   (again.participant, "duplicate"): f"same person as {careful.participant}"}

    code, out = cli(capsys, "report", str(folder), "--out", str(tmp_path / "r"))
    assert code == 0, out
    md = (tmp_path / "r" / "report.md").read_text()
    assert f"| {careless.participant} | attention_checks | 1 of 1 attention checks failed |" in md
    assert f"| {again.participant} | duplicate | same person as {careful.participant} |" in md
