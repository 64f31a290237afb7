"""``benchlab export trials``: one tidy row per participant x trial (per edit for fastbook), read back from CSV and
Parquet and checked against the session files on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchlab.annotations.fastbook.change_log import log_path_for
from benchlab.annotations.fastbook.context_edits import AddContext, ReplaceContext, Slot
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.trial_export import COMMON_COLUMNS, exporter, exporters, own_columns
from benchlab.data.samples import sample_path
from benchlab.tui.cli import cli
from tests.test_compare_sort import run_cli
from tests.test_fastbook_curation import Q1, bench_file, session  # noqa: F401  (fixtures)


def benchlab(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def read_back(out: Path, benchmark: str, *paths: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Export to CSV and Parquet and read both back (item ids as text: WorldSense Keys exceed 2**53)."""
    extra = ["-t", str(sample_path("worldsense"))] if benchmark == "worldsense" else []
    benchlab("export", "trials", benchmark, *paths, *extra, "--out", str(out / "trials.csv"))
    benchlab("export", "trials", benchmark, *paths, *extra, "--out", str(out / "trials.parquet"))
    csv = pd.read_csv(out / "trials.csv", dtype={"item": str, "session": str, "participant": str})
    parquet = pd.read_parquet(out / "trials.parquet")
    assert list(csv.columns) == list(parquet.columns)
    assert len(csv) == len(parquet)
    return csv, parquet


def jsonl_lines(folder: Path, pattern: str) -> list[dict[str, object]]:
    return [json.loads(line) for f in sorted(folder.rglob(pattern)) for line in f.read_text().splitlines()]


def test_worldsense_rows_match_the_session_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for pid, policy in (("s1", "oracle"), ("s2", "random")):
        benchlab("run", "worldsense", "--participant", pid, "--simulate", policy, "--seed", "3", "--no-instructions")
    root = tmp_path / "benchlab-results" / "worldsense" / "sample"
    csv, parquet = read_back(tmp_path, "worldsense", str(root / "results"))
    assert list(csv.columns)[:len(COMMON_COLUMNS)] == list(COMMON_COLUMNS)
    assert list(csv.columns)[len(COMMON_COLUMNS):] == own_columns(exporter("worldsense"))
    scored, practice = jsonl_lines(root / "results", "*human*"), jsonl_lines(root / "practice", "*human*")
    assert len(csv) == len(scored) + len(practice)
    assert int(csv["practice"].sum()) == len(practice) > 0
    assert sorted(csv["item"]) == sorted(str(x["Key"]) for x in scored + practice)  # exact 64-bit Keys
    assert parquet["item"].tolist() == csv["item"].tolist()
    by_who = csv[~csv["practice"]].groupby("participant")
    assert by_who.size().to_dict() == {"s1": 84, "s2": 84}
    assert csv.loc[csv["participant"] == "s1", "correct"].all()  # the oracle
    assert set(csv["simulated"]) == {"oracle", "random"}
    assert set(csv["condition"]) == set(csv["problem"]) and csv["tuple_id"].notna().all()
    rts = {str(x["Key"]): x["rt_ms"] for x in scored if x["participant"] == "s2"}
    s2 = csv[(csv["participant"] == "s2") & ~csv["practice"]]
    assert s2["rt_ms"].tolist() == pytest.approx([rts[k] for k in s2["item"]])


def test_sort_rows_keep_conditions_apart(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for pid, cond in (("O1", "stm"), ("L1", "ltm")):
        benchlab("run", "sort", "--participant", pid, "--simulate", "random", "--trials", "40", "--seed", "5",
                 "--condition", cond, "--out", str(out))
    csv, parquet = read_back(tmp_path, "sort", str(out / "results"))
    own = own_columns(exporter("sort"))
    assert list(csv.columns)[:len(COMMON_COLUMNS) + len(own)] == [*COMMON_COLUMNS, *own]
    assert "excerpt_text" not in csv.columns
    on_disk = sum(len(pd.read_csv(f)) for f in (out / "results").glob("*.csv"))
    practice = sum(len(pd.read_csv(f)) for f in (out / "practice").glob("*.csv"))
    assert len(csv) == on_disk + practice and int(csv["practice"].sum()) == practice
    assert csv[~csv["practice"]].groupby("condition").size().to_dict() == {"ltm e250-s20": 40, "stm e250-s20": 40}
    assert (csv["item"].str.count("/") == 3).all()
    assert (csv["correct"] == (csv["response"] == csv["ground_truth"])).all()
    assert csv.loc[csv["response"] == "X", "rt_ms"].isna().all()
    assert parquet["correct"].dtype == "boolean" and parquet["rt_ms"].dtype == "Float64"


def test_fastbook_one_row_per_logged_edit(session: CurationSession, tmp_path: Path) -> None:  # noqa: F811
    session.apply(ReplaceContext(Q1, Slot("answer", 0), 0, "a graphics processing unit (GPU)", "GPU"))
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    session.undo()
    session.save()
    out = tmp_path / "exp"
    out.mkdir()
    csv, _parquet = read_back(out, "fastbook", str(session.path))
    lines = log_path_for(session.path).read_text(encoding="utf-8").splitlines()
    assert len(csv) == len(lines) == 4
    assert csv["condition"].tolist() == ["replace_context", "add_context", "undo", "save"]
    assert set(csv["participant"]) == {"ada"} and csv["trial_index"].tolist() == [0, 1, 2, 3]
    assert csv.loc[0, "item"] == "1/1/0" and json.loads(csv.loc[0, "response"]) == "GPU"
    assert list(csv.columns)[len(COMMON_COLUMNS):] == own_columns(exporter("fastbook"))


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["worldsense", str(tmp_path)], "needs the test set"),
        (["sort", str(tmp_path), "--out", str(tmp_path / "t.xlsx")], "use .csv or .parquet"),
        (["sort", str(tmp_path / "missing")], "no such file or folder"),
        (["sort", str(tmp_path)], "no sort trials by people"),
        (["nosuchtask", str(tmp_path)], "'nosuchtask' offers no trial export (tasks that do: worldsense, sort, "
                                        "fastbook"),
    ]
    for args, message in cases:
        assert run_cli(["export", "trials", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("benchlab: error:") and message in err and "Traceback" not in err


def test_docs_document_every_column_and_an_lme4_example() -> None:
    page = (Path(__file__).parents[1] / "docs" / "export.md").read_text(encoding="utf-8")
    section = page[page.index("# Trial export"):]
    built_in = [exporters()[name] for name in ("worldsense", "sort", "fastbook")]
    for name in [*COMMON_COLUMNS, *(c for export in built_in for c in own_columns(export))]:
        assert f"`{name}`" in section, name
    assert "glmer(correct ~ condition + (1|participant) + (1|item), family=binomial" in section
