"""What a ``power`` plan will cost before it runs, and the bound past which it is refused.

``power sort --participants 500 --max-participants 500 --simulations 20000 --items-per-cell 500 --cells 200`` once
passed 6.9 GB and ran past two minutes with no end in sight: every simulated study draws an array of people x units
x answers and runs a permutation test over it, for every number of participants the search tries. The estimate
below counts those simulated answers (measured: about 5 microseconds each, permutation test included, on one
core of the lab machine) and the largest arrays (about 80 bytes per answer of the biggest study), and refuses
a plan past :data:`MAX_SECONDS` or :data:`MAX_BYTES` with one line saying which option to lower.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchlab.data.errors import BenchlabError

#: Seconds per simulated answer (measured with ``n_perm=500``; 5-10 us on the lab machine; the lower end is used
#: so the refusal never hits a plan that would in fact finish in time).
SECONDS_PER_ANSWER = 5e-6
#: Bytes held per answer of the largest simulated study (draws, probabilities, scores, ids, permutations).
BYTES_PER_ANSWER = 80
#: A plan estimated past either bound is refused (the whole command must stay under 500 MB of memory).
MAX_SECONDS = 600.0
MAX_BYTES = 300 * 1024 * 1024


@dataclass(frozen=True)
class PowerCost:
    """The estimated size of a plan: simulated answers in all, seconds, and bytes of the largest study."""

    answers: int
    seconds: float
    peak_bytes: int


def estimate_cost(units: int, answers_per_unit: int, participants: int, max_participants: int, simulations: int,
                  grid: Sequence[int]) -> PowerCost:
    """The cost of the worst case of :func:`benchlab.data.analysis.power.plan`: ``participants``, every grid
    size up to ``max_participants`` and a bisection's few more (counted as one more of the largest)."""
    sizes = [participants, *[n for n in grid if n <= max_participants]]
    largest = max(sizes)
    per_person = units * answers_per_unit
    answers = simulations * per_person * (sum(sizes) + largest)
    return PowerCost(answers, answers * SECONDS_PER_ANSWER, largest * per_person * BYTES_PER_ANSWER)


def check_power_cost(cost: PowerCost) -> None:
    """Refuse a plan past the bounds, before anything is simulated (one line, exit 2)."""
    if cost.seconds > MAX_SECONDS or cost.peak_bytes > MAX_BYTES:
        raise BenchlabError(
            f"this plan would simulate {cost.answers:,} answers (about {_duration(cost.seconds)} and "
            f"{cost.peak_bytes / 1024**2:,.0f} MB; the limits are {_duration(MAX_SECONDS)} and "
            f"{MAX_BYTES / 1024**2:,.0f} MB): lower --simulations, --cells, --items-per-cell or --max-participants")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:,.0f} h"
