"""Fast columnar reading of the two WorldSense formats, for scoring.

Scoring needs six trial fields, not the 87k validated records, and results files are plain ``Key``/``resp``
pairs; pyarrow's JSON reader (explicit schema, so ``resp`` stays a string) reads them in milliseconds. Any
file the fast path does not accept is re-read line by line with the validating readers, which either accept it
or raise a :class:`BenchlabError` naming the file and line. Decoded trial columns are cached under the user
cache folder, keyed by the SHA-256 of the file's bytes, so a changed file is never served stale.
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import describe_validation_error, open_text
from benchlab.data.worldsense.loader import find_trials_file, load_trials
from benchlab.data.worldsense.records import ResultLine, Trial
from benchlab.data.worldsense.rules import GOLD_OBFUSCATION

CACHE_VERSION = "1"
#: Columns of the scoring view of a test set.
TRIAL_FIELDS = ("Key", "tuple_ID", "problemname", "problemsize", "expectedresp", "goldresp")


@dataclass(frozen=True)
class TrialColumns:
    """The scoring view of a test set: one row per trial, in file order, Key as int64.

    ``frame`` columns: Key (int64), tuple_ID, problemname (str), problemsize (int64), expectedresp (options
    joined by ``"|"``), goldresp (de-obfuscated).
    """

    frame: pd.DataFrame
    source: Path | None = None
    name: str = "trials"

    def __len__(self) -> int:
        return len(self.frame)


@dataclass
class ResultColumns:
    """One results file as columns: Keys (int64) and answers (str), with the names from its file name."""

    prompting: str
    modelname: str
    keys: np.ndarray
    resps: np.ndarray
    source: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return str(self.source) if self.source is not None else f"{self.prompting}___{self.modelname}"


# --------------------------------------------------------------------------------------------- trials


def trial_columns(trials: Sequence[Trial], name: str = "trials") -> TrialColumns:
    """Scoring view of already loaded :class:`Trial` records (e.g. a session's subset)."""
    frame = pd.DataFrame(
        {
            "Key": np.fromiter((t.Key for t in trials), dtype=np.int64, count=len(trials)),
            "tuple_ID": [t.tuple_ID for t in trials],
            "problemname": [t.problemname for t in trials],
            "problemsize": np.fromiter((t.problemsize for t in trials), dtype=np.int64, count=len(trials)),
            "expectedresp": ["|".join(t.expectedresp) for t in trials],
            "goldresp": [t.goldresp for t in trials],
        }
    )
    keys = frame["Key"]
    if keys.duplicated().any():
        raise BenchlabError(f"duplicate Key {int(keys[keys.duplicated()].iloc[0])} in the trials")
    return TrialColumns(frame=frame, name=name)


def read_trial_columns(path: str | Path, *, cache: bool = True) -> TrialColumns:
    """Scoring view of a test set (folder or trials file), from the cache when the file is unchanged."""
    file = find_trials_file(path)
    name = file.parent.name
    try:
        raw = file.read_bytes()
    except PermissionError as exc:
        raise BenchlabError("permission denied: cannot read this file", file) from exc
    except OSError as exc:
        raise BenchlabError(f"cannot read this file ({exc.strerror or exc})", file) from exc
    cache_file = _cache_path(hashlib.sha256(raw).hexdigest()) if cache else None
    if cache_file is not None and cache_file.exists():
        try:
            frame = pd.read_parquet(cache_file)
            return TrialColumns(frame=frame, source=file, name=name)
        except Exception:  # a damaged cache entry is rebuilt, never trusted
            cache_file.unlink(missing_ok=True)
    frame = _fast_trials(file, raw)
    if frame is None:
        # The validating reader raises a precise error (file + line) or accepts the file.
        frame = trial_columns(load_trials(file)).frame
    if cache_file is not None:
        _store(cache_file, frame)
    return TrialColumns(frame=frame, source=file, name=name)


def _cache_path(digest: str) -> Path | None:
    from platformdirs import user_cache_dir

    folder = Path(user_cache_dir("benchlab", appauthor=False)) / "worldsense"
    return folder / f"trials-v{CACHE_VERSION}-{digest}.parquet"


def _store(cache_file: Path, frame: pd.DataFrame) -> None:
    """Write the cache entry atomically; a cache that cannot be written is simply skipped."""
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, cache_file)
    except OSError:
        pass


