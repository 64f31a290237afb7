"""What the curation editor opens, loaded and checked before any screen shows: the benchmark file (or the shared
one, read-only), its chapters, the runs to re-score, the curator's queue, and the working copy a curator edits.

Both the command line (``benchlab curate fastbook``) and the launcher's Curate form call these, so neither front
end imports the other; every problem is a ``BenchlabError`` naming the file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.progress import CuratorQueue
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook import locate
from benchlab.data.fastbook.benchmark import require_questions
from benchlab.data.fastbook.chapters import Chapter, load_chapters
from benchlab.data.fastbook.runs import Run, read_run


def load_queue(plan: Path, session: CurationSession) -> CuratorQueue:
    """The session's curator's queue in ``plan``; progress is saved beside the file, so it must be a writable copy."""
    if not session.writable:
        raise BenchlabError(f"a plan's progress is kept beside the benchmark file, which is read-only here "
                            f"({session.read_only_reason}); open your working copy with --benchmark", session.path)
    return CuratorQueue.open(plan, session.path, session.benchmark, session.curator)


def load_editor_inputs(
    benchmark_path: Path | None, chapters_dir: Path | None, run_paths: tuple[Path, ...] | list[Path],
    curator: str | None,
) -> tuple[CurationSession, dict[int, Chapter], list[Run]]:
    """The session, chapters and runs the editor needs; every problem is a ``BenchlabError`` naming the file."""
    # The default file is the shared dataset (or the bundled sample): browse it, never edit it in place.
    path = benchmark_path if benchmark_path is not None else default_benchmark()
    folder = chapters_dir if chapters_dir is not None else default_chapters(path)
    session = CurationSession.open(path, curator=curator, read_only=benchmark_path is None or locate.is_sample(path),
                                   chapters_dir=folder)
    require_questions(session.benchmark, path)
    chapters = load_chapters(folder, session.benchmark.chapters)
    runs = [read_run(p, session.benchmark) for p in run_paths]
    return session, chapters, runs


def default_benchmark() -> Path:
    """The file opened when none is named: the shared dataset, else the bundled sample."""
    return Path(locate.default_benchmark_path())


def default_chapters(benchmark_path: Path) -> Path:
    """Where the chapters of ``benchmark_path`` are when no folder is named: beside the file."""
    return Path(locate.chapters_dir_for(benchmark_path))


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
