"""The two task declarations: items files, model results, the plan defaults, and (for the scale) the trial kind.

Everything else (sessions, simulated participants, scoring, comparison, launcher line, Results screen) comes from
benchlab's choice-task kit; ``numbers-scale`` shows its trials on this package's own screen (``rating_screen.py``),
declared as the ``rating-scale`` kind in the ``benchlab.trial_screens`` entry-point group.
"""

from pathlib import Path

from benchlab.annotations.choice.task import make_choice_task

HERE = Path(__file__).resolve().parent

TASK = make_choice_task(
    name="numbers",
    title="Which number is larger",
    description="Two numbers are shown; choose the larger one. Integers, and decimals with different numbers of "
    "digits (where a longer number is not always the larger one).",
    items=HERE / "items.jsonl",
    model_results=HERE / "model_results.jsonl",
    items_per_stratum=8,  # 12 items per stratum: 8 scored, and practice drawn from the 4 left in each
    practice=2,
    block_size=8,
)

SCALE_TASK = make_choice_task(
    name="numbers-scale",
    title="Where does the number lie",
    description="A decimal number is shown; rate where it lies on the line from 0 to 1, from 1 (near 0) to 7 "
    "(near 1). The answer is the seventh of the line the number falls in.",
    items=HERE / "scale_items.jsonl",
    model_results=HERE / "scale_model_results.jsonl",
    instructions=[
        "# Where does the number lie\n\nEach question shows a number between 0 and 1. Rate where it lies on the "
        "line from 0 to 1: **1** is near 0, **7** is near 1.",
        "# How to answer\n\n* Press a **number key 1-7**, or click a point of the scale.\n"
        "* An answer is final: you cannot go back or change it.\n* Answer at a steady pace.",
    ],
    items_per_stratum=5,  # 7 items per stratum: 5 scored, practice drawn from the 2 left in each
    practice=2,
    block_size=5,
    trial_kind="rating-scale",
)
