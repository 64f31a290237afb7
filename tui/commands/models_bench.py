"""``benchlab bench models``: the model run's cost on this machine and the import speed (figures, no asserts)."""

from __future__ import annotations

from pathlib import Path

import click

from benchlab.annotations.cards import help_of
from benchlab.tui.core_cards import CARDS


@click.command("models", help=help_of(CARDS, "bench models"))
@click.option("--task", "task_name", help="Task to measure (default: the first registered task that declares model "
              "prompts, in the launcher's order).")
@click.option("--model-base-url", help="An OpenAI-compatible server to use instead of starting SmolLM2 here.")
@click.option("--model", help="inspect model name for --model-base-url (default: openai-api/local/model).")
@click.option("--items", type=click.IntRange(min=1), default=8, show_default=True, help="Items asked.")
@click.option("--log-samples", "big", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Samples in the inspect log that is imported.")
@click.option("-t", "--testset", type=click.Path(path_type=Path),
              help="Data set whose items the big log answers (default: the task's own, its bundled sample).")
def bench_models(task_name: str | None, model_base_url: str | None, model: str | None, items: int, big: int,
                 testset: Path | None) -> None:
    # deferred: the bench loads inspect_ai and the task modules only when it runs
    from benchlab.annotations.models.bench import bench_models as run

    run(click.echo, task_name=task_name, base_url=model_base_url, model=model, items=items, big=big, testset=testset)
