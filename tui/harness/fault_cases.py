"""The file-level cases of ``benchlab bench faults``: each benchmark's folder declares groups of cases (study
files, exports, review, serve ...), each feeding a damaged or hostile input to the command a user types and
checking for what the issue-23 campaign found (data lost or duplicated, exit 70). Declared in the
``benchlab.fault_cases`` entry-point group, so this runner names no benchmark::

    [project.entry-points."benchlab.fault_cases"]
    my-exports = "my_package.fault_cases:export_cases"

An entry is a function ``(folder, rng, tally) -> None`` (:data:`~benchlab.tui.harness.fault_kit.FaultCases`); the
group's name is the entry's name with '-' read as a space. Every case then counts:

- *internal error*: an exit status other than 0 or 2, a traceback, or a hang;
- *lost*: a record that should be on disk is not (an assignment after a torn line, a participant's results file
  or a curator's copy overwritten, a decided component missing from a merged file);
- *duplicated*: a record or component there twice.

``python -m benchlab.tui.harness.fault_cases --root DIR --seed N --rounds R`` prints the tally as JSON (the
session-kill harness in ``benchlab.annotations.harness.faults`` runs it so the layers stay one way).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchlab.annotations.plugins import Entry, GroupReport, load_group, remember
from benchlab.tui.harness.fault_kit import CaseTally, FaultCases

ENTRY_POINT_GROUP = "benchlab.fault_cases"


def _problem(entry: Entry, obj: Any) -> str | None:
    if not callable(obj):
        return f"{type(obj).__name__} is not a group of fault cases: it is not callable as (folder, rng, tally)"
    return None


def fault_case_groups() -> tuple[GroupReport, dict[str, FaultCases]]:
    """Every declared group of cases, by its name as the table shows it (built-ins first, in declared order)."""
    report = remember(load_group(ENTRY_POINT_GROUP, _problem))
    return report, {entry.name.replace("-", " "): cases for entry, cases in report.loaded}


def run_cases(root: Path, seed: int = 0, rounds: int = 1) -> dict[str, CaseTally]:
    """Every declared group's cases ``rounds`` times (each round draws new cuts and decisions), tallied per group; a
    group that failed to load is one internal error with its reason."""
    rng = random.Random(f"benchlab/fault-cases/{seed}")
    report, groups = fault_case_groups()
    tallies = {group: CaseTally() for group in groups}
    for broken in report.broken:
        tallies[broken.entry.name.replace("-", " ")] = CaseTally(internal=1, problems=[
            f"{broken.entry.where()}: {broken.reason}"])
    for round_ in range(rounds):
        for group, run in groups.items():
            folder = root / f"round-{round_}" / group.replace(" ", "-")
            folder.mkdir(parents=True, exist_ok=True)
            try:
                run(folder, rng, tallies[group])
            except Exception as exc:
                tallies[group].internal += 1
                tallies[group].problems.append(f"{group}: the cases stopped: {exc!r}")
    return tallies


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    tallies = run_cases(args.root, args.seed, args.rounds)
    sys.stdout.write(json.dumps({g: asdict(t) for g, t in tallies.items()}) + "\n")


if __name__ == "__main__":
    _main()
