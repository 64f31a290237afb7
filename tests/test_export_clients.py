"""Exports that real clients read as meant: the docs' R / lme4 example run verbatim by R on a real export, typed
Parquet columns (SORT's verbatim columns included), TRUE/FALSE booleans in CSV, and ``compare --format csv`` read by
``pandas.read_csv`` as it is."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from benchlab.annotations.sort.human_record import HUMAN_COLUMNS
from tests.test_compare_sort import run_cli
from tests.test_export_trials import benchlab

DOCS = Path(__file__).parents[1] / "docs" / "export.md"


def people_sessions(out: Path, people: tuple[str, ...] = ("p1", "p2", "p3"), trials: int = 16) -> Path:
    """Real SORT sessions (simulated answers, then marked as people's, as a lab's files look): per person one STM
    and one LTM session; STM rows get a reading time, a delay and a seen share as a person's reading phase does."""
    for p in people:
        for cond in ("stm", "ltm"):
            benchlab("run", "sort", "--participant", p, "--session", cond, "--simulate", "random", "--trials",
                     str(trials), "--seed", "3", "--condition", cond, "--out", str(out), "--no-instructions")
    for path in sorted(out.glob("*/*.csv")):
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        head = rows[0]
        assert head == HUMAN_COLUMNS
        for n, row in enumerate(rows[1:]):
            row[head.index("simulated")] = ""
            row[head.index("input")] = "key"
            if row[head.index("condition")] == "stm":
                row[head.index("reading_ms")] = str(4000.0 + 250 * n)
                row[head.index("delay_ms")] = str(150.0 + n)
                row[head.index("seen_share")] = str(round(0.5 + 0.03 * n, 3))
        with open(path, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
    return out


def r_example() -> str:
    """The R block of the export page, verbatim."""
    page = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```r\n(.*?)```", page, flags=re.S)
    assert len(blocks) == 1
    return blocks[0]


def rscript() -> str:
    found = shutil.which("Rscript")
    if found is None:
        if os.environ.get("BENCHLAB_REQUIRE_FULL_DATA"):
            pytest.fail("Rscript is missing (CI installs r-base-core r-cran-lme4 in .ci/run)")
        pytest.skip("R is not installed here (apt-get install r-base-core r-cran-lme4)")
    return found


def test_docs_lme4_example_runs_verbatim_in_r(tmp_path: Path) -> None:
    """QA: the example failed with `Error in !practice : invalid argument type` (the CSV wrote True/False)."""
    r = rscript()
    out = people_sessions(tmp_path / "lab")
    benchlab("export", "trials", "sort", str(out / "results"), str(out / "practice"), "--out",
             str(tmp_path / "sort.csv"))
    script = r_example() + '\nstopifnot(is.logical(d$practice) || nrow(d) > 0)\ncat("NOBS", nobs(m), "\\n")\n'
    (tmp_path / "example.R").write_text(script, encoding="utf-8")
    run = subprocess.run([r, "--vanilla", "example.R"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Error" not in run.stderr
    # the model saw every scored trial of the three people, no practice trial
    assert re.search(r"NOBS 96\b", run.stdout), run.stdout[-2000:]
    check = subprocess.run([r, "--vanilla", "-e", 'd <- read.csv("sort.csv"); cat(class(d$practice), '
                            'class(d$correct), class(d$rt_ms), class(d$seen_share))'],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert check.stdout.split() == ["logical", "logical", "numeric", "numeric"], check.stderr


def test_csv_booleans_are_true_false_for_r_and_pandas(tmp_path: Path) -> None:
    out = people_sessions(tmp_path / "lab", people=("p1",), trials=8)
    text = benchlab("export", "trials", "sort", str(out / "results"), str(out / "practice"))
    frame = pd.read_csv(io.StringIO(text))
    assert frame["practice"].dtype == bool and frame["correct"].dtype == bool
    assert set(frame["practice"]) == {True, False}
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["practice"] for r in rows} == {"TRUE", "FALSE"}
    assert not any(v in ("True", "False") for r in rows for v in r.values())


def test_parquet_columns_are_typed_sort_extras_included(tmp_path: Path) -> None:
    """QA: SORT's extra columns (positions, clock stamps, seen share) were all strings in Parquet."""
    out = people_sessions(tmp_path / "lab", people=("p1",), trials=8)
    target = tmp_path / "t.parquet"
    benchlab("export", "trials", "sort", str(out / "results"), "--out", str(target))
    frame = pd.read_parquet(target)
    kinds = {c: str(t) for c, t in frame.dtypes.items()}
    for col in ("practice", "correct"):
        assert kinds[col] == "boolean", col
    for col in ("rt_ms", "reading_ms", "delay_ms", "seen_share", "excerpt_pos", "question_onset_mono",
                "response_mono", "excerpt_onset_mono"):
        assert pd.api.types.is_float_dtype(frame[col]), col
    for col in ("trial_index", "block", "seg1_pos", "seg2_pos", "segment_idx", "num_words", "seed", "A_is_first",
                "ignored_keys"):
        assert pd.api.types.is_integer_dtype(frame[col]), col
    for col in ("participant", "session", "item", "condition", "trial_id", "book_title", "benchlab_version"):
        assert pd.api.types.is_string_dtype(frame[col]), col
    stm = frame[frame["memory"] == "stm"]
    assert stm["seen_share"].notna().all() and stm["reading_ms"].min() >= 4000
    assert frame.loc[frame["memory"] == "ltm", "seen_share"].isna().all()
    assert frame["session"].tolist()[0] in ("stm", "ltm")


def test_compare_csv_reads_with_pandas_read_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``compare --format csv`` is one long table ``pandas.read_csv`` reads as is (its ``table`` column names each
    row's table); one section (``--only``) is that table under a ``# title`` line (``comment="#"``), as documented."""
    out = people_sessions(tmp_path / "lab", trials=8)
    assert run_cli(["compare", "sort", str(out / "results"), "--boot", "200", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame.columns[0] == "table" and frame["table"].notna().all()
    tables = dict(list(frame.groupby("table", sort=False)))
    accuracy = next(t for name, t in tables.items() if "per row and condition" in name).dropna(axis=1, how="all")
    assert {"who", "condition", "accuracy", "ci_low", "ci_high"} <= set(accuracy.columns)
    assert pd.api.types.is_float_dtype(accuracy["accuracy"]) and {"p1", "p2", "p3"} <= set(accuracy["who"])
    reading = next(t for name, t in tables.items() if "reading" in name).dropna(axis=1, how="all")
    assert {"p1", "p2", "p3", "all people"} <= set(reading["who"])
    for only in ("accuracy", "reading"):
        assert run_cli(["compare", "sort", str(out / "results"), "--boot", "200", "--format", "csv", "--only",
                        only]) == 0
        one = pd.read_csv(io.StringIO(capsys.readouterr().out), comment="#")
        assert len(one.columns) > 2 and len(one) >= 1, only


def test_reading_seen_share_and_delay_per_person_and_pooled(tmp_path: Path) -> None:
    """The reading table of ``compare`` (and :func:`reading_summary` for the report) gives each person's and the
    pooled medians of what the export holds per trial."""
    from benchlab.data.sort.compare import compare_sort

    out = people_sessions(tmp_path / "lab", trials=8)
    target = tmp_path / "t.parquet"
    benchlab("export", "trials", "sort", str(out / "results"), "--out", str(target))
    trials = pd.read_parquet(target)
    comp = compare_sort([out / "results"], n_boot=200)
    numeric = comp.extra_tables["reading"][1].frame
    stm = trials[(trials["memory"] == "stm") & ~trials["practice"]]
    for who in ("p1", "p2", "p3"):
        row = numeric.loc[(who, "STM")]
        mine = stm[stm["participant"] == who]
        assert row["trials"] == len(mine) == 8
        assert row["reading_ms_median"] == pytest.approx(mine["reading_ms"].median())
        assert row["seen_share_median"] == pytest.approx(mine["seen_share"].median())
        assert row["delay_ms_max"] == pytest.approx(mine["delay_ms"].max())
    pooled = numeric.loc[("all people", "STM")]
    assert pooled["trials"] == 24 and pooled["reading_ms_median"] == pytest.approx(stm["reading_ms"].median())
    assert numeric.loc[("all people", "LTM"), "reading_trials"] == 0
