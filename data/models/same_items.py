"""Same items on both sides of a human-vs-model comparison, and proof of it.

:func:`restrict_to_shared` keeps, for each model, only the units (items, or WorldSense tuples) that people
answered, and says how many were left out on each side: a model's bar then covers exactly the people's items
(a model sharing no item with the people keeps its own, said so, and is compared unpaired as before).
:func:`prompt_hash_notes` compares the prompt hashes people's records carry with those each model run recorded
(``models/*.run.json`` beside the results) and flags items whose hashes differ: the model was sent another prompt
(another template, another data version) than the one the people's items map to.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from benchlab.data.models.run_folder import MODELS_FOLDER, has_runs

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

U = TypeVar("U")


def shared_units(name: str, units: set[U], people: set[U], what: str = "items") -> tuple[set[U], str | None]:
    """The units a model keeps (those people also answered; all its own when it shares none) and the note saying
    what was left out on each side (``None`` when both sides answered exactly the same units)."""
    shared = units & people
    if not shared:
        return units, f"{name}: shares no {what} with the people; shown on its own {len(units)} {what} (unpaired)"
    model_only, people_only = len(units - people), len(people - units)
    if not (model_only or people_only):
        return shared, None
    return shared, (f"{name}: restricted to the {len(shared)} {what} both answered (left out: {model_only} the model "
                    f"answered and no person did, {people_only} people answered and the model did not)")


def restrict_to_shared(humans: pd.DataFrame, models: pd.DataFrame, *, unit: str = "unit", who: str = "who",
                       what: str = "items") -> tuple[pd.DataFrame, list[str]]:
    """The models' rows on the units people answered, and one note per model that lost or lacks some."""
    if humans.empty or models.empty:
        return models, []
    units = _categorical_units(humans, models, unit)
    people: set[object] | None = None
    if units is None:
        people = set(humans[unit])
        units = _factorized_units(models, people, unit)
    coded = _restrict_coded(models, *units, who, what) if units is not None else None
    if coded is not None:
        return coded
    people = set(humans[unit]) if people is None else people
    keep = []
    notes = []
    for name in sorted(models[who].unique()):
        own = models[models[who] == name]
        kept, note = shared_units(str(name), set(own[unit]), people, what)
        if note is not None:
            notes.append(note)
        keep.append(own[own[unit].isin(kept)])
    # deferred: pandas is loaded by every caller already (they pass frames)
    import pandas as pd

    return pd.concat(keep) if keep else models, notes


#: Each model row's unit as a number, whether people answered each number, and how many units people answered.
Units = tuple["np.ndarray", "np.ndarray", int]


def _categorical_units(humans: pd.DataFrame, models: pd.DataFrame, unit: str) -> Units | None:
    """:data:`Units` from two categorical unit columns of one dtype (unit ids whose categories are a whole
    test set's, e.g. 87k of them): their codes are the units, with no Python object per unit. ``None`` otherwise, or
    with a missing value."""
    # deferred: pandas and numpy are loaded by every caller already (they pass frames)
    import numpy as np
    import pandas as pd

    theirs, ours = models[unit], humans[unit]
    if not (isinstance(theirs.dtype, pd.CategoricalDtype) and theirs.dtype == ours.dtype):
        return None
    unit_codes, people_codes = theirs.cat.codes.to_numpy(), ours.cat.codes.to_numpy()
    if (unit_codes < 0).any() or (people_codes < 0).any():
        return None
    known = np.zeros(len(theirs.cat.categories), dtype=bool)
    known[people_codes] = True
    return unit_codes.astype(np.intp), known, int(known.sum())


def _factorized_units(models: pd.DataFrame, people: set[object], unit: str) -> Units | None:
    """:data:`Units` from the models' unit column factorised, one membership test per distinct unit; ``None`` when
    the column has missing values or values a set would take for one (then the sets decide, as before)."""
    # deferred: pandas and numpy are loaded by every caller already (they pass frames)
    import numpy as np
    import pandas as pd

    unit_codes, uniques = pd.factorize(models[unit])
    if (unit_codes < 0).any():
        return None
    values = uniques.tolist()
    if len(set(values)) != len(values):  # the codes must be the sets' own notion of "the same unit"
        return None
    known = np.fromiter((u in people for u in values), dtype=bool, count=len(values))
    return unit_codes, known, len(people)


