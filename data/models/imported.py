"""Model answers read from other tools' logs, as plain rows: item id, epoch, text, first-token log-probabilities.

Readers (:mod:`benchlab.data.models.inspect_logs`, :mod:`benchlab.data.models.lm_eval`) give
:class:`ImportedAnswer` rows; :func:`reduce_epochs` applies the declared rule when an item has several answers
(epochs of an inspect run, repeats of an lm-eval run): ``first``, ``majority`` (the most common parsed answer,
ties to the earliest) or ``per-epoch`` (each epoch becomes its own model, ``<name>@e<k>``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

EpochRule = Literal["first", "majority", "per-epoch"]
EPOCH_RULES: tuple[EpochRule, ...] = ("first", "majority", "per-epoch")


@dataclass(frozen=True)
class ImportedAnswer:
    """One answer in a log: the id the log gives, its epoch (1 when the log has none), the model's text."""

    id: str
    epoch: int
    completion: str
    line: int | None = None
    top_logprobs: dict[str, float] | None = None
    messages: tuple[tuple[str, str], ...] | None = None
    choice_index: int | None = None  # lm-eval loglikelihood tasks: the option with the highest log-likelihood
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportedLog:
    """A log's answers and what its header says (task, model, base URL, generation settings)."""

    kind: str
    answers: list[ImportedAnswer]
    task: str = ""
    model: str = ""
    base_url: str = ""
    generation: dict[str, Any] = field(default_factory=dict)
    #: Ids in the log whose samples were not read (not among the items asked for: see ``read_inspect_log``).
    other_ids: frozenset[str] = frozenset()


def reduce_epochs(answers: Sequence[ImportedAnswer], rule: EpochRule, parse: Callable[[ImportedAnswer], str]
                  ) -> dict[int, dict[str, tuple[ImportedAnswer, str]]]:
    """Epoch key (0 for ``first``/``majority``, k for ``per-epoch``) -> item id -> (answer row, parsed answer)."""
    by_item: dict[str, list[ImportedAnswer]] = {}
    for answer in answers:
        by_item.setdefault(answer.id, []).append(answer)
    out: dict[int, dict[str, tuple[ImportedAnswer, str]]] = {}
    for item, rows in by_item.items():
        rows = sorted(rows, key=lambda r: r.epoch)
        if rule == "per-epoch":
            for row in rows:
                out.setdefault(row.epoch, {})[item] = (row, parse(row))
        elif rule == "first":
            out.setdefault(0, {})[item] = (rows[0], parse(rows[0]))
        else:
            parsed = [(row, parse(row)) for row in rows]
            counts = Counter(p for _r, p in parsed)
            top = max(counts.values())
            winner = next((r, p) for r, p in parsed if counts[p] == top)
            out.setdefault(0, {})[item] = winner
    return out
