"""Chapter texts and the benchmark's chunks (spec §4): the notebook rule, 271 chunks as spans, clear errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook import chapters as chapters_mod
from benchlab.data.fastbook.chapters import (
    NOTEBOOK_NAMES,
    chunk_spans,
    chunking_available,
    halves,
    load_chapter,
    load_chapters,
    notebook_to_text,
)
from tests.conftest import full_data

EXPECTED_CHUNKS = {1: 57, 2: 38, 4: 52, 8: 23, 9: 46, 10: 25, 13: 30}


def test_notebook_rule_reproduces_every_chapter_file() -> None:
    root = full_data("fastbook-benchmark")
    for number, name in NOTEBOOK_NAMES.items():
        expected = (root / "chapters" / f"chapter_{number}.txt").read_text(encoding="utf-8")
        assert notebook_to_text(root / "notebooks" / name) == expected, number


def test_chapter_falls_back_to_the_notebook_when_the_text_file_is_missing(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "raw", "source": ["---\ntitle: x\n---"]},
            {"cell_type": "markdown", "source": ["# Title\n", "Some *text*."]},
            {"cell_type": "code", "source": ["x = 1"], "outputs": [{"text": "never included"}]},
            {"cell_type": "markdown", "source": ["## Questionnaire"]},
            {"cell_type": "markdown", "source": ["1. Why?"]},
        ]
    }
    (tmp_path / "08_collab.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    chapter = load_chapter(tmp_path, 8)
    assert chapter.text == "# Title\nSome *text*.\nx = 1\n"
    assert chapter.path == tmp_path / "08_collab.ipynb"


def test_all_271_chunks_are_spans_of_the_chapter_and_never_cross_the_halving_cut() -> None:
    chapters = load_chapters(full_data("fastbook-benchmark"), EXPECTED_CHUNKS)
    assert sum(len(c.text) for c in chapters.values()) == 503_769
    assert {n: len(c.chunks) for n, c in chapters.items()} == EXPECTED_CHUNKS
    for chapter in chapters.values():
        for chunk in chapter.chunks:
            assert chunk.text == chapter.text[chunk.start : chunk.end]
            assert chunk.text == chunk.text.strip()
            assert chunk.end <= chapter.halving_cut or chunk.start >= chapter.halving_cut
        starts = [c.start for c in chapter.chunks]
        assert starts == sorted(starts)


def test_the_bundled_spans_match_what_the_chunker_computes() -> None:
    if not chunking_available():
        pytest.skip("llama-index-core not installed (pip install 'benchlab[fastbook]')")
    from benchlab.data.fastbook.locate import sample_benchmark_path

    chapters = [*load_chapters(full_data("fastbook-benchmark"), EXPECTED_CHUNKS).values(),
                *load_chapters(sample_benchmark_path().parent, [1, 2]).values()]
    for chapter in chapters:
        assert chunk_spans(chapter.text, recompute=True) == chunk_spans(chapter.text), chapter.path


def test_the_chunker_splits_unknown_text_by_tokens_with_overlap() -> None:
    if not chunking_available():
        pytest.skip("llama-index-core not installed (pip install 'benchlab[fastbook]')")
    text = " ".join(f"Sentence number {i} says something about deep learning." for i in range(400)) + "\n"
    spans = chunk_spans(text)
    assert len(spans) > 4
    first_half = [s for s in spans if s[1] <= len(text) // 2]
    assert any(a[1] > b[0] for a, b in itertools.pairwise(first_half))  # consecutive chunks overlap


def test_unknown_text_without_the_extra_gives_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> object:
        raise ImportError("No module named 'llama_index'")

    monkeypatch.setattr(chapters_mod, "_splitter", missing)
    with pytest.raises(BenchlabError, match=r"needs llama-index-core \(pip install 'benchlab\[fastbook\]'\)"):
        chunk_spans("a text nobody has chunked before", where="chapter_99.txt")
    assert not chunking_available()


def test_missing_chapter_names_the_folder_and_the_expected_files(tmp_path: Path) -> None:
    with pytest.raises(BenchlabError) as err:
        load_chapters(tmp_path, [1])
    assert err.value.path == tmp_path
    assert "chapter_1.txt" in str(err.value) and "01_intro.ipynb" in str(err.value)


def test_halving_matches_the_reference_rule() -> None:
    assert halves("abcde") == [(0, "ab"), (2, "cd"), (4, "e")]
    assert halves("abcd") == [(0, "ab"), (2, "cd")]
