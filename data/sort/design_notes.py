"""What SORT's methods notes say beyond the statistics: the mixed model offered as the primary analysis, the
human study the design extends, the time since reading and where in the book the segments lie.

Kept apart from :mod:`benchlab.data.sort.compare` (which declares the comparison) because it is text and one
descriptive table, not a statistic of the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from benchlab.data.tables import Table

#: people needed before the mixed model is offered as the primary analysis: with fewer, the person variance of a
#: binomial GLMM is not estimable in practice (singular fits), and the crossed t of the tables is what holds
LME4_MIN_PEOPLE = 5

LME4_SCRIPT = (
    "library(lme4); d <- read.csv('sort.csv', colClasses = c(item = 'character', session = 'character', "
    "simulated = 'character')); d <- subset(d, !practice & (is.na(simulated) | simulated == '')); "
    "d$correct <- as.integer(d$correct); d$log_distance <- log(d$distance_words); "
    "for (cond in unique(d$condition)) { s <- subset(d, condition == cond); "
    "m <- glmer(correct ~ log_distance + (1|participant) + (1|item), family = binomial, data = s); "
    "print(cond); print(summary(m)$coefficients) }")


def lme4_note(people_per_memory: Mapping[str, int], bins_per_memory: Mapping[str, int], paths: list[str]) -> str:
    """The primary SORT analysis where the data allow it (the README's model: accuracy against distance with
    people and items random), with the command that runs it; or why it is not offered."""
    ready = [m or "all" for m, n in people_per_memory.items()
             if n >= LME4_MIN_PEOPLE and bins_per_memory.get(m, 0) >= 2]
    if not ready:
        most = max(people_per_memory.values(), default=0)
        return (f"Mixed model (lme4): not offered as the primary analysis here: it needs >= {LME4_MIN_PEOPLE} people "
                f"and >= 2 distance bins in a condition (the most people in one condition: {most}); the crossed "
                "people x items tables stand.")
    folders = " ".join(paths) or "RESULTS"
    return (f"Primary analysis (offered: {', '.join(ready)}): the mixed model of accuracy against log distance "
            "with people and items random, per condition, in R: `benchlab export trials sort "
            f"{folders} --out sort.csv && Rscript -e \"{LME4_SCRIPT}\"`. The tables' primary contrast (pooled humans "
            "vs each model) stays the comparison with the models.")


def extension_note(memories: set[str]) -> str | None:
    """STM in people extends the paper, whose human study was long-term memory only (whole books read before)."""
    stm = sorted(m for m in memories if m.startswith("STM"))
    if not stm:
        return None
    return (f"{', '.join(stm)} in people is an extension of the paper's design: its human study was long-term "
            "memory only (people who had read the whole book); the models' STM runs are the paper's, the people's "
            "are not.")


def since_reading_note(hours: Mapping[str, float]) -> str | None:
    """Time since reading the book, as asked at the start of each whole-book LTM session."""
    if not hours:
        return None
    known = {p: h for p, h in hours.items() if h == h}
    missing = sorted(p for p, h in hours.items() if h != h)
    parts = [f"{p} {h / 24:.1f} days" if h >= 48 else f"{p} {h:.0f} h" for p, h in sorted(known.items())]
    return ("LTM time since reading the book (asked at the start of the session): " + ("; ".join(parts) or "none")
            + (f"; not recorded: {', '.join(missing)}" if missing else "") + ".")


def position_table(answers: pd.DataFrame) -> tuple[Table, Table] | None:
    """Where in the book the two segments of whole-book trials lie, per gap bin (share of the book from its
    start): a long gap forces one segment near each end, so gap and position go together; this shows how much."""
    if "design" not in answers.columns or "seg1_pos" not in answers.columns:
        return None
    whole = answers[(answers["design"] == "whole-book") & answers["seg1_pos"].notna()]
    if whole.empty:
        return None
    length = whole["excerpt_length"].to_numpy(dtype=float)
    first = whole["seg1_pos"].to_numpy(dtype=float) / length
    second = whole["seg2_pos"].to_numpy(dtype=float) / length
    rows = []
    for b in dict.fromkeys(whole["bin"].tolist()):
        sel = (whole["bin"] == b).to_numpy()
        mid = (first[sel] + second[sel]) / 2
        rows.append({"gap bin": b, "trials": int(sel.sum()),
                     "earlier segment (mean % of book)": 100 * float(first[sel].mean()),
                     "later segment (mean % of book)": 100 * float(second[sel].mean()),
                     "midpoint (mean %)": 100 * float(mid.mean()),
                     "midpoint SD (%)": 100 * float(np.std(mid)) if sel.sum() > 1 else math.nan})
    numeric = pd.DataFrame(rows).set_index("gap bin")
    formatted = numeric.map(lambda x: "n/a" if isinstance(x, float) and x != x else (f"{x:.1f}" if isinstance(
        x, float) else x))
    title = "SORT: position of the segments in the book per gap bin (whole-book trials, people)"
    return Table(title, formatted), Table(title, numeric.round(3))
