"""The choice-task kit through the library: a plug-in's task is discovered, runs sessions, scores and compares.

The example plug-in (examples/benchlab-example-task) is registered the way pip would (a dist-info with its entry
points on sys.path), so these tests also prove that its declaration loads. The same flow through the generated
``benchlab run/score/compare NAME`` commands is in test_plugin_example.py.
"""

from __future__ import annotations

import io
import json
from importlib.metadata import entry_points
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.choice.task import ChoicePlanOptions, ChoiceTask, build_choice_plan, make_choice_task
from benchlab.annotations.options import OptionError, option_infos
from benchlab.annotations.session.runner import SessionText
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.annotations.task import ChoicePrompt, SessionOptions, Task
from benchlab.data.analysis.compare import POOLED
from benchlab.data.analysis.stats import AttentionCriterion, wilson_ci
from benchlab.data.choice.compare import compare_choice
from benchlab.data.choice.items import load_choice_items
from benchlab.data.choice.results import read_choice_results, score_choice, write_model_results
from benchlab.data.errors import BenchlabError
from tests.plugin_helpers import install_example

TIMING_FIELDS = {"rt_ms", "onset_mono", "response_mono", "timestamp", "participant", "session", "trial_index",
                 "block", "practice", "simulated", "skipped", "plan_seed"}


