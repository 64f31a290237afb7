"""Durable writes and JSONL reading: the guarantees every recorder and loader relies on."""

from __future__ import annotations

import bz2
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from pydantic import BaseModel

from benchlab.data.atomic import append_line, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import drop_torn_tail, iter_json_lines, read_models
from benchlab.data.tables import Table, render


class Row(BaseModel):
    Key: int
    resp: str


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "bench.json"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new content")
    assert target.read_text() == "new content"
    assert [p.name for p in tmp_path.iterdir()] == ["bench.json"]


def test_atomic_write_gives_new_files_the_usual_mode_and_keeps_an_existing_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.jsonl", "x")
        assert (tmp_path / "new.jsonl").stat().st_mode & 0o777 == 0o644  # not mkstemp's private 0600
        kept = tmp_path / "kept.json"
        kept.write_text("a")
        kept.chmod(0o640)
        atomic_write_text(kept, "b")
        assert kept.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_atomic_write_failure_keeps_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "bench.json"
    atomic_write_text(target, "precious")

    def full_disk(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(BenchlabError, match="No space left on device.*previous file is unchanged"):
        atomic_write_text(target, "half")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["bench.json"]


def test_append_line_accumulates_lines_and_rejects_embedded_newline(tmp_path: Path) -> None:
    log = tmp_path / "sub" / "log.jsonl"
    append_line(log, '{"Key": 1, "resp": "TRUE"}')
    append_line(log, '{"Key": 2, "resp": "FALSE"}')
    assert log.read_text().splitlines() == ['{"Key": 1, "resp": "TRUE"}', '{"Key": 2, "resp": "FALSE"}']
    with pytest.raises(ValueError):
        append_line(log, "a\nb")


def test_append_line_to_unwritable_place_names_the_file(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "results"
    not_a_folder.write_text("a file where a folder should be")
    with pytest.raises(BenchlabError, match="results/log.jsonl: could not record the response"):
        append_line(not_a_folder / "log.jsonl", "{}")


def test_big_keys_stay_exact_integers(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"Key": -276741083417243227, "resp": "1"}\n')
    [(line, row)] = list(read_models(Row, path))
    assert (line, row.Key, row.resp) == (1, -276741083417243227, "1")


def test_malformed_line_is_reported_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"Key": 1, "resp": "TRUE"}\n\n{"Key": 2, "resp": \n')
    with pytest.raises(BenchlabError) as info:
        list(iter_json_lines(path))
    assert info.value.line == 3 and str(info.value).startswith(f"{path}:3: not valid JSON")


def test_missing_and_mistyped_fields_are_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"Key": 1}\n')
    with pytest.raises(BenchlabError, match=r":1: missing field 'resp'"):
        list(read_models(Row, path))
    path.write_text('{"Key": "abc", "resp": "x"}\n')
    with pytest.raises(BenchlabError, match=r":1: field 'Key'"):
        list(read_models(Row, path))


def test_truncated_bz2_is_reported_not_crashed(tmp_path: Path) -> None:
    data = bz2.compress("".join(json.dumps({"Key": i, "resp": "x" * 50}) + "\n" for i in range(2000)).encode())
    path = tmp_path / "trials.jsonl.bz2"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(BenchlabError, match="truncated"):
        list(iter_json_lines(path))


def test_missing_file_and_folder_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(BenchlabError, match="no such file"):
        list(iter_json_lines(tmp_path / "nope.jsonl"))
    with pytest.raises(BenchlabError, match="is a folder"):
        list(iter_json_lines(tmp_path))


def test_torn_tail_after_kill_is_skipped_and_can_be_cut(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"Key": 1, "resp": "TRUE"}\n{"Key": 2, "re')
    assert [obj["Key"] for _, obj in iter_json_lines(path, allow_torn_tail=True)] == [1]
    with pytest.raises(BenchlabError):
        list(iter_json_lines(path))
    assert drop_torn_tail(path) is True
    assert path.read_text() == '{"Key": 1, "resp": "TRUE"}\n'
    assert drop_torn_tail(path) is False


def test_render_formats_share_the_same_cells() -> None:
    frame = pd.DataFrame({"basic": ["55.6 (0.4)", "75.6 (0.4)"]}, index=pd.Index(["GPT3.5", "GPT4"], name="model"))
    tables = [Table("AVERAGE ACCURACY", frame)]
    assert "GPT4    75.6 (0.4)" in render(tables, "table")
    assert "| GPT3.5 | 55.6 (0.4) |" in render(tables, "markdown")
    assert "GPT4,75.6 (0.4)" in render(tables, "csv")
    payload = json.loads(render(tables, "json"))
    assert payload[0]["rows"][1] == {"index": "GPT4", "cells": {"basic": "75.6 (0.4)"}}
    assert r"GPT3.5 & 55.6 (0.4) \\" in render(tables, "latex")
    with pytest.raises(ValueError):
        render(tables, "xml")
