"""Results of a choice task: one JSONL format for people and models, and the scorer both go through.

A participant's session writes ``<out>/results/<participant>.jsonl``, one line per answered item::

    {"item": "n07", "response": "71", "participant": "P01", "rt_ms": 812.4, "onset_mono": ..., ...}

A model's results are the same lines with ``"model": "<name>"`` instead of ``participant`` (the timing fields are
optional), so one reader and one scorer serve both and a model run can sit in the same folder as the people. The
gold answers stay in the items file (:mod:`benchlab.data.choice.items`); a response is correct when it equals the
item's ``gold``; ``""`` (no valid answer, a skipped trial) and anything that is not an option count as wrong.

Two things are read but warned about (``on_warning``: one line per kind and file, with the count and the first
line), not refused, so results files written before these checks still score as before: a model answer that is
not ``""`` and not one of the item's options (it counts as wrong; usually an answer parser that kept the model's
wording, ``"B"`` or ``"71."`` for ``"71"``), and a second answer of the same participant or model to the same item
(only the first counts; usually a model run appended twice to one file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, StrictStr, model_validator

from benchlab.data.atomic import atomic_write_text
from benchlab.data.choice.items import ChoiceItem, ChoiceItems, items_of, load_choice_items
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import iter_json_lines, validate
from benchlab.data.tables import Table
from benchlab.data.version import __version__

if TYPE_CHECKING:
    import pandas as pd

OVERALL = "overall"
Kind = Literal["participant", "model"]
ResultsInput = str | Path | Sequence[str | Path]
Warn = Callable[[str], None]


class ChoiceRecord(BaseModel):
    """One line of a results file: a participant's timed answer, or a model's answer (``model`` set).

    The timing and provenance fields are those of the built-in tasks' human records, so response-time analyses read
    every task alike. Unknown fields are kept (a model run may carry its raw output or its prompt).
    """

    model_config = ConfigDict(extra="allow")

    item: StrictStr
    response: StrictStr
    participant: str | None = None
    model: str | None = None
    session: str | None = None
    task: str | None = None
    rt_ms: float | None = None
    onset_mono: float | None = None
    response_mono: float | None = None
    requested_mono: float | None = None
    handler_mono: float | None = None
    onset_source: str = ""
    timestamp: str | None = None
    trial_index: int | None = None
    block: int | None = None
    practice: bool = False
    skipped: bool = False
    input: str = "key"
    ignored_keys: int = 0
    simulated: str | None = None
    plan_seed: int | None = None
    benchlab_version: str = __version__
    interrupted: bool = False
    first_onset_mono: float | None = None
    #: SHA-256 of what the participant saw (text and options) and of the item's model prompt with the task's
    #: template (:func:`benchlab.annotations.choice.model_prompts.choice_hashes`): "same items", provably.
    stimulus_sha256: str | None = None
    prompt_sha256: str | None = None

    @model_validator(mode="after")
    def _one_author(self) -> ChoiceRecord:
        if (self.participant is None) == (self.model is None):
            raise ValueError("a results line names either a participant or a model (exactly one of the two)")
        return self

    @property
    def who(self) -> str:
        return self.participant if self.participant is not None else str(self.model)

    @property
    def kind(self) -> Kind:
        return "participant" if self.participant is not None else "model"


def results_files(paths: ResultsInput) -> list[Path]:
    """The ``*.jsonl`` files of the given files and folders (a session's output folder: its ``results/``)."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    out: list[Path] = []
    for raw in given:
        p = Path(raw)
        if p.is_dir():
            folder = p / "results" if (p / "results").is_dir() and not any(p.glob("*.jsonl")) else p
            out.extend(sorted(f for f in folder.glob("*.jsonl") if f.is_file()))
        elif p.exists():
            out.append(p)
        else:
            raise BenchlabError("no such file or folder", p)
    return list(dict.fromkeys(out))


def read_choice_records(path: str | Path) -> list[ChoiceRecord]:
    """Every line of one results file (a torn last line left by a killed session is skipped)."""
    return [validate(ChoiceRecord, obj, path, line) for line, obj in iter_json_lines(path, allow_torn_tail=True)]


class _Odd:
    """Answers of one file that are read but warned about: how many, and the first line."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self.first: int | None = None

    def add(self, line: int) -> None:
        self.count += 1
        self.first = line if self.first is None else self.first

    def report(self, file: Path, on_warning: Warn | None) -> None:
        if self.count and on_warning is not None:
            on_warning(f"{file}: {self.count} {self.what} (first on line {self.first})")


def read_choice_results(items: ChoiceItems | Sequence[ChoiceItem] | str | Path, paths: ResultsInput,
                        *, include_practice: bool = False, on_warning: Warn | None = None) -> pd.DataFrame:
    """One row per (who, item), first answer kept, with the item's stratum and correctness.

    Columns: ``who``, ``kind`` (participant/model), ``simulated``, ``item``, ``stratum``, ``response``,
    ``correct``, ``rt_ms``, ``file``, ``line``, ``prompt_sha256`` (a participant's record's, else ``""``). An item
    the items file does not know is an error naming its line;
    model answers outside the item's options and repeated answers go to ``on_warning`` (see the module docstring).
    """
    # deferred: pandas loads only when `read_choice_results` runs (annotations.choice.power loads this module without
    # it)
    import pandas as pd

    pool = _items(items)
    by_id = {item.id: item for item in pool}
    rows: list[dict[str, Any]] = []
    answered: set[tuple[Kind, str, str]] = set()
    for file in results_files(paths):
        outside = _Odd("model answers are not one of their item's options (they count as wrong)")
        repeated = _Odd("answers repeat an item the same participant or model already answered (only the first "
                        "counts)")
        for line, obj in iter_json_lines(file, allow_torn_tail=True):
            record = validate(ChoiceRecord, obj, file, line)
            if record.practice and not include_practice:
                continue
            item = by_id.get(record.item)
            if item is None:
                raise BenchlabError(f"item {record.item!r} is not in the items file", file, line)
            if record.kind == "model" and record.response != "" and record.response not in item.options:
                outside.add(line)
            key = (record.kind, record.who, record.item)
            if key in answered:
                repeated.add(line)
            answered.add(key)
            rows.append({"who": record.who, "kind": record.kind, "simulated": record.simulated or "",
                         "item": record.item, "stratum": item.stratum, "response": record.response,
                         "correct": record.response == item.gold,
                         "rt_ms": float("nan") if record.rt_ms is None else float(record.rt_ms),
                         "file": str(file), "line": line, "prompt_sha256": record.prompt_sha256 or ""})
        outside.report(file, on_warning)
        repeated.report(file, on_warning)
    columns = ["who", "kind", "simulated", "item", "stratum", "response", "correct", "rt_ms", "file", "line",
               "prompt_sha256"]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.drop_duplicates(["who", "item"], keep="first").reset_index(drop=True)


def _items(items: ChoiceItems | Sequence[ChoiceItem] | str | Path) -> tuple[ChoiceItem, ...]:
    if isinstance(items, str | Path):
        return load_choice_items(items).items
    return items_of(items)


def label(who: str, simulated: str) -> str:
    """A row label saying when a participant was simulated (as the comparison tables do)."""
    return f"{who} (simulated {simulated})" if simulated else who


def score_choice(items: ChoiceItems | Sequence[ChoiceItem] | str | Path, results: ResultsInput | pd.DataFrame,
                 *, title: str = "choice task", numeric: bool = False, on_warning: Warn | None = None,
                 same_items: bool = False) -> Table:
    """Accuracy of every participant and model per stratum and overall, with Wilson 95% CIs and n.

    ``overall`` is the share correct over all of one's trials (not a mean of strata), so its n is the number of
    trials. ``numeric`` gives proportions in separate columns (for csv/json) instead of formatted cells.
    ``same_items`` (``benchlab score`` without ``--all-items``): each model is scored on the items people answered
    only, as ``compare`` does; what was left out on each side and any item whose model prompt differs from the
    people's go to ``on_warning``.
    """
    # deferred: pandas and scipy load only when `score_choice` runs (annotations.choice.power loads this module without
    # them)
    import pandas as pd

    from benchlab.data.analysis.stats import wilson_ci

    pool = _items(items)
    frame = results if isinstance(results, pd.DataFrame) else read_choice_results(pool, results,
                                                                                  on_warning=on_warning)
    if same_items:
        frame = _on_shared_items(frame, results, on_warning)
    strata = list(dict.fromkeys(item.stratum for item in pool))
    rows: list[dict[str, Any]] = []
    pairs: list[tuple[str, str]] = list(dict.fromkeys(zip(frame["kind"].astype(str), frame["who"].astype(str),
                                                          strict=True)))
    order = sorted(pairs, key=lambda kw: (kw[0] != "participant", kw[1]))  # people first, then models
    for kind, who in order:
        own = frame[(frame["kind"] == kind) & (frame["who"] == who)]
        simulated = next((s for s in own["simulated"] if s), "")
        for stratum in [OVERALL, *strata]:
            sub = own if stratum == OVERALL else own[own["stratum"] == stratum]
            n = len(sub)
            if n == 0:
                continue
            k = int(sub["correct"].sum())
            lo, hi = wilson_ci(k, n)
            row: dict[str, Any] = {"who": label(who, simulated), "stratum": stratum, "kind": kind, "n": n,
                                   "correct": k}
            if numeric:
                row |= {"accuracy": round(k / n, 6), "ci_low": round(lo, 6), "ci_high": round(hi, 6)}
            else:
                row["accuracy % [95% CI]"] = f"{100 * k / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
            rows.append(row)
    table = pd.DataFrame(rows)
    if not table.empty:
        table = table.set_index(["who", "stratum"])
    return Table(f"{title}: accuracy per stratum (Wilson 95% CI)", table, empty_text="(no results)")


def write_model_results(path: str | Path, model: str, responses: Iterable[tuple[str, str]]) -> int:
    """Write a model's ``(item, response)`` pairs as a results file (atomically); returns the number of lines."""
    lines = [ChoiceRecord(item=item, response=response, model=model).model_dump_json(
        include={"item", "response", "model"}) for item, response in responses]
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return len(lines)


def prompt_hashes(humans: pd.DataFrame) -> dict[str, set[str]]:
    """Item id -> the model-prompt hashes the participants' records carry."""
    out: dict[str, set[str]] = {}
    for item, digest in zip(humans["item"], humans["prompt_sha256"], strict=True):
        if digest:
            out.setdefault(str(item), set()).add(str(digest))
    return out


def _on_shared_items(frame: pd.DataFrame, results: ResultsInput | pd.DataFrame, on_warning: Warn | None
                     ) -> pd.DataFrame:
    """The people's rows and each model's rows on the items people answered; the notes to ``on_warning``."""
    # deferred: pandas and the provenance reader load only when scoring runs
    import pandas as pd

    from benchlab.data.models.same_items import prompt_hash_notes, restrict_to_shared

    humans = frame[frame["kind"] == "participant"]
    models, notes = restrict_to_shared(humans, frame[frame["kind"] == "model"], unit="item")
    if not isinstance(results, pd.DataFrame):
        given = [results] if isinstance(results, str | Path) else list(results)
        notes += prompt_hash_notes(given, prompt_hashes(humans))
    for note in notes:
        if on_warning is not None:
            on_warning(note)
    return pd.concat([humans, models]) if not models.empty else humans