def _fast_trials(file: Path, raw: bytes) -> pd.DataFrame | None:
    """Decode with pyarrow; ``None`` when anything looks off (the slow path then explains what)."""
    import pyarrow as pa
    import pyarrow.json as pj

    if file.suffix == ".bz2":
        try:
            data = bz2.decompress(raw)
        except (OSError, EOFError, ValueError):
            return None
    else:
        data = raw
    if not data.strip():
        return None
    schema = pa.schema(
        [
            ("Key", pa.int64()),
            ("tuple_ID", pa.string()),
            ("problemname", pa.string()),
            ("problemsize", pa.int64()),
            ("expectedresp", pa.list_(pa.string())),
            ("goldresp_obfusc", pa.string()),
            ("goldresp", pa.string()),
        ]
    )
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        table = pj.read_json(io.BytesIO(data), parse_options=options,
                             read_options=pj.ReadOptions(block_size=16 << 20))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    required = ("Key", "tuple_ID", "problemname", "problemsize", "expectedresp")
    if any(table.column(c).null_count for c in required):
        return None
    obf = table.column("goldresp_obfusc")
    plain = table.column("goldresp")
    if obf.null_count == 0 and plain.null_count == len(table):
        gold = pd.Series(obf.to_numpy(zero_copy_only=False), dtype=object).map(lambda v: GOLD_OBFUSCATION.get(v, v))
    elif plain.null_count == 0 and obf.null_count == len(table):
        gold = pd.Series(plain.to_numpy(zero_copy_only=False), dtype=object)
    else:
        return None
    options_list = table.column("expectedresp").to_pylist()
    joined = ["|".join(o) for o in options_list]
    # Every gold answer must be one of its trial's options (else an unknown obfuscated value).
    for combo in set(joined):
        allowed = set(combo.split("|"))
        mask = np.array([j == combo for j in joined])
        if not gold[mask].isin(allowed).all() or not combo:
            return None
    frame = pd.DataFrame(
        {
            "Key": table.column("Key").to_numpy(),
            "tuple_ID": table.column("tuple_ID").to_numpy(zero_copy_only=False),
            "problemname": table.column("problemname").to_numpy(zero_copy_only=False),
            "problemsize": table.column("problemsize").to_numpy(),
            "expectedresp": joined,
            "goldresp": gold.to_numpy(),
        }
    )
    if frame["Key"].duplicated().any():
        return None
    return frame


# --------------------------------------------------------------------------------------------- results


def read_result_columns(path: str | Path, prompting: str, modelname: str) -> ResultColumns:
    """Read one results file; a torn last line (a killed writer) is skipped with a note, anything else bad raises."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError as exc:
        raise BenchlabError("no such file", p) from exc
    except PermissionError as exc:
        raise BenchlabError("permission denied: cannot read this file", p) from exc
    except IsADirectoryError as exc:
        raise BenchlabError("is a folder, expected a results file", p) from exc
    except OSError as exc:
        raise BenchlabError(f"cannot read this file ({exc.strerror or exc})", p) from exc
    fast = _fast_results(raw)
    if fast is not None:
        keys, resps = fast
        return ResultColumns(prompting, modelname, keys, resps, source=p)
    keys_list, resps_list, notes = _slow_results(p)
    return ResultColumns(
        prompting, modelname, np.array(keys_list, dtype=np.int64), np.array(resps_list, dtype=object),
        source=p, notes=notes,
    )


def _fast_results(raw: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    import pyarrow as pa
    import pyarrow.json as pj

    if not raw.strip():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    if not raw.endswith(b"\n"):
        return None  # possibly a torn tail: let the careful reader decide
    schema = pa.schema([("Key", pa.int64()), ("resp", pa.string())])
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    try:
        table = pj.read_json(io.BytesIO(raw), parse_options=options, read_options=pj.ReadOptions(block_size=16 << 20))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    if table.column("Key").null_count or table.column("resp").null_count:
        return None
    return table.column("Key").to_numpy(), table.column("resp").to_numpy(zero_copy_only=False).astype(object)


def _slow_results(path: Path) -> tuple[list[int], list[str], list[str]]:
    """Line-by-line reading with one precise message per problem."""
    keys: list[int] = []
    resps: list[str] = []
    notes: list[str] = []
    with open_text(path) as handle:
        lines = handle.read().split("\n")
    torn_tail = lines[-1] != ""
    if not torn_tail:
        lines.pop()
    for index, text in enumerate(lines):
        lineno = index + 1
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            if torn_tail and index == len(lines) - 1:
                notes.append(f"line {lineno} is incomplete (the writer was stopped mid-line?); ignored")
                break
            raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", path, lineno) from exc
        if not isinstance(obj, dict):
            raise BenchlabError(f"expected a JSON object, found {type(obj).__name__}", path, lineno)
        try:
            record = ResultLine.model_validate(obj)
        except Exception as exc:
            from pydantic import ValidationError

            if isinstance(exc, ValidationError):
                message = describe_validation_error(exc)
                if isinstance(obj.get("resp"), int | float) and not isinstance(obj.get("resp"), bool):
                    message += f' (write it as a string, e.g. "{obj["resp"]}")'
                raise BenchlabError(message, path, lineno) from exc
            raise
        keys.append(record.Key)
        resps.append(record.resp)
    return keys, resps, notes