@pytest.fixture
def task(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> ChoiceTask:
    """The example's TASK, loaded through its entry point."""
    folder, declared = install_example(tmp_path_factory.mktemp("site"))
    monkeypatch.syspath_prepend(str(folder))
    found = {ep.name: ep for ep in entry_points(group="benchlab.tasks")}
    assert set(declared) <= set(found)
    loaded = found["numbers"].load()
    assert isinstance(loaded, ChoiceTask)
    return loaded


def run_simulated(task: ChoiceTask, out: Path, participant: str, policy: str = "oracle", seed: int = 7,
                  **plan: int) -> Path:
    session = SessionOptions(participant=participant, out=out, seed=seed, simulate=policy)
    options = task.plan_options(**plan)
    runner = task.prepare(session, options, SessionText(instructions=task.instructions(options, session)))
    simulate_session(runner, SimulatedParticipant(policy, seed=seed))
    return out / "results" / f"{participant}.jsonl"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_example_declares_a_complete_task(task: ChoiceTask) -> None:
    declared: Task = task  # the Protocol the CLI and the app are generated from
    assert (declared.name, declared.trial_kind) == ("numbers", "choice")
    assert declared.simulated_policies == ("random", "oracle")
    assert {c.group for c in declared.commands} == {"score", "compare"}
    assert {i.name: i.default for i in option_infos(declared.plan_options)} == {
        "items_per_stratum": 8, "practice": 2, "block_size": 8}
    assert declared.comparison is not None and declared.comparison.testset_label == "Items file"
    assert declared.default_dataset().name == "items.jsonl"


def test_an_oracle_session_records_every_planned_item_with_timing(task: ChoiceTask, tmp_path: Path) -> None:
    results = run_simulated(task, tmp_path, "P01")
    records = lines(results)
    practice = lines(tmp_path / "practice" / "P01.jsonl")
    items = load_choice_items(task.default_dataset()).by_id
    assert len(records) == 16 and len(practice) == 2
    assert {r["item"] for r in records}.isdisjoint({r["item"] for r in practice})
    assert sum(items[str(r["item"])].stratum == "decimals" for r in records) == 8
    assert all(set(r) >= TIMING_FIELDS for r in records + practice)
    assert all(r["response"] == items[str(r["item"])].gold and r["simulated"] == "oracle" for r in records)
    assert [r["block"] for r in records] == [1] * 8 + [2] * 8
    assert all(isinstance(r["rt_ms"], float) and r["rt_ms"] > 0 for r in records)


def test_the_trial_screen_prompt_shows_text_and_options_but_not_the_gold(task: ChoiceTask, tmp_path: Path) -> None:
    session = SessionOptions(participant="P02", out=tmp_path, seed=1)
    runner = task.prepare(session, task.plan_options(), SessionText())
    try:
        prompt = runner.task_session.prompt(runner.current.item_id)  # type: ignore[attr-defined]
        assert isinstance(prompt, ChoicePrompt)
        assert prompt.text.startswith("Which number is larger") and len(prompt.options) == 2
        assert not hasattr(prompt, "gold")
    finally:
        runner.close()


def test_plans_are_reproducible_and_later_sessions_get_new_items(task: ChoiceTask, tmp_path: Path) -> None:
    items = load_choice_items(task.default_dataset())
    opts = ChoicePlanOptions(items_per_stratum=4, practice=2, block_size=5)
    a = build_choice_plan(items, task="numbers", dataset="d", participant="P", session="1", seed=5, options=opts)
    b = build_choice_plan(items, task="numbers", dataset="d", participant="P", session="1", seed=5, options=opts)
    c = build_choice_plan(items, task="numbers", dataset="d", participant="P", session="1", seed=6, options=opts)
    assert (a.practice, a.blocks) == (b.practice, b.blocks) and a.blocks != c.blocks
    assert [len(block) for block in a.blocks] == [5, 3]

    run_simulated(task, tmp_path, "P03", items_per_stratum=4, practice=1)
    first = {r["item"] for r in lines(tmp_path / "results" / "P03.jsonl")}
    session2 = SessionOptions(participant="P03", session="2", out=tmp_path, seed=8, simulate="oracle")
    runner = task.prepare(session2, task.plan_options(items_per_stratum=4, practice=1), SessionText())
    simulate_session(runner, SimulatedParticipant("oracle"))
    second = [r["item"] for r in lines(tmp_path / "results" / "P03.jsonl")][8:]
    assert len(second) == 8 and first.isdisjoint(second)


def test_a_plan_the_items_cannot_meet_names_the_option(task: ChoiceTask, tmp_path: Path) -> None:
    session = SessionOptions(participant="P04", out=tmp_path)
    with pytest.raises(OptionError) as err:
        task.prepare(session, task.plan_options(items_per_stratum=13), SessionText())
    assert err.value.field == "items_per_stratum" and "must be at most 12" in str(err.value)
    with pytest.raises(OptionError) as err:
        task.prepare(session, task.plan_options(items_per_stratum=12, practice=1), SessionText())
    assert err.value.field == "practice"
    with pytest.raises(OptionError) as err:
        task.prepare(SessionOptions(participant="P04", out=tmp_path, simulate="biased"), task.plan_options(),
                     SessionText())
    assert err.value.field == "simulate"
    assert not (tmp_path / "results").exists()


def test_an_interrupted_session_resumes_without_duplicates(task: ChoiceTask, tmp_path: Path) -> None:
    session = SessionOptions(participant="P05", out=tmp_path, seed=2, simulate="oracle")
    runner = task.prepare(session, task.plan_options(), SessionText())

    def stop_after_five(r: object) -> None:
        if runner.recorded_main == 5:
            runner.abort()

    simulate_session(runner, SimulatedParticipant("oracle"), on_response=stop_after_five)
    assert len(lines(tmp_path / "results" / "P05.jsonl")) == 5
    resumed = task.prepare(session.model_copy(update={"resume": True}), task.plan_options(), SessionText())
    simulate_session(resumed, SimulatedParticipant("oracle"))
    items = [r["item"] for r in lines(tmp_path / "results" / "P05.jsonl")]
    assert len(items) == len(set(items)) == 16


def test_score_gives_accuracy_per_stratum_with_wilson_ci_for_people_and_models(task: ChoiceTask,
                                                                               tmp_path: Path) -> None:
    run_simulated(task, tmp_path, "P01")
    assert task.model_results is not None
    table = score_choice(task.default_dataset(), [tmp_path / "results", task.model_results], numeric=True)
    rows = table.frame
    oracle = rows.loc[("P01 (simulated oracle)", "overall")]
    assert (oracle["n"], oracle["correct"], oracle["accuracy"]) == (16, 16, 1.0)
    assert oracle["ci_low"] == pytest.approx(wilson_ci(16, 16)[0], abs=1e-6)
    assert rows.loc[("first-option", "overall"), "correct"] == 12
    assert rows.loc[("more-digits", "integers"), "accuracy"] == 1.0
    assert rows.loc[("more-digits", "decimals"), "accuracy"] == 0.0
    mine = tmp_path / "mine.jsonl"
    assert write_model_results(mine, "always-gold", [(i.id, i.gold) for i in load_choice_items(
        task.default_dataset()).items]) == 24
    assert score_choice(task.default_dataset(), mine, numeric=True).frame.loc[("always-gold", "overall"),
                                                                             "accuracy"] == 1.0
    shown = score_choice(task.default_dataset(), task.model_results, title="numbers")
    assert shown.frame.loc[("more-digits", "integers"), "accuracy % [95% CI]"] == "100.0 [75.8, 100.0]"


def test_compare_pools_people_and_tests_them_against_each_model(task: ChoiceTask, tmp_path: Path) -> None:
    for pid in ("P01", "P02"):
        run_simulated(task, tmp_path, pid, seed=int(pid[-1]))
    assert task.model_results is not None
    comp = compare_choice(task.default_dataset(), [tmp_path / "results", task.model_results],
                          include_simulated=True, n_boot=500)
    assert [e.kind for e in comp.entries] == ["participant", "participant", "humans", "model", "model"]
    pooled = comp.cell(POOLED, "overall")
    assert pooled is not None and pooled.value == 1.0 and pooled.n_participants == 2
    test = next(t for t in comp.tests if (t.condition, t.model, t.who) == ("decimals", "more-digits", POOLED))
    assert test.result.estimate == pytest.approx(1.0)
    apart = compare_choice(task.default_dataset(), [tmp_path / "results"], n_boot=500)
    assert not any(e.kind == "humans" for e in apart.entries)  # simulated people are not pooled by default


def test_the_score_and_compare_commands_render_the_chosen_format(task: ChoiceTask, tmp_path: Path) -> None:
    run_simulated(task, tmp_path, "P01")
    score, compare = task.commands
    out = score.run(score.options(results=(tmp_path / "results",), fmt="csv"))
    assert out is not None
    frame = pd.read_csv(io.StringIO(out), comment="#")
    assert set(frame["who"]) == {"P01 (simulated oracle)", "first-option", "more-digits"}
    only_models = score.run(score.options(results=(task.model_results,), no_models=True))
    assert only_models is not None and "P01" not in only_models
    out = compare.run(compare.options(results=(tmp_path / "results",), sections=("accuracy",), n_boot=200))
    assert out is not None and out.startswith("Which number is larger: accuracy (%) [95% CI]")
    assert "tests" not in out


def test_broken_items_and_results_are_one_line_errors_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": "a", "text": "?", "options": ["1", "2"], "gold": "1"}\n'
                   '{"id": "b", "text": "?", "options": ["1", "2"], "gold": "3"}\n', encoding="utf-8")
    with pytest.raises(BenchlabError) as err:
        load_choice_items(bad)
    assert err.value.line == 2 and "gold '3' is not one of the options" in err.value.message
    bad.write_text('{"id": "a", "text": "?", "options": ["1", "2"], "gold": "1"}\n' * 2, encoding="utf-8")
    with pytest.raises(BenchlabError, match="appears twice"):
        load_choice_items(bad)
    bad.write_text('{"id": 1, "text": "?", "options": ["1", "2"], "gold": "1"}\n', encoding="utf-8")
    items = load_choice_items(bad)
    assert items.strata == ["all"] and items.get("1").gold == "1"
    results = tmp_path / "r.jsonl"
    results.write_text('{"item": "1", "response": "1", "model": "m"}\n{"item": "9", "response": "1", "model": "m"}\n',
                       encoding="utf-8")
    with pytest.raises(BenchlabError) as err:
        read_choice_results(items, results)
    assert err.value.line == 2 and "not in the items file" in err.value.message
    results.write_text('{"item": "1", "response": "1", "model": "m", "participant": "P"}\n', encoding="utf-8")
    with pytest.raises(BenchlabError, match="either a participant or a model"):
        read_choice_results(items, results)


