"""SORT's shared item list (``--shared-items``, the study option ``shared_items``): every participant answers the same
trials in their own order, so the export has every item once per person and agreement is estimable; with too few
shared items agreement says "n/a" and why, never a kappa of -1 from one item."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.sort.plan_options import SortPlanOptions
from benchlab.data.analysis.stats.agreement import MIN_SHARED_ITEMS
from benchlab.data.sort.compare import compare_sort
from tests.test_compare_sort import run_cli, write_csv
from tests.test_export_trials import benchlab


def test_shared_item_list_gives_everyone_the_same_trials_in_their_own_order(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    for p, seed in (("a", "1"), ("b", "2"), ("c", "3")):
        benchlab("run", "sort", "--participant", p, "--simulate", "random", "--trials", "12", "--practice", "2",
                 "--seed", seed, "--shared-items", "--out", str(out), "--no-instructions")
    frame = pd.read_csv(io.StringIO(benchlab("export", "trials", "sort", str(out / "results"),
                                             str(out / "practice"))))
    scored = frame[~frame["practice"]]
    items = {p: set(g["item"]) for p, g in scored.groupby("participant")}
    assert items["a"] == items["b"] == items["c"] and len(items["a"]) == 12
    orders = {p: tuple(g.sort_values("trial_index")["item"]) for p, g in scored.groupby("participant")}
    assert len(set(orders.values())) == 3  # each person's own order
    practice = {p: set(g["item"]) for p, g in frame[frame["practice"]].groupby("participant")}
    assert practice["a"] == practice["b"] == practice["c"]
    assert SortPlanOptions(shared_items=True).config()["shared_items"] is True
    assert "shared_items" not in SortPlanOptions().config()  # plans of the default design are unchanged


def test_own_draws_differ_by_participant(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    for p in ("a", "b"):
        benchlab("run", "sort", "--participant", p, "--simulate", "random", "--trials", "12", "--seed", "1",
                 "--out", str(out), "--no-instructions")
    frame = pd.read_csv(io.StringIO(benchlab("export", "trials", "sort", str(out / "results"))))
    items = {p: set(g["item"]) for p, g in frame[~frame["practice"]].groupby("participant")}
    assert items["a"] != items["b"]


def test_agreement_on_too_few_shared_items_is_na_with_the_reason(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """QA: Fleiss' kappa printed -1.000 on one shared item, without a warning."""
    res = tmp_path / "results"
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1", [900.0] * 8)
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [False] + [True] * 7, "p2", [900.0] * 8,
              first_item=7)  # item 7 is the one both answered, differently
    comp = compare_sort([res], n_boot=200)
    agr = comp.agreement["e250-s20"]
    assert agr.items == 1 and agr.kappa != agr.kappa
    assert f"fewer than {MIN_SHARED_ITEMS}" in agr.note
    assert run_cli(["compare", "sort", str(res), "--only", "agreement", "--boot", "200"]) == 0
    text = capsys.readouterr().out
    assert "n/a (1 item(s) answered by 2 or more people" in text and "-1.000" not in text


def test_agreement_on_a_shared_list_is_estimated(tmp_path: Path) -> None:
    res = tmp_path / "results"
    n = 2 * MIN_SHARED_ITEMS
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [i % 3 != 0 for i in range(n)], "p1", [900.0] * n)
    write_csv(res / "250-s20-human-p2_results.csv", "human-p2", [i % 4 != 0 for i in range(n)], "p2", [900.0] * n)
    agr = compare_sort([res], n_boot=200).agreement["e250-s20"]
    assert agr.items == n and agr.note == "" and -1 < agr.kappa < 1


def test_study_file_option_reaches_the_plan() -> None:
    """A study file's ``options: {shared_items: true}`` is read by the same option declaration as the flag."""
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.opening import session_options

    _session, plan = session_options(registry().benchmarks["sort"], {"shared_items": True, "participant": "P1"})
    assert isinstance(plan, SortPlanOptions) and plan.shared_items and plan.config()["shared_items"] is True
