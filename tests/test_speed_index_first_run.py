"""A first scoring reads the test set's text from an index a session already built (no decompression), gives the
same columns and tables as decompressing, and decompresses when the index is damaged or ``--no-cache`` is given."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchlab.data.samples import sample_path
from benchlab.data.settings import reset_settings
from benchlab.data.worldsense import columns, trial_decode
from benchlab.data.worldsense.columns import read_trial_columns
from benchlab.data.worldsense.trial_index import built_text, file_digest, forget_shared_indexes, open_index

SAMPLE = sample_path("worldsense")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv("BENCHLAB_CACHE_DIR", str(folder))
    reset_settings()
    forget_shared_indexes()
    yield folder
    reset_settings()


def _testset(tmp_path: Path) -> Path:
    folder = tmp_path / "ts"
    shutil.copytree(SAMPLE, folder)
    return folder


def _equal(a: columns.TrialColumns, b: columns.TrialColumns) -> bool:
    fields = ("key", "tuple_code", "problem_code", "size", "options_code", "gold_code")
    names = ("tuple_names", "problem_names", "options_names", "gold_names")
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields) and all(
        list(getattr(a, n)) == list(getattr(b, n)) for n in names)


def _decompressions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every decoding of the compressed file itself, by the compiled scanner's runs or by arrow's readers."""
    calls: list[Path] = []
    for name in ("decoded_runs", "decoded_table"):
        real = getattr(columns, name)

        def counting(file: Path, raw: bytes, text: bytes | None = None, real: Any = real) -> object:
            if text is None:  # the compressed file itself decoded
                calls.append(file)
            return real(file, raw, text)

        monkeypatch.setattr(columns, name, counting)
    return calls


def test_columns_from_a_built_index_equal_the_decompressed_ones(tmp_path: Path, cache: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    testset = _testset(tmp_path)
    expected = read_trial_columns(testset, cache=False)
    open_index(testset)  # what a session or a server does first
    calls = _decompressions(monkeypatch)
    got = read_trial_columns(testset)
    assert calls == [] and _equal(got, expected)
    source = testset / "trials.jsonl.bz2"
    assert built_text(source, file_digest(source)) is not None


def test_a_damaged_index_text_or_no_cache_means_decompressing(tmp_path: Path, cache: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    testset = _testset(tmp_path)
    expected = read_trial_columns(testset, cache=False)
    index = open_index(testset)
    source = testset / "trials.jsonl.bz2"
    calls = _decompressions(monkeypatch)
    assert _equal(read_trial_columns(testset, cache=False), expected) and len(calls) == 1
    text = index.folder / "trials.jsonl"
    data = bytearray(text.read_bytes())
    at = data.index(b'"problemsize":') + len(b'"problemsize":')
    data[at] = ord("9") if data[at] != ord("9") else ord("8")  # same size, another value: only the CRC sees it
    text.write_bytes(bytes(data))
    assert built_text(source, file_digest(source)) is None
    for cached in cache.rglob("trials-v*.npz"):
        cached.unlink()
    assert _equal(read_trial_columns(testset), expected) and len(calls) == 2


@pytest.mark.parametrize(("cpus", "load", "running", "threads"),
                         [({0, 1}, 0.1, 0, 2), ({0, 1}, 1.8, 0, 1), ({0}, 0.0, 0, 1), (set(range(8)), 2.0, 0, 4),
                          (set(range(8)), 6.0, 0, 2), ({0, 1}, 0.1, 1, 1), (set(range(8)), 0.5, 5, 3)])
def test_the_decoder_uses_one_thread_per_idle_cpu_it_may_use(monkeypatch: pytest.MonkeyPatch, cpus: set[int],
                                                             load: float, running: int, threads: int) -> None:
    """Busy CPUs: the load average, or the tasks running right now when more (a job started a moment ago)."""
    monkeypatch.setattr(trial_decode.os, "sched_getaffinity", lambda _pid: cpus)
    monkeypatch.setattr(trial_decode.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(trial_decode, "_running_others", lambda: running)
    assert trial_decode.decoder_threads() == threads


def test_a_process_spinning_beside_this_one_counts_as_running() -> None:
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        deadline = time.monotonic() + 10
        seen = 0
        while seen < 1 and time.monotonic() < deadline:  # until the spinner has started (bounded)
            seen = trial_decode._running_others()
            time.sleep(0.05)
        assert seen >= 1
    finally:
        spinner.kill()
        spinner.wait()
