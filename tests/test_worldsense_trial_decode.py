"""Decoding a trials file in the calling thread (one core) gives the same table as the streamed reader, runs of
lines cut anywhere included, as does text an index holds; damaged, cut, multi-stream and non-UTF-8 files are
treated as the streamed reader treats them; a scoring on one core prints what it prints with parallel decoding."""

from __future__ import annotations

import bz2
import shutil
import sys
from pathlib import Path

import pytest

from benchlab.data.samples import sample_path
from benchlab.data.worldsense import trial_decode
from benchlab.data.worldsense.columns import read_trial_columns
from benchlab.data.worldsense.score_cache import scored_output

SAMPLE = sample_path("worldsense")


@pytest.fixture(autouse=True, params=["indexed_bzip2", "bz2"])
def decoder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test with both one-thread decoders: indexed_bzip2's, and the standard library's (where it is missing)."""
    if request.param == "bz2":
        monkeypatch.setitem(sys.modules, "indexed_bzip2", None)  # its import then fails
    return str(request.param)


def _trials_text() -> bytes:
    return bz2.decompress((SAMPLE / "trials.jsonl.bz2").read_bytes())


def _both(raw: bytes) -> tuple[object, object]:
    file = Path("trials.jsonl.bz2")
    return trial_decode.sequential_table(raw), trial_decode.streamed_table(file, raw)


@pytest.mark.parametrize("chunk", [1, 97, 1000, 1 << 22])
def test_runs_of_any_size_give_the_streamed_table(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(trial_decode, "CHUNK_BYTES", chunk)  # 1 byte: every line ends its own run
    sequential, streamed = _both(bz2.compress(_trials_text()))
    assert sequential is not None and streamed is not None
    assert sequential.equals(streamed)  # type: ignore[attr-defined]
    assert sequential.num_rows == _trials_text().count(b"\n")  # type: ignore[attr-defined]


def test_a_file_of_several_streams_is_read_whole_and_trailing_bytes_are_ignored() -> None:
    lines = _trials_text().splitlines(keepends=True)
    half = len(lines) // 2
    raw = bz2.compress(b"".join(lines[:half])) + bz2.compress(b"".join(lines[half:])) + b"\0\0 not bzip2"
    sequential, streamed = _both(raw)
    assert sequential is not None and streamed is not None
    assert sequential.equals(streamed) and sequential.num_rows == len(lines)  # type: ignore[attr-defined]


@pytest.mark.parametrize("damage", ["cut", "garbage", "not utf-8", "not json", "empty"])
def test_files_the_fast_readers_decline_are_declined_by_both(damage: str) -> None:
    text = _trials_text()
    raw = {
        "cut": lambda: bz2.compress(text)[:-200],
        "garbage": lambda: b"BZh9" + bytes(range(256)) * 4,
        "not utf-8": lambda: bz2.compress(text.replace(b"TRUE", b"TR\xffE", 1)),
        "not json": lambda: bz2.compress(text + b"{not json}\n"),
        "empty": lambda: bz2.compress(b"\n\n"),
    }[damage]()
    assert _both(raw) == (None, None)


def test_a_one_core_scoring_prints_what_a_parallel_one_prints(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    testset = tmp_path / "ts"
    shutil.copytree(SAMPLE, testset)
    outputs = []
    for threads in (1, 2):
        monkeypatch.setattr(trial_decode, "decoder_threads", lambda threads=threads: threads)
        columns = read_trial_columns(testset, cache=False)
        outputs.append((columns.key.tolist(), columns.tuple_names, columns.gold_names,
                        scored_output(testset, [testset / "results"], "table", cache=False).text))
    assert outputs[0] == outputs[1]


def test_text_an_index_holds_parses_to_the_streamed_table() -> None:
    text = _trials_text()
    file = Path("trials.jsonl.bz2")
    parsed = trial_decode.text_table(text)
    assert parsed is not None and parsed.equals(trial_decode.streamed_table(file, b"", text))
    assert trial_decode.text_table(text + b"{not json}\n") is None
