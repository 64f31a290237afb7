"""BookSORT's own locations (README "Settings"): the book texts under the shared datasets folder."""

from __future__ import annotations

from pathlib import Path

from benchlab.data.settings import get_settings


def booksort_texts_dir() -> Path:
    """The nine Gutenberg books of BookSORT under the shared datasets (``$BENCHLAB_SHARED_DATASETS``)."""
    return get_settings().shared_datasets / "booksort" / "pg_full_text"
