"""A separate package declaring a two-choice task gets ``benchlab run/score/compare NAME`` with no change in benchlab.

The example plug-in (examples/benchlab-example-task) is registered without pip: a temporary folder on PYTHONPATH
holds the package and a minimal ``<name>.dist-info/`` whose ``entry_points.txt`` is what pip would write from the
example's ``pyproject.toml``. Every command runs in a subprocess with that PYTHONPATH, as a user's shell would.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from tests.plugin_helpers import example_env, run_benchlab


@pytest.fixture
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return example_env(tmp_path_factory.mktemp("site"))


benchlab = run_benchlab


def test_run_score_and_compare_a_plugin_task_from_the_command_line(env: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "lab"
    run = benchlab(env, tmp_path, "run", "numbers", "--participant", "P01", "--simulate", "oracle", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert "16 of 16 scored trials recorded" in run.stdout
    records = [json.loads(line) for line in (out / "results" / "P01.jsonl").read_text().splitlines()]
    assert len(records) == 16
    assert all(r["participant"] == "P01" and r["simulated"] == "oracle" and r["rt_ms"] > 0 for r in records)
    assert len((out / "practice" / "P01.jsonl").read_text().splitlines()) == 2

    score = benchlab(env, tmp_path, "score", "numbers", str(out / "results"), "--format", "csv")
    assert score.returncode == 0, score.stderr
    table = pd.read_csv(io.StringIO(score.stdout), comment="#").set_index(["who", "stratum"])
    assert table.loc[("P01 (simulated oracle)", "overall"), "accuracy"] == 1.0
    assert table.loc[("P01 (simulated oracle)", "overall"), "n"] == 16
    assert table.loc[("more-digits", "decimals"), "accuracy"] == 0.0  # the bundled model results are included

    compare = benchlab(env, tmp_path, "compare", "numbers", str(out / "results"), "--include-simulated",
                       "--boot", "200")
    assert compare.returncode == 0, compare.stderr
    assert compare.stdout.startswith("Which number is larger: accuracy (%) [95% CI]")
    for row in ("P01 (simulated oracle)", "humans (pooled)", "first-option", "more-digits", "two-sided tests"):
        assert row in compare.stdout


def test_a_plan_the_items_cannot_meet_is_a_one_line_error_naming_the_flag(env: dict[str, str],
                                                                          tmp_path: Path) -> None:
    run = benchlab(env, tmp_path, "run", "numbers", "--participant", "P01", "--simulate", "oracle",
                   "--items-per-stratum", "13", "--out", str(tmp_path / "lab"))
    assert run.returncode == 2
    assert run.stderr.startswith("benchlab: error:") and len(run.stderr.strip().splitlines()) == 1
    assert "--items-per-stratum must be at most 12" in run.stderr
    assert not (tmp_path / "lab" / "results").exists()
