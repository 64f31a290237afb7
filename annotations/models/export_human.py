"""People as inspect_ai logs: ``benchlab models export TASK RESULTS --out DIR``.

One ``EvalLog`` per participant (model ``human/<participant id>``), one sample per scored trial: the item's model
prompt as input (what a model would be sent for the same item), the person's answer as the output, the
benchmark's own correctness as the score (``C``/``I``), and the timing, session and hashes in the sample's
metadata. inspect's own ``read_eval_log`` reads them, so people appear beside models in ``inspect view`` and
``inspect_ai.analysis.samples_df``. The trials come from the task's trial export
(:class:`~benchlab.annotations.task.ExportsTrials`), the items from the plans beside the results.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score

from benchlab.annotations.models.inspect_engine import chat_messages
from benchlab.annotations.models.items import find_plans, prompting_of
from benchlab.annotations.task import Benchmark, ExportsTrials
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.version import __version__

METADATA_KEYS = ("session", "trial_index", "block", "condition", "rt_ms", "timestamp", "onset_source", "flags",
                 "stimulus_sha256", "prompt_sha256")


def _plain(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def export_sessions(task: Benchmark, results: Path, out: Path, *, template: str | None = None) -> list[Path]:
    """Write ``<out>/<participant>.eval`` for every person under ``results``; returns the files."""
    if not isinstance(task, ExportsTrials):
        raise BenchlabError(f"the task {task.name!r} has no trial export, so its sessions cannot be exported")
    prompting = prompting_of(task)
    chosen = template or next(iter(prompting.templates))
    folder = results if results.is_dir() else results.parent
    plans = find_plans(folder if any(folder.rglob("*.plan.json")) else folder.parent, task.name)
    items = {item.id: item for item in prompting.model_items(None, [p for _f, p in plans], chosen)}
    export = task.trial_export
    testset = Path(plans[0][1].dataset) if export.testset_needed is not None else None
    rows = export.rows([results], testset)
    by_person: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("practice"):
            continue
        by_person.setdefault(str(row["participant"]), []).append(row)
    if not by_person:
        raise BenchlabError("no human sessions here", results)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for person, trials in sorted(by_person.items()):
        samples = []
        for row in trials:
            item_id = str(row.get("trial_id") or row["item"])
            item = items.get(item_id)
            if item is None:
                raise BenchlabError(f"participant {person}: trial item {item_id!r} is in no plan beside the results",
                                    row.get("source_file") or results)
            answer = str(row.get("response", ""))
            meta = {k: _plain(row.get(k)) for k in METADATA_KEYS if k in row}
            meta.setdefault("prompt_sha256", prompt_sha256(item.messages))
            meta.setdefault("stimulus_sha256", text_sha256(item.stimulus))
            samples.append(EvalSample(
                id=item_id, epoch=1, input=chat_messages(item), target=item.gold,
                messages=[*chat_messages(item), ChatMessageAssistant(content=answer)],
                output=ModelOutput.from_content(f"human/{person}", answer),
                scores={"benchlab": Score(value=CORRECT if row.get("correct") else INCORRECT, answer=answer)},
                metadata={**meta, "simulated": _plain(row.get("simulated") or "")},
                total_time=(float(row["rt_ms"]) / 1000 if row.get("rt_ms") is not None else None),
            ))
        accuracy = sum(1 for s in samples if s.scores and s.scores["benchlab"].value == CORRECT) / len(samples)
        log = EvalLog(
            status="success",
            eval=EvalSpec(created=datetime.now(UTC).isoformat(timespec="seconds"), task=f"benchlab_{task.name}",
                          dataset=EvalDataset(name=task.name, samples=len(samples),
                                              sample_ids=[s.id for s in samples]),
                          model=f"human/{person}", config=EvalConfig(),
                          metadata={"benchlab_version": __version__, "template": chosen, "source": str(results)}),
            results=EvalResults(total_samples=len(samples), completed_samples=len(samples),
                                scores=[EvalScore(name="benchlab", scorer="benchlab",
                                                  metrics={"accuracy": EvalMetric(name="accuracy", value=accuracy)})]),
            samples=samples,
        )
        path = out / f"{person}.eval"
        write_eval_log(log, str(path))
        written.append(path)
    return written
