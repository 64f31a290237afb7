"""The options of opening the curation editor, declared once: ``benchlab curate fastbook`` (its click parameters)
and the launcher's Curate form are both generated from :class:`CurateOptions`, so a flag, its default and its
help are written in one place (they used to be declared twice, and their help texts had drifted apart)."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.options import Options, option


class CurateOptions(Options):
    """What the editor opens: the file, its chapters, the runs to re-score, who curates (and, on the command line
    only, the cut-off and a review of two copies)."""

    benchmark: Path | None = option(None, label="Benchmark file", widget="path",
                                    help="The fastbook-benchmark JSON to edit. Without it, the shared dataset (or "
                                    "else the bundled sample) opens read-only: make a working copy and open the "
                                    "copy to edit.")
    chapters: Path | None = option(None, label="Chapters folder", widget="folder",
                                   help="Folder with chapter_N.txt (or the notebooks). Default: beside the "
                                   "benchmark file.")
    runs: tuple[Path, ...] = option((), label="Retrieval runs", widget="path",
                                    help="Retrieval-run JSONL files to re-score after every edit (repeatable).")
    curator: str | None = option(None, label="Curator", help="Your name for the change log (default: "
                                 "$BENCHLAB_CURATOR or $USER).")
    plan: Path | None = option(None, label="Assignment plan", widget="path",
                               help="An assignment plan (benchlab fastbook assign): the list shows only the "
                               "curator's queue, with progress kept in <file>.progress.json.")
    k: int = option(10, label="Cut-off k", ge=1, form=False, help="Cut-off for MRR@k, Recall@k.")
    review: tuple[Path, Path] | None = option(None, label="Review", widget="path", form=False, metavar="A B",
                                              help="Review two curators' copies: every disagreement, take A, B or "
                                              "your own, save a merged file (never over A or B).")
    out: Path | None = option(None, label="Merged file", widget="path", form=False,
                              help="With --review: the merged file (default: A's name with .merged before the "
                              "suffix).")
