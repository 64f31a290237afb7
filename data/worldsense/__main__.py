"""``python -m benchlab.data.worldsense -t DIR``: the scoring tables without loading the app or other commands.

Same output and messages as ``benchlab score worldsense``; meant for scripts, clusters and timing, where starting
the whole command-line tool (Textual, plotting, statistics) costs more than the scoring itself.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.score_cache import scored_output


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchlab.data.worldsense",
                                     description="Print WorldSense's accuracy and bias tables (95% CI).")
    parser.add_argument("-t", "--testset", required=True, type=Path, help="test-set folder (trials + results/)")
    parser.add_argument("--results", action="append", type=Path, default=[], help="results folder (repeatable)")
    parser.add_argument("--format", choices=("table", "csv", "json", "markdown", "latex"), default="table")
    parser.add_argument("--no-cache", action="store_true", help="decode the trials file even if cached")
    args = parser.parse_args(argv)
    try:
        output = scored_output(args.testset, args.results or [args.testset / "results"], args.format,
                               cache=not args.no_cache,
                               on_warning=lambda m: print(f"benchlab: warning: {m}", file=sys.stderr))
    except BenchlabError as exc:
        print(f"benchlab: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(output.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
