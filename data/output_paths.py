"""The one check every writer of a derived file calls (exports, figures, tables, merged files, reports): it must
not land on one of the command's own inputs, nor inside a session's ``results/``, ``practice/`` or ``sessions/`` folder.

A participant's results file is the only copy of their answers; ``export trials sort x/results --out
x/results/..._results.csv`` used to replace it with the export and exit 0. Sessions own their output folders (a
folder holding ``sessions/`` is one: every session writes there, and its answers into ``results/`` and
``practice/``); other commands write beside them, never into them. Refusing is one line naming the path (exit 2),
before any work is done.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from benchlab.data.errors import BenchlabError

#: Folders only sessions write into, inside a session output folder (one that holds ``sessions/``).
SESSION_FOLDERS = ("results", "sessions", "practice")


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare the path as given
        return Path(os.path.abspath(path.expanduser()))


def _same_file(a: Path, b: Path) -> bool:
    if _resolved(a) == _resolved(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def session_folder_of(path: Path) -> Path | None:
    """The ``results/`` or ``sessions/`` folder of a session output folder that ``path`` lies in, if any."""
    resolved = _resolved(path)
    for folder in resolved.parents:
        if folder.name in SESSION_FOLDERS and (folder.parent / "sessions").is_dir():
            return folder
    return None


def check_output_path(out: str | Path, inputs: Iterable[str | Path] = (), *, what: str = "the output",
                      owned: Iterable[str | Path] = ()) -> Path:
    """``out`` if a command may write it; else a :class:`BenchlabError` naming it (the CLI exits 2).

    Refused: ``out`` is one of ``inputs`` (or the same file through a link), ``out`` lies inside a folder given
    as an input that is a session's ``results/``/``sessions/``, or ``out`` lies in any session's
    ``results/``/``sessions/`` folder that the command does not own (``owned``: folders it writes as a session).
    """
    target = Path(out)
    sources = [Path(p) for p in inputs]
    for source in sources:
        if source.is_dir():
            continue
        if (target.exists() and _same_file(target, source)) or _resolved(target) == _resolved(source):
            raise BenchlabError(f"refusing to write {what} onto one of this command's inputs; choose another file",
                                target)
    folder = session_folder_of(target)
    if folder is not None and not any(_resolved(Path(o)) in (folder, *folder.parents) for o in owned):
        raise BenchlabError(f"refusing to write {what} into a session's {folder.name}/ folder (only sessions write "
                            f"there); choose a file outside {folder}", target)
    return target
