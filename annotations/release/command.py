"""``benchlab release DIR --out BUNDLE`` (see :mod:`benchlab.annotations.release.bundle`)."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.cards import help_of
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.options import Options, option
from benchlab.annotations.task import Command


class ReleaseOptions(Options):
    folder: Path = option(label="Study folder", argument=True, help="The study folder (or the sessions' output).")
    out: Path = option(label="Release folder", widget="folder", help="New or empty folder for the bundle.")


def release_command(opts: ReleaseOptions) -> str:
    # deferred: pandas and every task's session code load only when a release is made
    from benchlab.annotations.exclusions.dataset import load_data
    from benchlab.annotations.release.bundle import check_out, release
    from benchlab.annotations.report.build import build_report
    from benchlab.annotations.report.render import to_markdown

    check_out(opts.out)  # before minutes of work
    data = load_data([opts.folder])
    report = build_report(data)
    written = release(data, opts.out, to_markdown(report), report.tables)
    return f"wrote {len(written)} files to {opts.out} (manifest: {opts.out / 'SHA256SUMS'})"


RELEASE = Command("tool", help_of(CARDS, "release"), ReleaseOptions, release_command, name="release")
