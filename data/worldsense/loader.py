"""Loading WorldSense test sets: typed :class:`Trial` records, or a pandas DataFrame like the original's
``load_testset``.

Both read the file with ``json`` (never pandas type guessing) so Keys stay exact 64-bit integers, and both
refuse duplicate Keys, naming the two lines, because a duplicate would silently break the tuple join.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:  # pandas and pydantic load when needed, not with the scorer's fast readers
    import pandas as pd

    from benchlab.data.worldsense.records import Trial

#: Trial file names tried in a test-set folder, in this order.
TRIALS_FILENAMES = ("trials.jsonl.bz2", "trials.jsonl")

#: Column order of the DataFrame (the file's 15 fields with goldresp de-obfuscated, then the two added ones).
TRIAL_COLUMNS = (
    "Key", "problemname", "tuple_ID", "text", "expectedresp", "span", "descr", "query", "objects",
    "problemsize", "skin", "qskin", "complexity", "query_len", "goldresp",
)


def find_trials_file(path: str | Path) -> Path:
    """The trials file of a test-set folder (or ``path`` itself when it is a file)."""
    p = Path(path)
    if p.is_file():
        return p
    if not p.exists():
        raise BenchlabError("no such test-set folder or trials file", p)
    if not p.is_dir():
        raise BenchlabError("not a test-set folder or trials file", p)
    for name in TRIALS_FILENAMES:
        candidate = p / name
        if candidate.exists():
            return candidate
    raise BenchlabError(f"no trials file here (expected {' or '.join(TRIALS_FILENAMES)})", p)


def load_trials(path: str | Path) -> list[Trial]:
    """All trials of a test set (folder or file), validated, in file order."""
    # deferred: pydantic loads with the first validated trial, not with the scorer's fast readers
    from benchlab.data.jsonl import iter_json_lines, validate
    from benchlab.data.worldsense.records import Trial

    file = find_trials_file(path)
    trials: list[Trial] = []
    seen: dict[int, int] = {}
    for lineno, obj in iter_json_lines(file):
        trial = validate(Trial, obj, file, lineno)
        first = seen.setdefault(trial.Key, lineno)
        if first != lineno:
            raise BenchlabError(f"duplicate Key {trial.Key} (first on line {first})", file, lineno)
        trials.append(trial)
    if not trials:
        raise BenchlabError("the trials file is empty", file)
    return trials


def trials_frame(trials: Sequence[Trial], expname: str | None = None) -> pd.DataFrame:
    """A DataFrame with one row per trial (Key as int64), plus ``EXPNAME``/``EXP_i`` when ``expname`` is given."""
    # deferred: pandas loads only when `trials_frame` runs (this module loads with the CLI)
    import pandas as pd

    columns: dict[str, object] = {}
    for name in TRIAL_COLUMNS:
        values = [getattr(t, name) for t in trials]
        if name in ("expectedresp", "objects"):
            values = [list(v) for v in values]
        columns[name] = values
    frame = pd.DataFrame(columns)
    frame["Key"] = frame["Key"].astype("int64")
    for name in ("span", "problemsize", "query_len"):
        frame[name] = frame[name].astype("int64")
    if expname is not None:
        frame["EXPNAME"] = expname
        frame["EXP_i"] = range(len(frame))
    return frame


def load_testset(path: str | Path, add_extra_fields: bool = False) -> pd.DataFrame:
    """The test set as a DataFrame, shaped like the original's ``load_testset`` (17 columns, gold de-obfuscated).

    ``add_extra_fields`` adds ``bintern``, ``globcomplex``, ``domain`` and ``intraining`` for finer analyses.
    """
    file = find_trials_file(path)
    frame = trials_frame(load_trials(file), expname=file.parent.name)
    if add_extra_fields:
        add_extra_columns(frame)
    return frame


_SCALAR = ("old/young", "tall/short", "faster/slower", "happier/sadder", "rich/poor", "stronger/weaker")
_SPATIAL = ("obj_LeftRight", "people_LeftRight", "obj_FrontBack", "people_FrontBack", "obj_AboveBelow",
            "people_AboveBelow")
_TEMPORAL = ("courses", "shopping", "trips", "activities", "conversation", "race")
_IN_TRAINING = ("old/young", "tall/short", "faster/slower", "happier/sadder", "trips", "activities", "conversation",
                "race")
# Skins of the memorisation set: exact templates of the training set.
_MEMO_SCALAR = ("old/young/cats", "tall/short/buildings", "fast/slow/horses", "happy/sad/dog", "Heavy/Light/furniture",
                "High/Low/mountains", "Big/Small/boxes", "warm/cool/rivers", "loud/quiet/neighbors")
_MEMO_TEMPORAL = ("trips_countries", "activities_theater", "conversation_colleagues", "race_car", "grocery_store_list",
                  "birthorder", "plantation", "renovation", "detective")


def add_extra_columns(frame: pd.DataFrame) -> None:
    """Add the original's derived grouping columns that still carry meaning with the released problem names."""
    frame["bintern"] = frame["query_len"].map({2: "bin", 3: "tern"})
    level = frame["complexity"].map({"Complexity_0": 0, "Complexity_1": 1, "Complexity_2": 2})
    frame["globcomplex"] = (level + frame["query_len"] - 2).clip(upper=2)
    domain = {**dict.fromkeys(_SCALAR + _MEMO_SCALAR, "scalar"), **dict.fromkeys(_SPATIAL, "spatial"),
              **dict.fromkeys(_TEMPORAL + _MEMO_TEMPORAL, "temporal")}
    intraining = {**dict.fromkeys(_SCALAR + _SPATIAL + _TEMPORAL, "ood"), **dict.fromkeys(_IN_TRAINING, "ind"),
                  **dict.fromkeys(_MEMO_SCALAR + _MEMO_TEMPORAL, "memorization")}
    frame["domain"] = frame["skin"].map(domain)
    frame["intraining"] = frame["skin"].map(intraining)


def tuples_of(trials: Iterable[Trial]) -> dict[str, list[Trial]]:
    """Trials grouped by ``tuple_ID`` (file order kept inside each tuple and across tuples)."""
    groups: dict[str, list[Trial]] = {}
    for trial in trials:
        groups.setdefault(trial.tuple_ID, []).append(trial)
    return groups
