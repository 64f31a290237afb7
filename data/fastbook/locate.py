"""Where the fastbook-benchmark file and its chapters are when the user does not say.

Order: ``$BENCHLAB_FASTBOOK_BENCHMARK``; the full dataset under the shared datasets folder
(:mod:`benchlab.data.settings`: ``$BENCHLAB_SHARED_DATASETS`` or ``../shared/datasets``); else the bundled synthetic
sample, so every command works offline on a fresh machine. Chapters are looked for beside the benchmark file.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from benchlab.data.fastbook.settings import fastbook_settings
from benchlab.data.samples import sample_path

FILE_NAME = "fastbook-benchmark.json"
KEYWORDS_NAME = "fts_keywords.csv"


def sample_benchmark_path() -> Path:
    """The bundled synthetic sample (see ``data/samples/fastbook/ATTRIBUTION.md``)."""
    return sample_path("fastbook", FILE_NAME)


def full_benchmark_path() -> Path | None:
    """The full dataset if one is found, else ``None``."""
    settings = fastbook_settings()
    if settings.benchmark is not None:
        return settings.benchmark
    candidate = settings.dataset_dir / FILE_NAME
    return candidate.resolve() if candidate.is_file() else None


def default_benchmark_path() -> Path:
    """The full dataset when found, else the bundled sample."""
    return full_benchmark_path() or sample_benchmark_path()


def is_sample(path: str | Path) -> bool:
    try:
        return Path(path).resolve() == sample_benchmark_path().resolve()
    except OSError:
        return False


def chapters_dir_for(benchmark_path: str | Path) -> Path:
    """The folder to look for ``chapter_N.txt`` / notebooks in: the benchmark's folder (its ``chapters/``,
    ``data/`` and ``notebooks/`` subfolders are searched by :func:`benchlab.data.fastbook.chapters.load_chapter`);
    for a curator's copy saved elsewhere with no chapters beside it (the README's copy recipe), the original's."""
    folder = Path(benchmark_path).resolve().parent
    if _has_chapters(folder):
        return folder
    original = original_of(benchmark_path)
    return original.parent if original is not None and _has_chapters(original.parent) else folder


def original_of(benchmark_path: str | Path) -> Path | None:
    """The known benchmark file (the full dataset's, or the bundled sample) that ``benchmark_path`` is a copy of:
    the same questions with the same texts (curators change contexts, never questions); ``None`` if neither."""
    path = Path(benchmark_path).resolve()
    mine = _question_texts(path)
    if not mine:
        return None
    for candidate in (full_benchmark_path(), sample_benchmark_path()):
        if candidate is not None and candidate.resolve() != path and _question_texts(candidate.resolve()) == mine:
            return candidate.resolve()
    return None


@cache
def _question_texts(path: Path) -> tuple[tuple[object, object, object], ...]:
    """(chapter, question number, question text) of every question, or ``()`` when the file does not read."""
    try:
        data = json.loads(path.read_bytes())
        return tuple((q.get("chapter"), q.get("question_number"), q.get("question_text")) for q in data["questions"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ()


def _has_chapters(folder: Path) -> bool:
    """``folder`` (or its chapters/, data/, notebooks/) holds chapter texts or notebooks."""
    places = (folder, folder / "chapters", folder / "data", folder / "notebooks")
    return any(any(p.glob("chapter_*.txt")) or any(p.glob("*.ipynb")) for p in places if p.is_dir())


def keywords_path_for(benchmark_path: str | Path) -> Path | None:
    """``fts_keywords.csv`` beside the benchmark file (or in ``examples/``), else beside the original, if there."""
    original = original_of(benchmark_path)
    folders = [Path(benchmark_path).resolve().parent, *([original.parent] if original is not None else [])]
    for folder in folders:
        for candidate in (folder / KEYWORDS_NAME, folder / "examples" / KEYWORDS_NAME):
            if candidate.is_file():
                return candidate  # beside the benchmark, else beside the original a copy was made from
    return None
