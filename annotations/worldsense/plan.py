"""Session plans for WorldSense: whole tuples, the same number in every (problem, size) cell, spaced-out mates.

Why these rules (``shared/specs/worldsense.md`` sections 4, 7 and 10):

* scoring keeps a tuple only when all its 2-3 items are answered by the same participant, so whole tuples are
  sampled and every sampled tuple is answered whole;
* the confidence interval needs at least 2 tuples in each (problem, size) cell and equally filled cells;
* tuple mates sit next to each other in the file with a fixed gold order, so the order is shuffled (also inside
  each tuple) and mates are kept at least ``min_gap`` trials apart;
* practice items come from tuples nobody in the participant list is scored on.

Everything is derived from the seed with string-seeded ``random.Random`` generators, so the same seed gives the
same plan on every machine and Python version that keeps ``random``'s documented seeding.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.worldsense.plan_options import WorldSensePlanOptions
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.records import Trial

Cell = tuple[str, int]


@runtime_checkable
class PlanTuples(Protocol):
    """All a plan reads of a test set: the complete tuples of each cell and the Keys of the tuples it picks.

    A cached :class:`~benchlab.data.worldsense.trial_index.TrialIndex` answers both without loading the trials
    (a session on the full test set starts in milliseconds); :class:`TrialTuples` answers them from loaded trials.
    """

    def cells(self) -> dict[Cell, list[str]]:
        """The complete tuples of each (problem, size) cell (an incomplete tuple in the data cannot be scored)."""
        ...

    def tuple_keys(self, tuple_id: str) -> list[int]:
        """The Keys of a tuple's trials, in file order."""
        ...


class TrialTuples:
    """:class:`PlanTuples` over trials already loaded (the notebook API, tests)."""

    def __init__(self, trials: Iterable[Trial]) -> None:
        self._tuples: dict[str, list[Trial]] = {}
        for trial in trials:
            self._tuples.setdefault(trial.tuple_ID, []).append(trial)

    def cells(self) -> dict[Cell, list[str]]:
        cells: dict[Cell, list[str]] = {}
        for tid, members in self._tuples.items():
            first = members[0]
            if len(members) != len(first.expectedresp):
                continue
            cells.setdefault((first.problemname, first.problemsize), []).append(tid)
        return cells

    def tuple_keys(self, tuple_id: str) -> list[int]:
        return [t.Key for t in self._tuples[tuple_id]]


def build_worldsense_plan(
    trials: Sequence[Trial] | PlanTuples, *, dataset: str, participant: str, session: str, seed: int,
    options: WorldSensePlanOptions | None = None, exclude_tuples: Iterable[str] = (),
) -> SessionPlan:
    """Sample, assign, order and block one participant's session.

    ``exclude_tuples`` are tuples this participant already answered in earlier sessions (they are not sampled
    again, so a second session adds new tuples to the same results file). ``trials``: the loaded trials, or a
    :class:`PlanTuples` view such as the cached index (same plan either way).
    """
    opts = options or WorldSensePlanOptions()
    roster = opts.participants or (participant,)
    if participant not in roster:
        raise BenchlabError(f"participant {participant!r} is not in the participant list ({', '.join(roster)})")
    tuples = trials if isinstance(trials, PlanTuples) else TrialTuples(trials)
    excluded = set(exclude_tuples)
    cells = tuples.cells()
    mine, unassigned = _assign(cells, excluded, opts, roster, roster.index(participant), seed, dataset)
    practice = _pick_practice(unassigned, tuples, opts.practice, random.Random(f"benchlab/worldsense/practice/{seed}"))
    if len(practice) < opts.practice:
        raise OptionError(
            "practice", f"has only {len(practice)} tuples left outside the scored set for {opts.practice} practice "
            "trials; lower {practice} or {tuples_per_cell}", label="the test set", lead=False, path=Path(dataset),
        )
    items: list[str] = []
    group: dict[str, str] = {}
    for tid in mine:
        for key in tuples.tuple_keys(tid):
            items.append(str(key))
            group[str(key)] = tid
    order_rng = random.Random(f"benchlab/worldsense/order/{seed}/{participant}/{session}")
    order = spaced_shuffle(items, group, opts.min_gap, order_rng)
    blocks = [order[i:i + opts.block_size] for i in range(0, len(order), opts.block_size)]
    return SessionPlan(
        task="worldsense", dataset=dataset, participant=participant, session=session, seed=seed,
        config={
            "tuples_per_cell": opts.tuples_per_cell, "practice": opts.practice, "block_size": opts.block_size,
            "min_gap": opts.min_gap, "participants": list(roster), "cells": len(cells),
            "tuples": len(mine), "excluded_tuples": len(excluded),
        },
        practice=practice, blocks=blocks,
    )


