"""No command writes onto its own input or into a session's results/sessions folder (issue 23 item 1): the one
check every writer calls refuses with one line and exit 2, and the participant's file is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.output_paths import check_output_path
from tests.test_compare_sort import run_cli
from tests.test_export_trials import benchlab


@pytest.fixture(scope="module")
def sort_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lab") / "x"
    benchlab("run", "sort", "--participant", "P01", "--simulate", "random", "--trials", "6", "--practice", "2",
             "--seed", "5", "--out", str(out))
    return out


def test_export_onto_a_participant_s_results_file_is_refused_and_the_file_kept(
        sort_out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = next((sort_out / "results").rglob("*_results.csv"))
    before = results.read_bytes()
    code = run_cli(["export", "trials", "sort", str(sort_out / "results"), "--out", str(results)])
    err = capsys.readouterr().err
    assert code == 2 and "refusing" in err and str(results) in err and "Traceback" not in err
    assert results.read_bytes() == before


def test_export_onto_the_practice_csv_or_into_the_sessions_folder_is_refused(
        sort_out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    practice = next(sort_out.rglob("*_practice.csv"))
    before = practice.read_bytes()
    assert run_cli(["export", "trials", "sort", str(sort_out / "results"), "--out", str(practice)]) == 2
    assert practice.read_bytes() == before
    assert run_cli(["export", "trials", "sort", str(sort_out / "results"), "--out",
                    str(sort_out / "sessions" / "t.csv")]) == 2
    assert not (sort_out / "sessions" / "t.csv").exists()
    assert "refusing" in capsys.readouterr().err
    beside = sort_out / "trials.csv"  # beside the session folders is fine
    assert run_cli(["export", "trials", "sort", str(sort_out / "results"), "--out", str(beside)]) == 0
    assert beside.read_text().startswith("benchmark,")


def test_figures_and_score_tables_are_checked_the_same_way(sort_out: Path, capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    code = run_cli(["compare", "sort", str(sort_out), "--plot", str(sort_out / "results" / "fig.png")])
    assert code == 2 and "refusing" in capsys.readouterr().err
    with pytest.raises(BenchlabError, match="onto one of this command's inputs"):
        check_output_path(tmp_path / "a.jsonl", [tmp_path / "a.jsonl"])
    (tmp_path / "a.jsonl").write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "a.jsonl")
    with pytest.raises(BenchlabError, match="inputs"):
        check_output_path(tmp_path / "link.jsonl", [tmp_path / "a.jsonl"])
