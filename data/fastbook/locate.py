"""Where the fastbook-benchmark file and its chapters are when the user does not say.

Order: ``$BENCHLAB_FASTBOOK_BENCHMARK``; the full dataset under the shared datasets folder
(:mod:`benchlab.data.settings`: ``$BENCHLAB_SHARED_DATASETS`` or ``../shared/datasets``); else the bundled synthetic
sample, so every command works offline on a fresh machine. Chapters are looked for beside the benchmark file.
"""

from __future__ import annotations

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
    ``data/`` and ``notebooks/`` subfolders are searched by :func:`benchlab.data.fastbook.chapters.load_chapter`)."""
    return Path(benchmark_path).resolve().parent


def keywords_path_for(benchmark_path: str | Path) -> Path | None:
    """``fts_keywords.csv`` beside the benchmark file (or in ``examples/``), if there."""
    folder = Path(benchmark_path).resolve().parent
    for candidate in (folder / KEYWORDS_NAME, folder / "examples" / KEYWORDS_NAME):
        if candidate.is_file():
            return candidate
    return None
