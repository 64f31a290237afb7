"""``benchlab models run TASK --model PROVIDER/NAME``: the benchmark's own prompts through inspect_ai, cached.

The engine is inspect_ai (its providers, retries with backoff, its ``.eval`` log): one inspect ``Task`` whose
samples are the items not yet answered, a solver that generates and appends each answer to the run's cache
(fsynced) before the next, and a scorer that parses the answer with the benchmark's own parser. The benchmark's
results file is then written from the cache, whole and atomically, so a killed run resumes without asking any
answered item again and a rerun with nothing new neither imports inspect nor contacts the model.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchlab.annotations.models.items import ItemSelection, prompting_of
from benchlab.annotations.task import Benchmark, ModelAnswer, ModelItem, ModelPrompting
from benchlab.data.errors import BenchlabError
from benchlab.data.models.cache import AnswerCache, CachedAnswer
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.models.provenance import ItemHashes, RunProvenance, run_filename, software_versions
from benchlab.data.models.run_folder import MODELS_FOLDER

CACHE_FILE = "cache.jsonl"
#: Versions recorded with every run (those installed).
PACKAGES = ("inspect_ai", "openai", "anthropic", "llama_cpp_python")


@dataclass
class ModelRunRequest:
    """What ``benchlab models run`` was asked (the options, checked)."""

    task: Benchmark
    model: str
    selection: ItemSelection
    template: str
    base_url: str | None = None
    model_name: str | None = None
    max_connections: int = 4
    timeout_s: int = 120
    max_retries: int = 4
    #: First wait (seconds) before a retry, doubling after; ``None``: inspect's own backoff (3 s, jittered).
    retry_wait_s: float | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    #: A ready inspect ``Model`` to use instead of resolving ``model`` (tests: ``mockllm`` with custom outputs).
    inspect_model: Any = None


@dataclass
class RunSummary:
    """What a run did: the files written, how many items were asked now, and how many came from the cache."""

    results: list[Path]
    provenance: Path
    asked: int
    cached: int
    invalid: int
    correct: int
    total: int
    logs: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    def line(self, task: str, model: str) -> str:
        return (f"{task} on {model}: {self.total} items ({self.asked} asked, {self.cached} from the cache), "
                f"{self.correct} correct, {self.invalid} without a valid answer; "
                f"results: {', '.join(str(p) for p in self.results)}")


def model_file_name(model: str) -> str:
    """The name results files carry for a model: its last path part, reduced to letters, digits and ``._+-``."""
    name = re.sub(r"[^A-Za-z0-9._+-]+", "-", model.rstrip("/").split("/")[-1]).strip("-.")
    if not name:
        raise BenchlabError(f"cannot make a file name from the model {model!r}; give --model-name")
    return name


def generation_of(prompting: ModelPrompting, request: ModelRunRequest) -> dict[str, Any]:
    out = dict(prompting.generation)
    if request.temperature is not None:
        out["temperature"] = request.temperature
    if request.max_tokens is not None:
        out["max_tokens"] = request.max_tokens
    return out


def run_model(request: ModelRunRequest, say: Callable[[str], None] = lambda _s: None) -> RunSummary:
    """Ask the model every selected item not in the cache, then write results and provenance."""
    start = time.perf_counter()
    prompting = prompting_of(request.task)
    model_name = request.model_name or model_file_name(request.model)
    base_url = request.base_url or ""
    results_dir = request.selection.results_dir
    models_dir = results_dir.parent / MODELS_FOLDER
    cache = AnswerCache(models_dir / CACHE_FILE).load()
    items = request.selection.items
    hashes = {item.id: prompt_sha256(item.messages) for item in items}
    pending = [item for item in items if cache.get(item.id, hashes[item.id], request.model, base_url) is None]
    generation = generation_of(prompting, request)
    provenance_path = models_dir / run_filename(request.task.name, model_name, request.template)
    if not pending and _up_to_date(provenance_path, hashes, request.model, base_url, generation):
        prov = RunProvenance.model_validate_json(provenance_path.read_text(encoding="utf-8"))
        return RunSummary([Path(p) for p in prov.results], provenance_path, 0, len(items), prov.invalid_answers,
                          prov.correct, len(items),
                          seconds=time.perf_counter() - start)
    logs: list[Path] = []
    failure: BenchlabError | None = None
    if pending:
        say(f"benchlab: asking {request.model} {len(pending)} item(s) ({len(items) - len(pending)} cached)")
        if base_url:
            check_reachable(request.model, base_url)
        # deferred: inspect_ai (and its providers) load only when a model is really asked
        from benchlab.annotations.models.inspect_engine import run_inspect

        try:
            logs = run_inspect(request.task.name, request.model, base_url, pending, hashes, prompting, generation,
                               cache, models_dir / "logs", max_connections=request.max_connections,
                               timeout_s=request.timeout_s, max_retries=request.max_retries,
                               inspect_model=request.inspect_model, retry_wait_s=request.retry_wait_s)
        except BenchlabError as exc:
            failure = exc
    answers: list[ModelAnswer] = []
    for item in items:
        hit = cache.get(item.id, hashes[item.id], request.model, base_url)
        if hit is None:
            continue
        answers.append(ModelAnswer(item, hit.completion, prompting.parse_answer(item, hit.completion,
                                                                                 hit.top_logprobs),
                                   hit.top_logprobs))
    results: list[Path] = []
    if answers:
        results_dir.mkdir(parents=True, exist_ok=True)
        results = prompting.write_results(results_dir, model_name, request.template, answers)
    invalid = sum(1 for a in answers if a.answer in ("", "X"))
    correct = sum(1 for a in answers if a.answer == a.item.gold)
    prov = RunProvenance(
        task=request.task.name, model=request.model, model_name=model_name, base_url=base_url,
        template=request.template, generation=generation, versions=software_versions(*PACKAGES),
        items=[ItemHashes(id=a.item.id, prompt_sha256=hashes[a.item.id], stimulus_sha256=text_sha256(a.item.stimulus))
               for a in answers],
        results=[str(p) for p in results], logs=[str(p) for p in [*_old_logs(provenance_path), *logs]],
        requests=len(pending), cached=len(items) - len(pending), invalid_answers=invalid,
        plans=[str(p) for p in request.selection.plans], correct=correct,
    )
    if failure is not None and not answers:  # nothing to record: an earlier run's files stay as they were
        raise BenchlabError(f"{failure} (no answers yet; run again to resume)")
    models_dir.mkdir(parents=True, exist_ok=True)
    path = prov.save(models_dir)
    if failure is not None:
        raise BenchlabError(f"{failure} ({len(answers)} of {len(items)} answers kept; run again to resume)")
    return RunSummary(results, path, len(pending), len(items) - len(pending), invalid, correct, len(items), logs,
                      seconds=time.perf_counter() - start)


def check_reachable(model: str, base_url: str, timeout_s: float = 5.0) -> None:
    """Fail at once, in one line, when nothing listens at the base URL (inspect would retry for minutes)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BenchlabError(f"model {model}: --model-base-url {base_url!r} is not an http(s) URL")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout_s).close()
    except OSError as exc:
        raise BenchlabError(f"model {model}: cannot reach {base_url} ({exc.strerror or exc}); is the server "
                            "running?") from None


def _old_logs(path: Path) -> list[str]:
    if not path.exists():
        return []
    try:
        return list(RunProvenance.model_validate_json(path.read_text(encoding="utf-8")).logs)
    except ValueError:
        return []


def _up_to_date(path: Path, hashes: dict[str, str], model: str, base_url: str, generation: dict[str, Any]) -> bool:
    """The provenance file says this run already wrote results for exactly these prompts, and they exist."""
    if not path.exists():
        return False
    try:
        prov = RunProvenance.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    return (prov.model == model and prov.base_url == base_url and prov.generation == generation
            and {i.id: i.prompt_sha256 for i in prov.items} == hashes
            and all(Path(p).exists() for p in prov.results))


def cached_answer(item: ModelItem, prompt_hash: str, model: str, base_url: str, completion: str,
                  top_logprobs: dict[str, float] | None, **extra: Any) -> CachedAnswer:
    return CachedAnswer(id=item.id, prompt_sha256=prompt_hash, model=model, base_url=base_url, completion=completion,
                        top_logprobs=top_logprobs, extra=extra)
