"""The whole task declaration: an items file, model results, and the plan defaults.

Everything else (sessions, simulated participants, scoring, comparison, launcher line, Results screen) comes from
benchlab's choice-task kit.
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
    items_per_stratum=8,
    practice=2,
    block_size=8,
)
