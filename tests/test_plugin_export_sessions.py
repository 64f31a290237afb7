"""A plug-in made with the choice kit gets ``benchlab export trials NAME`` and a correct Sessions row, with no code of
its own: both come from the optional protocols its declaration offers (``ExportsTrials``, ``ShowsSessions``).

The example plug-in (examples/benchlab-example-task) is installed as in ``test_plugin_example.py``: commands run in a
subprocess whose PYTHONPATH holds the package and its dist-info, as a user's shell would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from textual.widgets import DataTable

from benchlab.annotations.registry import registry
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner, SessionText, Stage
from benchlab.annotations.task import Registry, SessionOptions
from benchlab.annotations.trial_export import COMMON_COLUMNS
from benchlab.data.choice.items import load_choice_items
from benchlab.tui.screens.sessions import SessionsScreen
from tests.plugin_helpers import EXAMPLE, PACKAGE, example_env, install_example, run_benchlab
from tests.test_session_status import Host

ITEMS = load_choice_items(EXAMPLE / PACKAGE / "items.jsonl")


@pytest.fixture
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return example_env(tmp_path_factory.mktemp("site"))


benchlab = run_benchlab


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_trials_of_a_plugin_task(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "lab"
    for pid, policy in (("P01", "oracle"), ("P02", "random")):
        run = benchlab(env, tmp_path, "run", "numbers", "--participant", pid, "--simulate", policy, "--seed", "4",
                       "--out", str(out))
        assert run.returncode == 0, run.stderr

    export = benchlab(env, tmp_path, "export", "trials", "numbers", str(out / "results"),
                      "--out", str(tmp_path / "trials.csv"))
    assert export.returncode == 0, export.stderr
    csv = pd.read_csv(tmp_path / "trials.csv", dtype={"item": str, "session": str, "participant": str, "response": str,
                                                     "gold": str})

    assert list(csv.columns) == [*COMMON_COLUMNS, "stratum", "gold", "input"]
    answers = [r for pid in ("P01", "P02") for folder in ("results", "practice")
               for r in records(out / folder / f"{pid}.jsonl")]
    assert len(csv) == len(answers) == 2 * (16 + 2)
    assert set(csv["benchmark"]) == {"numbers"}
    assert int(csv["practice"].sum()) == 4
    gold = {item.id: item.gold for item in ITEMS.items}
    stratum = {item.id: item.stratum for item in ITEMS.items}
    assert (csv["correct"] == [gold[i] == r for i, r in zip(csv["item"], csv["response"], strict=True)]).all()
    assert (csv["condition"] == csv["item"].map(stratum)).all() and (csv["stratum"] == csv["condition"]).all()
    assert (csv["gold"] == csv["item"].map(gold)).all()
    assert csv.loc[csv["participant"] == "P01", "correct"].all()  # the oracle
    assert set(csv["simulated"]) == {"oracle", "random"}
    by_answer = {(r["participant"], r["item"]): r["rt_ms"] for r in answers}
    assert csv["rt_ms"].tolist() == pytest.approx([by_answer[(p, i)] for p, i in zip(csv["participant"],
                                                                                      csv["item"], strict=True)])

    # the model results bundled with the task are not people: a folder of them only is "no trials"
    models = benchlab(env, tmp_path, "export", "trials", "numbers", str(EXAMPLE / PACKAGE / "model_results.jsonl"))
    assert models.returncode == 2 and "no numbers trials by people" in models.stderr

    helptext = benchlab(env, tmp_path, "export", "trials", "--help").stdout
    assert "Then, for numbers (reads results files or folders" in helptext and "  stratum: " in helptext
    unknown = benchlab(env, tmp_path, "export", "trials", "nosuchtask", str(out))
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    assert "tasks that do: worldsense, sort, fastbook, numbers" in unknown.stderr


def test_read_statuses_of_a_plugin_session_through_its_declaration(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "lab"
    run = benchlab(env, tmp_path, "run", "numbers", "--participant", "P01", "--simulate", "oracle", "--out", str(out))
    assert run.returncode == 0, run.stderr
    script = ("import json, sys\nfrom benchlab.annotations.session.status import read_statuses\n"
              "print(json.dumps([s.__dict__ for s in read_statuses(sys.argv[1], ['P02'])], default=str))")
    read = subprocess.run([sys.executable, "-c", script, str(out)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert read.returncode == 0, read.stderr
    rows = {r["participant"]: r for r in json.loads(read.stdout)}
    assert rows["P01"]["task"] == "numbers" and rows["P01"]["state"] == "finished"
    assert (rows["P01"]["trial"], rows["P01"]["n_trials"]) == (16, 16)
    assert rows["P01"]["practice_accuracy"] == 1.0  # scored against the items' gold: the oracle is right
    assert rows["P02"]["state"] == "not started"


# -- the Sessions screen, in process: the plug-in joins the registry the screen reads ---------------------------


def answer_first(runner: SessionRunner, n: int) -> None:
    for _ in range(n):
        runner.respond(runner.options()[0], ResponseTiming(onset_mono=1.0, response_mono=2.0))


@pytest.fixture
def numbers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The example task, loaded from its entry point and added to the registry the status reader sees (a copy:
    the process-wide registry is left as it was)."""
    from importlib.metadata import entry_points

    from benchlab.annotations.session import status

    folder, _ = install_example(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    task = {ep.name: ep for ep in entry_points(group="benchlab.tasks")}["numbers"].load()
    reg = Registry()
    for benchmark in [*(b for name, b in registry().benchmarks.items() if name != "numbers"), task]:
        reg.add(benchmark)
    monkeypatch.setattr(status, "registry", lambda: reg)
    return task


async def test_the_sessions_screen_row_of_a_plugin_session(numbers: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    runner = numbers.prepare(SessionOptions(participant="PLUG", out=out, seed=3), numbers.plan_options(),
                             SessionText())
    practice = list(runner.plan.practice)
    try:
        while runner.current.practice:
            answer_first(runner, 1)
            if runner.stage is Stage.BREAK:  # the break after practice
                runner.continue_after_break()
        answer_first(runner, 3)
        assert runner.stage is Stage.TRIAL
        screen = SessionsScreen(out, expected=("PLUG", "LATER"))
        async with Host(screen).run_test(size=(140, 30)) as pilot:
            while screen.loads < 1:
                await pilot.pause(0.05)
            table = screen.query_one(DataTable)
            rows = {str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)]
                    for i in range(table.row_count)}
    finally:
        runner.close()
    right = [ITEMS.by_id[i].options[0] == ITEMS.by_id[i].gold for i in practice]
    assert rows["PLUG"][:6] == ["PLUG", "numbers", "1", "", "", f"trial 4 of {len(runner.plan.main_items)}"]
    assert rows["PLUG"][7] == f"{sum(right) / len(right):.0%}"
    assert rows["LATER"][5] == "not started"
