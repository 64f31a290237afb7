"""The designs ``benchlab bench coverage`` simulates, declared by the benchmarks that run them (core names none).

A benchmark offers :class:`DeclaresCoverage` (``coverage_designs()``) on its registered declaration; each
:class:`CoverageDesign` says, as plain numbers, what one simulated person answers: cells (strata), the pool of units
per cell, the units each person answers per cell (fewer than the pool: each person's own subset, as the session
engine draws them), answers per unit and whether the score is the equal-weight mean over cells. A *sized* design
takes its units per person from ``--items`` (spread over its cells, everyone the same units), as a benchmark whose
sessions let the researcher choose how many units a person answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from benchlab.data.errors import BenchlabError


@dataclass(frozen=True)
class CoverageDesign:
    """One design of the coverage table (see the module docstring)."""

    #: The ``--design`` word (lower case, '-'), unique over the installed benchmarks.
    name: str
    #: The table's label; ``{per_cell}`` is filled with the units per person per cell.
    title: str
    cells: int
    pool_per_cell: int
    per_person_per_cell: int
    answers_per_unit: int = 1
    stratified: bool = True
    #: ``--items`` sets the units per person (``round(items / cells)`` per cell, the pool the same: everyone answers
    #: the same units).
    sized: bool = False

    def sized_to(self, items: int) -> CoverageDesign:
        """The design with ``items`` units per person when it is sized (itself otherwise)."""
        if not self.sized:
            return self
        per_cell = max(1, round(items / self.cells))
        return CoverageDesign(self.name, self.title, self.cells, per_cell, per_cell, self.answers_per_unit,
                              self.stratified, self.sized)

    @property
    def label(self) -> str:
        return self.title.replace("{per_cell}", str(self.per_person_per_cell))


@runtime_checkable
class DeclaresCoverage(Protocol):
    """A benchmark whose comparison designs ``bench coverage`` simulates (optional capability)."""

    def coverage_designs(self) -> tuple[CoverageDesign, ...]: ...


def declared_designs(benchmarks: Iterable[object]) -> dict[str, CoverageDesign]:
    """Every design the benchmarks declare, by ``--design`` word, in registry order."""
    found: dict[str, CoverageDesign] = {}
    for benchmark in benchmarks:
        if isinstance(benchmark, DeclaresCoverage):
            for design in benchmark.coverage_designs():
                found.setdefault(design.name, design)
    return found


def chosen_designs(declared: dict[str, CoverageDesign], names: Iterable[str], items: int) -> list[CoverageDesign]:
    """The designs asked for (all when none is named), sized to ``items``; an unknown name is one line listing the
    known ones."""
    wanted = list(dict.fromkeys(names)) or list(declared)
    unknown = [n for n in wanted if n not in declared]
    if unknown:
        raise BenchlabError(f"--design {unknown[0]}: no installed benchmark declares it (known: "
                            f"{', '.join(declared) or 'none'})")
    if not wanted:
        raise BenchlabError("no installed benchmark declares a coverage design")
    return [declared[n].sized_to(items) for n in wanted]
