"""``benchlab models run|import|export|list``: models on the items people saw (inspect_ai as the engine).

Plain click commands (their options are the engine's, the same for every task); the work is in
:mod:`benchlab.annotations.models`, which reads each task through
:class:`~benchlab.annotations.task.PromptsModels`. Heavy modules (inspect_ai, pandas) load inside the commands.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, cast

import click

from benchlab.annotations.cards import help_of
from benchlab.data.models.imported import EpochRule
from benchlab.tui.commands.plugin_group import PluginAwareGroup
from benchlab.tui.core_cards import CARDS

_SELECT = [
    click.option("--study", type=click.Path(path_type=Path), help="Study folder: the items of its sessions' plans."),
    click.option("--plans", type=click.Path(path_type=Path),
                 help="Results folder (searched for sessions/*.plan.json): the items of those plans."),
    click.option("--all", "every", is_flag=True, help="Every item of the data set (with --limit N: the first N)."),
    click.option("--limit", type=click.IntRange(min=1), help="Ask at most N items."),
    click.option("--dataset", type=click.Path(path_type=Path),
                 help="Data set of the items (default: the plans' own, or the task's default with --all)."),
    click.option("--out", type=click.Path(path_type=Path),
                 help="Results folder to write to (default: the plans' results folder, beside the people)."),
    click.option("--template", default=None, help="Prompt template (default: the task's first; see `models list`)."),
]


def _with(options: list[Any]) -> Any:
    def wrap(fn: Any) -> Any:
        for opt in reversed(options):
            fn = opt(fn)
        return fn
    return wrap


def _task_and_selection(task_name: str, template: str | None, study: Path | None, plans: Path | None, every: bool,
                        limit: int | None, dataset: Path | None, out: Path | None,
                        ids: Any = None, ids_from: Path | None = None) -> tuple[Any, Any, str]:
    # deferred: the registry and the task modules load only when a models command runs
    from benchlab.annotations.models.items import prompting_of, select_items
    from benchlab.annotations.registry import registry

    task = registry().benchmark(task_name)
    chosen = template or next(iter(prompting_of(task).templates))
    selection = select_items(task, template=chosen, study=study, plans=plans, every=every, limit=limit,
                             dataset=dataset, out=out, ids=ids, ids_from=ids_from)
    return task, selection, chosen


@click.command("run", help=help_of(CARDS, "models run"))
@click.argument("task")
@click.option("--model", required=True, help="inspect_ai model: PROVIDER/NAME (openai-api/SERVICE/NAME, "
              "openai/NAME, anthropic/NAME, hf/NAME, ...).")
@click.option("--model-base-url", help="Base URL of an OpenAI-compatible server (vLLM, llama.cpp, Ollama, LM "
              "Studio), e.g. http://127.0.0.1:8080/v1.")
@click.option("--model-name", help="Name in the results files (default: the model's last path part).")
@_with(_SELECT)
@click.option("--max-connections", type=click.IntRange(min=1), default=4, show_default=True,
              help="Requests in flight at once.")
@click.option("--timeout", "timeout_s", type=click.IntRange(min=1), default=120, show_default=True,
              help="Seconds per request before inspect retries it.")
@click.option("--max-retries", type=click.IntRange(min=0), default=4, show_default=True,
              help="Retries (with backoff) per request before the run stops with an error.")
@click.option("--retry-wait", "retry_wait_s", type=click.FloatRange(min=0.01), default=None,
              help="Seconds before the first retry, doubling after (default: inspect's backoff, 3 s, jittered).")
@click.option("--temperature", type=float, help="Override the benchmark's sampling temperature.")
@click.option("--max-tokens", type=click.IntRange(min=1), help="Override the benchmark's max tokens.")
def run_cmd(task: str, model: str, model_base_url: str | None, model_name: str | None, study: Path | None,
            plans: Path | None, every: bool, limit: int | None, dataset: Path | None, out: Path | None,
            template: str | None, max_connections: int, timeout_s: int, max_retries: int,
            retry_wait_s: float | None, temperature: float | None, max_tokens: int | None) -> None:
    # deferred: the run machinery loads only when the command runs
    from benchlab.annotations.models.run import ModelRunRequest, run_model

    chosen_task, selection, chosen = _task_and_selection(task, template, study, plans, every, limit, dataset, out)
    request = ModelRunRequest(task=chosen_task, model=model, selection=selection, template=chosen,
                              base_url=model_base_url, model_name=model_name, max_connections=max_connections,
                              timeout_s=timeout_s, max_retries=max_retries, retry_wait_s=retry_wait_s,
                              temperature=temperature, max_tokens=max_tokens)
    summary = run_model(request, say=lambda line: click.echo(line, err=True))
    click.echo(summary.line(task, model))
    click.echo(f"provenance: {summary.provenance}")


@click.command("import", help=help_of(CARDS, "models import"))
@click.argument("task")
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--kind", type=click.Choice(["inspect", "lm-eval"]),
              help="Log kind (default: .eval/.json inspect, .jsonl lm-eval).")
@click.option("--epochs", type=click.Choice(["first", "majority", "per-epoch"]), default="first", show_default=True,
              help="Several answers to one item: the first, the most common, or each epoch as its own model.")
@click.option("--id-field", help="lm-eval: the document field holding the item id (default: id, Key, trial_id, "
              "item, else doc_id).")
@click.option("--filter", "filter_name", help="lm-eval: which filter's responses (when the file has several).")
@click.option("--model-name", help="Name in the results files (default: the log's model).")
@_with(_SELECT)
def import_cmd(task: str, log: Path, kind: str | None, epochs: str, id_field: str | None, filter_name: str | None,
               model_name: str | None, study: Path | None, plans: Path | None, every: bool, limit: int | None,
               dataset: Path | None, out: Path | None, template: str | None) -> None:
    # deferred: the import machinery loads only when the command runs
    from benchlab.annotations.models.importing import import_log, log_items

    if not (study or plans or every):
        every = True
    ids, read = log_items(log, task, kind, id_field, filter_name) if every else (None, None)  # --all: its items
    chosen_task, selection, chosen = _task_and_selection(task, template, study, plans, every, limit, dataset, out,
                                                         ids, log)
    summary = import_log(chosen_task, log, selection, template=chosen, kind=kind, epochs=cast(EpochRule, epochs),
                         id_field=id_field, filter_name=filter_name, model_name=model_name, log=read)
    click.echo(summary.line(task, log))


@click.command("export", help=help_of(CARDS, "models export"))
@click.argument("task")
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder for the EvalLog files (one per participant, <participant>.eval).")
@click.option("--template", default=None, help="Prompt template the samples' input shows (default: the task's first).")
def export_cmd(task: str, results: Path, out: Path, template: str | None) -> None:
    # deferred: inspect_ai loads only when the command runs
    from benchlab.annotations.models.export_human import export_sessions
    from benchlab.annotations.registry import registry

    written = export_sessions(registry().benchmark(task), results, out, template=template)
    for path in written:
        click.echo(str(path))


@click.command("list", help=help_of(CARDS, "models list"))
@click.argument("folder", type=click.Path(path_type=Path), default=Path("benchlab-results"))
def list_cmd(folder: Path) -> None:
    # deferred: the listing loads only when the command runs
    from benchlab.annotations.models.listing import runs_table

    click.echo(runs_table(folder))


def _made(cmd: click.Command) -> click.Command:
    return cmd


def models_group() -> PluginAwareGroup:
    group = PluginAwareGroup("models", help=help_of(CARDS, "models"))
    for cmd in (run_cmd, import_cmd, export_cmd, list_cmd):
        group.add_lazy(str(cmd.name), partial(_made, cmd))
    return group


def bench_models_command() -> click.Command:
    """``benchlab bench models`` (made when first looked up)."""
    # deferred: the bench module loads only when `bench models` is looked up
    from benchlab.tui.commands.models_bench import bench_models

    return bench_models
