"""Every BENCHLAB_* variable is read in one place, and data locations follow the current directory, not the
installed package (an installed copy must not find a datasets folder by walking up from site-packages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.annotations.fastbook.curation import default_curator
from benchlab.data.fastbook.locate import FILE_NAME, default_benchmark_path, full_benchmark_path, sample_benchmark_path
from benchlab.data.settings import get_settings, reset_settings
from benchlab.data.worldsense.columns import cache_folder
from benchlab.data.worldsense.fetch import default_base_url, default_dest
from benchlab.tui import cli


def _lab(tmp_path: Path) -> tuple[Path, Path]:
    """``lab/checkout`` (the current directory) beside ``lab/shared/datasets`` holding a fastbook file."""
    checkout = tmp_path / "lab" / "checkout"
    checkout.mkdir(parents=True)
    bench = tmp_path / "lab" / "shared" / "datasets" / "fastbook-benchmark" / FILE_NAME
    bench.parent.mkdir(parents=True)
    bench.write_text("[]\n")
    return checkout, bench


def test_shared_datasets_come_from_the_current_directory_or_the_variable(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCHLAB_SHARED_DATASETS", raising=False)
    monkeypatch.delenv("BENCHLAB_FASTBOOK_BENCHMARK", raising=False)
    checkout, bench = _lab(tmp_path)
    monkeypatch.chdir(checkout)
    reset_settings()
    assert get_settings().shared_datasets == tmp_path / "lab" / "shared" / "datasets"
    assert full_benchmark_path() == bench.resolve()

    elsewhere = tmp_path / "elsewhere" / "here"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)  # the package still sits beside ../shared/datasets: it must not be found from there
    reset_settings()
    assert full_benchmark_path() is None and default_benchmark_path() == sample_benchmark_path()

    monkeypatch.setenv("BENCHLAB_SHARED_DATASETS", str(tmp_path / "lab" / "shared" / "datasets"))
    reset_settings()
    assert full_benchmark_path() == bench.resolve()
    monkeypatch.setenv("BENCHLAB_FASTBOOK_BENCHMARK", str(tmp_path / "mine.json"))
    reset_settings()
    assert full_benchmark_path() == tmp_path / "mine.json"
    monkeypatch.setenv("BENCHLAB_FASTBOOK_BENCHMARK", "")  # empty counts as unset
    reset_settings()
    assert full_benchmark_path() == bench.resolve()


def test_every_reader_uses_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHLAB_CURATOR", "ada")
    monkeypatch.setenv("BENCHLAB_WORLDSENSE_BASE_URL", "http://mirror.example/ws/")
    monkeypatch.setenv("BENCHLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BENCHLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BENCHLAB_CRASH_DIR", str(tmp_path / "crashes"))
    reset_settings()
    assert default_curator() == "ada"
    assert default_base_url() == "http://mirror.example/ws/"
    assert cache_folder() == tmp_path / "cache" / "worldsense"
    assert default_dest() == tmp_path / "data" / "datasets"
    assert get_settings().crash_dir == tmp_path / "crashes"


def test_user_folders_default_to_the_platform_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xc"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xs"))
    reset_settings()
    assert get_settings().cache_dir == tmp_path / "xc" / "benchlab"
    assert get_settings().crash_dir.is_relative_to(tmp_path / "xs" / "benchlab")


def test_bench_booksort_looks_for_the_books_beside_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BENCHLAB_SHARED_DATASETS", raising=False)
    checkout, _ = _lab(tmp_path)
    monkeypatch.chdir(checkout)
    reset_settings()
    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "booksort"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    expected = tmp_path / "lab" / "shared" / "datasets" / "booksort" / "pg_full_text"
    assert err == f"benchlab: error: {expected}: no book texts here (pass --texts FOLDER)\n"


def test_a_benchmarks_own_variables_follow_the_same_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why: the benchmark-specific variables moved into the benchmarks' folders; an empty value still counts as
    unset, and reset_settings() still makes a changed environment seen."""
    monkeypatch.setenv("BENCHLAB_WORLDSENSE_BASE_URL", "http://first.example/")
    reset_settings()
    assert default_base_url() == "http://first.example/"
    monkeypatch.setenv("BENCHLAB_WORLDSENSE_BASE_URL", "http://second.example/")
    assert default_base_url() == "http://first.example/"  # read once ...
    reset_settings()
    assert default_base_url() == "http://second.example/"  # ... until the settings are reset
    monkeypatch.setenv("BENCHLAB_WORLDSENSE_BASE_URL", "  ")
    monkeypatch.setenv("BENCHLAB_CURATOR", "")
    monkeypatch.setenv("USER", "login-name")
    monkeypatch.setenv("LOGNAME", "login-name")
    reset_settings()
    assert default_base_url().startswith("https://raw.githubusercontent.com/")
    assert default_curator() == "login-name"
