"""The answer cache of a model run: one fsynced JSON line per answered item, so a killed run never asks twice.

Each line records the item id, the SHA-256 of the prompt sent, the model and base URL, the model's text and the
first token's top log-probabilities (when the provider gave them). A cached answer is reused only when the model,
base URL and prompt hash all match, so a changed template or another model asks again. A torn last line (a run
killed while writing) is ignored on reading and cut before the next append.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlab.data.atomic import append_line
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import drop_torn_tail, iter_json_lines


@dataclass(frozen=True)
class CachedAnswer:
    """One model answer as the cache keeps it."""

    id: str
    prompt_sha256: str
    model: str
    base_url: str
    completion: str
    top_logprobs: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        payload: dict[str, Any] = {"id": self.id, "prompt_sha256": self.prompt_sha256, "model": self.model,
                                   "base_url": self.base_url, "completion": self.completion}
        if self.top_logprobs is not None:
            payload["top_logprobs"] = self.top_logprobs
        payload.update(self.extra)
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class AnswerCache:
    """The cache file of one output folder (``<out>/models/cache.jsonl``), shared by every model run there."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._by_key: dict[tuple[str, str, str, str], CachedAnswer] = {}
        self._loaded = False

    def load(self) -> AnswerCache:
        """Read the file (a torn last line is skipped); a malformed earlier line is an error naming it."""
        self._by_key.clear()
        if self.path.exists():
            for lineno, obj in iter_json_lines(self.path, allow_torn_tail=True):
                try:
                    answer = CachedAnswer(
                        id=str(obj["id"]), prompt_sha256=str(obj["prompt_sha256"]), model=str(obj["model"]),
                        base_url=str(obj.get("base_url", "")), completion=str(obj["completion"]),
                        top_logprobs=obj.get("top_logprobs"),
                        extra={k: v for k, v in obj.items()
                               if k not in {"id", "prompt_sha256", "model", "base_url", "completion",
                                            "top_logprobs"}})
                except KeyError as exc:
                    raise BenchlabError(f"not a model answer cache line (missing {exc.args[0]!r})",
                                        self.path, lineno) from None
                self._by_key[(answer.id, answer.prompt_sha256, answer.model, answer.base_url)] = answer
        self._loaded = True
        return self

    def get(self, item: str, prompt_sha256: str, model: str, base_url: str) -> CachedAnswer | None:
        if not self._loaded:
            self.load()
        return self._by_key.get((item, prompt_sha256, model, base_url))

    def add(self, answer: CachedAnswer) -> None:
        """Append one answer, fsynced before returning (the run may be killed right after)."""
        if not self._loaded:
            self.load()
        key = (answer.id, answer.prompt_sha256, answer.model, answer.base_url)
        if key in self._by_key:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        drop_torn_tail(self.path)
        append_line(self.path, answer.to_json())
        self._by_key[key] = answer
