"""The speed harnesses are honest: relative paths mean what they say, every figure shows the load and the data
set, and the one-core / busy-core runs of ``bench worldsense`` are there. (No timed assertions: the figures are
printed for the closing notes, never checked against a threshold.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from benchlab.data.sort.bench import bench_booksort
from benchlab.tui.cli import main

GOLDEN = Path(__file__).parent / "data" / "worldsense" / "sample_original_output.txt"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_bench_worldsense_takes_relative_paths_for_the_original_and_its_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The original runs in its own folder: a relative --original-python used to fail there (issue 24)."""
    original = tmp_path / "original"
    original.mkdir()
    (original / "analyse_results.py").write_text(f"import sys\nsys.stdout.write(open({str(GOLDEN)!r}).read())\n")
    (tmp_path / "py").mkdir()
    os.symlink(sys.executable, tmp_path / "py" / "python")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["bench", "worldsense", "--original", "original", "--original-python", "py/python",
                           "--repeat", "1"], capsys)
    assert code == 0, err
    assert "cell for cell: yes" in out and "== data set " in out
    if len(os.sched_getaffinity(0)) > 1:
        assert "first run, one core" in out and "first run, other core busy" in out
    figures = [line for line in out.splitlines() if " wall " in line and " cpu " in line]
    assert len(figures) >= 4 and all("(load " in line for line in figures)


def test_bench_booksort_without_the_published_source_names_the_stored_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --published, the printed reference says it is stored, when and where it was measured."""
    import benchlab.data.sort.bench as bench

    (tmp_path / "book.txt").write_text("x")
    monkeypatch.setattr(bench, "_ours", lambda files, out: bench.Figure(1.0, 1.0, 100 * 2**20, 0.5))
    lines: list[str] = []
    bench_booksort(tmp_path, lines.append)
    text = "\n".join(lines)
    assert f"data set: {tmp_path} (1 books)" in text and "load average" in text
    assert f"stored reference, measured {bench.STORED_REFERENCE[2]}" in text and "not measured side by side" in text
