"""Where the fastbook-benchmark file and its chapters are when the user does not say.

Order: ``$BENCHLAB_FASTBOOK_BENCHMARK``; the full dataset under ``$BENCHLAB_SHARED_DATASETS`` or a
``shared/datasets`` folder beside the working directory or the checkout; else the bundled synthetic sample, so
every command works offline on a fresh machine. Chapters are looked for beside the benchmark file.
"""

from __future__ import annotations

import os
from pathlib import Path

from benchlab.data.samples import sample_path

FILE_NAME = "fastbook-benchmark.json"
KEYWORDS_NAME = "fts_keywords.csv"


def _dataset_dirs() -> list[Path]:
    dirs: list[Path] = []
    env = os.environ.get("BENCHLAB_SHARED_DATASETS")
    if env:
        dirs.append(Path(env) / "fastbook-benchmark")
    here = Path(__file__).resolve()
    for base in (Path.cwd(), *Path.cwd().parents[:2], here.parents[2], here.parents[3]):
        dirs.append(base / "shared" / "datasets" / "fastbook-benchmark")
        dirs.append(base / ".." / "shared" / "datasets" / "fastbook-benchmark")
    return dirs


def sample_benchmark_path() -> Path:
    """The bundled synthetic sample (see ``data/samples/fastbook/ATTRIBUTION.md``)."""
    return sample_path("fastbook", FILE_NAME)


def full_benchmark_path() -> Path | None:
    """The full dataset if one is found, else ``None``."""
    env = os.environ.get("BENCHLAB_FASTBOOK_BENCHMARK")
    if env:
        return Path(env)
    for folder in _dataset_dirs():
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate.resolve()
    return None


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
    ``data/`` and ``notebooks/`` subfolders are searched by :func:`benchlab.data.fastbook.chapters.load_chapter`)."""
    return Path(benchmark_path).resolve().parent


def keywords_path_for(benchmark_path: str | Path) -> Path | None:
    """``fts_keywords.csv`` beside the benchmark file (or in ``examples/``), if there."""
    folder = Path(benchmark_path).resolve().parent
    for candidate in (folder / KEYWORDS_NAME, folder / "examples" / KEYWORDS_NAME):
        if candidate.is_file():
            return candidate
    return None
