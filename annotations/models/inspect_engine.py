"""The inspect_ai side of a model run: the items as an inspect ``Task``, a caching solver, the benchmark's scorer.

Kept apart from :mod:`benchlab.annotations.models.run` so that inspect_ai (and its providers) load only when a model
is really asked: a rerun with everything cached never imports it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from benchlab.annotations.task import ModelItem, ModelPrompting
from benchlab.data.errors import BenchlabError
from benchlab.data.models.cache import AnswerCache, CachedAnswer


def chat_messages(item: ModelItem) -> list[ChatMessage]:
    """The item's (role, content) pairs as inspect chat messages."""
    out: list[ChatMessage] = []
    for role, content in item.messages:
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


def first_token_top_logprobs(output: ModelOutput) -> dict[str, float] | None:
    """The first generated token's top candidates (token -> log-probability), when the provider returned them."""
    if not output.choices:
        return None
    logprobs = output.choices[0].logprobs
    if logprobs is None or not logprobs.content:
        return None
    first = logprobs.content[0]
    out = {first.token: first.logprob}
    for top in first.top_logprobs or []:
        out.setdefault(top.token, top.logprob)
    return out


@solver
def cached_generate(cache: AnswerCache, model: str, base_url: str, hashes: dict[str, str]) -> Solver:
    """Generate, then append the answer to the run's cache (fsynced) before the next item is asked."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state)
        item_id = str(state.sample_id)
        cache.add(CachedAnswer(id=item_id, prompt_sha256=hashes[item_id], model=model, base_url=base_url,
                               completion=state.output.completion,
                               top_logprobs=first_token_top_logprobs(state.output),
                               extra={"model_reported": state.output.model}))
        return state

    return solve


@scorer(metrics=[accuracy()])
def benchmark_scorer(prompting: ModelPrompting, items: dict[str, ModelItem]) -> Scorer:
    """The benchmark's own answer parsing, then right or wrong against the gold answer."""

    async def score(state: TaskState, target: Target) -> Score:
        item = items[str(state.sample_id)]
        answer = prompting.parse_answer(item, state.output.completion, first_token_top_logprobs(state.output))
        return Score(value=CORRECT if answer == item.gold else INCORRECT, answer=answer,
                     explanation=state.output.completion)

    return score


def run_inspect(task_name: str, model: str, base_url: str, items: Sequence[ModelItem], hashes: dict[str, str],
                prompting: ModelPrompting, generation: dict[str, Any], cache: AnswerCache, log_dir: Path, *,
                max_connections: int, timeout_s: int, max_retries: int, inspect_model: Any = None,
                retry_wait_s: float | None = None) -> list[Path]:
    """Ask ``items`` through inspect_ai; returns the log files. A failed run is one ``BenchlabError`` naming the
    model (the answers given before the failure are in the cache). Rate limits, timeouts and server errors are
    retried by inspect with exponential backoff (from 3 s, jittered; ``retry_wait_s``: another first wait), at most
    ``max_retries`` times per request."""
    default_api_key(model, base_url)
    if inspect_model is None and retry_wait_s is not None:
        inspect_model = _with_retry_wait(model, base_url, retry_wait_s)
    by_id = {item.id: item for item in items}
    samples = [Sample(id=item.id, input=chat_messages(item), target=item.gold,
                      metadata={"prompt_sha256": hashes[item.id], **{k: v for k, v in item.info.items()
                                                                      if isinstance(v, str | int | float | bool)}})
               for item in items]
    task = Task(dataset=MemoryDataset(samples, name=task_name), name=f"benchlab_{task_name}",
                solver=cached_generate(cache, model, base_url, hashes), scorer=benchmark_scorer(prompting, by_id))
    log_dir.mkdir(parents=True, exist_ok=True)
    try:
        logs = eval(task, model=inspect_model if inspect_model is not None else model,
                    model_base_url=base_url or None, log_dir=str(log_dir), display="none",
                    log_level="error", max_connections=max_connections, attempt_timeout=timeout_s,
                    max_retries=max_retries,
                    fail_on_error=True, **generation)
    except Exception as exc:  # inspect_ai raises for a provider it cannot start (unknown name, missing package)
        raise BenchlabError(f"model {model}: {_first_line(exc)}") from None
    paths = [Path(log.location) for log in logs if log.location]
    for log in logs:
        if log.status != "success":
            message = log.error.message if log.error is not None else log.status
            where = f" at {base_url}" if base_url else ""
            raise BenchlabError(f"model {model}{where} failed: {_first_line(message)}")
    return paths


def _with_retry_wait(model: str, base_url: str, first_wait_s: float) -> Any:
    """The inspect model with its retry backoff starting at ``first_wait_s`` (doubling, jittered by as much, at most
    64 times it) instead of inspect's 3 s: the same retries, sooner (for a local server, or tests)."""
    # deferred: tenacity comes with inspect_ai, loaded only here
    from inspect_ai.model import get_model
    from tenacity import wait_exponential, wait_random

    try:
        resolved = get_model(model, base_url=base_url or None)
    except Exception as exc:  # inspect_ai raises for a provider it cannot start (unknown name, missing package)
        raise BenchlabError(f"model {model}: {_first_line(exc)}") from None
    wait = wait_exponential(multiplier=first_wait_s, max=64 * first_wait_s) + wait_random(0, first_wait_s)
    # the provider's hook for its backoff (ModelAPI.retry_wait), set on this one instance
    resolved.api.retry_wait = lambda: wait  # type: ignore[method-assign]
    return resolved


def default_api_key(model: str, base_url: str) -> None:
    """A local OpenAI-compatible server needs no key, but inspect's providers refuse to start without one: set a
    placeholder for the provider when a base URL is given and no key is set (never overriding a real key)."""
    if not base_url:
        return
    provider = model.split("/")[0]
    if provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        os.environ["OPENAI_API_KEY"] = "benchlab-local"
    if provider == "openai-api":
        service = model.split("/")[1] if model.count("/") >= 2 else ""
        env = re.sub(r"[^A-Z0-9]", "_", service.upper()) + "_API_KEY"
        if service and not os.environ.get(env):
            os.environ[env] = "benchlab-local"


#: What the providers' retried errors mean, for the one line a failed run ends with.
RETRIED = {"RateLimitError": "rate limited (HTTP 429)", "APITimeoutError": "timed out",
           "APIConnectionError": "connection failed", "InternalServerError": "server error (HTTP 5xx)",
           "TimeoutError": "timed out", "AttemptTimeoutError": "no answer within --timeout"}


def _first_line(value: object) -> str:
    text = re.sub(r"\[/?(?:bold|italic|red|yellow|dim)\]", "", str(value)).strip()
    inner = re.search(r"RetryError\(<Future .* raised (\w+)>\)", text)
    if inner:
        text = f"{RETRIED.get(inner[1], inner[1])}: gave up after retrying with backoff (--max-retries)"
    return text.splitlines()[0][:300] if text else type(value).__name__