def _assign(cells: dict[Cell, list[str]], excluded: set[str], opts: WorldSensePlanOptions, roster: Sequence[str],
            slot: int, seed: int, dataset: str) -> tuple[list[str], dict[Cell, list[str]]]:
    """This participant's tuples (their slot of each cell's shuffled tuples) and each cell's unassigned ones.

    Every participant of the roster shuffles with the same seed, so their slots never overlap.
    """
    sample_rng = random.Random(f"benchlab/worldsense/sample/{seed}")
    mine: list[str] = []
    unassigned: dict[Cell, list[str]] = {}
    need = opts.tuples_per_cell * len(roster)
    for cell in sorted(cells):
        pool = sorted(cells[cell])
        sample_rng.shuffle(pool)
        available = [t for t in pool if t not in excluded] if excluded else pool
        if len(available) < need:
            who = f" x {len(roster)} participants" if len(roster) > 1 else ""
            left = f" ({len(pool) - len(available)} already answered in earlier sessions)" if excluded else ""
            raise OptionError(
                "tuples_per_cell", f"{cell[0]} size {cell[1]} has {len(available)} usable tuples{left}; "
                f"{opts.tuples_per_cell} per cell{who} need {need}. Lower {{tuples_per_cell}} or use a larger test "
                "set", label="cell", lead=False, path=Path(dataset),
            )
        mine.extend(available[slot * opts.tuples_per_cell:(slot + 1) * opts.tuples_per_cell])
        unassigned[cell] = available[need:]
    return mine, unassigned


def _pick_practice(
    unassigned: dict[Cell, list[str]], tuples: PlanTuples, k: int, rng: random.Random
) -> list[str]:
    """``k`` items from distinct unscored tuples, cycling through the problems so practice shows each kind."""
    if k <= 0:
        return []  # nothing to draw (the draws below shuffle every unscored tuple: ~15 ms on the full test set)
    by_problem: dict[str, list[str]] = {}
    for (problem, _size), tids in sorted(unassigned.items()):
        by_problem.setdefault(problem, []).extend(tids)
    for tids in by_problem.values():
        rng.shuffle(tids)
    problems = sorted(by_problem)
    rng.shuffle(problems)
    chosen: list[str] = []
    while len(chosen) < k and any(by_problem.values()):
        for problem in problems:
            if len(chosen) >= k:
                break
            if by_problem[problem]:
                tid = by_problem[problem].pop()
                chosen.append(str(rng.choice(tuples.tuple_keys(tid))))
    return chosen


def spaced_shuffle(
    items: Sequence[str], group: dict[str, str] | dict[str, Hashable], min_gap: int, rng: random.Random,
    attempts: int = 2000,
) -> list[str]:
    """A random order in which two items of the same group have at least ``min_gap`` other items between them.

    Items are drawn one position at a time from the groups allowed there, weighted by how many items each group
    still has (so big groups are not left stranded at the end); a dead end restarts with the generator's next state.
    """
    need = max(1, min_gap)
    grouped: dict[Hashable, list[str]] = {}
    for item in items:
        grouped.setdefault(group[item], []).append(item)
    for _ in range(attempts):
        remaining = {g: rng.sample(members, len(members)) for g, members in grouped.items()}
        last: dict[Hashable, int] = {}
        order: list[str] = []
        while remaining:
            pos = len(order)
            allowed = [g for g in remaining if pos - last.get(g, -need - 1) > need]
            if not allowed:
                break
            g = rng.choices(allowed, weights=[len(remaining[a]) for a in allowed])[0]
            order.append(remaining[g].pop())
            last[g] = pos
            if not remaining[g]:
                del remaining[g]
        else:
            return order
    biggest = max((len(m) for m in grouped.values()), default=0)
    raise OptionError(
        "min_gap", f"cannot order {len(items)} trials so that the {biggest} items of a tuple are at least {need} "
        "trials apart; lower {min_gap} or sample more tuples", label="the plan", lead=False,
    )
