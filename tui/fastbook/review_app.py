"""``benchlab curate fastbook --review A B``: the review screen as an app (everything loaded before it starts)."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.fastbook.curation import default_curator
from benchlab.annotations.fastbook.review import Review
from benchlab.data.fastbook import locate
from benchlab.data.fastbook.chapters import Chapter, load_chapters
from benchlab.data.fastbook.runs import Run, read_run
from benchlab.tui.crash_app import CrashSafeApp
from benchlab.tui.fastbook.review_screen import CurateReviewScreen


class CurateReviewApp(CrashSafeApp[None]):
    TITLE = "benchlab curate fastbook: review"

    def __init__(self, review: Review, chapters: dict[int, Chapter], runs: list[Run], *, k: int = 10,
                 output: Path | None = None) -> None:
        super().__init__()
        self.review = review
        self.chapters = chapters
        self.runs = runs
        self.k = k
        self.output = output

    def on_mount(self) -> None:
        self.push_screen(CurateReviewScreen(self.review, self.chapters, self.runs, k=self.k, output=self.output))


def build_review_app(path_a: Path, path_b: Path, chapters_dir: Path | None, run_paths: tuple[Path, ...] | list[Path],
                     reviewer: str | None, *, k: int = 10, output: Path | None = None) -> CurateReviewApp:
    """Load and check both files, the chapters and the runs (``BenchlabError`` naming the file on bad input)."""
    review = Review.open(path_a, path_b, reviewer or default_curator(), output=output)
    folder = chapters_dir if chapters_dir is not None else locate.chapters_dir_for(path_a)
    chapters = load_chapters(folder, review.a.chapters)
    runs = [read_run(p, review.a) for p in run_paths]
    return CurateReviewApp(review, chapters, runs, k=k, output=output)
