"""What opening the curation editor asks for, declared once (the launcher's Curate form is generated from it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchlab.annotations.options import Options, option
from benchlab.data.errors import BenchlabError


class CurateOpenOptions(Options):
    benchmark: Path | None = option(None, label="Benchmark file", widget="path",
                                    help="The fastbook-benchmark JSON to edit. Empty: the shared file (or the bundled "
                                    "sample), read-only; make a working copy to edit it.")
    chapters: Path | None = option(None, label="Chapters folder", widget="folder",
                                   help="Folder with chapter_N.txt or the notebooks (default: beside the file).")
    runs: tuple[Path, ...] = option((), label="Retrieval runs", widget="path",
                                    help="Run JSONL files re-scored after every edit.")
    curator: str | None = option(None, label="Curator", help="Your name for the change log (default: "
                                 "$BENCHLAB_CURATOR or $USER).")
    plan: Path | None = option(None, label="Assignment plan", widget="path",
                               help="A plan from `benchlab fastbook assign`: show only the curator's queue and "
                               "their progress (kept in <file>.progress.json).")


def working_copy(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target`` (a file, or a folder to copy into) without overwriting anything; the copy is
    what a curator edits, the shared file stays as published."""
    destination = target / source.name if target.is_dir() else target
    if destination.exists():
        raise BenchlabError("a file is already there: open it, or choose another place for the copy", destination)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    except OSError as exc:
        raise BenchlabError(f"cannot make the working copy ({exc.strerror or exc})", destination) from exc
    return destination
