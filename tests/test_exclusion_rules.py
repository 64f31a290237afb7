"""Declared exclusions: each rule reads its own data (never the scored outcome), one log per person (rule, figure,
threshold), and compare, export trials, the Results screen's builder and the report leave out the same people."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.exclusions import check_rule, exclusion_log, parse_cli_rule
from benchlab.annotations.exclusions.applied import exclusions_for
from benchlab.annotations.registry import registry
from benchlab.annotations.sort.comparison import COMPARISON
from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.errors import BenchlabError
from tests.report_helpers import RT_FLOOR, run_person, write_study
from tests.test_report_study import cli


def frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    out = pd.DataFrame(rows)
    out["practice"] = out["practice"].astype("boolean")
    out["correct"] = out["correct"].astype("boolean")
    return out


def trial(who: str, practice: bool, correct: bool, rt: float, seen: float = 1.0) -> dict[str, object]:
    return {"participant": who, "practice": practice, "correct": correct, "rt_ms": rt, "seen_share": seen}


def test_each_rule_reads_its_data_and_logs_figure_and_threshold() -> None:
    trials = frame([
        *(trial("fast", False, True, 100.0) for _ in range(8)), trial("fast", True, True, 900.0),
        *(trial("slow", False, True, 90_000.0) for _ in range(8)), trial("slow", True, True, 900.0),
        *(trial("guess", False, True, 900.0) for _ in range(8)), trial("guess", True, False, 900.0),
        *(trial("skim", False, True, 900.0, 0.2) for _ in range(8)), trial("skim", True, True, 900.0),
        *(trial("good", False, False, 900.0) for _ in range(8)), trial("good", True, True, 900.0),
    ])
    rules = [check_rule(r, declared=True, where="t") for r in (
        {"rule": "rt_floor", "ms": 200}, {"rule": "rt_ceiling", "ms": 60_000},
        {"rule": "practice_accuracy", "min": 0.5}, {"rule": "seen_share", "min": 0.5},
        {"rule": "attention_checks", "max_failed": 0})]
    events = {"good": [{"event": "completion", "outcome": "completed", "attention_failed": 0,
                        "attention_answered": 2}],
              "fast": [{"event": "completion", "outcome": "failed_attention", "attention_failed": 1,
                        "attention_answered": 2}]}
    log = exclusion_log(rules, trials, events=events)
    got = {(e.participant, e.rule) for e in log.entries}
    assert got == {("fast", "rt_floor"), ("slow", "rt_ceiling"), ("guess", "practice_accuracy"),
                   ("skim", "seen_share"), ("fast", "attention_checks")}
    # "good" answered every scored trial wrong and is kept: no rule reads the scored outcome
    assert "good" not in log.excluded
    floor = next(e for e in log.entries if e.rule == "rt_floor")
    assert floor.figure == "100% of 8 responses faster than 200 ms" and floor.threshold == "at most 10%"


def test_duplicates_by_the_assignments_person_key_keep_the_first() -> None:
    trials = frame([trial("A", False, True, 900.0), trial("B", False, True, 900.0)])
    log = exclusion_log([check_rule({"rule": "duplicate"}, declared=True, where="t")], trials,
                        assignments=[{"participant": "A", "person": "h1"}, {"participant": "B", "person": "h1"}])
    assert [(e.participant, e.figure) for e in log.entries] == [("B", "same person as A")]


@pytest.mark.parametrize("name", ["accuracy", "control_accuracy", "min_score", "correct"])
def test_a_rule_on_the_scored_outcome_is_refused(name: str) -> None:
    with pytest.raises(BenchlabError, match="selects on the scored outcome"):
        check_rule({"rule": name, "min": 0.5}, declared=True, where="t")
    with pytest.raises(BenchlabError, match="selects on the scored outcome"):
        parse_cli_rule(f"{name}:min=0.5")


def test_command_line_rules_are_exploratory_and_checked() -> None:
    rule = parse_cli_rule("rt_floor:ms=250,max_share=0.2")
    assert not rule.declared and "exploratory" in rule.label and rule.params == {"ms": 250.0, "max_share": 0.2}
    with pytest.raises(BenchlabError, match="needs ms"):
        parse_cli_rule("rt_floor")
    with pytest.raises(BenchlabError, match="unknown setting 'sec'"):
        parse_cli_rule("rt_floor:sec=1")


def test_compare_export_results_screen_and_report_exclude_the_same_people(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s", RT_FLOOR.format(ms=1500))
    for who in ("P01", "P02"):
        run_person(folder, who, "oracle")
    run_person(folder, "P03", "random", median_rt_s=0.5)
    log = exclusions_for([folder / "results"])
    assert log is not None and set(log.excluded) == {"P03"}
    # compare: P03 keeps a flagged row, the pool holds the two others, the notes name the rule and figure
    code, out = cli(capsys, "compare", "sort", str(folder / "results"), "--format", "markdown")
    assert code == 0, out
    assert "Exclusion declared: rt_floor" in out and "P03 (" in out
    # the Results screen's builder (the same call the screen makes)
    comp = COMPARISON.build(None, folder / "results", AttentionCriterion())
    pooled = next(comp.cell(POOLED, c) for c in comp.conditions if comp.cell(POOLED, c) is not None)
    assert pooled is not None and pooled.n_participants == 2 and pooled.value == 1.0
    assert any("rt_floor" in r for r in next(e for e in comp.entries if e.name == "P03").flags)
    # export trials: the excluded column says why, for P03 only
    code, out = cli(capsys, "export", "trials", "sort", str(folder / "results"))
    assert code == 0
    export = pd.read_csv(io.StringIO(out[out.index("benchmark,"):]), keep_default_na=False)
    reasons = export.groupby("participant")["excluded"].first()
    assert reasons["P01"] == "" and reasons["P02"] == "" and "rt_floor (declared)" in reasons["P03"]
    # the report
    code, out = cli(capsys, "report", str(folder), "--out", str(tmp_path / "r"))
    assert code == 0 and "| P03 | rt_floor |" in (tmp_path / "r" / "report.md").read_text()
    assert registry().tasks["sort"].comparison is COMPARISON


def test_compare_labels_a_command_line_rule_exploratory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    run_person(folder, "P02", "random", median_rt_s=0.5)
    code, out = cli(capsys, "compare", "sort", str(folder / "results"), "--exclude", "rt_floor:ms=1500",
                    "--format", "markdown")
    assert code == 0, out
    assert "Exclusion exploratory (chosen after the data): rt_floor" in out and "P02 (" in out
    assert "Exploratory exclusions were chosen on the command line after the data" in out
    code, out = cli(capsys, "compare", "sort", str(folder / "results"), "--exclude", "accuracy:min=0.5")
    assert code == 2 and "selects on the scored outcome" in out and "Traceback" not in out
