"""Where a model run's files live, apart from :mod:`benchlab.data.models.provenance` so that asking whether a
results folder has runs beside it loads no pydantic (every comparison asks; few labs have runs)."""

from __future__ import annotations

from pathlib import Path

#: The folder (under a task's results output folder) holding runs' provenance, the answer cache and inspect logs.
MODELS_FOLDER = "models"
RUN_SUFFIX = ".run.json"


def has_runs(folder: Path) -> bool:
    """Whether ``folder`` holds a run file anywhere below it (what :func:`~benchlab.data.models.provenance.read_runs`
    would read)."""
    return folder.is_dir() and next(folder.rglob("*" + RUN_SUFFIX), None) is not None
