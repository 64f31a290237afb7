"""The family of tests a comparison declares: one primary contrast, a multiplicity correction, the rest exploratory.

Starring every test of every condition, person and bin (56 tests for one WorldSense person and 4 models, about
165 for a SORT study) makes a "significant" cell a matter of how many were run. So a comparison declares its
**primary contrast** before looking: the pooled humans against each model on the design's overall score (one per
memory condition for SORT, each its own measurement). Those tests are the confirmatory family, corrected together
(Holm by default, which controls the family-wise error at 5% under any dependence; ``bonferroni`` or ``none`` on
request, and the table names which). Every other test (per problem, per bin, per person) is **exploratory**: its
p is printed uncorrected, without stars, and labelled so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

Correction = Literal["holm", "bonferroni", "none"]
CORRECTIONS: tuple[Correction, ...] = ("holm", "bonferroni", "none")
PRIMARY = "primary"
EXPLORATORY = "exploratory"


def adjust(p_values: Sequence[float], correction: Correction) -> list[float]:
    """Adjusted p-values of one family (NaN stays NaN and does not count towards the family size)."""
    valid = [(p, i) for i, p in enumerate(p_values) if p == p]
    out = [math.nan] * len(p_values)
    m = len(valid)
    if correction == "none":
        return [float(p) for p in p_values]
    if correction == "bonferroni":
        for p, i in valid:
            out[i] = min(1.0, p * m)
        return out
    running = 0.0  # Holm: step-down, monotone
    for rank, (p, i) in enumerate(sorted(valid)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def describe(correction: Correction, size: int) -> str:
    """The methods line of the family."""
    how = {"holm": "Holm's step-down correction", "bonferroni": "Bonferroni's correction",
           "none": "no correction (--correction none)"}[correction]
    return (f"Family of tests: the primary contrast is the pooled humans against each model on the overall score "
            f"({size} test{'s' if size != 1 else ''}, {how}; stars on the corrected p). Every other test (per "
            "condition, bin, problem or person) is exploratory: uncorrected p, no stars.")