def test_make_choice_task_refuses_a_name_that_cannot_be_a_command(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="task name"):
        make_choice_task(name="my task", title="t", description="d", items=tmp_path / "items.jsonl")


def test_the_results_screen_source_shows_the_models_before_anyone_ran(task: ChoiceTask, tmp_path: Path) -> None:
    source = task.comparison
    assert source is not None
    empty = tmp_path / "results"  # where sessions will write; not there yet
    comp = source.build(None, empty, AttentionCriterion())
    assert [e.name for e in comp.entries] == ["first-option", "more-digits"]
    assert source.watched(None, empty) == [task.model_results]
    run_simulated(task, tmp_path, "P01")
    assert source.watched(None, empty) == [empty / "P01.jsonl", task.model_results]
    assert "P01" in [e.name for e in source.build(task.default_dataset(), empty, AttentionCriterion()).entries]


def test_a_choice_comparison_gets_what_every_benchmark_gets(tmp_path: Path) -> None:
    """Through the shared pipeline: chance from the options, a fallback test without shared items, RT quantiles."""
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in [
        {"id": "a", "text": "?", "options": ["1", "2"], "gold": "1", "stratum": "two"},
        {"id": "b", "text": "?", "options": ["1", "2"], "gold": "2", "stratum": "two"},
        {"id": "c", "text": "?", "options": ["1", "2", "3"], "gold": "3", "stratum": "three"},
        {"id": "d", "text": "?", "options": ["1", "2", "3"], "gold": "1", "stratum": "three"},
    ]), encoding="utf-8")
    results = tmp_path / "results"
    results.mkdir()
    answers = {"P01": [("a", "1", 900.0), ("c", "3", 1200.0)], "P02": [("b", "1", 700.0), ("d", "1", 800.0)]}
    for pid, rows in answers.items():
        (results / f"{pid}.jsonl").write_text("".join(json.dumps(
            {"item": i, "response": r, "participant": pid, "rt_ms": rt}) + "\n" for i, r, rt in rows),
            encoding="utf-8")
    write_model_results(results / "m.jsonl", "m", [("a", "1"), ("c", "2")])
    comp = compare_choice(items, [results], n_boot=200)
    assert comp.conditions == ["overall", "two", "three"]
    assert comp.chance == pytest.approx((1 / 2 + 1 / 2 + 1 / 3 + 1 / 3) / 4)
    pooled = comp.cell(POOLED, "overall")
    assert pooled is not None and (pooled.n_units, pooled.n_participants, pooled.value) == (4, 2, 0.75)
    by = {(t.condition, t.who): t.result.method for t in comp.tests}
    assert by[("two", "P01")].startswith("paired score test (Tango)")  # P01 and m share item a
    assert by[("two", "P02")].startswith("two-proportion test (Agresti-Caffo")  # P02 shares no item with m
    assert set(comp.rt_quantiles) == {"P01", "P02"}