def _restrict_coded(models: pd.DataFrame, unit_codes: np.ndarray, known: np.ndarray, n_people: int, who: str,
                    what: str) -> tuple[pd.DataFrame, list[str]] | None:
    """:func:`restrict_to_shared`'s answer from the units' codes: no Python set per model (a lab's four models'
    160k units cost ~0.07 s that way); the same rows in the same order and the same notes. ``None`` when the
    model column has missing values (then the sets decide, as before)."""
    # deferred: pandas and numpy are loaded by every caller already (they pass frames)
    import numpy as np
    import pandas as pd

    who_codes, names = pd.factorize(models[who])
    if (who_codes < 0).any():
        return None
    order = np.argsort(who_codes, kind="stable")  # each model's rows, in frame order
    bounds = np.searchsorted(who_codes[order], np.arange(len(names) + 1))
    rows_of = {names[k]: order[bounds[k]:bounds[k + 1]] for k in range(len(names))}
    keep = []
    notes = []
    for name in sorted(rows_of):
        rows = rows_of[name]
        mine = np.zeros(len(known), dtype=bool)  # the model's distinct units: marked, not sorted (40k a model)
        mine[unit_codes[rows]] = True
        own = int(mine.sum())
        shared = int((mine & known).sum())
        if not shared:
            notes.append(f"{name}: shares no {what} with the people; shown on its own {own} {what} (unpaired)")
            keep.append(rows)
            continue
        model_only, people_only = own - shared, n_people - shared
        if model_only or people_only:
            notes.append(f"{name}: restricted to the {shared} {what} both answered (left out: {model_only} the "
                         f"model answered and no person did, {people_only} people answered and the model did not)")
        keep.append(rows[known[unit_codes[rows]]])
    return models.take(np.concatenate(keep)), notes


def _human_hashes(files: Iterable[Path]) -> dict[str, set[str]]:
    """Item id -> prompt hashes in people's records (WorldSense ``Key``, SORT ``trial_id``, choice ``item``)."""
    out: dict[str, set[str]] = {}
    for path in files:
        try:
            if path.suffix == ".jsonl":
                with open(path, encoding="utf-8") as handle:
                    for raw in handle:
                        try:
                            rec = json.loads(raw)
                        except json.JSONDecodeError:
                            continue
                        item = rec.get("Key", rec.get("item"))
                        if isinstance(rec, dict) and rec.get("prompt_sha256") and item is not None:
                            out.setdefault(str(item), set()).add(str(rec["prompt_sha256"]))
            elif path.suffix == ".csv":
                with open(path, encoding="utf-8", newline="") as handle:
                    for row in csv.DictReader(handle):
                        if row.get("prompt_sha256") and row.get("trial_id"):
                            out.setdefault(row["trial_id"], set()).add(row["prompt_sha256"])
        except (OSError, UnicodeDecodeError):
            continue
    return out


def prompt_hash_notes(results: Sequence[str | Path], human_hashes: Mapping[str, set[str]] | None = None
                      ) -> list[str]:
    """One note per model run (``models/*.run.json`` beside or under each results folder) saying whether its
    recorded prompt hashes are the people's on the items both answered, or on how many they differ.

    ``human_hashes`` (item id -> the prompt hashes people's records carry) when the caller has read them already;
    otherwise they are read from the people's files in the folders (WorldSense/SORT ``*human*`` files). The
    people's files are not read at all when no folder has a model run."""
    notes: list[str] = []
    for raw in results:
        folder = Path(raw)
        if not folder.is_dir():
            continue
        places = [f for f in (folder.parent / MODELS_FOLDER, folder / MODELS_FOLDER) if has_runs(f)]
        if not places:
            continue
        # deferred: the runs' pydantic models load only for a folder with a run beside it
        from benchlab.data.models.provenance import read_runs

        runs = [run for place in places for run in read_runs(place)]
        hashes = human_hashes if human_hashes is not None else _human_hashes(
            p for p in folder.rglob("*") if p.is_file() and "human" in p.name and p.suffix in (".jsonl", ".csv"))
        if not hashes:
            continue
        for _path, run in runs:
            shared = [i for i in run.items if i.id in hashes]
            differ = [i.id for i in shared if i.prompt_sha256 not in hashes[i.id]]
            if differ:
                notes.append(f"{run.model_name}: the prompt sent differs from the people's items' prompt on "
                             f"{len(differ)} of {len(shared)} shared items (e.g. {differ[0]}; template "
                             f"{run.template!r}): not the same prompt")
            elif shared:
                notes.append(f"{run.model_name}: same prompts as the people's items on all {len(shared)} shared "
                             "items (SHA-256)")
    return notes
