"""WorldSense's plan options, declared once (``benchlab run worldsense``, the launcher form, resume warnings).

Kept apart from :mod:`benchlab.annotations.worldsense.plan` (which builds the plan from them) so that the task's
``run`` / ``serve`` help pages (:mod:`benchlab.annotations.worldsense.face`) load neither the trial records nor
the session plan, nor pydantic.
"""

from __future__ import annotations

from benchlab.annotations.options import OptionError, Options, field_validator, model_validator, option


class WorldSensePlanOptions(Options):
    """The design knobs a researcher sets (``benchlab run worldsense`` and the launcher form)."""

    tuples_per_cell: int = option(
        2, label="Tuples per (problem, size) cell", ge=2,
        problem="must be at least 2: with one tuple in a (problem, size) cell the confidence interval cannot be "
        "computed",
        help="Whole tuples sampled in each (problem, size) cell (at least 2, so every cell has a CI).")
    participants: tuple[str, ...] = option(
        (), label="Participant list (comma separated)",
        help="Comma-separated participant list: tuples are split between them so that a lab covers more items.")
    practice: int = option(4, label="Practice trials", ge=0,
                           problem="cannot be negative", help="Practice trials (outside the scored set).")
    block_size: int = option(30, label="Trials per block", ge=1,
                             help="Trials per block; a break between blocks.")
    min_gap: int = option(1, label="Minimum trials between tuple mates", ge=1,
                          problem="must be at least 1 (tuple mates are never adjacent)",
                          help="Minimum number of other trials between two items of the same tuple.")

    @field_validator("participants", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        """The form (and a config file) may give the list as one comma-separated string."""
        if isinstance(value, str):
            return tuple(p.strip() for p in value.split(",") if p.strip())
        return value

    @model_validator(mode="after")
    def _nobody_twice(self) -> WorldSensePlanOptions:
        if len(set(self.participants)) != len(self.participants):
            raise OptionError("participants", "names someone twice", label="the participant list")
        return self
