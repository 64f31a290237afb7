"""A comparison's printed tables offered to :mod:`benchlab.data.command_replay`, so that the ``benchlab`` console
script prints them again without importing pandas or scipy while nothing it read has changed.

Why: a repeated ``benchlab compare <benchmark>`` with the same people and models (a lab looking at its tables
again, another ``--format``) paid ~2 s CPU for imports and the whole pipeline to print the same bytes. The replay
is valid only while

* every file under each input path (results folders, the test set, the study folder holding them) keeps its
  SHA-256, and each such folder keeps its file names (a new person's file, a removed one, an exclusion log added
  to the study: all computed again), and no study file has appeared where one would be looked for,
* the command line, environment and benchlab's sources are the same (see :mod:`benchlab.data.command_replay`).

Only plain printing is offered: never a run that writes a figure (``--plot``), one that printed a Python warning
(not written through :mod:`benchlab.annotations.command_output`, so not recorded), or one that failed.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from benchlab.annotations.command_output import recorded
from benchlab.annotations.exclusions.applied import STUDY_FILE, study_folder_of
from benchlab.data.models.run_folder import MODELS_FOLDER


def watched_inputs(paths: Sequence[Path]) -> tuple[list[Path], list[Path], list[Path]]:
    """The files to hash, the folders whose file names to watch and the paths that must stay absent for ``paths``:
    a file is itself, a folder every file under it (recursively). The study folder above them, when there is one,
    is read the same way (its exclusion rules and sessions decide who is left out); when there is none, each place
    a study file would be found (:func:`study_folder_of`) must stay without one. The ``models`` folder beside a
    results folder (model runs, whose prompt hashes the notes compare) is read too, or must stay absent."""
    roots = [Path(p) for p in paths]
    study = study_folder_of(roots)
    absent: list[Path] = []
    if study is not None:
        roots.append(study)
    else:
        for raw in roots:
            path = raw.expanduser().resolve()
            absent.extend(folder / STUDY_FILE for folder in (path, path.parent, path.parent.parent))
    for raw in list(roots):  # the model runs beside a results folder (their prompt hashes make notes)
        if raw.is_dir():
            beside = raw.expanduser().resolve().parent / MODELS_FOLDER
            if beside.is_dir():
                roots.append(beside)
            else:
                absent.append(beside)
    files: list[Path] = []
    folders: list[Path] = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            folders.append(root)
            for here, subdirs, names in os.walk(root):
                subdirs.sort()
                files.extend(Path(here) / name for name in sorted(names))
    return files, folders, absent


def may_replay(paths: Sequence[Path], plot_path: Path | None, exclude: Sequence[str]) -> bool:
    """Whether a comparison may be offered at all: not when it writes a figure, nor with ``--exclude`` rules on a
    results file given by name (the rules then read the sessions in that file's folder, outside ``paths``)."""
    return plot_path is None and not (exclude and any(Path(p).is_file() for p in paths))


@contextmanager
def replayable(paths: Sequence[Path], *, offer: bool) -> Iterator[None]:
    """Run the comparison's block; when ``offer`` (the caller knows it writes no file and reads nothing outside
    ``paths``) and the block ends normally having printed nothing but through ``command_output``, store its stdout
    and stderr, keyed on every file under ``paths``."""
    if not offer:
        yield
        return
    shown: list[bool] = []
    with warnings.catch_warnings(), recorded() as record:
        show = warnings.showwarning

        def _seen(*args: object, **kwargs: object) -> None:
            shown.append(True)
            show(*args, **kwargs)  # type: ignore[arg-type]

        warnings.showwarning = _seen
        yield
    if shown:
        return
    # deferred: the replay store loads only once a comparison has printed
    from benchlab.data.command_replay import remember

    files, folders, absent = watched_inputs(paths)
    remember(files, folders, "".join(record.stdout), "".join(record.stderr), absent)
