"""``benchlab power NAME`` comes from the task's declaration: a plug-in written with the choice kit plans a study
with no code of its own (its strata, its plan default and its models' scores), and reads its own pilot data.

The example plug-in (examples/benchlab-example-task: 2 strata, 8 items per stratum by default, two bundled models
at 50 %) is registered without pip, as in ``test_plugin_example.py``; every command runs in a subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.plugin_helpers import EXAMPLE, PACKAGE, example_env, run_benchlab


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return example_env(tmp_path_factory.mktemp("site"))


benchlab = run_benchlab


def test_power_plans_a_plugin_task_from_its_items_and_model_results(env: dict[str, str], tmp_path: Path) -> None:
    listed = benchlab(env, tmp_path, "power", "--help")
    assert listed.returncode == 0, listed.stderr
    assert "numbers" in listed.stdout

    run = benchlab(env, tmp_path, "power", "numbers", "--simulations", "50", "--max-participants", "3",
                   "--format", "csv")
    assert run.returncode == 0, run.stderr
    title = run.stdout.splitlines()[0]
    # the design comes from the items file (2 strata) and the plan default (8 per stratum), the score from the
    # bundled model results (first-option answers half the items right)
    assert title.startswith("# numbers: power of pooled humans vs a model")
    assert "2 cells x 8 items" in title and "model 0.500" in title
    assert "participants,items per person,simulations" in run.stdout
    assert ",16,50," in run.stdout

    own = benchlab(env, tmp_path, "power", "numbers", "--cells", "3", "--items-per-cell", "5", "--model-score", "0.9",
                   "--simulations", "50", "--max-participants", "2")
    assert own.returncode == 0, own.stderr
    assert "3 cells x 5 items" in own.stdout and "model 0.900" in own.stdout


def test_power_reads_a_plugin_tasks_pilot_folder(env: dict[str, str], tmp_path: Path) -> None:
    items = [json.loads(line) for line in (EXAMPLE / PACKAGE / "items.jsonl").read_text().splitlines()]
    pilot = tmp_path / "results"
    pilot.mkdir()
    for who, right in (("P01", 12), ("P02", 6)):
        lines = [{"item": it["id"], "participant": who, "rt_ms": 900.0,
                  "response": it["gold"] if n < right else next(o for o in it["options"] if o != it["gold"])}
                 for n, it in enumerate(items[:16])]
        (pilot / f"{who}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    run = benchlab(env, tmp_path, "power", "numbers", "--pilot", str(pilot), "--simulations", "50",
                   "--max-participants", "2")
    assert run.returncode == 0, run.stderr
    assert f"human accuracy 0.56 and person SD 0.25 from the pilot data in {pilot} (2 people)" in run.stdout

    simulated = tmp_path / "simulated"
    sim = benchlab(env, tmp_path, "run", "numbers", "--participant", "S01", "--simulate", "oracle", "--out",
                   str(simulated))
    assert sim.returncode == 0, sim.stderr
    refused = benchlab(env, tmp_path, "power", "numbers", "--pilot", str(simulated / "results"))
    assert refused.returncode == 2
    assert refused.stderr.strip() == (f"benchlab: error: {simulated / 'results'}: no real participant's answers in "
                                      "the pilot folder")
