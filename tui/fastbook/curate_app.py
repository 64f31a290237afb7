"""The app behind ``benchlab curate fastbook``: one screen, the context-annotation editor."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.annotations.fastbook.editor_inputs import load_editor_inputs, load_queue
from benchlab.annotations.fastbook.progress import CuratorQueue
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.tui.crash_app import CrashSafeApp
from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen


class CurateFastbookApp(CrashSafeApp[None]):
    """Opens the editor on an already loaded session (loading errors are reported by the CLI, before the UI)."""

    TITLE = "benchlab curate fastbook"

    def __init__(self, session: CurationSession, chapters: dict[int, Chapter], runs: list[Run] | None = None,
                 *, k: int = 10, queue: CuratorQueue | None = None) -> None:
        super().__init__()
        self.queue = queue
        self.session = session
        self.chapters = chapters
        self.runs = runs or []
        self.k = k

    def on_mount(self) -> None:
        self.push_screen(FastbookCurateScreen(self.session, self.chapters, self.runs, k=self.k, queue=self.queue))

    async def action_quit(self) -> None:
        """ctrl+q asks about unsaved changes like q does (it used to drop them silently)."""
        editors = [screen for screen in self.screen_stack if isinstance(screen, FastbookCurateScreen)]
        if not editors:
            self.exit()
        elif self.screen is editors[-1]:
            editors[-1].action_quit_editor()
        # else: a dialog is open over the editor; close it first.


def build_app(benchmark_path: Path | None, chapters_dir: Path | None, run_paths: tuple[Path, ...] | list[Path],
              curator: str | None, k: int = 10, *, plan: Path | None = None) -> CurateFastbookApp:
    """Load everything (raising ``BenchlabError`` on bad input) and return the editor app, not yet running."""
    session, chapters, runs = load_editor_inputs(benchmark_path, chapters_dir, run_paths, curator)
    queue = load_queue(plan, session) if plan is not None else None
    return CurateFastbookApp(session, chapters, runs, k=k, queue=queue)
