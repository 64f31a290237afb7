"""What every file-level case of ``benchlab bench faults`` shares, whichever benchmark folder declares it: the
tally of one group of cases, the in-process CLI call, and the exit check.

A benchmark's own cases (in its ``tui/<benchmark>/`` folder) import these and register through the
``benchlab.fault_cases`` entry-point group (:mod:`benchlab.tui.harness.fault_cases`), so the runner names none.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import TypeAlias

from benchlab.tui.cli import main


@dataclass
class CaseTally:
    """What the cases of one group did."""

    cases: int = 0
    lost: int = 0
    duplicated: int = 0
    internal: int = 0
    problems: list[str] = field(default_factory=list)


#: One group's cases: (a fresh folder of its own, the campaign's random draws, the tally to add to).
FaultCases: TypeAlias = Callable[[Path, Random, CaseTally], None]


def cli(*args: str) -> tuple[int, str]:
    """``benchlab ARGS`` in this process: the exit status and everything printed (70 for an escaped exception)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:
            code = 70
            out.write(f"Traceback: {exc!r}")
    return code, out.getvalue()


def check_exit(tally: CaseTally, name: str, code: int, text: str, want: tuple[int, ...] = (0, 2)) -> None:
    """Count one case; an exit outside ``want`` is a problem, and an internal error when it is neither 0 nor 2 or
    printed a traceback."""
    tally.cases += 1
    if code not in want or "Traceback" in text:
        tally.internal += 1 if code not in (0, 2) or "Traceback" in text else 0
        tally.problems.append(f"{name}: exit {code}: {text.strip().splitlines()[-1] if text.strip() else ''}")
